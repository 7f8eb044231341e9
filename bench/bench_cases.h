// SPDX-License-Identifier: MIT
/*
 * bench_cases.h - every benchmark, in the order run=bench runs them.
 *
 * Why a list: the benchmarks run under two runners, the kernel's ktest
 * (bench_ktest.c turns each entry into a KTEST of the bench suite) and the
 * native host program (tests/bench/bench_native.c iterates the same
 * entries on pinned threads).  One list keeps the names, the order and the
 * CPU counts the same in both.
 *
 * BENCH_CASES(X) calls X(fn, "name", cpus, estimate) once per benchmark:
 * fn is `void fn(struct bench_ctx *t)` in one of the bench_*.c files,
 * "name" is its test name, cpus is BENCH_ONE_CPU or BENCH_ALL_CPUS (every
 * CPU of the runner calls fn at once), and estimate is how bench_plan.c
 * foresees its time (struct bench_estimate below): bench_estimate_sweep
 * (one bench_run per CPU count of the plan, the common case) or the
 * benchmark's own function beside fn.  A new benchmark is one line here
 * and its function.
 */
#ifndef KERNEL_BENCH_CASES_H
#define KERNEL_BENCH_CASES_H

#include "bench.h"
#include "spinlock.h"

#define BENCH_ONE_CPU  0
#define BENCH_ALL_CPUS 1

/* A benchmark on every CPU, estimated as a sweep: most of the list. */
#define BENCH_SWEEP(X, fn, name) X(fn, name, BENCH_ALL_CPUS, bench_estimate_sweep)

/*
 * The rows the refcount and convoy benchmarks share, one per lock and
 * lockref variant: "<bench>-xadd", "<bench>-spinlock", ...  @middle adds
 * the rows only one of them has, after lockref16; @kind_rows the two rows
 * of each lock kind after the default (lib/spinlock_kinds.h's
 * SPIN_KINDS_SWITCHED), "<bench>-<kind>" and "<bench>-lockref-<kind>".
 */
#define BENCH_LOCK_ROWS(X, bench, middle, kind_rows)                                               \
	BENCH_SWEEP(X, bench##_xadd, #bench "-xadd")                                               \
	BENCH_SWEEP(X, bench##_spinlock, #bench "-spinlock")                                       \
	BENCH_SWEEP(X, bench##_lockref, #bench "-lockref")                                         \
	BENCH_SWEEP(X, bench##_lockref_v7, #bench "-lockref-v7")                                   \
	BENCH_SWEEP(X, bench##_lockref_locked, #bench "-lockref-locked")                           \
	BENCH_SWEEP(X, bench##_lockref16, #bench "-lockref16")                                     \
	middle(X) BENCH_SWEEP(X, bench##_spinlock_pv, #bench "-spinlock-pv")                       \
	    BENCH_SWEEP(X, bench##_lockref_pv, #bench "-lockref-pv") kind_rows(X)
#define BENCH_REFCOUNT_ONLY(X)                                                                     \
	BENCH_SWEEP(X, refcount_lockref_other_cas, "refcount-lockref-other-cas")
#define BENCH_CONVOY_ONLY(X)

/*
 * The kinds' rows, written out so that grep finds each name: two per kind
 * of SPIN_KINDS_SWITCHED, in its order.  bench_refcount.c makes their
 * functions from the kind list (BENCH_KIND_SWEEPS), and its build fails
 * naming a function whose row is missing here; a row whose kind is not in
 * the list fails the link, naming its function.
 */
#define BENCH_KIND_REFCOUNT(X)                                                                     \
	BENCH_SWEEP(X, refcount_qspinlock, "refcount-qspinlock")                                   \
	BENCH_SWEEP(X, refcount_lockref_qspinlock, "refcount-lockref-qspinlock")                   \
	BENCH_SWEEP(X, refcount_tas, "refcount-tas")                                               \
	BENCH_SWEEP(X, refcount_lockref_tas, "refcount-lockref-tas")
#define BENCH_KIND_CONVOY(X)                                                                       \
	BENCH_SWEEP(X, convoy_qspinlock, "convoy-qspinlock")                                       \
	BENCH_SWEEP(X, convoy_lockref_qspinlock, "convoy-lockref-qspinlock")                       \
	BENCH_SWEEP(X, convoy_tas, "convoy-tas")                                                   \
	BENCH_SWEEP(X, convoy_lockref_tas, "convoy-lockref-tas")

#define BENCH_CASES(X)                                                                             \
	X(uncontended, "uncontended", BENCH_ONE_CPU, uncontended_estimate)                         \
	X(c2c, "c2c", BENCH_ALL_CPUS, c2c_estimate)                                                \
	BENCH_LOCK_ROWS(X, refcount, BENCH_REFCOUNT_ONLY, BENCH_KIND_REFCOUNT)                     \
	BENCH_SWEEP(X, refcount_qspinlock_pv, "refcount-qspinlock-pv")                             \
	BENCH_LOCK_ROWS(X, convoy, BENCH_CONVOY_ONLY, BENCH_KIND_CONVOY)                           \
	BENCH_SWEEP(X, pathwalk_same_lockref, "pathwalk-same-path-lockref")                        \
	BENCH_SWEEP(X, pathwalk_same_spinlock, "pathwalk-same-path-spinlock")                      \
	BENCH_SWEEP(X, pathwalk_own_lockref, "pathwalk-own-file-lockref")                          \
	BENCH_SWEEP(X, pathwalk_own_spinlock, "pathwalk-own-file-spinlock")                        \
	BENCH_SWEEP(X, pathwalk_same_lockref_refwalk, "pathwalk-same-path-lockref-refwalk")        \
	BENCH_SWEEP(X, pathwalk_same_spinlock_refwalk, "pathwalk-same-path-spinlock-refwalk")      \
	BENCH_SWEEP(X, pathwalk_own_lockref_refwalk, "pathwalk-own-file-lockref-refwalk")          \
	BENCH_SWEEP(X, pathwalk_own_spinlock_refwalk, "pathwalk-own-file-spinlock-refwalk")        \
	BENCH_SWEEP(X, pathwalk_mixed_lockref, "pathwalk-mixed-lockref")                           \
	BENCH_SWEEP(X, pathwalk_mixed_lockref_refwalk, "pathwalk-mixed-lockref-refwalk")           \
	X(retry_table, "retry-table", BENCH_ALL_CPUS, retry_table_estimate)                        \
	X(headline, "headline", BENCH_ONE_CPU, headline_estimate)

/* What a benchmark's estimate is told: the plan, and the time of one bench_run. */
struct bench_estimate {
	unsigned ncpus;	  /* CPUs the plan uses */
	unsigned npoints; /* CPU counts a sweep runs at */
	unsigned ms;	  /* bench.ms= */
	uint64_t run_ms;  /* one bench_run: its trials and warm-up */
};

/* The common estimate: one bench_run at each CPU count of the plan. */
uint64_t bench_estimate_sweep(const struct bench_estimate *e);

#define BENCH_CASE_DECLARE(fn, name, cpus, estimate)                                               \
	void fn(struct bench_ctx *t);                                                              \
	uint64_t estimate(const struct bench_estimate *e);
BENCH_CASES(BENCH_CASE_DECLARE)
#undef BENCH_CASE_DECLARE

#endif /* KERNEL_BENCH_CASES_H */
