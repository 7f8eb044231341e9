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

#include "atomic.h"
#include "barrier.h"
#include "cmdline.h"
#include "console.h"
#include "kcsan.h"
#include "lockdep.h"
#include "percpu.h"
#include "printf.h"
#include "progress.h"
#include "results.h"
#include "smp.h"
#include "string.h"
#include "suite_switches.h"
#include "trace.h"
#include "tsc.h"

/* results.c keeps one verdict per suite of the plan. */
_Static_assert(SUITE_COUNT <= RESULTS_SUITES_MAX, "RESULTS_SUITES_MAX is below SUITE_COUNT");

#define START_TIMEOUT_NS     (10ull * 1000 * 1000 * 1000)
#define TEST_BASE_TIMEOUT_MS 120000u
/* More per CPU: with more virtual CPUs than host cores, each one shares the same cores. */
#define TEST_PER_CPU_TIMEOUT_MS 1000u
#define SKIP_REASON_MAX		96
#define KTAP_DIAG_PREFIX	KTAP_INDENT "# " /* a diagnostic line inside a test */
#define NS_PER_MS		1000000ull
/*
 * How long the runner waits, after a test ended, for a CPU still in it (it
 * missed the deadline) before giving up on the run: the next test must not
 * share the machine with the last one's leftovers.  Longer than any
 * selftest.stall= lasts past the deadline it cuts (STALL_MS_MAX / 2).
 */
#define LATE_GRACE_MS 60000u
/* selftest.stall=N:MS:fs-start holds CPU N before this barrier (fs/test/fs_torture.c). */
#define FS_TORTURE_START_BARRIER "fs torture start"

extern const struct ktest ktests_start[], ktests_end[];
extern const ktest_setup_fn ktest_setups_start[], ktest_setups_end[];

struct ktest_shared {
	const struct ktest *test;
	unsigned ncpus;
	uint32_t generation; /* current_generation while the test runs */
	unsigned stall_cpu;  /* selftest.stall= at start or deadline of this test; 0: none */
	volatile bool failed;
	volatile bool skipped;
	char skip_reason[SKIP_REASON_MAX];
	struct barrier start;		/* all CPUs enter the test together */
	struct barrier user;		/* ktest_barrier() */
	uint32_t finished;		/* CPUs done with the test: atomic_xadd32 */
	struct ktest_ctx ctx[MAX_CPUS]; /* each CPU's, outliving its frame (ktest.h) */
};

/*
 * Reset for each test only once every CPU is out of the last one
 * (smp_wait_idle), so a late CPU's writes land in the test it belongs to.
 */
static struct ktest_shared shared;
/* The running test's generation: bumped when it ends, so a CPU still in it knows it is late. */
static uint32_t current_generation;
static uint64_t ended_tsc;     /* when the last test ended */
static bool run_stopped;       /* a CPU did not come back from a test: nothing more runs */
static bool stall_pending;     /* selftest.stall= at start or deadline: the next all-CPU test */
static uint8_t fs_stall_armed; /* selftest.stall= at fs-start, not yet done */
static struct run_tally tally; /* what ran, for the line beside the verdict */
static uint64_t plan_tsc;      /* when the plan was printed */
/* Lockdep reports made inside tests' windows: any other is outside every test (ktest_verdict). */
static uint64_t lockdep_reports_in_tests;

static bool in_time(const struct ktest_ctx *t)
{
	return atomic_load32(&current_generation) == t->generation;
}

/* A late CPU's one line: what it did after its test ended, which counts for nothing. */
static void late_line(const struct ktest_ctx *t, const char *what)
{
	uint64_t ended = atomic_load64(&ended_tsc);

	printk(KTAP_DIAG_PREFIX "late: cpu %u, %llu ms after test '%s' ended: %s\n", t->cpu,
	       (unsigned long long)(tsc_to_ns(tsc_now() - ended) / NS_PER_MS), t->test->name, what);
}
static void vdiag(const char *prefix, const char *fmt, va_list ap)
{
	char line[PRINTK_MAX];

	kvsnprintf(line, sizeof(line), fmt, ap);
	printk(KTAP_DIAG_PREFIX "%s%s\n", prefix, line);
}

void ktest_fail(struct ktest_ctx *t, const char *fmt, ...)
{
	char line[PRINTK_MAX];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!in_time(t)) {
		late_line(t, line);
		return;
	}
	t->shared->failed = true;
	printk(KTAP_DIAG_PREFIX "FAIL cpu %u: %s\n", t->cpu, line);
}

void ktest_diag(struct ktest_ctx *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(in_time(t) ? "" : "late: ", fmt, ap);
	va_end(ap);
}

