// SPDX-License-Identifier: MIT
/*
 * ktest_stall.h - selftest.stall=, the runner's own fault injection: one
 * CPU held up on purpose, once, so the runner's failure paths (a CPU that
 * misses a start barrier, one still in a test past its deadline) are
 * proved by a boot (docs/interface.md).  For kernel/ktest.c, but for
 * ktest_stall_barrier, a suite's.
 */
#ifndef KERNEL_KTEST_STALL_H
#define KERNEL_KTEST_STALL_H

#include "cmdline.h"
#include "results.h"

#define KTAP_DIAG_PREFIX KTAP_INDENT "# " /* a diagnostic line inside a test */

/*
 * Before the plan: check selftest.stall= against the CPUs this run has (one
 * cmdline: line, and no stall, for one it lacks) and arm it.
 */
void stall_arm(void);

/*
 * Test @name starts on @ncpus CPUs.  Returns the CPU that stalls at its
 * start or past its deadline (opts.stall_where), 0 for none: the first
 * all-CPU test after stall_arm takes such a stall.
 */
unsigned stall_test_starts(const char *name, unsigned ncpus);

/*
 * selftest.stall=N:MS:fs-start holds CPU N, once, before the barrier named
 * @what (barrier_wait's name): a setup hook's call, from the suite that
 * owns the barrier (the fs torture's start, kernel/test/test_fs.c).
 */
void ktest_stall_barrier(const char *what);

/* Hold this CPU (@cpu) up for selftest.stall='s milliseconds, saying so first. */
void stall(unsigned cpu, const char *where, const char *test);

#endif /* KERNEL_KTEST_STALL_H */
