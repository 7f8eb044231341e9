// SPDX-License-Identifier: MIT
/*
 * bench_ktest.c - the benchmarks of bench_cases.h as KTESTs of the bench
 * suite, and the runner half of bench.h (fail, diag, barrier) on ktest.
 *
 * The benchmarks themselves know nothing of the kernel, so that the same
 * files build into the native host program; this file is the kernel's
 * side of that seam.  Each entry becomes one KTEST whose function builds
 * the bench_ctx from the command line (bench.ms=, bench.trials=) and the
 * ktest context, then calls the benchmark.
 */
#include "bench.h"
#include "bench_cases.h"
#include "cmdline.h"
#include "ktest.h"
#include "printf.h"

static void bench_ktest(struct ktest_ctx *t, void (*fn)(struct bench_ctx *))
{
	struct bench_ctx b = {
	    .cpu = t->cpu,
	    .ncpus = t->ncpus,
	    .ms = opts.bench_ms,
	    .trials = opts.bench_trials,
	    .id = t->test,
	    .runner = t,
	};

	fn(&b);
}

void bench_fail(struct bench_ctx *t, const char *fmt, ...)
{
	char line[PLATFORM_LINE_MAX];

	KSNPRINTF_ARGS(line, fmt);
	ktest_fail(t->runner, "%s", line);
}

void bench_diag(struct bench_ctx *t, const char *fmt, ...)
{
	char line[PLATFORM_LINE_MAX];

	KSNPRINTF_ARGS(line, fmt);
	ktest_diag(t->runner, "%s", line);
}

bool bench_barrier(struct bench_ctx *t, unsigned timeout_ms)
{
	return ktest_barrier(t->runner, timeout_ms);
}

#define BENCH_KTEST(fn, name, cpus)                                                                \
	static void ktest_##fn(struct ktest_ctx *t)                                                \
	{                                                                                          \
		bench_ktest(t, fn);                                                                \
	}                                                                                          \
	KTEST(bench, name, ktest_##fn, (cpus) == BENCH_ALL_CPUS ? KTEST_ALL_CPUS : 0);

BENCH_CASES(BENCH_KTEST)
