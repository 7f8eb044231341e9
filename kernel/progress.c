// SPDX-License-Identifier: MIT
/*
 * progress.c - keep the screen's status line moving during long tests.
 *
 * A torture test prints nothing for its whole duration, and the boot CPU
 * runs it like every other CPU, so no loop of ours can redraw the line.
 * A periodic local APIC timer interrupt on the boot CPU does (a few times
 * a second, a few hundred interrupts a minute); the console draws only when
 * no other CPU is printing, so the tick never waits on a lock.  The boot
 * CPU takes interrupts only while it waits (smp_wait: pv sleeps, barriers),
 * and the tick keeps its phase across those waits (apic.c), so the line is
 * current whenever CPU 0 waits at least once a tick; a test in which CPU 0
 * never waits shows its line again when it does.  The tick runs only
 * when the screen shows progress: with console=serial the tests run
 * undisturbed.
 */
#include "progress.h"

#include "apic.h"
#include "cmdline.h"
#include "console.h"
#include "trap.h"
#include "tsc.h"

#include <stddef.h>

#define TICK_US	  250000
#define NS_PER_MS 1000000u

static bool ticking;

static uint64_t now_ms(void)
{
	return tsc_to_ns(tsc_now()) / NS_PER_MS;
}

static void tick(void)
{
	console_status_tick(now_ms());
}

void progress_test_start(const char *name, unsigned number, uint64_t expected_ms)
{
	if (console_test_start(name, number, now_ms(), expected_ms) && !ticking) {
		trap_set_tick(tick);
		ticking = apic_tick_start(TICK_US, VEC_TICK);
	}
}

/* The page's last line: what machine_exit (power.c) does next. */
static const char *const footers[] = {
    [EXIT_AUTO] =
	" exit=auto: stays on, halted, until reset (QEMU's debug-exit ends emulated runs)",
    [EXIT_HALT] = " exit=halt: stays on, halted, until reset",
    [EXIT_REBOOT] = " exit=reboot: restarting the machine",
    [EXIT_POWEROFF] = " exit=poweroff: powering off (ACPI S5)",
};

void progress_finish(bool pass)
{
	if (ticking) {
		apic_tick_stop();
		ticking = false;
	}
	trap_set_tick(NULL);
	console_show_results(pass, footers[opts.exit], opts.screen_dump);
}
