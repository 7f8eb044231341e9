; SPDX-License-Identifier: MIT
; entry.asm - Multiboot2 header and the boot CPU's way from 32-bit protected
; mode into 64-bit long mode.
;
; GRUB (BIOS and UEFI alike) enters _start in 32-bit protected mode with
; paging off, EAX = the Multiboot2 magic and EBX = the physical address of
; the boot information (Multiboot2 3.3).  We check both that we were loaded
; by a Multiboot2 loader and that the CPU can run 64-bit code, identity-map
; the first 4 GiB with 2 MiB pages (kernel, ACPI tables, framebuffer and the
; APIC all live there on the machines we target; C maps anything higher),
; turn on long mode (Intel SDM Vol. 3A 10.8.5) and call kernel_main.

MB2_MAGIC           equ 0xe85250d6      ; header magic (Multiboot2 3.1.1)
MB2_ARCH_I386       equ 0               ; 32-bit protected-mode entry
MB2_BOOT_MAGIC      equ 0x36d76289      ; what the loader leaves in EAX
MB2_TAG_END         equ 0
MB2_TAG_FRAMEBUFFER equ 5
MB2_TAG_OPTIONAL    equ 1

FB_WIDTH            equ 1024            ; a mode every GOP and VBE offers
FB_HEIGHT           equ 768
FB_DEPTH            equ 32

COM1                equ 0x3f8
COM1_IER            equ COM1 + 1        ; divisor high byte while DLAB is set
COM1_LCR            equ COM1 + 3
COM1_LSR            equ COM1 + 5
LCR_DLAB            equ 0x80
LCR_8N1             equ 0x03
BAUD_DIVISOR        equ 1               ; 115200 baud from the 1.8432 MHz UART clock / 16
LSR_THR_EMPTY       equ 0x20
SERIAL_SPINS        equ 100000          ; LSR polls per byte before sending anyway
DEBUG_EXIT_PORT     equ 0xf4            ; QEMU isa-debug-exit (kernel/power.c)
DEBUG_EXIT_FAIL     equ 0x11
DEBUG_EXIT_READ     equ 0x00            ; the device reads as 0; an undecoded port as 0xff
CPUID1_ECX_HV       equ 1 << 31         ; "running under a hypervisor"
VGA_TEXT            equ 0xb8000         ; colour text buffer, 80 x 25 cells of char + attribute
VGA_CELLS           equ 80 * 25
VGA_ATTR_ALERT      equ 0x4f            ; white on red

%include "boot/control_regs.inc"

CPUID_EXT_MAX       equ 0x80000000
CPUID_EXT_FEATURES  equ 0x80000001
CPUID_EDX_LM        equ 1 << 29

PTE_PRESENT         equ 1 << 0
PTE_WRITE           equ 1 << 1
PTE_HUGE            equ 1 << 7          ; 2 MiB page in a page directory
IDENTITY_GIB        equ 4               ; page directories, one per GiB
BOOT_STACK_SIZE     equ 16384

GDT_CODE64          equ 0x08
GDT_DATA            equ 0x10

section .multiboot2
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header)) & 0xffffffff
	; Ask for a linear framebuffer, so the screen console works under UEFI
	; (which has no VGA text mode); optional, so text mode still boots.
align 8
	dw MB2_TAG_FRAMEBUFFER
	dw MB2_TAG_OPTIONAL
	dd 20
	dd FB_WIDTH
	dd FB_HEIGHT
	dd FB_DEPTH
align 8
	dw MB2_TAG_END
	dw 0
	dd 8
mb2_header_end:

; Page tables get a 2 MiB region of their own (linker.ld): under nested KVM
; the host may write-protect a whole 2 MiB guest page that holds page
; tables and emulate every write to it, and its emulator cannot do
; LOCK CMPXCHG16B ("KVM internal error ... emulation failure").
section .bss.pagetables nobits alloc write align=4096
global boot_pml4
boot_pml4:      resb 4096
boot_pdpt:      resb 4096
boot_pd:        resb 4096 * IDENTITY_GIB

section .bss
align 16
boot_stack:     resb BOOT_STACK_SIZE
global boot_stack_top
boot_stack_top:

section .rodata
align 16
global gdt64
gdt64:                                  ; shared with the AP trampoline's final load
	dq 0                            ; null descriptor
	dq 0x00af9a000000ffff           ; 0x08: 64-bit code, DPL 0 (L=1, D=0)
	dq 0x00cf92000000ffff           ; 0x10: data, writable
gdt64_end:
global gdt64_pointer
gdt64_pointer:
	dw gdt64_end - gdt64 - 1
	dq gdt64

msg_bad_magic:  db 13, 10, "boot: EAX is not the Multiboot2 magic 0x36d76289; load this kernel with a Multiboot2 loader (GRUB)", 13, 10, 0
msg_no_lm:      db 13, 10, "boot: this CPU has no long mode (CPUID 0x80000001 EDX bit 29); a 64-bit CPU is required", 13, 10, 0

