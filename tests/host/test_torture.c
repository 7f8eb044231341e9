// SPDX-License-Identifier: MIT
/*
 * test_torture.c - the boot-time torture tests (kernel/test/torture_*.c) on host
 * threads, so the sanitizers see the harness as well as the locks.
 *
 *   test_torture <spinlock|lockref> <threads> <ms per test>
 *
 * Stands in for the kernel's test runner: a small ktest.h implementation
 * that starts one thread per "CPU", gives each its ktest_ctx, and prints
 * KTAP-like "ok"/"not ok" lines with the tests' own diagnostics.  Exits 0
 * if every test passed.
 *
 * Built with -DTEST_TORTURE_BUSTED, each test runs with torture.busted= set
 * to the first row of BUSTED_LIST (kernel/busted_list.h) planted on it that
 * breaks exclusion (busted_control: today the ticket lock's broken twin,
 * the qspinlock whose pending waiter does not wait, the lockref policy that
 * ignores the lock), and the program exits 0 only if some test PASSED
 * anyway: this build must fail, proving that every one of the tests
 * catches the broken lock.
 */
#include "barrier.h"
#include "cmdline.h"
#include "cpuinfo.h"
#include "ktest.h"
#include "lockref.h"
#include "lockref16.h"
#include "platform.h"
#include "platform_host.h"
#include "spinlock.h"
#include "torture.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
/* The seed every run uses, so a failure here replays. */
#define HOST_SEED 1
/* Longest test name, skip reason and diagnostic line. */
#define NAME_MAX_LEN 64
#define LINE_MAX_LEN 512

/* What kernel/cmdline.c and kernel/cpuinfo.c would have filled in at boot. */
struct kernel_options opts;
struct cpuinfo cpuinfo;

/* The verdict and rendezvous all threads of one test share (kernel/ktest.c has its own). */
struct ktest_shared {
	volatile bool failed;
	volatile bool skipped;
	struct barrier user;
};

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void out_line(const char *prefix, const char *fmt, va_list ap)
{
	char line[LINE_MAX_LEN];

	vsnprintf(line, sizeof(line), fmt, ap);
	pthread_mutex_lock(&out_lock);
	printf("    # %s%s\n", prefix, line);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

void ktest_fail(struct ktest_ctx *t, const char *fmt, ...)
{
	char prefix[32];
	va_list ap;

	__atomic_store_n(&t->shared->failed, true, __ATOMIC_RELAXED);
	snprintf(prefix, sizeof(prefix), "FAIL cpu %u: ", t->cpu);
	va_start(ap, fmt);
	out_line(prefix, fmt, ap);
	va_end(ap);
}

void ktest_diag(struct ktest_ctx *t, const char *fmt, ...)
{
	va_list ap;

	(void)t;
	va_start(ap, fmt);
	out_line("", fmt, ap);
	va_end(ap);
}

void ktest_skip(struct ktest_ctx *t, const char *reason)
{
	__atomic_store_n(&t->shared->skipped, true, __ATOMIC_RELAXED);
	printf("    # SKIP %s\n", reason);
}

bool ktest_failed(const struct ktest_ctx *t)
{
	return __atomic_load_n(&t->shared->failed, __ATOMIC_RELAXED);
}

bool ktest_barrier(struct ktest_ctx *t, unsigned timeout_ms)
{
	if (t->ncpus == 1)
		return true;
	if (barrier_wait(&t->shared->user, (uint64_t)timeout_ms * 1000000, t->test->name))
		return true;
	__atomic_store_n(&t->shared->failed, true, __ATOMIC_RELAXED);
	return false;
}

/* One test as this harness runs it: a name and what each thread calls. */
struct host_case {
	char name[NAME_MAX_LEN];
	enum torture_form form;
	/* Which torture: BUSTED_ON_SPIN, _QSPIN or _LOCKREF (kernel/busted_list.h). */
	enum busted_on on;
	const struct lockref_policy *policy; /* BUSTED_ON_LOCKREF's */
};

struct host_thread {
	pthread_t thread;
	struct ktest_ctx ctx;
	const struct host_case *c;
};

static void *run_thread(void *arg)
{
	struct host_thread *h = arg;

	host_set_cpu_id(h->ctx.cpu);
	switch (h->c->on) {
	case BUSTED_ON_LOCKREF:
		torture_lockref_run(&h->ctx, h->c->form, h->c->policy, cpuinfo.cx16);
		break;
	case BUSTED_ON_QSPIN:
		torture_qspinlock_run(&h->ctx);
		break;
	default:
		torture_spinlock_run(&h->ctx);
		break;
	}
	return NULL;
}

/* Run @c on @n threads; returns true if it passed. */
static bool run_case(const struct host_case *c, unsigned n, unsigned number)
{
	struct ktest test = {c->on == BUSTED_ON_LOCKREF ? SUITE_INDEX_LOCKREF
							: SUITE_INDEX_SPINLOCK,
			     c->name, NULL, KTEST_ALL_CPUS};
	struct host_thread threads[MAX_THREADS];
	struct ktest_shared shared = {0};

	barrier_init(&shared.user, n);
	host_set_cpu_count(n);
	for (unsigned i = 0; i < n; i++) {
		threads[i].ctx = (struct ktest_ctx){
		    &test, i, n, 0, &shared}; /* one generation: no late CPUs here */
		threads[i].c = c;
		if (pthread_create(&threads[i].thread, NULL, run_thread, &threads[i]) != 0) {
			fprintf(stderr, "test_torture: cannot start thread %u\n", i);
			exit(2);
		}
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(threads[i].thread, NULL);
	printf("    %s %u %s\n", shared.failed ? "not ok" : "ok", number, c->name);
	fflush(stdout);
	return !shared.failed;
}

static unsigned parse_count(const char *s, unsigned lo, unsigned hi, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "test_torture: %s '%s' must be a number from %u to %u\n", what, s,
			lo, hi);
		exit(2);
	}
	return (unsigned)v;
}

