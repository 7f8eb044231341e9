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
 *
 * What the runner does around a suite (its switches, how long its tests
 * should take, whose lockdep reports fail a test) is that suite's row of
 * SUITE_LIST (kernel/suites.h): it reads no suite's name.  Each test is
 * prepared, run, judged and reported (run_one); selftest.stall=, which
 * proves the runner's failure paths, is kernel/ktest_stall.c.
 */
#include "ktest.h"
#include "ktest_stall.h"

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

/* results_read.c keeps one verdict per suite of the plan. */
_Static_assert(SUITE_COUNT <= RESULTS_SUITES_MAX, "RESULTS_SUITES_MAX is below SUITE_COUNT");

#define START_TIMEOUT_NS     (10ull * 1000 * 1000 * 1000)
#define TEST_BASE_TIMEOUT_MS 120000u
/* More per CPU: with more virtual CPUs than host cores, each one shares the same cores. */
#define TEST_PER_CPU_TIMEOUT_MS 1000u
#define SKIP_REASON_MAX		96
#define NS_PER_MS		1000000ull
/*
 * How long the runner waits, after a test ended, for a CPU still in it (it
 * missed the deadline) before giving up on the run: the next test must not
 * share the machine with the last one's leftovers.  Longer than any
 * selftest.stall= lasts past the deadline it cuts (STALL_MS_MAX / 2).
 */
#define LATE_GRACE_MS 60000u

extern const struct ktest ktests_start[], ktests_end[];
extern const ktest_setup_fn ktest_setups_start[], ktest_setups_end[];

