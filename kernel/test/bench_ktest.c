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
#include "bench_plan.h"
#include "cmdline.h"
#include "console.h"
#include "cpuinfo.h"
#include "ktest.h"
#include "printf.h"
#include "string.h"
#include "topology_read.h"

static void bench_plan_line(const char *text)
{
	printk("# %s\n", text);
}

/* The status line's "~N s" of a benchmark: the plan's estimate (an emulator takes longer). */
static uint64_t bench_expected_ms(const struct ktest *test)
{
	static const char *const names[] = {
#define BENCH_NAME(fn, name, ...) name,
	    BENCH_CASES(BENCH_NAME)
#undef BENCH_NAME
	};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(test->name, names[i]) == 0)
			return bench_plan_case_ms(i, opts.bench_ms, opts.bench_trials);
	return 0;
}

/*
 * Before any suite, on CPU 0: the CPUs of every sweep in bench.place=
 * order and its counts (bench.cpus=), from the CPUID topology, printed
 * when the benchmarks run; with bench.plan=1 they then run nothing.
 */
static void bench_plan_setup(void)
{
	bench_plan_make(kernel_topology(), NULL, 0, opts.bench_place, opts.bench_cpus,
			opts.bench_cpus_list, opts.bench_cpus_n);
	/* Always with the benchmarks: the report marks the boundaries from these lines. */
	if (opts.bench_plan || (opts.run & SUITE_BENCH))
		bench_plan_print(opts.bench_ms, opts.bench_trials, bench_plan_line);
	ktest_expect(SUITE_INDEX_BENCH, bench_expected_ms);
}
KTEST_SETUP(bench_plan_setup);

static void bench_ktest(struct ktest_ctx *t, void (*fn)(struct bench_ctx *))
{
	struct bench_ctx b = {
	    /* Rank r of an all-CPU benchmark runs on the plan's r-th CPU. */
	    .cpu = t->ncpus > 1 ? bench_plan_rank(t->cpu) : 0,
	    .ncpus = t->ncpus,
	    .ms = opts.bench_ms,
	    .trials = opts.bench_trials,
	    .id = t->test,
	    .runner = t,
	    .emulated = strcmp(cpuinfo_hypervisor_name(), "tcg") == 0,
	};

	if (opts.bench_plan)
		return; /* bench.plan=1: the plan only */
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

#define BENCH_KTEST(fn, name, cpus, ...)                                                           \
	static void ktest_##fn(struct ktest_ctx *t)                                                \
	{                                                                                          \
		bench_ktest(t, fn);                                                                \
	}                                                                                          \
	KTEST(bench, name, ktest_##fn, (cpus) == BENCH_ALL_CPUS ? KTEST_ALL_CPUS : 0);

BENCH_CASES(BENCH_KTEST)
