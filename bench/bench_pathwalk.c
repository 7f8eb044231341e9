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
 *   mixed      same-path, while CPU 0 is also a writer: every
 *              PATHWALK_WRITE_EVERY stats it renames a directory on the
 *              walked path away and back, and creates and unlinks a file
 *              in another walked directory.  Walks that meet the moved
 *              directory's absence count as misses (-ENOENT is right
 *              then); the RCU-walk's restarts are what this variant shows.
 *
 * Each runs with impl "lockref" (the fs on the boot policy: lockless gets
 * and puts, lockref16 directories and 8-byte lockref files) and impl
 * "spinlock" (the same fs with lockref_policy_locked: every count change
 * takes the node's lock, as the dcache did before lockref), at 1, 2, ...
 * every CPU, in the same boot; the same-path and own-file variants in the
 * boot's walk (fs.walk=, RCU-walk by default) and in the ref-walk (op
 * "...-refwalk"), the mixed one with lockref in both.  One operation is
 * one fs_stat.  The BENCH lines tell the variants apart by "op", and add
 * the walk, its RCU-walk restarts per stat and its fallbacks to the
 * ref-walk (fs_stats), and for mixed the misses and writes.
 */
#include "atomic.h"
#include "bench.h"
#include "bench_cases.h"
#include "bench_ref.h"
#include "fs.h"
#include "lockref.h"
#include "limits.h"
#include "printf.h"
#include "spinlock.h"
#include "string.h"

/* Directories above the file of the same-path walk (so a walk is PATHWALK_DEPTH + 1 steps). */
#define PATHWALK_DEPTH 8
/* Longest path either variant builds ("/dir/f255" or "/d0/d1/.../d7/file"). */
#define PATHWALK_PATH 64
/*
 * Node memory: both trees, every CPU's file, the mixed writer's file and
 * renamed links waiting for their grace periods (two slots per node).
 */
#define PATHWALK_SLOTS (2 * (PATHWALK_DEPTH + 1 + 1 + MAX_CPUS) + 64)
/* How long the other CPUs wait for CPU 0 to build the tree. */
#define PATHWALK_SETUP_TIMEOUT_MS 10000u
/* The mixed variant's writer (CPU 0) writes once per this many of its stats. */
#define PATHWALK_WRITE_EVERY 16
/* The directory it moves away and back (on the walked path), and its file (beside it). */
#define PATHWALK_MOVED	  "/d0/d1/d2/d3"
#define PATHWALK_MOVED_TO "/d0/d1/d2/x3"
#define PATHWALK_SCRATCH  "/d0/d1/w"

enum pathwalk_kind { PW_SAME, PW_OWN, PW_MIXED };

