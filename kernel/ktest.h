// SPDX-License-Identifier: MIT
/*
 * ktest.h - self-registering boot-time tests, reported as KTAP version 1.
 *
 * A test is a function registered with KTEST() into the .ktests linker
 * section; no central list exists.  The runner (ktest.c) groups tests by
 * suite (SUITE_LIST in suites.h: the names run= takes), prints
 * the whole plan before running anything, and checks at the end that every
 * registered test of the selected suites ran.
 *
 * A test flagged KTEST_ALL_CPUS runs on every online CPU at once; all
 * start together after a barrier, and each gets its own ktest_ctx (the
 * `cpu` field differs) sharing one verdict.
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "suites.h"

#define KTEST_ALL_CPUS (1u << 0)

struct ktest_ctx;

struct ktest {
	enum suite_index suite; /* its SUITE_LIST row: what the runner does around it */
	const char *name;
	void (*run)(struct ktest_ctx *t);
	unsigned flags;
};

/*
 * Every CPU's context lives in the runner's state for the test, not on the
 * CPU's stack: a report made through another CPU's context (a callback's
 * argument) stays valid after that CPU left the test.  A CPU still in a
 * test after it ended is late: what it reports then is one "late" line,
 * and it writes nothing the runner keeps (the generation tells).
 */
struct ktest_ctx {
	const struct ktest *test;
	unsigned cpu;	     /* this CPU's index (0 .. ncpus-1) */
	unsigned ncpus;	     /* CPUs running this test: 1, or every online CPU */
	uint32_t generation; /* of the test run this context belongs to */
	struct ktest_shared *shared;
};

/*
 * KTEST()'s word for a suite (its run= name) to its index; a suite not in
 * SUITE_LIST does not build.
 */
#define KTEST_X_SUITE(name, id, ...) KTEST_SUITE_##name = SUITE_INDEX_##id,
enum ktest_suite { SUITE_LIST(KTEST_X_SUITE) };
#undef KTEST_X_SUITE

#define KTEST(suite_, name_, fn_, flags_)                                                          \
	_Static_assert(KTEST_SUITE_##suite_ >= 0, #suite_ " is not in SUITE_LIST (suites.h)");     \
	static const struct ktest ktest_entry_##fn_                                                \
	    __attribute__((used, section(".ktests"), aligned(8))) = {                              \
		(enum suite_index)KTEST_SUITE_##suite_, name_, fn_, flags_}

/*
 * A setup hook: the runner calls every registered one after printing the
 * KTAP version line and the top-level plan, before the first suite, so
 * what it does (selftest.fault= raises a fault on purpose) is reported as
 * part of the run.  Registered like the tests, so the boot path names none.
 */
typedef void (*ktest_setup_fn)(void);

#define KTEST_SETUP(fn_)                                                                           \
	static const ktest_setup_fn ktest_setup_##fn_                                              \
	    __attribute__((used, section(".ktest_setups"), aligned(8))) = fn_

/*
 * How long each test of @suite (a SUITE_LIST row whose length is TOLD)
 * should take, for the status line: a setup hook's call (the bench suite's
 * plan knows its benchmarks' lengths).
 */
void ktest_expect(enum suite_index suite, uint64_t (*expected_ms)(const struct ktest *test));

/* Report a failed check (one "# " diagnostic line) and mark the test failed. Any CPU. */
void ktest_fail(struct ktest_ctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One "# " diagnostic line (statistics, figures). Any CPU. */
void ktest_diag(struct ktest_ctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Mark the test skipped, with a reason; it is reported "ok N name # SKIP reason". */
void ktest_skip(struct ktest_ctx *t, const char *reason);

bool ktest_failed(const struct ktest_ctx *t);

/* The calling CPU's context in the same test as @t (for callbacks handed one CPU's context). */
struct ktest_ctx *ktest_this_cpu(struct ktest_ctx *t);

/*
 * Wait for every CPU of an all-CPU test (a no-op for single-CPU tests).
 * Returns false, after marking the test failed, if some CPU did not come
 * within @timeout_ms: the caller should then give up promptly.
 */
bool ktest_barrier(struct ktest_ctx *t, unsigned timeout_ms);

/*
 * Print the KTAP header and plan, call the setup hooks, run every registered
 * test of the suites in @mask. Returns true if none failed.
 */
bool ktest_run(unsigned mask);

/*
 * Just before "# RESULT" (machine_exit's hook, on every way out, a panic's
 * included): the command-line words not carried out, again, and the tally
 * of the tests run so far (cmdline_verdict).  Returns @pass, or false when
 * a word that selects what is tested was not carried out.
 */
bool ktest_verdict(bool pass);

#endif /* KERNEL_KTEST_H */
