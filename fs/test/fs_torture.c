// SPDX-License-Identifier: MIT
/*
 * fs_torture.c - every CPU at once on one small fs, then a full audit.
 *
 * The tree is kept small and collision-heavy on purpose: names are one of
 * four letters, paths at most three deep, directories have two buckets,
 * and node memory runs out now and then.  So every lookup walks chains
 * that renames and unlinks are rewriting, every directory is both looked
 * up and removed, and -FS_ENOMEM paths run too.  Each CPU also keeps a few
 * references (from lookups and fs_get_parent) and drops them at random,
 * so nodes are removed while held and freed by the last put.
 *
 * Every result is checked against the errors the operation may give; any
 * other (above all -FS_EIO, a read of poison) fails the run.
 *
 * Beside the fs, the CPUs hammer an RCU domain of their own (rcutorture in
 * miniature): readers stay in a read section long enough to read an
 * object many times over, writers replace objects and retire the old
 * ones, and the free callback poisons them.  A reader that ever sees
 * poison, or an object freed more or less than once, fails the run: that
 * is what proves the grace periods, since the fs's own windows for a
 * premature free are too narrow to hit every time.  At the end
 * fs_audit proves the counts against the references the CPUs still hold,
 * again after they drop them, and the tree is torn down through the API
 * back to the root alone: the live-node count must return to the
 * baseline.
 */
#include <stdarg.h>

#include "atomic.h"
#include "barrier.h"
#include "errno.h"
#include "fs.h"
#include "fs_suite.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "random.h"
#include "rcu.h"
#include "slots.h"
#include "string.h"

/*
 * Node memory: 64 nodes, of the 84 names the random paths can reach, so
 * creates meet -FS_ENOMEM now and then.
 */
#define TORTURE_SLOTS 128
/* Two buckets per directory: long chains, constant collisions. */
#define TORTURE_BUCKETS 2
/* References one CPU keeps at most. */
#define TORTURE_HOLD 4
/* Components of a random path at most; nodes never get deeper than this. */
#define TORTURE_DEPTH 3
/* The clock is read once per this many operations. */
#define TORTURE_CLOCK_EVERY 16
/* How long the start barrier waits with no CPU arriving (it counts from the latest arrival). */
#define TORTURE_START_NS (10ull * 1000 * 1000 * 1000)
/*
 * A grace period waits for every CPU to pass a quiescent state; with more
 * virtual CPUs than host cores each one may wait its turn for a core, so
 * the wait allowed grows with the CPU count.
 */
#define TORTURE_GRACE_PER_CPU_NS (100ull * 1000 * 1000)
/* Failure lines printed at most (the rest only fail the run). */
#define TORTURE_FAIL_LINES 20
/* Room for any path the tree can hold (and the random ones, with their dots). */
#define TORTURE_PATH 64
/* Entries one readdir asks for: enough for ".", ".." and every possible name. */
#define TORTURE_ENTS 8
/* RCU-protected objects the CPUs replace, and the reads of one per read section. */
#define TORTURE_RCU_OBJS  4
#define TORTURE_RCU_READS 512
#define TORTURE_OBJ_MAGIC 0x4a424f555452ull /* "RTUOBJ" */

static const char torture_letters[] = "abcd";

enum torture_op {
	OP_LOOKUP,
	OP_STAT,
	OP_CREATE_FILE,
	OP_CREATE_DIR,
	OP_UNLINK,
	OP_RMDIR,
	OP_RENAME,
	OP_READDIR,
	OP_PARENT,
	OP_PUT,
	OP_RCU_READ,
	OP_RCU_REPLACE,
	OP_COUNT,
};