/* One CPU's counts, alone in its lines: only that CPU writes them. */
struct pathwalk_cpu {
	uint64_t stats, misses;
	unsigned since_write;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

struct pathwalk {
	struct fs *fs;
	enum pathwalk_kind kind;
	enum fs_walk walk;
	uint64_t errors;      /* stats and writes that did not return what they must (atomic) */
	uint64_t writes;      /* the mixed writer's (CPU 0 only) */
	uint64_t write_waits; /* its waits for a grace period when node memory ran out */
	/* What the previous BENCH line counted up to (CPU 0 only, in pathwalk_extra). */
	uint64_t seen_stats, seen_misses, seen_writes, seen_waits, seen_restarts, seen_fallbacks;
	char same[PATHWALK_PATH];
	char own[MAX_CPUS][PATHWALK_PATH / 4];
	struct pathwalk_cpu cpu[MAX_CPUS];
};

static struct pathwalk pathwalk;

/*
 * One of the mixed writer's operations (@op 0 .. 3: rename away, rename
 * back, create, unlink); returns 1 if it failed.  Out of node memory (a
 * reader preempted inside its read section holds the grace periods up,
 * and every write retires slots) it waits for a grace period, counted,
 * and tries once more.
 */
static unsigned pathwalk_write_op(struct pathwalk *w, unsigned op)
{
	for (unsigned tries = 0; tries < 2; tries++) {
		int err = op == 0   ? fs_rename(w->fs, PATHWALK_MOVED, PATHWALK_MOVED_TO)
			  : op == 1 ? fs_rename(w->fs, PATHWALK_MOVED_TO, PATHWALK_MOVED)
			  : op == 2 ? fs_create(w->fs, PATHWALK_SCRATCH, FS_FILE, NULL)
				    : fs_unlink(w->fs, PATHWALK_SCRATCH);

		if (err != -FS_ENOMEM)
			return err != 0;
		w->write_waits++;
		fs_synchronize(w->fs);
	}
	return 1;
}

/* The mixed writer's one write: returns how many of its operations failed. */
static unsigned pathwalk_write(struct pathwalk *w)
{
	unsigned bad = 0;

	for (unsigned op = 0; op < 4; op++)
		bad += pathwalk_write_op(w, op);
	w->writes++;
	return bad;
}

/* @n stats of this CPU's path (and, in mixed on CPU 0, the writes). */
static void pathwalk_ops(void *arg, unsigned cpu, unsigned n)
{
	struct pathwalk *w = arg;
	struct pathwalk_cpu *me = &w->cpu[cpu];
	const char *path = w->kind == PW_OWN ? w->own[cpu] : w->same;
	bool writer = w->kind == PW_MIXED && cpu == 0;
	struct fs_stat st;
	uint64_t bad = 0, misses = 0;

	for (unsigned i = 0; i < n; i++) {
		int err = fs_stat(w->fs, path, &st);

		/* In mixed, a walk may come while the moved directory is away. */
		if (err == -FS_ENOENT && w->kind == PW_MIXED)
			misses++;
		else
			bad += err != 0;
		if (writer && ++me->since_write == PATHWALK_WRITE_EVERY) {
			me->since_write = 0;
			bad += pathwalk_write(w);
		}
	}
	me->stats += n;
	me->misses += misses;
	if (bad)
		atomic_xadd64(&w->errors, bad);
}

/* After every trial: every stat found its file, and nothing read freed memory. */
static bool pathwalk_check(void *arg, char *why, size_t size)
{
	struct pathwalk *w = arg;
	struct fs_stats st;

	fs_stats(w->fs, &st);
	if (w->errors || st.poison_reads) {
		ksnprintf(why, size,
			  "%llu stat(s) or write(s) failed, %llu read(s) of freed memory",
			  (unsigned long long)w->errors, (unsigned long long)st.poison_reads);
		return false;
	}
	return true;
}

/*
 * CPU 0, after the trials of one CPU count, the others done: the walk, and
 * since the previous line (these trials, the warm-up and calibration
 * included) the RCU-walk restarts per stat, the fallbacks to the ref-walk,
 * and in mixed the misses and writes.
 */
static void pathwalk_extra(void *arg, char *buf, size_t size)
{
	struct pathwalk *w = arg;
	uint64_t stats = 0, misses = 0, restarts, fallbacks;
	struct fs_stats st;
	char per[24];
	int len;

	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		stats += w->cpu[cpu].stats;
		misses += w->cpu[cpu].misses;
	}
	fs_stats(w->fs, &st);
	restarts = st.walk_restarts - w->seen_restarts;
	fallbacks = st.walk_fallbacks - w->seen_fallbacks;
	bench_fixed(
	    per, sizeof(per),
	    bench_muldiv(restarts, BENCH_ONE, stats - w->seen_stats ? stats - w->seen_stats : 1));
	len = ksnprintf(buf, size,
			",\"steps\":%d,\"dir_form\":\"lockref16\",\"file_form\":\"lockref\","
			"\"walk\":\"%s\",\"restarts_per_op\":%s,\"walk_restarts\":%llu,"
			"\"walk_fallbacks\":%llu",
			w->kind == PW_OWN ? 2 : PATHWALK_DEPTH + 1, fs_walk_name(w->walk), per,
			(unsigned long long)restarts, (unsigned long long)fallbacks);
	if (w->kind == PW_MIXED && len > 0 && (size_t)len < size)
		ksnprintf(buf + len, size - (size_t)len,
			  ",\"misses\":%llu,\"writes\":%llu,\"write_waits\":%llu",
			  (unsigned long long)(misses - w->seen_misses),
			  (unsigned long long)(w->writes - w->seen_writes),
			  (unsigned long long)(w->write_waits - w->seen_waits));
	w->seen_stats = stats;
	w->seen_misses = misses;
	w->seen_writes = w->writes;
	w->seen_waits = w->write_waits;
	w->seen_restarts = st.walk_restarts;
	w->seen_fallbacks = st.walk_fallbacks;
}

