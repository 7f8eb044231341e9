// SPDX-License-Identifier: MIT
/*
 * ktest.c - find the registered tests, run them, print KTAP version 1.
 *
 * Output shape (Linux Documentation/dev-tools/ktap.rst: one subtest block
 * per suite, every line of it, diagnostics included, indented by two
 * spaces per nesting level):
 *
 *   KTAP version 1
 *   1..2
 *     KTAP version 1
 *     # Subtest: boot
 *     1..3
 *     # duration: 12 ms
 *     ok 1 cpus_online
 *     ...
 *   ok 1 boot
 *
 * The version line and the top-level plan are printed before anything that
 * can fault, the setup hooks (KTEST_SETUP: selftest.fault=) included, so a
 * crash anywhere shows as a short plan; skips are "ok N name # SKIP reason"
 * (docs/tools.md: prove treats "not ok ... # SKIP" as a failure).
 */
#include "ktest.h"

#include "barrier.h"
#include "cmdline.h"
#include "console.h"
#include "percpu.h"
#include "printf.h"
#include "progress.h"
#include "results.h"
#include "smp.h"
#include "string.h"
#include "trace.h"
#include "tsc.h"

#define SUITE_COUNT	     5
#define START_TIMEOUT_NS     (10ull * 1000 * 1000 * 1000)
#define TEST_BASE_TIMEOUT_MS 120000u
/* More per CPU: with more virtual CPUs than host cores, each one shares the same cores. */
#define TEST_PER_CPU_TIMEOUT_MS 1000u
#define SKIP_REASON_MAX		96
#define KTAP_DIAG_PREFIX	KTAP_INDENT "# " /* a diagnostic line inside a test */
#define NS_PER_MS		1000000ull

extern const struct ktest ktests_start[], ktests_end[];
extern const ktest_setup_fn ktest_setups_start[], ktest_setups_end[];

static const char *const suite_order[SUITE_COUNT] = {"boot", "spinlock", "lockref", "fs", "bench"};

struct ktest_shared {
	const struct ktest *test;
	unsigned ncpus;
	volatile bool failed;
	volatile bool skipped;
	char skip_reason[SKIP_REASON_MAX];
	struct barrier start; /* all CPUs enter the test together */
	struct barrier user;  /* ktest_barrier() */
	volatile unsigned finished;
};

static struct ktest_shared shared;
static void vdiag(const char *prefix, const char *fmt, va_list ap)
{
	char line[PRINTK_MAX];

	kvsnprintf(line, sizeof(line), fmt, ap);
	printk(KTAP_DIAG_PREFIX "%s%s\n", prefix, line);
}

void ktest_fail(struct ktest_ctx *t, const char *fmt, ...)
{
	char prefix[32];
	va_list ap;

	t->shared->failed = true;
	ksnprintf(prefix, sizeof(prefix), "FAIL cpu %u: ", t->cpu);
	va_start(ap, fmt);
	vdiag(prefix, fmt, ap);
	va_end(ap);
}

void ktest_diag(struct ktest_ctx *t, const char *fmt, ...)
{
	va_list ap;

	(void)t;
	va_start(ap, fmt);
	vdiag("", fmt, ap);
	va_end(ap);
}

void ktest_skip(struct ktest_ctx *t, const char *reason)
{
	size_t n = strnlen(reason, SKIP_REASON_MAX - 1);

	memcpy(t->shared->skip_reason, reason, n);
	t->shared->skip_reason[n] = '\0';
	t->shared->skipped = true;
}

bool ktest_failed(const struct ktest_ctx *t)
{
	return t->shared->failed;
}

bool ktest_barrier(struct ktest_ctx *t, unsigned timeout_ms)
{
	if (t->ncpus == 1)
		return true;
	if (barrier_wait(&t->shared->user, (uint64_t)timeout_ms * 1000000, t->test->name))
		return true;
	t->shared->failed = true;
	return false;
}

static void run_here(void *arg)
{
	struct ktest_shared *s = arg;
	struct ktest_ctx ctx = {s->test, this_cpu_index(), s->ncpus, s};

	if (s->ncpus > 1 && !barrier_wait(&s->start, START_TIMEOUT_NS, s->test->name)) {
		s->failed = true;
		return;
	}
	s->test->run(&ctx);
	__atomic_add_fetch(&s->finished, 1, __ATOMIC_ACQ_REL);
}

/*
 * Tell the screen's status line a test starts, with how long it should
 * take: every all-CPU test of the torture suites runs for torture.secs,
 * a suite that told ktest_expect says; other tests' are not known.
 */
static struct {
	const char *suite;
	uint64_t (*ms)(const struct ktest *test);
} expect;

void ktest_expect(const char *suite, uint64_t (*expected_ms)(const struct ktest *test))
{
	expect.suite = suite;
	expect.ms = expected_ms;
}

