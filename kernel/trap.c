// SPDX-License-Identifier: MIT
/*
 * trap.c - what happens on an interrupt or exception, and panic.
 *
 * Exceptions are always fatal here: a kernel that faults has a bug, and the
 * most useful thing it can do is say exactly where, on which CPU, with the
 * registers and the call chain, then stop the other CPUs (NMI) so that
 * nothing scrolls the report away, and end the run as failed.
 */
#include "trap.h"

#include "apic.h"
#include "console.h"
#include "cpu.h"
#include "fence.h"
#include "percpu.h"
#include "power.h"

#define BACKTRACE_MAX_FRAMES 16
#define NO_PANIC	     (-1)

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

static volatile int panicking_cpu = NO_PANIC;

/* First CPU to get here owns the panic; any later one just stops. */
static void claim_panic(void)
{
	int expected = NO_PANIC;

	cli();
	if (!__atomic_compare_exchange_n(&panicking_cpu, &expected, (int)this_cpu_index(), false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		cpu_halt_forever();
	console_enter_panic();
	apic_send_nmi_others(); /* their NMI handler sees panicking_cpu and halts */
}

/*
 * Walk saved frame pointers (the kernel is built with -fno-omit-frame-pointer):
 * [rbp] is the caller's rbp, [rbp + 8] the return address.  Frames must
 * climb the stack and stay 8-aligned, so a corrupt chain ends the walk.
 */
static void backtrace(uint64_t rbp, uint64_t rip)
{
	printk("PANIC: backtrace (addr2line -e build/kernel.elf ADDR):\n");
	printk("  #0 %016lx\n", rip);
	for (int depth = 1; depth < BACKTRACE_MAX_FRAMES && rbp && !(rbp & 7); depth++) {
		const uint64_t *frame = (const uint64_t *)rbp;

		if (frame[1] == 0)
			break;
		printk("  #%d %016lx\n", depth, frame[1]);
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
}

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
	claim_panic();
	printk("\nPANIC: CPU %u (APIC id %u): exception %lu %s, error code 0x%lx\n",
	       this_cpu_index(), this_cpu()->apic_id, tf->vector, exception_names[tf->vector],
	       tf->error);
	dump_frame(tf);
	backtrace(tf->rbp, tf->rip);
	machine_exit(false);
}

void panic(const char *fmt, ...)
{
	va_list ap;

	claim_panic();
	printk("\nPANIC: CPU %u (APIC id %u): ", this_cpu_index(), this_cpu()->apic_id);
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk("\n");
	backtrace((uint64_t)(uintptr_t)__builtin_frame_address(0),
		  (uint64_t)(uintptr_t)__builtin_return_address(0));
	machine_exit(false);
}

static trap_fixup_fn exception_fixup;

void trap_set_fixup(trap_fixup_fn fn)
{
	__atomic_store_n(&exception_fixup, fn, __ATOMIC_RELEASE);
}

void trap_dispatch(struct trap_frame *tf)
{
	switch (tf->vector) {
	case VEC_NMI:
		if (panicking_cpu != NO_PANIC || machine_is_stopping())
			cpu_halt_forever();
		if (fence_answer_nmi())
			return; /* no EOI: an NMI does not go through the APIC's in-service bits */
		panic_exception(tf);
	case VEC_SPURIOUS:
		return; /* the APIC expects no EOI for its spurious vector (SDM 11.9) */
	case VEC_WAKE:
	case VEC_KICK: /* its whole job was to end a HLT */
		apic_eoi();
		return;
	case VEC_TEST:
		this_cpu()->ipis_seen++;
		apic_eoi();
		return;
	default:
		if (tf->vector < EXCEPTION_VECS) {
			trap_fixup_fn fixup = __atomic_load_n(&exception_fixup, __ATOMIC_ACQUIRE);
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
