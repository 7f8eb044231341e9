// SPDX-License-Identifier: MIT
/*
 * trap.h - interrupt and exception entry: the IDT, the saved frame, panic.
 */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include "panic.h" /* every fatal trap ends in a panic; users of one use both */

#include <stdbool.h>
#include <stdint.h>

/* Vectors the kernel uses besides the 32 exceptions (Intel SDM Vol. 3A 6.2). */
#define VEC_NMI	       2
#define VEC_WAKE       0xf0 /* wakes an idle CPU: smp_run_on_all */
#define VEC_TEST       0xf1 /* counted by the boot suite's IPI test */
#define VEC_KICK       0xf2 /* a kick IPI: ends a platform_cpu_wait, counted (kicks_seen) */
#define VEC_TICK       0xf3 /* the status line's periodic tick (trap_set_tick) */
#define VEC_WAIT_TIMER 0xf4 /* platform_cpu_wait's time bound: ends it; does nothing */
#define VEC_SPURIOUS   0xff /* local APIC spurious vector: no EOI */
#define EXCEPTION_VECS 32

/* Mirror of the pushes in boot/isr.asm, lowest address first. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

/* Build the IDT once (boot CPU). */
void idt_init(void);

/* Load the IDT on the calling CPU. */
void idt_load(void);

/* Called from boot/isr.asm for every vector. */
void trap_dispatch(struct trap_frame *tf);

/*
 * An exception handler installed by whoever expects an exception (the boot
 * suite's recoverable #UD): trap_dispatch offers it every exception before
 * panicking.  It returns true if the exception was its own, after fixing
 * @tf so the return resumes safely.  One at a time; NULL removes it.
 */
typedef bool (*trap_fixup_fn)(struct trap_frame *tf);
void trap_set_fixup(trap_fixup_fn fn);

/* What VEC_TICK runs (interrupts off, before the EOI); NULL: nothing. */
void trap_set_tick(void (*fn)(void));

/*
 * What VEC_TEST runs besides counting it (interrupts off, before the EOI):
 * a test's way to run code inside an interrupt handler; NULL: nothing.
 */
void trap_set_test_hook(void (*fn)(void));

/*
 * What the next NMI that is neither a fence nor a park request runs, once
 * (the hook is taken as the NMI takes it): a test's way to run code inside
 * an NMI handler.  Without it such an NMI is unexplained and panics.
 */
void trap_set_nmi_test_hook(void (*fn)(void));

#endif /* KERNEL_TRAP_H */
