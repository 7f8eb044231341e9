// SPDX-License-Identifier: MIT
/*
 * bench_pathwalk.c - the stat() loop of the v7 series' measurements, on the fs.
 *
 * Waiman Long's numbers for the lockref came from path lookups: every
 * stat() walks its path taking and dropping a reference on each dentry it
 * passes, so on many CPUs the counts of the shared directories bounce
 * between caches and, before lockref, their locks were the hottest in the
 * kernel.  This benchmark is that loop on the fs of fs/fs.h:
 *
 *   same-path  every CPU stats the same file PATHWALK_DEPTH directories
 *              deep, over and over: every reference change of the walk
 *              lands on the same few nodes.
 *   own-file   every CPU stats its own file in one shared directory: the
 *              root and the directory are shared, the last step is not.
 *
 * Each runs with impl "lockref" (the fs on the boot policy: lockless gets
 * and puts, lockref16 directories and 8-byte lockref files) and impl
 * "spinlock" (the same fs with lockref_policy_locked: every count change
 * takes the node's lock, as the dcache did before lockref), at 1, 2, ...
 * every CPU, in the same boot.  One operation is one fs_stat.  The BENCH
 * lines tell the variants apart by "op".
 */
#include "bench.h"
#include "bench_cases.h"
#include "fs.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "spinlock.h"
#include "string.h"

/* Directories above the file of the same-path walk (so a walk is PATHWALK_DEPTH + 1 steps). */
#define PATHWALK_DEPTH 8
/* Longest path either variant builds ("/dir/f255" or "/d0/d1/.../d7/file"). */
#define PATHWALK_PATH 64
/* Node memory: both trees, every CPU's file, and room to spare (two slots per node). */
#define PATHWALK_SLOTS (2 * (PATHWALK_DEPTH + 1 + 1 + MAX_CPUS) + 16)
/* How long the other CPUs wait for CPU 0 to build the tree. */
#define PATHWALK_SETUP_TIMEOUT_MS 10000u

struct pathwalk {
	struct fs *fs;
	bool own_file;
	uint64_t errors; /* stats that did not return 0 (atomic) */
	char same[PATHWALK_PATH];
	char own[MAX_CPUS][PATHWALK_PATH / 4];
};

static struct pathwalk pathwalk;

/* @n stats of this CPU's path. */
static void pathwalk_ops(void *arg, unsigned cpu, unsigned n)
{
	struct pathwalk *w = arg;
	const char *path = w->own_file ? w->own[cpu] : w->same;
	struct fs_stat st;
	uint64_t bad = 0;

	for (unsigned i = 0; i < n; i++)
		bad += fs_stat(w->fs, path, &st) != 0;
	if (bad)
		__atomic_fetch_add(&w->errors, bad, __ATOMIC_RELAXED);
}

/* After every trial: every stat found its file, and nothing read freed memory. */
static bool pathwalk_check(void *arg, char *why, size_t size)
{
	struct pathwalk *w = arg;
	struct fs_stats st;

	fs_stats(w->fs, &st);
	if (w->errors || st.poison_reads) {
		ksnprintf(why, size, "%llu stat(s) failed, %llu read(s) of freed memory",
			  (unsigned long long)w->errors, (unsigned long long)st.poison_reads);
		return false;
	}
	return true;
}

static void pathwalk_extra(void *arg, char *buf, size_t size)
{
	struct pathwalk *w = arg;

	ksnprintf(buf, size, ",\"steps\":%d,\"dir_form\":\"lockref16\",\"file_form\":\"lockref\"",
		  w->own_file ? 2 : PATHWALK_DEPTH + 1);
}

/* CPU 0: an fs with @policy holding both trees in w->fs, or NULL and a failed test. */
static void pathwalk_build(struct bench_ctx *t, struct pathwalk *w,
			   const struct lockref_policy *policy, bool own_file)
{
	size_t len = 0;
	int err = 0;

	*w = (struct pathwalk){.own_file = own_file};
	w->fs = fs_new(&(struct fs_config){.mem_slots = PATHWALK_SLOTS, .policy = policy});
	if (!w->fs) {
		bench_fail(t, "pathwalk: fs_new failed");
		return;
	}
	for (unsigned i = 0; i < PATHWALK_DEPTH && !err; i++) {
		len += (size_t)ksnprintf(w->same + len, sizeof(w->same) - len, "/d%u", i);
		err = fs_create(w->fs, w->same, FS_DIR, NULL);
	}
	ksnprintf(w->same + len, sizeof(w->same) - len, "/file");
	if (!err)
		err = fs_create(w->fs, w->same, FS_FILE, NULL);
	if (!err)
		err = fs_create(w->fs, "/dir", FS_DIR, NULL);
	for (unsigned cpu = 0; cpu < t->ncpus && !err; cpu++) {
		ksnprintf(w->own[cpu], sizeof(w->own[cpu]), "/dir/f%u", cpu);
		err = fs_create(w->fs, w->own[cpu], FS_FILE, NULL);
	}
	if (err) {
		bench_fail(t, "pathwalk: building the tree: %s", fs_errno_name(err));
		fs_destroy(w->fs);
		w->fs = NULL;
	}
}

/* Every CPU: the scaling curve of one variant and impl. */
static void pathwalk_sweep(struct bench_ctx *t, const char *impl,
			   const struct lockref_policy *policy, bool own_file)
{
	struct pathwalk *w = &pathwalk;
	struct bench_spec spec = {
	    .bench = "pathwalk",
	    .impl = impl,
	    .op = own_file ? "stat-own-file" : "stat-same-path",
	    .run = pathwalk_ops,
	    .check = pathwalk_check,
	    .extra = pathwalk_extra,
	    .arg = w,
	    .lockref = true,
	};

	if (t->cpu == 0)
		pathwalk_build(t, w, policy, own_file);
	/* No CPU walks before CPU 0 has built the tree (or failed to). */
	if (!bench_barrier(t, PATHWALK_SETUP_TIMEOUT_MS) || !w->fs)
		return;
	for (unsigned n = bench_sweep_next(0, t->ncpus); n; n = bench_sweep_next(n, t->ncpus))
		if (!bench_run(t, &spec, n, NULL))
			return;
	/* Everybody is done walking before the fs goes. */
	if (!bench_barrier(t, PATHWALK_SETUP_TIMEOUT_MS))
		return;
	if (t->cpu == 0 && fs_destroy(w->fs) != 0)
		bench_fail(t, "pathwalk: the fs did not come apart cleanly");
}

/*
 * The impl names on this boot's lock kind: the fs's locks (its nodes', its
 * slots', its RCU's) are all spinlock_t, so the walk runs on whichever kind
 * spinlock.kind= chose, and a qspinlock boot reports as the qspinlock impls.
 */
static const char *pathwalk_impl(bool locked)
{
	if (spin_kind() == SPIN_KIND_QSPINLOCK)
		return locked ? "qspinlock" : "lockref-qspinlock";
	return locked ? "spinlock" : "lockref";
}

void pathwalk_same_lockref(struct bench_ctx *t)
{
	pathwalk_sweep(t, pathwalk_impl(false), NULL, false);
}

void pathwalk_same_spinlock(struct bench_ctx *t)
{
	pathwalk_sweep(t, pathwalk_impl(true), &lockref_policy_locked, false);
}

void pathwalk_own_lockref(struct bench_ctx *t)
{
	pathwalk_sweep(t, pathwalk_impl(false), NULL, true);
}

void pathwalk_own_spinlock(struct bench_ctx *t)
{
	pathwalk_sweep(t, pathwalk_impl(true), &lockref_policy_locked, true);
}
