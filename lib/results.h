// SPDX-License-Identifier: MIT
/*
 * results.h - what a person at the screen reads: the run's progress on one
 * status line, and at the end one page of results.
 *
 * Pure code, host-tested (tests/host/test_results.c): lib/results_read.c
 * reads the lines into struct results, kernel/results.c draws the status
 * line and the page from it.  It learns everything from the
 * "# ENV {json}", KTAP and "# BENCH {json}" lines the kernel prints anyway
 * (results_observe sees every printk), so the suites and the runner need
 * no second reporting path; only the start of each test comes from the
 * runner (results_test_start), because KTAP names a test when it ends.
 */
#ifndef LIB_RESULTS_H
#define LIB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One KTAP nesting level (Linux's ktap.rst: two spaces): ktest.c writes it, results_read.c reads it. */
#define KTAP_INDENT "  "

#define RESULTS_SUITES_MAX 8
#define RESULTS_NAME_MAX   32
#define RESULTS_NOTE_MAX   96
#define RESULTS_BENCH_MAX  96
#define RESULTS_LINE_MAX   512 /* longer lines are judged by their first bytes */

struct results_suite {
	char name[RESULTS_NAME_MAX];
	unsigned planned, passed, failed, skipped;
	enum { SUITE_RUNNING, SUITE_OK, SUITE_FAILED, SUITE_SKIPPED } verdict;
};

/*
 * One "# BENCH" figure the page shows: aggregate ops/s of @impl at @cpus
 * CPUs, for refcount and pathwalk's stat-same-path op; others are not kept.
 */
struct results_bench {
	char bench[RESULTS_NAME_MAX], impl[RESULTS_NAME_MAX];
	char path[RESULTS_NAME_MAX]; /* the lock path timed: "bare", "switched"; "" if not said */
	unsigned cpus;
	uint64_t ops_per_sec;
};

/* The machine, as the "# ENV {json}" line names it. */
struct results_machine {
	bool known; /* an ENV line was seen */
	char cpu_model[RESULTS_NOTE_MAX];
	unsigned cpus_online, cpus_found;
	char apic[RESULTS_NAME_MAX], tsc_source[RESULTS_NAME_MAX], hypervisor[RESULTS_NAME_MAX];
	uint64_t tsc_khz, seed;
	unsigned packages, cores_per_package, threads_per_core, llc_groups; /* 0: not in ENV */
};

/* c2c's one-way latencies (ns) by relation: same-core, same-llc, other-llc, other-package. */
#define RESULTS_RELATIONS 4
#define RESULTS_C2C_MAX	  128 /* pairs kept per relation: the first ones */
struct results_c2c {
	unsigned n;
	uint32_t ns[RESULTS_C2C_MAX];
};

struct results {
	struct results_machine machine;
	unsigned suites_planned; /* the top-level KTAP plan */
	unsigned nsuites;
	struct results_suite suites[RESULTS_SUITES_MAX];
	char first_failure[RESULTS_NOTE_MAX];	/* "suite/test", the first "not ok" */
	char first_invariant[RESULTS_NOTE_MAX]; /* the first line naming a broken invariant */
	char first_reason[RESULTS_NOTE_MAX];	/* else the first FAIL or PANIC line */
	unsigned nbench;
	struct results_bench bench[RESULTS_BENCH_MAX];
	struct results_c2c c2c[RESULTS_RELATIONS];
	/* The test running now (results_test_start). */
	char test[RESULTS_NAME_MAX];
	unsigned test_number;
	uint64_t test_start_ms, test_expected_ms;
	/* The line being assembled from results_observe's bytes. */
	char line[RESULTS_LINE_MAX];
	size_t line_len;
};

/*
 * The figures the page tables, declared once (results_read.c), so what is
 * kept and what is drawn cannot drift: the implementations bench_impls.h
 * names first, one column each, and the benches, each with the one op
 * kept (NULL: every line).
 */
struct results_tabled {
	const char *bench, *op;
};
extern const char *const results_tabled_impls[];
extern const struct results_tabled results_tabled_benches[];
extern const unsigned results_ntabled_impls, results_ntabled_benches;

/* Feed @len bytes of console output; whole lines are interpreted as they complete. */
void results_observe(struct results *r, const char *s, size_t len);

/*
 * Test number @number, @name, of the current suite starts at @now_ms;
 * @expected_ms is how long it should take (0: not known).
 */
void results_test_start(struct results *r, const char *name, unsigned number, uint64_t now_ms,
			uint64_t expected_ms);

/*
 * The status line at @now_ms into @out (@cols characters, NUL-terminated,
 * blank-padded): suite i/N, test j/M and its name, elapsed/expected
 * seconds, and a bar of the suite's progress that also moves within a test
 * whose expected time is known.
 */
void results_status(const struct results *r, uint64_t now_ms, char *out, unsigned cols);

/*
 * The results page into @page: @rows lines of @cols characters, each
 * NUL-terminated (stride cols + 1), blank-padded.  Title and verdict, the
 * machine (from the ENV line), each suite's verdict and counts, the first
 * failure with its invariant and the seed, and a table of refcount and pathwalk ops/s per CPU
 * count for xadd, spinlock and lockref with the lockref/spinlock ratio
 * (rows that do not fit are left out, said on the last table row); @footer
 * on the last line.  Needs @rows >= 12 and @cols >= 72.
 */
void results_page(const struct results *r, bool pass, const char *footer, char *page, unsigned rows,
		  unsigned cols);

#endif /* LIB_RESULTS_H */
