// SPDX-License-Identifier: MIT
/*
 * fault_inject.h - deliberate faults that prove the exception path works.
 */
#ifndef KERNEL_FAULT_INJECT_H
#define KERNEL_FAULT_INJECT_H

#include <stdint.h>

/*
 * selftest.fault=ud|gp|pf: raise it now; the run then ends in a PANIC report.
 * selftest.fault=lockdep: plant a lockdep report (outside any test: the
 * run must fail for it, ktest.c), and return.
 * A KTEST_SETUP hook: the test runner calls it after printing its plan.
 */
void fault_inject_if_asked(void);

/*
 * Raise #UD once with a recovery armed: the trap handler checks the vector
 * and skips the faulting instruction.  Returns the vector seen (6 when the
 * IDT, the stub and the frame layout all work), or -1 if none was taken.
 */
int fault_inject_recoverable_ud(void);

#endif /* KERNEL_FAULT_INJECT_H */