section .text.boot
bits 32
global _start
_start:
	cli
	cld
	mov esp, boot_stack_top
	cmp eax, MB2_BOOT_MAGIC
	jne .bad_magic
	mov edi, eax                    ; keep magic and info for kernel_main
	mov esi, ebx

	; Long mode needs CPUID's extended leaf 0x80000001 and its LM bit.
	mov eax, CPUID_EXT_MAX
	cpuid
	cmp eax, CPUID_EXT_FEATURES
	jb .no_long_mode
	mov eax, CPUID_EXT_FEATURES
	cpuid
	test edx, CPUID_EDX_LM
	jz .no_long_mode

	; PML4[0] -> PDPT; PDPT[i] -> PD i; each PD maps 1 GiB in 2 MiB pages.
	mov eax, boot_pdpt
	or eax, PTE_PRESENT | PTE_WRITE
	mov [boot_pml4], eax
	xor ecx, ecx
.fill_pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, PTE_PRESENT | PTE_WRITE
	mov [boot_pdpt + ecx * 8], eax
	inc ecx
	cmp ecx, IDENTITY_GIB
	jb .fill_pdpt
	xor ecx, ecx                    ; ecx = 2 MiB page number, 0 .. 2047
.fill_pd:
	mov eax, ecx
	shl eax, 21                     ; low 32 bits of the physical address
	or eax, PTE_PRESENT | PTE_WRITE | PTE_HUGE
	mov [boot_pd + ecx * 8], eax
	mov eax, ecx
	shr eax, 11                     ; bits 32+ of the address (page >> 11)
	mov [boot_pd + ecx * 8 + 4], eax
	inc ecx
	cmp ecx, IDENTITY_GIB * 512
	jb .fill_pd

	; CR4 written whole (control_regs.inc).  Setting a bit the CPU lacks
	; is #GP, so MCE goes in only when CPUID reports it (every 64-bit CPU
	; does; emulators may not).  The APs copy this value (smp.c).
	mov eax, CPUID_FEATURES
	cpuid
	mov eax, CR4_BASE
	test edx, CPUID1_EDX_MCE
	jz .set_cr4
	or eax, CR4_MCE
.set_cr4:
	ENABLE_LONG_MODE boot_pml4
	lgdt [gdt64_pointer]            ; 32-bit lgdt reads the low 4 base bytes
	jmp GDT_CODE64:long_mode_entry  ; load the 64-bit CS: now in 64-bit mode

.bad_magic:
	mov esi, msg_bad_magic
	jmp boot_fail32
.no_long_mode:
	mov esi, msg_no_lm
	; fall through

; Print the string at ESI on COM1 and on the VGA text screen (a person at
; a PC without a serial cable must see why it stopped), then halt.  The
; text buffer is what GRUB leaves under BIOS when it keeps text mode (no
; VBE, or a display without one); when it set up a framebuffer (it does for
; our header's request whenever VBE or GOP offers one) the message is not
; visible, and only COM1 has it.  Under UEFI the range 0xa0000-0xbffff is
; still the legacy video window, decoded to the display or to nothing, so
; the stores are harmless there.  Only under a
; hypervisor (CPUID.1:ECX bit 31) whose port 0xf4 reads as the debug-exit
; device does (see kernel/power.c for what that port is on a real PC) is
; the failure also written there, ending QEMU with status 35.
boot_fail32:
	; 115200 8N1, as kernel/serial.c sets it: firmware may leave the UART
	; in another format (Bochs's BIOS leaves 5 data bits, which garbles text).
	mov dx, COM1_LCR
	mov al, LCR_DLAB
	out dx, al
	mov dx, COM1
	mov al, BAUD_DIVISOR
	out dx, al
	mov dx, COM1_IER
	xor al, al
	out dx, al
	mov dx, COM1_LCR
	mov al, LCR_8N1
	out dx, al
	mov edi, VGA_TEXT
.next:
	mov al, [esi]
	test al, al
	jz .done
	cmp al, ' '                     ; line breaks are for the serial line
	jb .serial
	cmp edi, VGA_TEXT + VGA_CELLS * 2
	jae .serial
	mov [edi], al
	mov byte [edi + 1], VGA_ATTR_ALERT
	add edi, 2
.serial:
	mov ecx, SERIAL_SPINS           ; no UART answers all ones, which reads as ready
	mov dx, COM1_LSR
.wait:
	in al, dx
	test al, LSR_THR_EMPTY
	jnz .send
	loop .wait                      ; bounded: a stuck UART costs one timeout a byte
.send:
	mov al, [esi]
	mov dx, COM1
	out dx, al
	inc esi
	jmp .next
.done:
	mov eax, CPUID_FEATURES
	cpuid
	test ecx, CPUID1_ECX_HV
	jz .halt
	in al, DEBUG_EXIT_PORT
	cmp al, DEBUG_EXIT_READ
	jne .halt
	mov al, DEBUG_EXIT_FAIL
	out DEBUG_EXIT_PORT, al
.halt:
	cli
	hlt
	jmp .halt

bits 64
extern kernel_main
long_mode_entry:
	LOAD_DATA_SEGMENTS GDT_DATA
	lgdt [gdt64_pointer]            ; reload with the full 64-bit base
	mov rsp, boot_stack_top
	xor ebp, ebp                    ; a zero frame pointer ends backtraces
	; edi = magic, esi = info address, zero-extended by the 32-bit moves
	call kernel_main
.hang:
	cli
	hlt
	jmp .hang
