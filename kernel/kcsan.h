// SPDX-License-Identifier: MIT
/*
 * kcsan.h - the kernel's data race detector (docs/kcsan.md).
 *
 * `make kcsan` builds the kernel again with GCC's -fsanitize=thread: every
 * plain load and store calls __tsan_readN/__tsan_writeN, every lib/atomic.h
 * operation (then the __atomic builtins) a __tsan_atomic* function, every
 * volatile access __tsan_volatile_*.  kernel/kcsan.c defines them: on a
 * sampled plain access a CPU arms a watchpoint and waits; another CPU's
 * access that meets it, or a value that changed meanwhile, is a race.
 * In the plain kernel the same functions below exist and do nothing but
 * say, for kcsan=on, that the kernel was built without instrumentation
 * (a word not carried out: the run fails, cmdline_not_done).
 */
#ifndef KERNEL_KCSAN_H
#define KERNEL_KCSAN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Code the detector must not watch: its own runtime, the NMI and exception
 * paths (they interrupt the runtime), and code that runs on a CPU before its
 * GS base (and so its per-CPU data) is set.
 */
#define KCSAN_EXEMPT __attribute__((no_sanitize("thread")))

/*
 * An access racing on purpose, whose torn or stale value the code tolerates:
 * a plain access the detector ignores (volatile: a marked access).  Every use
 * says why on its line, and docs/kcsan.md lists them.
 */
#define data_race(x) (*(volatile __typeof__(x) *)&(x))

/* After cmdline_parse and tsc_init, before the other CPUs start: kcsan= and kcsan.*=. */
void kcsan_init(void);

/* Whether this kernel was built instrumented and the detector is on. */
bool kcsan_enabled(void);

/* The test whose name a race found from now on carries (ktest.c); NULL: between tests. */
void kcsan_set_test(const char *name);

/* Races found so far (every one, repeats of a reported pair included). */
uint64_t kcsan_races(void);

/*
 * Print the reports not printed yet: one "kcsan:" line per pair of sites.
 * CPU 0 with no lock held, or the one CPU still running at the machine's
 * exit (machine_exit: after a panic, the races found before it).
 */
void kcsan_flush(void);

/* At the end of the run: the reports left, then the "# KCSAN {...}" summary line. */
void kcsan_summary(void);

#endif /* KERNEL_KCSAN_H */
