// SPDX-License-Identifier: MIT
/*
 * bench_impls.h - the names of the three reference counts that every
 * benchmark table compares first: the bare atomic (the hardware's limit),
 * the ticket lock guarding a count (the way before the lockref) and the
 * lockref, as the "impl" of the BENCH lines.
 *
 * Why a header of names alone: bench_ref.c names its implementations with
 * them, and the results page (lib/results_read.c keeps, kernel/results.c
 * draws) tables exactly these BENCH lines, so the page cannot drift from what the benchmarks print.
 * It includes nothing, so the platform reads it without seeing the
 * benchmarks themselves.
 */
#ifndef BENCH_IMPLS_H
#define BENCH_IMPLS_H

#define BENCH_IMPL_NAME_XADD	 "xadd"
#define BENCH_IMPL_NAME_SPINLOCK "spinlock"
#define BENCH_IMPL_NAME_LOCKREF	 "lockref"

/*
 * The results page's columns, in the tables' order: X(name), then the
 * ratio of the last over the one before it (lockref/spinlock).
 */
#define BENCH_TABLED_IMPLS(X)                                                                      \
	X(BENCH_IMPL_NAME_XADD) X(BENCH_IMPL_NAME_SPINLOCK) X(BENCH_IMPL_NAME_LOCKREF)

#endif /* BENCH_IMPLS_H */
