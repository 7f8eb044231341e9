// SPDX-License-Identifier: MIT
/*
 * power.c - the last thing the kernel does.
 *
 * The result line comes first and the UART is drained before any attempt
 * to leave, so the outcome is on record whatever happens next.  Each way
 * out that fails falls through to the next, ending in a halt that keeps
 * the result on screen.
 */
#include "power.h"

#include "acpi.h"
#include "apic.h"
#include "cmdline.h"
#include "console.h"
#include "cpu.h"
#include "cpuinfo.h"

#define DEBUG_EXIT_PORT 0xf4 /* -device isa-debug-exit,iobase=0xf4 */
#define DEBUG_EXIT_PASS 0x10 /* QEMU exits with (0x10 << 1) | 1 = 33 */
#define DEBUG_EXIT_FAIL 0x11 /* ... 35 */
#define KBC_COMMAND	0x64
#define KBC_PULSE_RESET 0xfe

static volatile bool stopping;

bool machine_is_stopping(void)
{
	return stopping;
}

void machine_exit(bool pass)
{
	stopping = true;
	trace_dump(); /* # TRACE lines, after the KTAP results */
	printk("# RESULT %s\n", pass ? "pass" : "fail");
	console_drain();
	apic_send_nmi_others(); /* idle or stuck CPUs stop now */

	if (opts.exit == EXIT_REBOOT) {
		acpi_reset();
		outb(KBC_COMMAND, KBC_PULSE_RESET);
	} else if (opts.exit == EXIT_AUTO) {
		/* Only emulators have the debug-exit device; real ports at 0xf4 are left alone. */
		if (cpuinfo.hypervisor)
			outb(DEBUG_EXIT_PORT, pass ? DEBUG_EXIT_PASS : DEBUG_EXIT_FAIL);
		acpi_poweroff();
	}
	printk("halted: result %s (exit=%s)\n", pass ? "PASS" : "FAIL",
	       opts.exit == EXIT_HALT ? "halt" : "could not power off");
	console_drain();
	cpu_halt_forever();
}