/* CPU 0: an fs with @policy and @walk holding both trees in w->fs, or NULL and a failed test. */
static void pathwalk_build(struct bench_ctx *t, struct pathwalk *w,
			   const struct lockref_policy *policy, enum pathwalk_kind kind,
			   enum fs_walk walk)
{
	size_t len = 0;
	int err = 0;

	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->walk = walk;
	w->fs = fs_new(
	    &(struct fs_config){.mem_slots = PATHWALK_SLOTS, .policy = policy, .walk = walk});
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

/* The op of a variant in a walk: the ref-walk's when asked for it explicitly. */
static const char *pathwalk_op(enum pathwalk_kind kind, bool refwalk)
{
	static const char *const ops[][2] = {
	    [PW_SAME] = {"stat-same-path", "stat-same-path-refwalk"},
	    [PW_OWN] = {"stat-own-file", "stat-own-file-refwalk"},
	    [PW_MIXED] = {"stat-mixed", "stat-mixed-refwalk"},
	};

	return ops[kind][refwalk];
}

/*
 * Every CPU: the scaling curve of one variant and impl, in the ref-walk if
 * @refwalk, else in the boot's walk.
 */
static void pathwalk_sweep(struct bench_ctx *t, const char *impl,
			   const struct lockref_policy *policy, enum pathwalk_kind kind,
			   bool refwalk)
{
	struct pathwalk *w = &pathwalk;
	struct bench_spec spec = {
	    .bench = "pathwalk",
	    .impl = impl,
	    .op = pathwalk_op(kind, refwalk),
	    .run = pathwalk_ops,
	    .check = pathwalk_check,
	    .extra = pathwalk_extra,
	    .arg = w,
	    .lockref = true,
	};

	/*
	 * The line's lockref_ops is the library's own count of every lockless
	 * operation, which needs the count's key on: these rows time the
	 * switched path, and say so ("path"); the key goes off again after.
	 */
	if (t->cpu == 0 && !lockref_stats_count_all())
		bench_fail(t, "pathwalk: the lockref's count of every operation was refused");
	if (t->cpu == 0)
		pathwalk_build(t, w, policy, kind, refwalk ? FS_WALK_REF : fs_walk_default());
	/* No CPU walks before CPU 0 has built the tree (or failed to). */
	if (!bench_barrier(t, PATHWALK_SETUP_TIMEOUT_MS) || !w->fs)
		return;
	for (unsigned n = bench_sweep_next(0, t->ncpus); n; n = bench_sweep_next(n, t->ncpus))
		if (!bench_run(t, &spec, n, NULL))
			break; /* a failed trial too: the fs goes, or the next sweep's overwrites it */
	/* Everybody is done walking before the fs goes; one that never comes may still walk. */
	if (!bench_barrier(t, PATHWALK_SETUP_TIMEOUT_MS))
		return;
	if (t->cpu == 0 && fs_destroy(w->fs) != 0)
		bench_fail(t, "pathwalk: the fs did not come apart cleanly");
	if (t->cpu == 0)
		(void)lockref_stats_count_first(); /* refused: its line said why */
}

/*
 * The impl names on this boot's lock kind: the fs's locks (its nodes', its
 * slots', its RCU's) are all spinlock_t, so the walk runs on whichever kind
 * spinlock.kind= chose, and a boot of another kind reports as that kind's
 * impls ("<kind>", "lockref-<kind>").
 */
static const char *pathwalk_impl(bool locked)
{
	if (spin_kind() != SPIN_KIND_TICKET)
		return bench_ref_impls[bench_impl_of_kind(spin_kind(), !locked)].name;
	return locked ? "spinlock" : "lockref";
}

/*
 * The entry points of bench_cases.h, one per variant: @locked runs the fs
 * under the locked policy (every count change takes the node's lock), the
 * lockref's baseline; @refwalk walks with a reference on every component.
 */
#define PATHWALK_CASE(fn, kind, locked, refwalk)                                                   \
	void fn(struct bench_ctx *t)                                                               \
	{                                                                                          \
		pathwalk_sweep(t, pathwalk_impl(locked), (locked) ? &lockref_policy_locked : NULL, \
			       kind, refwalk);                                                     \
	}

PATHWALK_CASE(pathwalk_same_lockref, PW_SAME, false, false)
PATHWALK_CASE(pathwalk_same_spinlock, PW_SAME, true, false)
PATHWALK_CASE(pathwalk_own_lockref, PW_OWN, false, false)
PATHWALK_CASE(pathwalk_own_spinlock, PW_OWN, true, false)
PATHWALK_CASE(pathwalk_same_lockref_refwalk, PW_SAME, false, true)
PATHWALK_CASE(pathwalk_same_spinlock_refwalk, PW_SAME, true, true)
PATHWALK_CASE(pathwalk_own_lockref_refwalk, PW_OWN, false, true)
PATHWALK_CASE(pathwalk_own_spinlock_refwalk, PW_OWN, true, true)
PATHWALK_CASE(pathwalk_mixed_lockref, PW_MIXED, false, false)
PATHWALK_CASE(pathwalk_mixed_lockref_refwalk, PW_MIXED, false, true)
