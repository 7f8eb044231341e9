// SPDX-License-Identifier: MIT
/*
 * suite_switches.h - the switches each suite asks for (kernel/suites.h's
 * SUITE_LIST, its switches column), set by the test runner.
 */
#ifndef KERNEL_SUITE_SWITCHES_H
#define KERNEL_SUITE_SWITCHES_H

#include "suites.h"

/*
 * Before suite @suite's first test, with no lock held or waited for (the
 * other CPUs idle): set its switches column's switches, the static keys in
 * one patching round, and print one "keys:" line saying what changed and
 * what the round cost.  Nothing (no line) if the suite before asked the same.
 */
void suite_switches_apply(enum suite_index suite);

#endif /* KERNEL_SUITE_SWITCHES_H */