struct ktest_shared {
	const struct ktest *test;
	unsigned ncpus;
	uint32_t generation; /* current_generation while the test runs */
	unsigned stall_cpu;  /* selftest.stall= at start or deadline of this test; 0: none */
	/* The checkers' counts when the test started: what it added is its own. */
	uint64_t lockdep_reports_before, races_before;
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

/* Whether a test named @name is filed under a suite of @mask. */
static bool test_in_run(unsigned mask, const char *name)
{
	for (const struct ktest *t = ktests_start; t < ktests_end; t++)
		if ((mask >> t->suite) & 1 && strcmp(t->name, name) == 0)
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

/* Each suite's policy, from its SUITE_LIST row: the runner reads no suite's name. */
static const struct {
	enum suite_length length;
	enum suite_lockdep lockdep;
} suite_policy[SUITE_COUNT] = {
#define SUITE_X_POLICY(name, id, group, switches, length, lockdep)                                 \
	[SUITE_INDEX_##id] = {SUITE_LENGTH_##length, SUITE_LOCKDEP_##lockdep},
    SUITE_LIST(SUITE_X_POLICY)
#undef SUITE_X_POLICY
};

/* The TOLD suites' hooks (ktest_expect): how long each of their tests should take. */
static uint64_t (*expected_ms[SUITE_COUNT])(const struct ktest *test);

void ktest_expect(enum suite_index suite, uint64_t (*expected)(const struct ktest *test))
{
	expected_ms[suite] = expected;
}

/* Tell the screen's status line a test starts, with how long it should take (0: not known). */
static void show_progress(const struct ktest *test, unsigned number)
{
	uint64_t ms = 0;

	switch (suite_policy[test->suite].length) {
	case SUITE_LENGTH_TORTURE:
		ms = (test->flags & KTEST_ALL_CPUS) ? opts.torture_ms : 0;
		break;
	case SUITE_LENGTH_TOLD:
		ms = expected_ms[test->suite] ? expected_ms[test->suite](test) : 0;
		break;
	case SUITE_LENGTH_UNKNOWN:
		break;
	}
	progress_test_start(test->name, number, ms);
}

/* The length of @text's first line, for a report quoted on one line. */
static int first_line_length(const char *text)
{
	int n = 0;

	while (text[n] && text[n] != '\n')
		n++;
	return n;
}

/* Set the shared state up for @test: each CPU's context, the barriers, a stall it takes. */
static void test_prepare(struct ktest_shared *s, const struct ktest *test, unsigned number)
{
	uint32_t generation = atomic_load32_relaxed(&current_generation);

	show_progress(test, number);
	memset(s, 0, sizeof(*s));
	s->test = test;
	s->ncpus = (test->flags & KTEST_ALL_CPUS) ? smp_cpus_online() : 1;
	s->generation = generation;
	for (unsigned i = 0; i < s->ncpus; i++)
		s->ctx[i] = (struct ktest_ctx){test, i, s->ncpus, generation, s};
	s->stall_cpu = stall_test_starts(test->name, s->ncpus);
	barrier_init(&s->start, s->ncpus);
	barrier_init(&s->user, s->ncpus);
	trace_name(&s->start, "ktest:start");
	trace_name(&s->user, "ktest:barrier");
	/* Lines from lib/ and fs/ belong to this test: diagnostics and BENCH lines at its level. */
	console_set_test_prefixes(KTAP_DIAG_PREFIX, KTAP_INDENT);
	s->lockdep_reports_before = lockdep_reports();
	s->races_before = kcsan_races();
	kcsan_set_test(test->name);
}

/* How long an all-CPU test may take before the runner stops waiting for it. */
static uint64_t test_deadline_ms(const struct ktest_shared *s)
{
	/* Generous: a torture runs a few lengths; a benchmark sweeps CPU counts and trials. */
	uint64_t ms = TEST_BASE_TIMEOUT_MS + (uint64_t)TEST_PER_CPU_TIMEOUT_MS * s->ncpus +
		      20ull * opts.torture_ms +
		      4ull * s->ncpus * (opts.bench_trials + 1) * opts.bench_ms;

	/* The stall outlasts the deadline by half: the CPU comes back, late. */
	if (s->stall_cpu && opts.stall_where == STALL_DEADLINE) {
		ms = opts.stall_ms / 2;
		printk(KTAP_DIAG_PREFIX "selftest.stall: this test's deadline cut to %llu ms\n",
		       (unsigned long long)ms);
	}
	return ms;
}

/*
 * Run the test on its CPUs, end it (a CPU still in it is late from then
 * on) and wait for any such CPU.  Returns the test's time in ns.
 */
static uint64_t test_run(struct ktest_shared *s)
{
	uint64_t start = tsc_now(), elapsed_ns;

	trace_test_begin(s->test->name);
	if (s->ncpus > 1) {
		if (!smp_run_on_all(run_here, s, test_deadline_ms(s), s->test->name))
			s->failed = true;
	} else {
		run_here(s);
	}
	elapsed_ns = tsc_to_ns(tsc_now() - start);
	atomic_store64(&ended_tsc, tsc_now());
	atomic_store32(&current_generation, s->generation + 1);
	unsigned busy = s->ncpus > 1 ? smp_wait_idle(LATE_GRACE_MS) : 0;
	if (busy) {
		printk(KTAP_DIAG_PREFIX "FAIL: cpu %u is still in this test %u ms after it ended; "
					"stopping the run (the next test would run beside it)\n",
		       busy, LATE_GRACE_MS);
		s->failed = true;
		run_stopped = true;
	}
	console_set_test_prefixes("", "");
	return elapsed_ns;
}

/*
 * What the runner itself holds against the test, beyond what it reported:
 * a CPU that did not finish, a lockdep report its suite did not plant
 * (SUITE_LIST's lockdep column; a full table that stopped the checker
 * reports too), a data race.
 */
static void test_judge(struct ktest_shared *s)
{
	uint32_t finished = atomic_load32(&s->finished);

	if (finished != s->ncpus && !s->failed) {
		printk(KTAP_DIAG_PREFIX "FAIL: only %u of %u CPU%s finished\n", finished, s->ncpus,
		       plural(s->ncpus));
		s->failed = true;
	}
	trace_test_end(s->test->name, !s->failed);
	uint64_t reports = lockdep_reports() - s->lockdep_reports_before;

	if (reports && suite_policy[s->test->suite].lockdep == SUITE_LOCKDEP_FAILS) {
		const char *last = lockdep_last_report();

		printk(KTAP_DIAG_PREFIX "FAIL: lockdep made %llu report(s) during this test, the "
					"last: %.*s\n",
		       (unsigned long long)reports, first_line_length(last), last);
		s->failed = true;
	}
	lockdep_reports_in_tests += reports;
	kcsan_set_test(NULL);
	kcsan_flush(); /* this test's races, before its verdict */
	if (kcsan_races() != s->races_before) {
		printk(KTAP_DIAG_PREFIX "FAIL: kcsan found %llu data race(s) during this test (the "
					"lines above start with 'kcsan:')\n",
		       (unsigned long long)(kcsan_races() - s->races_before));
		s->failed = true;
	}
}

/* The test's KTAP result line, after its duration; counted for the verdict's tally. */
static void test_report(const struct ktest_shared *s, unsigned number, uint64_t elapsed_ns)
{
	/* A "# duration" diagnostic: readers take it as the time of the result below. */
	printk(KTAP_DIAG_PREFIX "duration: %llu ms\n",
	       (unsigned long long)(elapsed_ns / NS_PER_MS));
	if (s->skipped && !s->failed)
		printk(KTAP_INDENT "ok %u %s # SKIP %s\n", number, s->test->name, s->skip_reason);
	else
		printk(KTAP_INDENT "%s %u %s\n", s->failed ? "not ok" : "ok", number,
		       s->test->name);
	tally.failed += s->failed;
	tally.skipped += s->skipped && !s->failed;
	tally.passed += !s->failed && !s->skipped;
}

/* Run one test; returns true if it passed or was skipped. */
static bool run_one(const struct ktest *test, unsigned number)
{
	test_prepare(&shared, test, number);
	uint64_t elapsed_ns = test_run(&shared);

	test_judge(&shared);
	test_report(&shared, number, elapsed_ns);
	return !shared.failed;
}

static unsigned count_in_suite(enum suite_index suite)
{
	unsigned n = 0;

	for (const struct ktest *t = ktests_start; t < ktests_end; t++)
		n += t->suite == suite;
	return n;
}

/* The tests of the suites the run reached, and of those the tests it ran: equal unless it stopped. */
struct run_count {
	unsigned planned, ran;
};

/*
 * Suite @suite as the @number-th subtest of the plan: its switches, its
 * plan, its tests in link order.  Returns true if none failed.
 */
static bool run_suite(enum suite_index suite, unsigned number, struct run_count *count)
{
	unsigned n = count_in_suite(suite), i = 0;
	bool suite_ok = true;

	count->planned += n;
	if (n == 0) {
		printk("ok %u %s # SKIP no tests registered in this build\n", number,
		       suite_names[suite]);
		return true;
	}
	/* Its switches (SUITE_LIST's column): one patching round, one line, before its plan. */
	suite_switches_apply(suite);
	printk(KTAP_INDENT "KTAP version 1\n" KTAP_INDENT "# Subtest: %s\n" KTAP_INDENT "1..%u\n",
	       suite_names[suite], n);
	for (const struct ktest *t = ktests_start; t < ktests_end; t++) {
		if (t->suite != suite || run_stopped)
			continue;
		suite_ok &= run_one(t, ++i);
		count->ran++;
	}
	printk("%s %u %s\n", suite_ok ? "ok" : "not ok", number, suite_names[suite]);
	return suite_ok;
}

/* Whenever the checker was on: tools/log/ktap_check.py requires this line of such a boot. */
static void lockdep_summary(void)
{
	struct lockdep_stats ld = lockdep_stats();
	char end[96] = "checking to the end";

	if (ld.stopped)
		ksnprintf(end, sizeof(end), "checking STOPPED: the %s table is full (%u entries)",
			  ld.stopped, ld.stopped_size);
	printk("# lockdep: %u classes, %u orders, %u locks known, at most %u held at once, "
	       "%llu reports; %s\n",
	       ld.classes, ld.edges, ld.locks, ld.max_depth, (unsigned long long)lockdep_reports(),
	       end);
}

/* The KTAP header and top-level plan of @mask; the tally's plan. */
static void print_plan(unsigned mask)
{
	unsigned nsuites = 0;

	for (unsigned s = 0; s < SUITE_COUNT; s++)
		if ((mask >> s) & 1) {
			nsuites++;
			tally.planned += count_in_suite(s);
		}
	printk("KTAP version 1\n1..%u\n", nsuites);
	tally.suites = nsuites;
	tally.started = true;
	plan_tsc = tsc_now();
}

bool ktest_run(unsigned mask)
{
	struct run_count count = {0, 0};
	unsigned number = 0;
	bool all_ok = true;

	stall_arm(); /* its cmdline: line, if any, before KTAP */
	check_run_words(mask);
	print_plan(mask);
	/* After the plan: a fault in a setup hook is then a crashed run, not a missing one. */
	for (const ktest_setup_fn *setup = ktest_setups_start; setup < ktest_setups_end; setup++)
		(*setup)();
	for (unsigned s = 0; s < SUITE_COUNT && !run_stopped; s++)
		if ((mask >> s) & 1)
			all_ok &= run_suite(s, ++number, &count);
	if (count.ran != count.planned) {
		printk("# ktest: ran %u of %u registered tests\n", count.ran, count.planned);
		all_ok = false;
	}
	if (opts.lockdep == 1)
		lockdep_summary();
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

	if (outside)
		printk("# lockdep: %llu report(s) outside any test (boot, setup hooks, between "
		       "tests, results page or exit): the run fails; the last: %.*s\n",
		       (unsigned long long)outside, first_line_length(last), last);
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