static const struct {
	const char *name;
	unsigned weight;  /* out of 100 */
	uint64_t allowed; /* bit e: -e is a valid answer (bit 0: success) */
} torture_ops[OP_COUNT] = {
#define E(e) (1ull << (e))
    [OP_LOOKUP] = {"lookup", 20, E(0) | E(FS_ENOENT) | E(FS_ENOTDIR)},
    [OP_STAT] = {"stat", 6, E(0) | E(FS_ENOENT) | E(FS_ENOTDIR)},
    [OP_CREATE_FILE] = {"create", 8,
			E(0) | E(FS_EEXIST) | E(FS_ENOENT) | E(FS_ENOTDIR) | E(FS_ENOMEM)},
    [OP_CREATE_DIR] = {"mkdir", 6,
		       E(0) | E(FS_EEXIST) | E(FS_ENOENT) | E(FS_ENOTDIR) | E(FS_ENOMEM)},
    [OP_UNLINK] = {"unlink", 12, E(0) | E(FS_ENOENT) | E(FS_ENOTDIR) | E(FS_EISDIR)},
    [OP_RMDIR] = {"rmdir", 12,
		  E(0) | E(FS_ENOENT) | E(FS_ENOTDIR) | E(FS_ENOTEMPTY) | E(FS_EINVAL)},
    [OP_RENAME] = {"rename", 14,
		   E(0) | E(FS_ENOENT) | E(FS_ENOTDIR) | E(FS_EISDIR) | E(FS_ENOTEMPTY) |
		       E(FS_EINVAL) | E(FS_EBUSY) | E(FS_ENOMEM)},
    [OP_READDIR] = {"readdir", 5, E(0) | E(FS_ENOENT) | E(FS_ENOTDIR)},
    [OP_PARENT] = {"get_parent", 5, E(0)},
    [OP_PUT] = {"put", 4, E(0)},
    [OP_RCU_READ] = {"rcu_read", 6, E(0)},
    [OP_RCU_REPLACE] = {"rcu_replace", 2, E(0)},
#undef E
};

