// SPDX-License-Identifier: MIT
/*
 * test_fs.c - the `fs` suite at boot: fs/test/fs_suite.h on real CPUs.
 *
 * The cases and the torture live in fs/ so that tests/host/test_fs.c runs
 * the very same code under the sanitizers; this file only hands them the
 * boot's parameters (seed=, torture.secs=, lockref.policy=) and turns their
 * report into KTAP through kernel/ktest.h.
 *
 *   rules    every rule case, one after another on one CPU; each failing
 *            check is a "# FAIL" line naming the case and the source line.
 *   torture  every online CPU at once for torture.secs, then the audit and
 *            the teardown (fs_torture.c says what is checked).
 */
#include "cmdline.h"
#include "fs_suite.h"
#include "ktest.h"
#include "ktest_stall.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"

/* How long the other CPUs wait for CPU 0 to build the torture's fs. */
#define FS_SETUP_TIMEOUT_MS 10000u
/* How long past torture.secs the last CPU may take to finish its last operation. */
#define FS_END_SLACK_MS 30000u

/*
 * The torture's report is shared by every CPU, with CPU 0's context as its
 * argument: each line goes out as the CPU that calls, through that CPU's
 * own context (ktest.h: contexts outlive their CPU's part of the test).
 */
static void ktest_report_fail(void *arg, const char *line)
{
	ktest_fail(ktest_this_cpu(arg), "%s", line);
}

static void ktest_report_diag(void *arg, const char *line)
{
	ktest_diag(ktest_this_cpu(arg), "%s", line);
}

static void fs_rules(struct ktest_ctx *t)
{
	const struct fs_report r = {ktest_report_fail, ktest_report_diag, t};
	unsigned n = fs_suite_count(), failed = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!fs_suite_run(i, &r)) {
			ktest_diag(t, "case %s failed", fs_suite_name(i));
			failed++;
		}
	}
	ktest_diag(t, "%u rule cases, %u failed", n, failed);
}

/* Built by CPU 0, run by all; the report lives here so every CPU can reach it. */
static struct fs_torture *torture;
static struct fs_report torture_report;

static void fs_torture_all(struct ktest_ctx *t)
{
	if (t->cpu == 0) {
		struct fs_torture_params p = {
		    .ncpus = t->ncpus,
		    .duration_ns = (uint64_t)opts.torture_ms * 1000000,
		    .seed = opts.seed,
		    .policy = NULL, /* the boot policy, lockref.policy= */
		};

		torture_report = (struct fs_report){ktest_report_fail, ktest_report_diag, t};
		torture = fs_torture_prepare(&p, &torture_report);
		ktest_diag(t, "%u CPU%s, %u ms, policy %s, seed %llu", t->ncpus, plural(t->ncpus),
			   opts.torture_ms, lockref_get_policy()->name,
			   (unsigned long long)opts.seed);
	}
	/* Nobody touches `torture` before CPU 0 has built it (or failed to). */
	if (!ktest_barrier(t, FS_SETUP_TIMEOUT_MS) || !torture)
		return;
	fs_torture_run(torture, t->cpu);
	if (!ktest_barrier(t, opts.torture_ms + FS_END_SLACK_MS))
		return;
	if (t->cpu == 0) {
		fs_torture_finish(torture);
		torture = NULL;
	}
}

/* selftest.stall=N:MS:fs-start: the runner holds CPU N before the torture's start barrier. */
static void fs_stall_point(void)
{
	ktest_stall_barrier(FS_TORTURE_START_BARRIER);
}
KTEST_SETUP(fs_stall_point);

KTEST(fs, "rules", fs_rules, 0);
KTEST(fs, "torture", fs_torture_all, KTEST_ALL_CPUS);
