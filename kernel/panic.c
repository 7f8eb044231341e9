// SPDX-License-Identifier: MIT
/*
 * panic.c - stop everything and say why.
 *
 * A kernel that reaches a panic has a bug, and the most useful thing it can
 * do is say exactly where, on which CPU, with the call chain, then stop the
 * other CPUs (NMI) so that nothing scrolls the report away, and end the run
 * as failed.  Kept apart from trap.c, which dispatches interrupts (the
 * fence NMI among them), so that code trap.c calls can panic too without a
 * circle between the two.
 */
#include "panic.h"

#include "atomic.h"
#include "apic.h"
#include "console.h"
#include "cpu.h"
#include "percpu.h"
#include "power.h"

#define BACKTRACE_MAX_FRAMES 16
#define NO_PANIC	     UINT32_MAX

static uint32_t panicking_cpu = NO_PANIC; /* the CPU index that owns the panic */

/* First CPU to get here owns the panic; any later one just stops. */
bool panic_in_progress(void)
{
	return atomic_load32(&panicking_cpu) != NO_PANIC;
}

void panic_begin(void)
{
	uint32_t expected = NO_PANIC;

	cli();
	if (!atomic_cmpxchg32(&panicking_cpu, &expected, this_cpu_index()))
		cpu_halt_forever();
	console_enter_panic();
	apic_send_nmi_others(); /* their NMI handler sees panicking_cpu and halts */
}

/*
 * Walk saved frame pointers (the kernel is built with -fno-omit-frame-pointer):
 * [rbp] is the caller's rbp, [rbp + 8] the return address.  Frames must
 * climb the stack and stay 8-aligned, so a corrupt chain ends the walk.
 */
void panic_backtrace(uint64_t rbp, uint64_t rip, bool rip_returns)
{
	printk("PANIC: backtrace (addr2line -e build/kernel.elf ADDR):\n");
	/* %pB for return addresses: the call before one may end its function (kernel/ksyms.h). */
	if (rip_returns)
		printk("  #0 %pB\n", (void *)rip);
	else
		printk("  #0 %pS\n", (void *)rip);
	for (int depth = 1; depth < BACKTRACE_MAX_FRAMES && rbp && !(rbp & 7); depth++) {
		const uint64_t *frame = (const uint64_t *)rbp;

		if (frame[1] == 0)
			break;
		printk("  #%d %pB\n", depth, (void *)frame[1]);
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
}

void panic(const char *fmt, ...)
{
	va_list ap;

	panic_begin();
	printk("\nPANIC: CPU %u (APIC id %u): ", this_cpu_index(), this_cpu()->apic_id);
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk("\n");
	panic_backtrace((uint64_t)(uintptr_t)__builtin_frame_address(0),
			(uint64_t)(uintptr_t)__builtin_return_address(0), true);
	machine_exit(false);
}
