; SPDX-License-Identifier: MIT
; trampoline.asm - where an application processor starts: real mode in a
; page below 1 MiB, straight into 64-bit long mode, then a call into C.
;
; A Startup IPI starts the AP in real mode at CS:IP = (vector << 8):0000
; (Intel SDM Vol. 3A 9.4.4.1, 11.6.1), so this code must run below 1 MiB at a
; page boundary: smp.c copies it to a page the memory map says is usable
; and fills in the parameter block before each start.  Which page is known
; only at run time, so the code is position-independent: real mode reaches
; the block through DS = CS, the far jump into 64-bit code goes through an
; address smp.c stores in the block, and 64-bit code addresses the block
; RIP-relative.  Only one AP uses the block at a time: smp.c waits for each
; AP to report before starting the next.
;
; The parameter block sits at TP_OFFSET from the start; struct
; trampoline_params in kernel/smp.c mirrors it and _Static_asserts pin every
; offset below.

TP_OFFSET       equ 0x100
TP_CR3          equ TP_OFFSET + 0       ; u32: page-table root (below 4 GiB)
TP_CR4          equ TP_OFFSET + 4       ; u32: the boot CPU's CR4, copied whole
TP_GDT          equ TP_OFFSET + 8       ; u16 limit + u32 base: for o32 lgdt
TP_STACK        equ TP_OFFSET + 16      ; u64: top of this AP's stack
TP_ENTRY        equ TP_OFFSET + 24      ; u64: void ap_entry(u64 arg)
TP_ARG          equ TP_OFFSET + 32      ; u64: argument for ap_entry
TP_JUMP         equ TP_OFFSET + 40      ; u32 offset + u16 selector: trampoline_long_mode's address

%include "boot/control_regs.inc"

GDT_CODE64      equ 0x08
GDT_DATA        equ 0x10

section .trampoline
bits 16
global trampoline_start
trampoline_start:
	cli
	cld
	mov ax, cs                      ; CS = this page's address >> 4
	mov ds, ax                      ; so DS-relative offsets below work
	o32 lgdt [TP_GDT]               ; the kernel's GDT (it lives below 4 GiB)
	; CR4 as the boot CPU runs it (PAE, and MCE where the CPU has it),
	; written whole: what firmware left here must not survive.
	mov eax, [TP_CR4]
	ENABLE_LONG_MODE [TP_CR3]       ; the boot CPU's identity map
	; The far jump loads the 64-bit code segment: from here on, 64-bit mode.
	jmp dword far [TP_JUMP]

bits 64
global trampoline_long_mode
trampoline_long_mode:
	LOAD_DATA_SEGMENTS GDT_DATA
	mov rsp, [rel trampoline_start + TP_STACK]
	mov rdi, [rel trampoline_start + TP_ARG]
	xor ebp, ebp                    ; a zero frame pointer ends backtraces
	mov rax, [rel trampoline_start + TP_ENTRY]
	call rax                        ; ap_entry never returns
.hang:
	cli
	hlt
	jmp .hang

%if ($ - trampoline_start) > TP_OFFSET
%error "trampoline code overlaps its parameter block"
%endif
	times TP_OFFSET - ($ - trampoline_start) db 0
trampoline_params:
	times 48 db 0
