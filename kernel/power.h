// SPDX-License-Identifier: MIT
/*
 * power.h - ending a run: report the result, then leave the machine.
 */
#ifndef KERNEL_POWER_H
#define KERNEL_POWER_H

#include <stdbool.h>

/*
 * Print "# RESULT pass|fail", drain the UART, then per exit= (docs/interface.md):
 * QEMU's isa-debug-exit when running under a hypervisor, else ACPI S5
 * power-off, else halt every CPU with the result on screen.
 */
__attribute__((noreturn)) void machine_exit(bool pass);

/* True once machine_exit started: NMIs then mean "stop", not "error". */
bool machine_is_stopping(void);

#endif /* KERNEL_POWER_H */