/* The suites' names, from SUITE_LIST: argv[1] names the suite whose tortures run. */
#define TORTURE_X_NAME(name, ...) #name,
static const char *const torture_suites[SUITE_COUNT] = {SUITE_LIST(TORTURE_X_NAME)};
#undef TORTURE_X_NAME

/* The suite named @word, or SUITE_COUNT. */
static enum suite_index suite_of(const char *word)
{
	for (unsigned i = 0; i < SUITE_COUNT; i++)
		if (strcmp(word, torture_suites[i]) == 0)
			return (enum suite_index)i;
	return SUITE_COUNT;
}

int main(int argc, char **argv)
{
	static const struct lockref_policy *const policies[] = {
	    &lockref_policy_mainline, &lockref_policy_v7, &lockref_policy_locked};
	struct host_case cases[2 * 3];
	unsigned ncases = 0, threads, passed = 0;
	bool spin;

	enum suite_index suite = argc == 4 ? suite_of(argv[1]) : SUITE_COUNT;

	if (suite != SUITE_INDEX_SPINLOCK && suite != SUITE_INDEX_LOCKREF) {
		fprintf(stderr, "usage: test_torture <%s|%s> <threads> <ms per test>\n",
			torture_suites[SUITE_INDEX_SPINLOCK], torture_suites[SUITE_INDEX_LOCKREF]);
		return 2;
	}
	spin = suite == SUITE_INDEX_SPINLOCK;
	threads = parse_count(argv[2], 1, MAX_THREADS, "thread count");
	opts.torture_ms = parse_count(argv[3], 1, 60000, "duration");
	opts.seed = HOST_SEED;
	cpuinfo.cx16 = __builtin_cpu_supports("cmpxchg16b");
	lockref16_set_cx16(cpuinfo.cx16);
	/* As the kernel runs under a hypervisor (spinlock.pv=auto): waiters sleep and are kicked. */
	spin_pv_set(true);

	if (spin) {
		snprintf(cases[ncases].name, NAME_MAX_LEN, "ticket_lock_torture");
		cases[ncases++].on = BUSTED_ON_SPIN;
		snprintf(cases[ncases].name, NAME_MAX_LEN, "qspinlock_torture");
		cases[ncases++].on = BUSTED_ON_QSPIN;
	} else {
		for (unsigned f = 0; f < 2; f++) {
			for (unsigned p = 0; p < 3; p++) {
				struct host_case *c = &cases[ncases++];

				c->on = BUSTED_ON_LOCKREF;
				c->form = f ? TORTURE_LOCKREF16 : TORTURE_LOCKREF8;
				c->policy = policies[p];
				snprintf(c->name, NAME_MAX_LEN, "torture_%s_%s", policies[p]->name,
					 f ? "16" : "8");
			}
		}
	}
	printf("KTAP version 1\n1..%u\n", ncases);
	for (unsigned i = 0; i < ncases; i++) {
#ifdef TEST_TORTURE_BUSTED
		opts.busted = busted_control(cases[i].on);
#endif
		passed += run_case(&cases[i], threads, i + 1);
	}
	printf("# %u of %u passed\n", passed, ncases);
#ifdef TEST_TORTURE_BUSTED
	/* The negative control: every test must have caught the broken lock. */
	if (passed) {
		printf("# BUSTED build: %u test(s) PASSED on a broken lock\n", passed);
		return 0;
	}
	printf("# BUSTED build: every test caught the broken lock, as it must\n");
	return 1;
#else
	return passed == ncases ? 0 : 1;
#endif
}
