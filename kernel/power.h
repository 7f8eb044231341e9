// SPDX-License-Identifier: MIT
/*
 * power.h - ending a run: report the result, then leave the machine.
 */
#ifndef KERNEL_POWER_H
#define KERNEL_POWER_H

#include <stdbool.h>

/*
 * Print "# RESULT pass|fail", drain the UART, then per exit= (docs/interface.md):
 * auto: QEMU's isa-debug-exit if the device answers; poweroff: ACPI S5;
 * reboot: the FADT reset register, then the keyboard controller; whatever
 * did not work (and exit=halt) ends with every CPU halted, the result on
 * screen until reset.
 */
__attribute__((noreturn)) void machine_exit(bool pass);

/*
 * What machine_exit calls just before "# RESULT" (after the trace): its
 * lines go beside the verdict, and what it returns is the verdict.  Set by
 * kernel_main (the test runner's tally), so the platform names no runner.
 */
void machine_set_verdict_hook(bool (*hook)(bool pass));

/* True when QEMU's isa-debug-exit device answers at port 0xf4 (see power.c). */
bool debug_exit_present(void);

/* True once machine_exit started: NMIs then mean "stop", not "error". */
bool machine_is_stopping(void);

#endif /* KERNEL_POWER_H */