void ktest_skip(struct ktest_ctx *t, const char *reason)
{
	size_t n = strnlen(reason, SKIP_REASON_MAX - 1);

	if (!in_time(t)) {
		late_line(t, "asked to skip; too late");
		return;
	}
	memcpy(t->shared->skip_reason, reason, n);
	t->shared->skip_reason[n] = '\0';
	t->shared->skipped = true;
}

bool ktest_failed(const struct ktest_ctx *t)
{
	return t->shared->failed || !in_time(t);
}

struct ktest_ctx *ktest_this_cpu(struct ktest_ctx *t)
{
	unsigned cpu = this_cpu_index();

	return cpu < t->ncpus ? &t->shared->ctx[cpu] : t;
}

bool ktest_barrier(struct ktest_ctx *t, unsigned timeout_ms)
{
	if (t->ncpus == 1)
		return true;
	if (!in_time(t)) {
		late_line(t, "came to a barrier of the test; going no further");
		return false;
	}
	if (barrier_wait(&t->shared->user, (uint64_t)timeout_ms * 1000000, t->test->name))
		return true;
	if (in_time(t))
		t->shared->failed = true;
	return false;
}

/* selftest.stall=: hold this CPU up on purpose, saying so first. */
static void stall(unsigned cpu, const char *where, const char *test)
{
	printk(KTAP_DIAG_PREFIX "selftest.stall: cpu %u stalls %u ms %s of test '%s'\n", cpu,
	       opts.stall_ms, where, test);
	udelay((uint64_t)opts.stall_ms * 1000);
}

/* The barrier hook of selftest.stall=N:MS:fs-start: once, on CPU N. */
static void stall_at_barrier(const char *what)
{
	if (this_cpu_index() == opts.stall_cpu && strcmp(what, FS_TORTURE_START_BARRIER) == 0 &&
	    atomic_xchg8(&fs_stall_armed, 0))
		stall(opts.stall_cpu, "before barrier '" FS_TORTURE_START_BARRIER "'",
		      shared.test->name);
}

/*
 * Before the plan: check selftest.stall= against the CPUs this run has (one
 * cmdline: line, and no stall, for one it lacks) and arm it.
 */
static void stall_arm(void)
{
	unsigned n = smp_cpus_online();

	if (opts.stall_where == STALL_NONE)
		return;
	if (opts.stall_cpu >= n) {
		printk(
		    "cmdline: 'selftest.stall=%u:%u:%s': expected a CPU from 1 to %u (this run has "
		    "%u online); no stall\n",
		    opts.stall_cpu, opts.stall_ms, stall_where_names[opts.stall_where], n - 1, n);
		char value[40];

		ksnprintf(value, sizeof(value), "%u:%u:%s", opts.stall_cpu, opts.stall_ms,
			  stall_where_names[opts.stall_where]);
		cmdline_not_done("selftest.stall", value, "a CPU this run lacks; no stall");
		opts.stall_where = STALL_NONE;
		return;
	}
	if (opts.stall_where == STALL_FS_START) {
		fs_stall_armed = 1;
		barrier_set_arrive_hook(stall_at_barrier);
	} else {
		stall_pending = true;
	}
}

/* Whether a test named @name is filed under a suite of @mask. */
static bool test_in_run(unsigned mask, const char *name)
{
	for (const struct ktest *t = ktests_start; t < ktests_end; t++)
		for (unsigned s = 0; s < SUITE_COUNT; s++)
			if ((mask >> s) & 1 && strcmp(t->suite, suite_names[s]) == 0 &&
			    strcmp(t->name, name) == 0)
				return true;
	return false;
}

/*
 * Before the plan: a torture.busted= or trace.test= word whose test this
 * run does not start is not carried out (the run would pass without the
 * bug it plants, or judge no trace): one cmdline: line, kept for the verdict.
 */
static void check_run_words(unsigned mask)
{
	unsigned suite = busted_suite(opts.busted);

	if (suite && !(mask & suite)) {
		printk("cmdline: 'torture.busted=%s': planted in the %s suite, which this run does "
		       "not start; nothing planted\n",
		       busted_name(opts.busted), suite_names[__builtin_ctz(suite)]);
		cmdline_not_done("torture.busted", busted_name(opts.busted),
				 "its suite is not in this run; nothing planted");
	}
	if (opts.trace_test[0] && !test_in_run(mask, opts.trace_test)) {
		printk("cmdline: 'trace.test=%s': no test of that name in the suites this run "
		       "starts; nothing traced\n",
		       opts.trace_test);
		cmdline_not_done("trace.test", opts.trace_test,
				 "no test of that name in this run's suites; nothing traced");
	}
}

