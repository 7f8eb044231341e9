; SPDX-License-Identifier: MIT
; isr.asm - one entry stub per interrupt vector, all funnelling into C.
;
; The CPU pushes SS, RSP, RFLAGS, CS, RIP and, for some exceptions, an error
; code (Intel SDM Vol. 3A 6.14.1, 6.13).  Each stub pushes a dummy error code
; where the CPU does not, then its vector number, so every frame has the same
; shape: struct trap_frame in kernel/trap.h, whose layout mirrors the pushes
; below exactly.  The frame is 16-byte aligned when trap_dispatch is called.

section .text
bits 64
extern trap_dispatch

; Vectors for which the CPU pushes an error code (SDM Vol. 3A table 6-1).
%define HAS_ERROR(v) ((v) == 8 || (v) == 10 || (v) == 11 || (v) == 12 || (v) == 13 || (v) == 14 || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

%assign vec 0
%rep 256
isr_stub_ %+ vec:
%if HAS_ERROR(vec) == 0
	push 0
%endif
	push vec
	jmp isr_common
%assign vec vec + 1
%endrep

isr_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	mov rdi, rsp                    ; struct trap_frame *
	cld                             ; the C ABI expects DF clear
	call trap_dispatch
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16                     ; vector and error code
	iretq

section .rodata
align 8
global isr_stub_table
isr_stub_table:                         ; 256 stub addresses, read by idt.c
%assign vec 0
%rep 256
	dq isr_stub_ %+ vec
%assign vec vec + 1
%endrep