/* One CPU's state, alone in its cache-line pairs. */
struct torture_cpu {
	struct rng rng;
	struct fs_node *held[TORTURE_HOLD];
	unsigned nheld;
	uint64_t ops[OP_COUNT], ok[OP_COUNT];
	char path[TORTURE_PATH], path2[TORTURE_PATH];
	struct fs_dirent ents[TORTURE_ENTS];
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* An object of the RCU part: readers check that check == ~seq and the magic is live. */
struct torture_obj {
	uint64_t magic;
	uint64_t seq;
	uint64_t check;
	struct fs_rcu_head head;
};

struct fs_torture {
	struct fs_torture_params p;
	const struct fs_report *r;
	struct fs *fs;
	struct fs_rcu *rcu;
	struct torture_obj *objs[TORTURE_RCU_OBJS]; /* RCU */
	uint64_t obj_seq, obj_allocs, obj_frees;    /* atomic */
	struct barrier start;
	uint64_t warnings; /* lockref misuse before the run */
	unsigned fail_lines;
	bool failed;
	size_t size; /* of this allocation */
	char path[TORTURE_PATH];
	struct fs_dirent ent;
	struct torture_cpu cpu[];
};

static void torture_fail(struct fs_torture *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void torture_fail(struct fs_torture *t, const char *fmt, ...)
{
	char line[256];

	atomic_store8((uint8_t *)&t->failed, 1);
	if (atomic_xadd32(&t->fail_lines, 1) >= TORTURE_FAIL_LINES)
		return;
	KSNPRINTF_ARGS(line, fmt);
	t->r->fail(t->r->arg, line);
}

static void torture_diag(struct fs_torture *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void torture_diag(struct fs_torture *t, const char *fmt, ...)
{
	char line[256];

	KSNPRINTF_ARGS(line, fmt);
	t->r->diag(t->r->arg, line);
}

/*
 * A random path into @buf: 1 .. @max components, now and then "." or ".."
 * or a doubled slash.  Returns its depth once "." and ".." are resolved
 * (what it names is that deep, if it exists).
 */
static unsigned torture_path(struct rng *rng, char *buf, unsigned max)
{
	unsigned components = 1 + (unsigned)rng_below(rng, max), len = 0, depth = 0;

	for (unsigned i = 0; i < components; i++) {
		unsigned pick = (unsigned)rng_below(rng, 32);

		buf[len++] = '/';
		if (pick == 0)
			buf[len++] = '/';
		if (pick == 1) {
			buf[len++] = '.';
		} else if (pick == 2) {
			buf[len++] = '.';
			buf[len++] = '.';
			depth -= depth > 0;
		} else {
			buf[len++] = torture_letters[rng_below(rng, sizeof(torture_letters) - 1)];
			depth++;
		}
	}
	buf[len] = '\0';
	return depth;
}

/* Keep @n if there is room, else drop it. */
static void torture_hold(struct fs_torture *t, struct torture_cpu *c, struct fs_node *n)
{
	if (c->nheld < TORTURE_HOLD)
		c->held[c->nheld++] = n;
	else
		fs_put(t->fs, n);
}

/* A node we were handed must be a sane, live node: stat and name it. */
static void torture_check_node(struct fs_torture *t, struct fs_node *n, const char *what,
			       const char *path)
{
	struct fs_stat st;
	char name[4];
	int len;

	if (fs_node_stat(t->fs, n, &st) != 0 || (st.type != FS_FILE && st.type != FS_DIR) ||
	    st.ino == 0) {
		torture_fail(t, "%s %s: the node's stat is nonsense (type %d, ino %llu)", what,
			     path, (int)st.type, (unsigned long long)st.ino);
		return;
	}
	len = fs_node_name(t->fs, n, name, sizeof(name));
	if (len != 1 || (st.ino != 1 && !strchr(torture_letters, name[0])) ||
	    (st.ino == 1 && name[0] != '/'))
		torture_fail(t, "%s %s: node %llu has the name '%s' (%d)", what, path,
			     (unsigned long long)st.ino, len > 0 ? name : "", len);
}

/* Entries of one readdir: ".", ".." and letters, each once. */
static void torture_check_entries(struct fs_torture *t, struct torture_cpu *c, int n)
{
	for (int i = 0; i < n; i++) {
		const char *name = c->ents[i].name;
		bool dot = i < 2 && memcmp(name, i ? ".." : ".", i + 2) == 0;

		if (!dot && (name[1] != '\0' || !strchr(torture_letters, name[0])))
			torture_fail(t, "readdir %s: entry %d is '%s'", c->path, i, name);
		for (int j = 0; j < i; j++)
			if (strcmp(c->ents[j].name, name) == 0)
				torture_fail(t, "readdir %s: '%s' twice", c->path, name);
	}
}

/* A fresh object for the RCU part, or NULL (counted as a failure) without memory. */
static struct torture_obj *torture_obj_new(struct fs_torture *t)
{
	struct torture_obj *o = platform_alloc(sizeof(*o), sizeof(uint64_t));

	if (!o) {
		torture_fail(t, "rcu: no memory for an object");
		return NULL;
	}
	o->seq = atomic_xadd64(&t->obj_seq, 1) + 1;
	o->check = ~o->seq;
	o->magic = TORTURE_OBJ_MAGIC;
	atomic_xadd64(&t->obj_allocs, 1);
	return o;
}

/* The RCU callback: poison, count, free. */
static void torture_obj_free(struct fs_rcu_head *head, void *owner)
{
	struct fs_torture *t = owner;
	struct torture_obj *o =
	    (struct torture_obj *)((char *)head - __builtin_offsetof(struct torture_obj, head));

	memset(o, FS_POISON_BYTE, sizeof(*o));
	atomic_xadd64(&t->obj_frees, 1);
	platform_free(o, sizeof(*o));
}

/* Read one object over and over inside one read section: it must never change. */
static void torture_rcu_read(struct fs_torture *t, struct torture_cpu *c)
{
	unsigned k = (unsigned)rng_below(&c->rng, TORTURE_RCU_OBJS);
	struct torture_obj *o;

	fs_rcu_read_lock(t->rcu);
	o = fs_rcu_deref(t->objs[k]);
	for (unsigned i = 0; i < TORTURE_RCU_READS; i++) {
		uint64_t magic = atomic_load64_relaxed(&o->magic);
		uint64_t seq = atomic_load64_relaxed(&o->seq);
		uint64_t check = atomic_load64_relaxed(&o->check);

		if (magic != TORTURE_OBJ_MAGIC || check != ~seq) {
			torture_fail(t, "rcu: a reader saw object %u freed under it (magic %llx)",
				     k, (unsigned long long)magic);
			break;
		}
	}
	fs_rcu_read_unlock(t->rcu);
}

/* Replace one object and retire the old one. */
static void torture_rcu_replace(struct fs_torture *t, struct torture_cpu *c)
{
	unsigned k = (unsigned)rng_below(&c->rng, TORTURE_RCU_OBJS);
	struct torture_obj *o = torture_obj_new(t), *old;

	if (!o)
		return;
	old = atomic_xchg_ptr(&t->objs[k], o);
	fs_rcu_retire(t->rcu, &old->head, torture_obj_free);
}

static enum torture_op torture_pick(struct rng *rng)
{
	unsigned w = (unsigned)rng_below(rng, 100);

	for (unsigned op = 0; op < OP_COUNT; op++) {
		if (w < torture_ops[op].weight)
			return (enum torture_op)op;
		w -= torture_ops[op].weight;
	}
	return OP_LOOKUP;
}

/* One random operation; returns its error (0 or negative) for the caller to judge. */
static int torture_op(struct fs_torture *t, struct torture_cpu *c, enum torture_op op)
{
	struct fs *fs = t->fs;
	struct fs_node *n;
	uint64_t pos = 0;
	unsigned i, depth;
	int err;

	depth = torture_path(&c->rng, c->path, TORTURE_DEPTH);
	switch (op) {
	case OP_LOOKUP:
		err = fs_lookup(fs, c->path, &n);
		if (!err) {
			torture_check_node(t, n, "lookup", c->path);
			torture_hold(t, c, n);
		}
		return err;
	case OP_STAT:
		return fs_stat(fs, c->path, &(struct fs_stat){0});
	case OP_CREATE_FILE:
	case OP_CREATE_DIR:
		return fs_create(fs, c->path, op == OP_CREATE_DIR ? FS_DIR : FS_FILE, NULL);
	case OP_UNLINK:
		return fs_unlink(fs, c->path);
	case OP_RMDIR:
		return fs_rmdir(fs, c->path);
	case OP_RENAME:
		/*
		 * Never deeper than the source: a directory moved down would
		 * carry its subtree out of reach of the random paths, and the
		 * tree would silt up with nodes nothing can remove.
		 */
		torture_path(&c->rng, c->path2, depth ? depth : 1);
		return fs_rename(fs, c->path, c->path2);
	case OP_READDIR:
		err = fs_readdir(fs, c->path, &pos, c->ents, TORTURE_ENTS);
		if (err >= 0)
			torture_check_entries(t, c, err);
		return err < 0 ? err : 0;
	case OP_PARENT:
		if (!c->nheld)
			return 0;
		i = (unsigned)rng_below(&c->rng, c->nheld);
		err = fs_get_parent(fs, c->held[i], &n);
		if (!err) {
			torture_check_node(t, n, "get_parent", "(held)");
			torture_hold(t, c, n);
		}
		return err;
	case OP_PUT:
		if (c->nheld) {
			i = (unsigned)rng_below(&c->rng, c->nheld);
			fs_put(fs, c->held[i]);
			c->held[i] = c->held[--c->nheld];
		}
		return 0;
	case OP_RCU_READ:
		torture_rcu_read(t, c);
		return 0;
	case OP_RCU_REPLACE:
		torture_rcu_replace(t, c);
		return 0;
	case OP_COUNT:
		break;
	}
	return 0;
}

struct fs_torture *fs_torture_prepare(const struct fs_torture_params *p, const struct fs_report *r)
{
	size_t size = sizeof(struct fs_torture) + p->ncpus * sizeof(struct torture_cpu);
	struct fs_torture *t;

	if (p->ncpus == 0 || p->ncpus > MAX_CPUS) {
		r->fail(r->arg, "fs torture: CPU count out of range");
		return NULL;
	}
	t = platform_alloc(size, CACHE_PAIR_BYTES);
	if (!t) {
		r->fail(r->arg, "fs torture: no memory for the per-CPU state");
		return NULL;
	}
	t->size = size;
	t->p = *p;
	t->r = r;
	t->fs = fs_new(&(struct fs_config){
	    .mem_slots = TORTURE_SLOTS, .dir_buckets = TORTURE_BUCKETS, .policy = p->policy});
	if (!t->fs) {
		r->fail(r->arg, "fs torture: fs_new failed");
		platform_free(t, size);
		return NULL;
	}
	t->rcu = platform_alloc(sizeof(*t->rcu), CACHE_PAIR_BYTES);
	if (!t->rcu) {
		r->fail(r->arg, "fs torture: no memory for the RCU domain");
		fs_destroy(t->fs);
		platform_free(t, size);
		return NULL;
	}
	fs_rcu_init(t->rcu, t);
	t->obj_seq = t->obj_allocs = t->obj_frees = 0;
	for (unsigned k = 0; k < TORTURE_RCU_OBJS; k++)
		t->objs[k] = torture_obj_new(t);
	barrier_init(&t->start, p->ncpus);
	t->warnings = lockref_warnings();
	for (unsigned i = 0; i < p->ncpus; i++)
		rng_seed(&t->cpu[i].rng, p->seed, i);
	return t;
}

void fs_torture_run(struct fs_torture *t, unsigned cpu)
{
	struct torture_cpu *c = &t->cpu[cpu];
	uint64_t end;

	if (!barrier_wait(&t->start, TORTURE_START_NS, FS_TORTURE_START_BARRIER)) {
		torture_fail(t, "cpu %u: not every CPU came to the start", cpu);
		return;
	}
	end = platform_now_ns() + t->p.duration_ns;
	for (unsigned i = 0;; i++) {
		enum torture_op op;
		int err;

		if (i % TORTURE_CLOCK_EVERY == 0 &&
		    (platform_now_ns() >= end || atomic_load8_relaxed((const uint8_t *)&t->failed)))
			break;
		op = torture_pick(&c->rng);
		err = torture_op(t, c, op);
		c->ops[op]++;
		if (err == 0)
			c->ok[op]++;
		if (err > 0 || err < -63 || !(torture_ops[op].allowed & (1ull << -err)))
			torture_fail(t, "cpu %u: %s %s%s%s gave %s (%d)", cpu, torture_ops[op].name,
				     c->path, op == OP_RENAME ? " -> " : "",
				     op == OP_RENAME ? c->path2 : "", fs_errno_name(err), err);
	}
}

/* Remove everything below the root through the API, depth first. */
static void torture_teardown(struct fs_torture *t)
{
	size_t len;

	memcpy(t->path, "/", 2);
	for (unsigned guard = 0; guard < 4 * TORTURE_SLOTS; guard++) {
		uint64_t pos = 2; /* past "." and ".." */
		int n = fs_readdir(t->fs, t->path, &pos, &t->ent, 1), err;

		len = strlen(t->path);
		if (n < 0) {
			torture_fail(t, "teardown: readdir %s: %s", t->path, fs_errno_name(n));
			return;
		}
		if (n == 0) {
			if (len == 1)
				return;
			err = fs_rmdir(t->fs, t->path);
			if (err)
				torture_fail(t, "teardown: rmdir %s: %s", t->path,
					     fs_errno_name(err));
			fs_path_up(t->path, len);
			continue;
		}
		fs_path_down(t->path, sizeof(t->path), len, t->ent.name);
		if (t->ent.type == FS_DIR)
			continue;
		err = fs_unlink(t->fs, t->path);
		if (err)
			torture_fail(t, "teardown: unlink %s: %s", t->path, fs_errno_name(err));
		t->path[len] = '\0';
	}
	torture_fail(t, "teardown: the tree does not get smaller");
}

/* Run fs_audit with @held; fail the torture with its findings. */
static bool torture_audit(struct fs_torture *t, const char *when, struct fs_node *const *held,
			  unsigned nheld, struct fs_audit *a)
{
	if (fs_audit(t->fs, held, nheld, a) == 0)
		return true;
	torture_fail(t, "audit %s: %u problem(s), first: %s", when, a->problems, a->first);
	return false;
}

/* Retire the last objects; every object must have been freed exactly once. */
static void torture_rcu_finish(struct fs_torture *t)
{
	for (unsigned k = 0; k < TORTURE_RCU_OBJS; k++)
		if (t->objs[k])
			fs_rcu_retire(t->rcu, &t->objs[k]->head, torture_obj_free);
	if (!fs_rcu_synchronize(t->rcu,
				FS_GRACE_TIMEOUT_NS + TORTURE_GRACE_PER_CPU_NS * t->p.ncpus))
		torture_fail(t, "rcu: the last grace period did not end");
	if (t->obj_frees != t->obj_allocs || fs_rcu_pending(t->rcu) != 0)
		torture_fail(t, "rcu: %llu objects allocated, %llu freed, %llu pending",
			     (unsigned long long)t->obj_allocs, (unsigned long long)t->obj_frees,
			     (unsigned long long)fs_rcu_pending(t->rcu));
	torture_diag(t, "rcu: %llu objects replaced and freed after %llu grace periods",
		     (unsigned long long)t->obj_frees,
		     (unsigned long long)fs_rcu_grace_periods(t->rcu));
	platform_free(t->rcu, sizeof(*t->rcu));
}

bool fs_torture_finish(struct fs_torture *t)
{
	struct fs_node **held =
	    platform_alloc(sizeof(*held) * t->p.ncpus * TORTURE_HOLD, sizeof(*held));
	struct fs_audit a, first = {0};
	struct fs_stats st;
	uint64_t ops[OP_COUNT] = {0}, ok[OP_COUNT] = {0}, total = 0;
	unsigned nheld = 0;
	bool passed;

	for (unsigned i = 0; i < t->p.ncpus; i++) {
		struct torture_cpu *c = &t->cpu[i];

		for (unsigned h = 0; h < c->nheld && held; h++)
			held[nheld++] = c->held[h];
		for (unsigned op = 0; op < OP_COUNT; op++) {
			ops[op] += c->ops[op];
			ok[op] += c->ok[op];
			total += c->ops[op];
		}
	}
	if (!held)
		torture_fail(t, "no memory to list the held references");
	else if (torture_audit(t, "with the references held", held, nheld, &first))
		torture_diag(t,
			     "audit with %u held: %u nodes (%u dirs, %u removed but held), "
			     "depth %u",
			     nheld, first.nodes, first.dirs, first.removed, first.max_depth);
	for (unsigned i = 0; i < t->p.ncpus; i++)
		for (unsigned h = 0; h < t->cpu[i].nheld; h++)
			fs_put(t->fs, t->cpu[i].held[h]);
	torture_audit(t, "after the last put", NULL, 0, &a);
	fs_stats(t->fs, &st);
	torture_diag(t,
		     "%llu ops on %u CPU%s: lookup %llu/%llu create %llu/%llu mkdir %llu/%llu "
		     "unlink %llu/%llu rmdir %llu/%llu rename %llu/%llu (ok/all)",
		     (unsigned long long)total, t->p.ncpus, plural(t->p.ncpus),
		     (unsigned long long)ok[OP_LOOKUP], (unsigned long long)ops[OP_LOOKUP],
		     (unsigned long long)ok[OP_CREATE_FILE],
		     (unsigned long long)ops[OP_CREATE_FILE], (unsigned long long)ok[OP_CREATE_DIR],
		     (unsigned long long)ops[OP_CREATE_DIR], (unsigned long long)ok[OP_UNLINK],
		     (unsigned long long)ops[OP_UNLINK], (unsigned long long)ok[OP_RMDIR],
		     (unsigned long long)ops[OP_RMDIR], (unsigned long long)ok[OP_RENAME],
		     (unsigned long long)ops[OP_RENAME]);
	torture_diag(t,
		     "lockless retries %llu, steps under the lock %llu, parent under the lock "
		     "%llu, grace periods %llu, slot frees %llu",
		     (unsigned long long)st.lookup_retries, (unsigned long long)st.lookup_locked,
		     (unsigned long long)st.parent_locked, (unsigned long long)st.grace_periods,
		     (unsigned long long)st.frees);
	torture_diag(t, "walk %s: %llu RCU-walk restarts, %llu walks done with references after %d",
		     fs_walk_name(fs_walk_default()), (unsigned long long)st.walk_restarts,
		     (unsigned long long)st.walk_fallbacks, FS_WALK_RCU_TRIES);
	torture_teardown(t);
	if (fs_synchronize(t->fs) != 0)
		torture_fail(t, "teardown: no grace period");
	fs_stats(t->fs, &st);
	if (st.nodes != 1 || st.links != 1)
		torture_fail(t,
			     "after teardown %u nodes and %u links live, want 1 and 1 (the root)",
			     st.nodes, st.links);
	torture_audit(t, "after teardown", NULL, 0, &a);
	if (lockref_warnings() != t->warnings)
		torture_fail(t, "%llu lockref misuse warning(s) during the run",
			     (unsigned long long)(lockref_warnings() - t->warnings));
	if (fs_destroy(t->fs) != 0)
		torture_fail(t, "fs_destroy refused");
	torture_rcu_finish(t);
	passed = !t->failed;
	if (held)
		platform_free(held, sizeof(*held) * t->p.ncpus * TORTURE_HOLD);
	platform_free(t, t->size);
	return passed;
}