static void run_here(void *arg)
{
	struct ktest_shared *s = arg;
	unsigned cpu = this_cpu_index();
	struct ktest_ctx *ctx = &s->ctx[cpu];
	bool stalls = s->stall_cpu && cpu == s->stall_cpu;

	if (stalls && opts.stall_where == STALL_START)
		stall(cpu, "before the start barrier", s->test->name);
	if (s->ncpus > 1 && !barrier_wait(&s->start, START_TIMEOUT_NS, s->test->name)) {
		if (in_time(ctx))
			s->failed = true;
		else
			late_line(ctx, "missed the start");
		return;
	}
	s->test->run(ctx);
	/* A lock this CPU still holds is a report (which fails the test below), then forgotten. */
	lockdep_check_none_held(s->test->name);
	if (stalls && opts.stall_where == STALL_DEADLINE)
		stall(cpu, "past the deadline", s->test->name);
	if (!in_time(ctx)) {
		late_line(ctx, "finished it; its part is not counted");
		return;
	}
	atomic_xadd32(&s->finished, 1);
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
	uint32_t generation = atomic_load32_relaxed(&current_generation);

	show_progress(test, number);
	memset(s, 0, sizeof(*s));
	s->test = test;
	s->ncpus = (test->flags & KTEST_ALL_CPUS) ? smp_cpus_online() : 1;
	s->generation = generation;
	for (unsigned i = 0; i < s->ncpus; i++)
		s->ctx[i] = (struct ktest_ctx){test, i, s->ncpus, generation, s};
	if (stall_pending && s->ncpus > 1) {
		s->stall_cpu = opts.stall_cpu;
		stall_pending = false;
	}
	barrier_init(&s->start, s->ncpus);
	barrier_init(&s->user, s->ncpus);
	trace_name(&s->start, "ktest:start");
	trace_name(&s->user, "ktest:barrier");
	/* Lines from lib/ and fs/ belong to this test: diagnostics and BENCH lines at its level. */
	console_set_test_prefixes(KTAP_DIAG_PREFIX, KTAP_INDENT);
	uint64_t reports = lockdep_reports(), races = kcsan_races();

	kcsan_set_test(test->name);
	uint64_t start = tsc_now();
	trace_test_begin(test->name);
	if (s->ncpus > 1) {
		/* Generous: a torture runs a few lengths; a benchmark sweeps CPU counts and trials. */
		uint64_t timeout = TEST_BASE_TIMEOUT_MS +
				   (uint64_t)TEST_PER_CPU_TIMEOUT_MS * s->ncpus +
				   20ull * opts.torture_ms +
				   4ull * s->ncpus * (opts.bench_trials + 1) * opts.bench_ms;

		/* The stall outlasts the deadline by half: the CPU comes back, late. */
		if (s->stall_cpu && opts.stall_where == STALL_DEADLINE) {
			timeout = opts.stall_ms / 2;
			printk(KTAP_DIAG_PREFIX
			       "selftest.stall: this test's deadline cut to %llu ms\n",
			       (unsigned long long)timeout);
		}
		if (!smp_run_on_all(run_here, s, timeout, test->name))
			s->failed = true;
	} else {
		run_here(s);
	}
	uint64_t elapsed_ns = tsc_to_ns(tsc_now() - start);

	/* The test has ended: a CPU still in it is late from here on, and is waited for. */
	atomic_store64(&ended_tsc, tsc_now());
	atomic_store32(&current_generation, generation + 1);
	unsigned busy = s->ncpus > 1 ? smp_wait_idle(LATE_GRACE_MS) : 0;
	if (busy) {
		printk(KTAP_DIAG_PREFIX "FAIL: cpu %u is still in this test %u ms after it ended; "
					"stopping the run (the next test would run beside it)\n",
		       busy, LATE_GRACE_MS);
		s->failed = true;
		run_stopped = true;
	}

	console_set_test_prefixes("", "");
	uint32_t finished = atomic_load32(&s->finished);

	if (finished != s->ncpus && !s->failed) {
		printk(KTAP_DIAG_PREFIX "FAIL: only %u of %u CPU%s finished\n", finished, s->ncpus,
		       plural(s->ncpus));
		s->failed = true;
	}
	trace_test_end(test->name, !s->failed);
	/*
	 * The lockdep suite plants its reports and checks them itself; anywhere
	 * else one is a bug, and so is a full table that stopped the checker.
	 */
	if (lockdep_reports() != reports && strcmp(test->suite, "lockdep") != 0) {
		const char *last = lockdep_last_report();
		int first = 0;

		while (last[first] && last[first] != '\n')
			first++;
		printk(KTAP_DIAG_PREFIX "FAIL: lockdep made %llu report(s) during this test, the "
					"last: %.*s\n",
		       (unsigned long long)(lockdep_reports() - reports), first, last);
		s->failed = true;
	}
	lockdep_reports_in_tests += lockdep_reports() - reports;
	kcsan_set_test(NULL);
	kcsan_flush(); /* this test's races, before its verdict */
	if (kcsan_races() != races) {
		printk(KTAP_DIAG_PREFIX "FAIL: kcsan found %llu data race(s) during this test (the "
					"lines above start with 'kcsan:')\n",
		       (unsigned long long)(kcsan_races() - races));
		s->failed = true;
	}
	/* A "# duration" diagnostic: readers take it as the time of the result below. */
	printk(KTAP_DIAG_PREFIX "duration: %llu ms\n",
	       (unsigned long long)(elapsed_ns / NS_PER_MS));
	if (s->skipped && !s->failed)
		printk(KTAP_INDENT "ok %u %s # SKIP %s\n", number, test->name, s->skip_reason);
	else
		printk(KTAP_INDENT "%s %u %s\n", s->failed ? "not ok" : "ok", number, test->name);
	tally.failed += s->failed;
	tally.skipped += s->skipped && !s->failed;
	tally.passed += !s->failed && !s->skipped;
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
		if ((mask >> s) & 1) {
			nsuites++;
			tally.planned += count_in_suite(suite_names[s]);
		}
	stall_arm(); /* its cmdline: line, if any, before KTAP */
	check_run_words(mask);
	printk("KTAP version 1\n1..%u\n", nsuites);
	tally.suites = nsuites;
	tally.started = true;
	plan_tsc = tsc_now();
	/* After the plan: a fault in a setup hook is then a crashed run, not a missing one. */
	for (const ktest_setup_fn *setup = ktest_setups_start; setup < ktest_setups_end; setup++)
		(*setup)();
	for (unsigned s = 0; s < SUITE_COUNT && !run_stopped; s++) {
		if (!((mask >> s) & 1))
			continue;
		const char *suite = suite_names[s];
		unsigned n = count_in_suite(suite), i = 0;
		bool suite_ok = true;

		number++;
		planned += n;
		/* Its switches (SUITE_LIST's column): one patching round, one line, before its plan. */
		if (n)
			suite_switches_apply(s);
		if (n == 0) {
			printk("ok %u %s # SKIP no tests registered in this build\n", number,
			       suite);
			continue;
		}
		printk(KTAP_INDENT "KTAP version 1\n" KTAP_INDENT "# Subtest: %s\n" KTAP_INDENT
				   "1..%u\n",
		       suite, n);
		for (const struct ktest *t = ktests_start; t < ktests_end; t++) {
			if (strcmp(t->suite, suite) != 0 || run_stopped)
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
	/* Whenever the checker was on: tools/log/ktap_check.py requires this line of such a boot. */
	if (opts.lockdep == 1) {
		struct lockdep_stats ld = lockdep_stats();
		char end[96] = "checking to the end";

		if (ld.stopped)
			ksnprintf(end, sizeof(end),
				  "checking STOPPED: the %s table is full (%u entries)", ld.stopped,
				  ld.stopped_size);
		printk("# lockdep: %u classes, %u orders, %u locks known, at most %u held at once, "
		       "%llu reports; %s\n",
		       ld.classes, ld.edges, ld.locks, ld.max_depth,
		       (unsigned long long)lockdep_reports(), end);
	}
	uint64_t races = kcsan_races();

	kcsan_summary(); /* # KCSAN, with the races found outside any test */
	if (races) {
		printk("# kcsan: %llu data race(s) in this run: it fails\n",
		       (unsigned long long)races);
		all_ok = false;
	}
	/* A word that selects what is tested was not carried out: this was not the run asked for. */
	if (cmdline_fails()) {
		cmdline_fail_line();
		all_ok = false;
	}
	progress_finish(all_ok); /* the results page, for whoever watches the screen */
	return all_ok;
}

/*
 * The checker's reports outside every test's window (boot, the setup
 * hooks, between tests, the results page, the exit until now), and a
 * checker that stopped: no test failed for them, so the run does, with
 * one line beside the verdict.  False if there was any.
 */
static bool lockdep_outside_tests_clean(void)
{
	uint64_t outside = lockdep_reports() - lockdep_reports_in_tests;
	struct lockdep_stats stats = lockdep_stats();
	const char *last = lockdep_last_report();
	int first = 0;

	while (last[first] && last[first] != '\n')
		first++;
	if (outside)
		printk("# lockdep: %llu report(s) outside any test (boot, setup hooks, between "
		       "tests, results page or exit): the run fails; the last: %.*s\n",
		       (unsigned long long)outside, first, last);
	if (stats.stopped)
		printk("# lockdep: checking stopped (the %s table is full, %u entries): the run "
		       "fails\n",
		       stats.stopped, stats.stopped_size);
	return !outside && !stats.stopped;
}

bool ktest_verdict(bool pass)
{
	console_set_test_prefixes("", ""); /* a panic inside a test left its prefixes */
	pass &= lockdep_outside_tests_clean();
	tally.ms = tally.started ? tsc_to_ns(tsc_now() - plan_tsc) / NS_PER_MS : 0;
	return cmdline_verdict(&tally, pass);
}