static void show_progress(const struct ktest *test, unsigned number)
{
	bool torture = (test->flags & KTEST_ALL_CPUS) && strcmp(test->suite, "boot") != 0 &&
		       strcmp(test->suite, "bench") != 0;
	bool told = expect.ms && strcmp(test->suite, expect.suite) == 0;

	progress_test_start(test->name, number,
			    told      ? expect.ms(test)
			    : torture ? opts.torture_ms
				      : 0);
}

/* Run one test; returns true if it passed or was skipped. */
static bool run_one(const struct ktest *test, unsigned number)
{
	struct ktest_shared *s = &shared;

	show_progress(test, number);
	memset(s, 0, sizeof(*s));
	s->test = test;
	s->ncpus = (test->flags & KTEST_ALL_CPUS) ? smp_cpus_online() : 1;
	barrier_init(&s->start, s->ncpus);
	barrier_init(&s->user, s->ncpus);
	trace_name(&s->start, "ktest:start");
	trace_name(&s->user, "ktest:barrier");
	/* Lines from lib/ and fs/ belong to this test: diagnostics and BENCH lines at its level. */
	console_set_test_prefixes(KTAP_DIAG_PREFIX, KTAP_INDENT);
	uint64_t start = tsc_now();
	trace_test_begin(test->name);
	if (s->ncpus > 1) {
		/* Generous: a torture runs a few lengths; a benchmark sweeps CPU counts and trials. */
		uint64_t timeout = TEST_BASE_TIMEOUT_MS +
				   (uint64_t)TEST_PER_CPU_TIMEOUT_MS * s->ncpus +
				   20ull * opts.torture_ms +
				   4ull * s->ncpus * (opts.bench_trials + 1) * opts.bench_ms;

		if (!smp_run_on_all(run_here, s, timeout, test->name))
			s->failed = true;
	} else {
		run_here(s);
	}
	uint64_t elapsed_ns = tsc_to_ns(tsc_now() - start);

	console_set_test_prefixes("", "");
	if (s->finished != s->ncpus && !s->failed) {
		printk(KTAP_DIAG_PREFIX "FAIL: only %u of %u CPUs finished\n", s->finished,
		       s->ncpus);
		s->failed = true;
	}
	trace_test_end(test->name, !s->failed);
	/* A "# duration" diagnostic: readers take it as the time of the result below. */
	printk(KTAP_DIAG_PREFIX "duration: %llu ms\n",
	       (unsigned long long)(elapsed_ns / NS_PER_MS));
	if (s->skipped && !s->failed)
		printk(KTAP_INDENT "ok %u %s # SKIP %s\n", number, test->name, s->skip_reason);
	else
		printk(KTAP_INDENT "%s %u %s\n", s->failed ? "not ok" : "ok", number, test->name);
	return !s->failed;
}

static unsigned count_in_suite(const char *suite)
{
	unsigned n = 0;

	for (const struct ktest *t = ktests_start; t < ktests_end; t++)
		n += strcmp(t->suite, suite) == 0;
	return n;
}

bool ktest_run(unsigned mask)
{
	unsigned nsuites = 0, number = 0, planned = 0, ran = 0;
	bool all_ok = true;

	for (unsigned s = 0; s < SUITE_COUNT; s++)
		nsuites += (mask >> s) & 1;
	printk("KTAP version 1\n1..%u\n", nsuites);
	/* After the plan: a fault in a setup hook is then a crashed run, not a missing one. */
	for (const ktest_setup_fn *setup = ktest_setups_start; setup < ktest_setups_end; setup++)
		(*setup)();
	for (unsigned s = 0; s < SUITE_COUNT; s++) {
		if (!((mask >> s) & 1))
			continue;
		const char *suite = suite_order[s];
		unsigned n = count_in_suite(suite), i = 0;
		bool suite_ok = true;

		number++;
		planned += n;
		if (n == 0) {
			printk("ok %u %s # SKIP no tests registered in this build\n", number,
			       suite);
			continue;
		}
		printk(KTAP_INDENT "KTAP version 1\n" KTAP_INDENT "# Subtest: %s\n" KTAP_INDENT
				   "1..%u\n",
		       suite, n);
		for (const struct ktest *t = ktests_start; t < ktests_end; t++) {
			if (strcmp(t->suite, suite) != 0)
				continue;
			suite_ok &= run_one(t, ++i);
			ran++;
		}
		printk("%s %u %s\n", suite_ok ? "ok" : "not ok", number, suite);
		all_ok &= suite_ok;
	}
	if (ran != planned) {
		printk("# ktest: ran %u of %u registered tests\n", ran, planned);
		all_ok = false;
	}
	progress_finish(all_ok); /* the results page, for whoever watches the screen */
	return all_ok;
}
