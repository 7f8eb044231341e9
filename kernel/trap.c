// SPDX-License-Identifier: MIT
/*
 * trap.c - what happens on an interrupt or exception.
 *
 * Exceptions are always fatal here: a kernel that faults has a bug, and the
 * most useful thing it can do is say exactly where, on which CPU, with the
 * registers and the call chain (panic.c stops the other CPUs and ends the
 * run as failed).
 */
#include "trap.h"

#include "atomic.h"
#include "apic.h"
#include "console.h"
#include "cpu.h"
#include "fence.h"
#include "panic.h"
#include "percpu.h"
#include "power.h"
#include "static_key_park.h"

static const char *const exception_names[EXCEPTION_VECS] = {
    "#DE divide error",
    "#DB debug",
    "NMI",
    "#BP breakpoint",
    "#OF overflow",
    "#BR bound range exceeded",
    "#UD invalid opcode",
    "#NM device not available",
    "#DF double fault",
    "coprocessor segment overrun",
    "#TS invalid TSS",
    "#NP segment not present",
    "#SS stack-segment fault",
    "#GP general protection",
    "#PF page fault",
    "reserved (15)",
    "#MF x87 floating-point error",
    "#AC alignment check",
    "#MC machine check",
    "#XM SIMD floating-point exception",
    "#VE virtualization exception",
    "#CP control protection",
    "reserved (22)",
    "reserved (23)",
    "reserved (24)",
    "reserved (25)",
    "reserved (26)",
    "reserved (27)",
    "#HV hypervisor injection",
    "#VC VMM communication",
    "#SX security exception",
    "reserved (31)",
};

static void dump_frame(const struct trap_frame *tf)
{
	printk("PANIC: rip %016lx cs %04lx rflags %08lx rsp %016lx ss %04lx\n", tf->rip, tf->cs,
	       tf->rflags, tf->rsp, tf->ss);
	printk("PANIC: rax %016lx rbx %016lx rcx %016lx rdx %016lx\n", tf->rax, tf->rbx, tf->rcx,
	       tf->rdx);
	printk("PANIC: rsi %016lx rdi %016lx rbp %016lx r8  %016lx\n", tf->rsi, tf->rdi, tf->rbp,
	       tf->r8);
	printk("PANIC: r9  %016lx r10 %016lx r11 %016lx r12 %016lx\n", tf->r9, tf->r10, tf->r11,
	       tf->r12);
	printk("PANIC: r13 %016lx r14 %016lx r15 %016lx cr2 %016lx\n", tf->r13, tf->r14, tf->r15,
	       read_cr2());
	printk("PANIC: cr3 %016lx\n", read_cr3());
}

__attribute__((noreturn)) static void panic_exception(const struct trap_frame *tf)
{
	panic_begin();
	printk("\nPANIC: CPU %u (APIC id %u): exception %lu %s, error code 0x%lx\n",
	       this_cpu_index(), this_cpu()->apic_id, tf->vector, exception_names[tf->vector],
	       tf->error);
	dump_frame(tf);
	panic_backtrace(tf->rbp, tf->rip, false);
	machine_exit(false);
}

/* Installed by one CPU while others may take the trap: function pointers held as words. */
static uint64_t exception_fixup;  /* trap_fixup_fn */
static uint64_t tick_fn;	  /* void (*)(void) */
static uint64_t test_hook_fn;	  /* void (*)(void) */
static uint64_t nmi_test_hook_fn; /* void (*)(void), taken by one NMI */

void trap_set_tick(void (*fn)(void))
{
	atomic_store64(&tick_fn, (uint64_t)(uintptr_t)fn);
}

void trap_set_test_hook(void (*fn)(void))
{
	atomic_store64(&test_hook_fn, (uint64_t)(uintptr_t)fn);
}

void trap_set_nmi_test_hook(void (*fn)(void))
{
	atomic_store64(&nmi_test_hook_fn, (uint64_t)(uintptr_t)fn);
}

void trap_set_fixup(trap_fixup_fn fn)
{
	atomic_store64(&exception_fixup, (uint64_t)(uintptr_t)fn);
}

/*
 * An NMI.  A CPU parked by a static-key patching round runs this while the
 * sites are written, so neither it nor what it calls (up to the panic) has
 * a site: tools/house/static_key_park_check.py holds the ELF to that.
 */
static __attribute__((noinline)) void trap_nmi(struct trap_frame *tf)
{
	if (panic_in_progress() || machine_is_stopping())
		cpu_halt_forever();
	/* Both asked: one NMI may carry a fence and a park request (NMIs merge). */
	bool fenced = fence_answer_nmi();
	bool parked = static_key_answer_nmi(fenced);
	struct cpu *self = this_cpu();

	/*
	 * No EOI on return: an NMI does not go through the APIC's in-service bits.
	 * When one NMI served both requests, the other request's NMI may still
	 * come (latched while this one ran: Intel SDM Vol. 3A 6.7.1 blocks NMIs
	 * until IRET and holds one more), and find nothing left to do.  Such an
	 * NMI is expected once per double answer; one beyond that is unexplained.
	 */
	if (fenced && parked)
		self->nmis_answered_ahead++;
	if (fenced || parked)
		return;
	void (*hook)(void) = (void (*)(void))(uintptr_t)atomic_xchg64(&nmi_test_hook_fn, 0);

	if (hook) {
		hook();
		return;
	}
	if (self->nmis_answered_ahead) {
		self->nmis_answered_ahead--;
		return;
	}
	panic_exception(tf);
}

static void trap_handle(struct trap_frame *tf)
{
	switch (tf->vector) {
	case VEC_NMI:
		trap_nmi(tf);
		return;
	case VEC_SPURIOUS:
		return; /* the APIC expects no EOI for its spurious vector (SDM 11.9) */
	case VEC_WAKE:
	case VEC_WAIT_TIMER: /* its whole job was to end a HLT */
		apic_eoi();
		return;
	case VEC_KICK: /* ends a HLT; counted, so a halt can tell a kick lost from one late */
		this_cpu()->kicks_seen++;
		apic_eoi();
		return;
	case VEC_TICK: {
		void (*fn)(void) = (void (*)(void))(uintptr_t)atomic_load64(&tick_fn);

		if (fn)
			fn();
		apic_tick_fired(); /* the next tick: a one-shot timer each */
		apic_eoi();
		return;
	}
	case VEC_TEST: {
		void (*fn)(void) = (void (*)(void))(uintptr_t)atomic_load64(&test_hook_fn);

		if (fn)
			fn();
		this_cpu()->ipis_seen++;
		apic_eoi();
		return;
	}
	default:
		if (tf->vector < EXCEPTION_VECS) {
			trap_fixup_fn fixup =
			    (trap_fixup_fn)(uintptr_t)atomic_load64(&exception_fixup);
			if (!fixup || !fixup(tf))
				panic_exception(tf);
			return;
		}
		printk("trap: unexpected interrupt vector %lu on CPU %u, ignored\n", tf->vector,
		       this_cpu_index());
		apic_eoi();
		return;
	}
}

/*
 * Every vector, counted while handled: a static key refuses to change from
 * inside a handler (kernel/static_key.c), since the CPU may have been
 * interrupted mid-site or in the middle of a patching round.
 */
void trap_dispatch(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();
	uint32_t outer = c->trap_vector; /* an NMI may nest in a handler: give its vector back */

	c->trap_depth++;
	c->trap_vector = (uint32_t)tf->vector;
	trap_handle(tf);
	c->trap_vector = outer;
	c->trap_depth--;
}
