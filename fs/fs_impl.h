// SPDX-License-Identifier: MIT
/*
 * fs_impl.h - the inside of the fs, shared by its .c files only.
 *
 * Which lockref, and why.  Directories carry the 16-byte lockref16,
 * files the 8-byte lockref:
 *
 *  - A lookup finds a child by reading the child table and the child's
 *    name without locks, then takes a reference.  Between the check "this
 *    is D's child N" and the get, a rename may move the child.  For a
 *    directory that matters: the walk goes on *inside* it, so a reference
 *    taken after the move would resolve the rest of the path under the
 *    directory's new place, a path that never existed.  The lockref16's
 *    generation closes the window: rename and rmdir bump it under the
 *    node's lock, and lockref16_get_if_gen takes the reference only if the
 *    generation read before the check is still current, in the same
 *    CMPXCHG16B.  So a directory reference is taken at an instant when
 *    the directory still had the name the walk looked for.
 *
 *  - A file ends the walk; nothing is resolved relative to it.  A lookup
 *    that checked "D's child N" and then got the reference returns the node
 *    that had that name at the check, which is all a lookup promises (the
 *    file may be renamed the next instant anyway).  The check itself is
 *    consistent because a node's name and parent live together in one
 *    immutable struct fs_link, replaced as a whole by rename and read with
 *    one load.  So files need no generation and take the cheaper 8-byte
 *    CMPXCHG8B lockref, the one the Linux dcache uses.
 *
 * What guards what:
 *   node lock (in its lockref)  count; removed; nchildren and table of a
 *                               directory; link (with the parent's lock:
 *                               rename holds both); the generation.
 *   parent's lock               the child's `next` in the parent's table.
 *   fs->rename_lock             the shape of the directory tree: while it
 *                               is held no link changes, so ancestry is
 *                               stable for rename's checks; and
 *                               fs->rename_seq, odd while a rename moves a
 *                               node between chains (Linux's rename_lock
 *                               seqlock), so a lockless miss can tell it
 *                               was not diverted.
 *   RCU (fs->rcu)               lockless readers of table, next, link.
 */
#ifndef FS_FS_IMPL_H
#define FS_FS_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "busted.h"
#include "fs.h"
#include "lockref.h"
#include "lock_rules.h"
#include "lockref16.h"
#include "platform.h"
#include "rcu.h"
#include "slots.h"
#include "spinlock.h"

/* A cache line: the unit two CPUs writing near each other fight over. */
#define FS_LINE_BYTES 64

/* Magic words at the start of every live object ("FSNODE", "FSLINK"); poison when freed. */
#define FS_NODE_MAGIC 0x45444f4e5346ull
#define FS_LINK_MAGIC 0x4b4e494c5346ull

/* A node's name and parent, immutable once published; rename installs a new one. */
struct fs_link {
	uint64_t magic;
	struct fs_rcu_head rcu;
	struct fs_node *parent; /* a counted reference; NULL for the root */
	uint32_t hash;
	uint32_t len;
	char name[FS_NAME_MAX + 1];
};

/*
 * A node is a lock in the lock rules (lock_rules.h): "the node's lock" is
 * its lockref16's for a directory and its lockref's for a file, so the
 * rules name the node itself, and the fs_node_* primitives below map it
 * onto the lock of the node's form.
 */
struct LOCK_TYPE("fs_node") fs_node {
	/* Line 0: what every walk that passes the node reads; no walk writes it. */
	uint64_t magic;
	enum fs_type type;    /* immutable */
	uint64_t ino;	      /* immutable */
	struct fs_link *link; /* RCU */
	struct fs_node *next; /* RCU: next in the parent's bucket */
	/*
	 * Line 1: what walks write (the count, a get and a put per ref-walk
	 * step, one of each per RCU-walk on its last node), and what is
	 * written under the node's lock.  Alone, so a count change does not
	 * invalidate the line the next walker reads its bucket from.
	 */
	struct {
		union {
			struct lockref16 dref; /* directories */
			struct lockref fref;   /* files */
		};
		bool removed;	    /* detached from the tree; under the node's lock */
		uint32_t nchildren; /* directories: linked children; under the node's lock */
		struct fs_rcu_head rcu;
	} __attribute__((aligned(FS_LINE_BYTES)));
	/* Line 2 on: directories: fs->buckets chain heads (RCU), read by every walk. */
	struct fs_node *table[] __attribute__((aligned(FS_LINE_BYTES)));
};

_Static_assert(__builtin_offsetof(struct fs_node, dref) % FS_LINE_BYTES == 0 &&
		   __builtin_offsetof(struct fs_node, link) < FS_LINE_BYTES &&
		   __builtin_offsetof(struct fs_node, next) < FS_LINE_BYTES &&
		   __builtin_offsetof(struct fs_node, table) >=
		       __builtin_offsetof(struct fs_node, dref) + FS_LINE_BYTES,
	       "the lockref's line holds nothing a walk only reads (docs/fs.md)");

struct fs {
	struct fs_rcu rcu;
	struct fs_slots slots;
	/* Read by every walk, written only by fs_new and renames: a line of their own. */
	struct fs_node *root __attribute__((aligned(FS_LINE_BYTES)));
	const struct lockref_policy *policy;
	unsigned buckets;
	uint32_t rename_seq; /* under rename_lock; read locklessly */
	enum fs_walk walk;   /* FS_WALK_RCU or FS_WALK_REF */
	/* Written by renames and creates. */
	spinlock_t rename_lock __attribute__((aligned(FS_LINE_BYTES)));
	uint64_t next_ino;
	/* Rare-event counters (atomic adds). */
	uint64_t poison_reads __attribute__((aligned(FS_LINE_BYTES)));
	uint64_t lookup_retries, lookup_locked, parent_locked;
	uint64_t walk_restarts, walk_fallbacks;
};

static inline bool fs_is_dir(const struct fs_node *n)
{
	return n->type == FS_DIR;
}

/* The spinlock inside the node's lockref: the object the trace names the node by. */
static inline const spinlock_t *fs_node_spinlock(const struct fs_node *n)
{
	return fs_is_dir(n) ? &n->dref.lock : &n->fref.lock;
}

/*
 * Reference primitives on either form; their lock rules name the node.
 * Exempt from the analysis inside (LOCK_RULES_EXEMPT): which lockref's lock
 * is the node's depends on the node's type, a rule it cannot state; every
 * caller is checked against the node-level rule each one declares.
 */

static inline LOCK_RULES_EXEMPT("the node's type picks its lock") void fs_node_lock(
    struct fs_node *n) ACQUIRES(*n)
{
	fs_is_dir(n) ? lockref16_lock(&n->dref) : lockref_lock(&n->fref);
}

/*
 * Every node's lock is of one lock class, "fs:node" (lib/lockdep.h), so
 * nesting two needs a subclass, which the checker takes as an order: the
 * first parent, a rename's second parent, a child, a rename's second
 * child, in the order fs.h fixes (parent before child; of two parents the
 * ancestor, else the lower address; of two children the lower address).
 */
enum fs_lock_subclass { FS_LOCK_PARENT, FS_LOCK_PARENT2, FS_LOCK_CHILD, FS_LOCK_CHILD2 };

/* fs_node_lock for a node taken while holding another (its parent, or a rename's first). */
static inline LOCK_RULES_EXEMPT("the node's type picks its lock") void fs_node_lock_nested(
    struct fs_node *n, enum fs_lock_subclass sub) ACQUIRES(*n)
{
	fs_is_dir(n) ? lockref16_lock_nested(&n->dref, sub) : lockref_lock_nested(&n->fref, sub);
}

static inline LOCK_RULES_EXEMPT("the node's type picks its lock") void fs_node_unlock(
    struct fs_node *n) RELEASES(*n)
{
	fs_is_dir(n) ? lockref16_unlock(&n->dref) : lockref_unlock(&n->fref);
}

/* Caller holds the lock.  Returns the new count. */
static inline LOCK_RULES_EXEMPT("the node's type picks its lock") int64_t
    fs_node_get_locked(struct fs_node *n) REQUIRES(*n)
{
	return fs_is_dir(n) ? lockref16_get_locked(&n->dref) : lockref_get_locked(&n->fref);
}

/* Caller holds the lock.  Returns the new count. */
static inline LOCK_RULES_EXEMPT("the node's type picks its lock") int64_t
    fs_node_put_locked(struct fs_node *n) REQUIRES(*n)
{
	return fs_is_dir(n) ? lockref16_put_locked(&n->dref) : lockref_put_locked(&n->fref);
}

/* Caller holds the lock. */
static inline LOCK_RULES_EXEMPT("the node's type picks its lock") void fs_node_mark_dead(
    struct fs_node *n) REQUIRES(*n)
{
	fs_is_dir(n) ? lockref16_mark_dead(&n->dref) : lockref_mark_dead(&n->fref);
}

/* Caller holds the lock of directory @n: its name changed (lockref16_bump_gen). */
static inline LOCK_RULES_EXEMPT("the node's type picks its lock") void fs_dir_bump_gen(
    struct fs_node *n) REQUIRES(*n)
{
	lockref16_bump_gen(&n->dref);
}

/* The count: a snapshot unless the caller holds the lock. */
static inline int64_t fs_node_count(const struct fs_node *n)
{
	return fs_is_dir(n) ? lockref16_count(&n->dref) : lockref_count(&n->fref);
}

/* Take a reference if the count is above zero (lockless unless the policy says otherwise). */
static inline MUST_CHECK bool fs_node_get_not_zero(struct fs *fs, struct fs_node *n)
{
	return fs_is_dir(n) ? lockref16_get_not_zero_p(&n->dref, fs->policy)
			    : lockref_get_not_zero_p(&n->fref, fs->policy);
}

/*
 * A reference on the root.  It cannot fail: the fs's own reference keeps the
 * root's count above zero, so a failure is a broken count and stops everything.
 */
static inline struct fs_node *fs_root_get(struct fs *fs)
{
	if (!fs_node_get_not_zero(fs, fs->root))
		platform_panic("fs %p: the root's count is zero while the fs holds it", (void *)fs);
	return fs->root;
}

/*
 * Drop a reference without the lock, even the last: the new count, or -1
 * with nothing changed when that needs the lock (held, lost races, the
 * locked policy) or the count is not above 0.
 */
static inline MUST_CHECK int64_t fs_node_put_return(struct fs *fs, struct fs_node *n)
{
	return fs_is_dir(n) ? lockref16_put_return_p(&n->dref, fs->policy)
			    : lockref_put_return_p(&n->fref, fs->policy);
}

static inline bool fs_node_is_dead(const struct fs_node *n)
{
	return fs_is_dir(n) ? lockref16_is_dead(&n->dref) : lockref_is_dead(&n->fref);
}

/*
 * fs_put for a caller inside a read section of fs->rcu (fs.c): the last
 * reference of a node still in the tree is dropped without the lock too.
 */
void fs_put_rcu(struct fs *fs, struct fs_node *node);

/* Drop a reference if it is not the last; else return false WITH THE LOCK HELD. */
static inline MUST_CHECK
    LOCK_RULES_EXEMPT("the node's type picks its lock") bool fs_node_put_or_lock(struct fs *fs,
										 struct fs_node *n)
	TRY_ACQUIRES(false, *n)
{
	return fs_is_dir(n) ? lockref16_put_or_lock_p(&n->dref, fs->policy)
			    : lockref_put_or_lock_p(&n->fref, fs->policy);
}

/*
 * Check @obj's magic against @magic.  A mismatch means the fs reached freed
 * (poisoned) memory: counted in fs->poison_reads, logged (rate-limited),
 * and the caller fails its operation with -FS_EIO.
 */
bool fs_check_live(struct fs *fs, const void *obj, uint64_t magic, const char *where);

/* FNV-1a of a name: cheap and well spread over short names. */
uint32_t fs_name_hash(const char *name, uint32_t len);

/* Slot memory for a node of @type / a link; NULL when node memory is exhausted. */
struct fs_node *fs_node_alloc(struct fs *fs, enum fs_type type);
struct fs_link *fs_link_alloc(struct fs *fs, struct fs_node *parent, const char *name, uint32_t len,
			      uint32_t hash);

/* Free objects nobody else ever saw (no grace period needed). */
void fs_node_free_now(struct fs *fs, struct fs_node *n);
void fs_link_free_now(struct fs *fs, struct fs_link *l);

/* Free @n and its link after a grace period (a dead node) / a replaced link. */
void fs_node_retire(struct fs *fs, struct fs_node *n);
void fs_link_retire(struct fs *fs, struct fs_link *l);

/* Bucket of @hash in a directory's table. */
static inline unsigned fs_bucket(const struct fs *fs, uint32_t hash)
{
	return hash & (fs->buckets - 1);
}

/*
 * Caller holds @dir's lock: the child named @name (@len bytes, @hash), or
 * NULL.  The chain is stable under the lock.
 */
struct fs_node *fs_child_locked(struct fs *fs, struct fs_node *dir, const char *name, uint32_t len,
				uint32_t hash) REQUIRES(*dir);

/* Caller holds @dir's lock: unhook @child from @dir's table (readers may still walk past it). */
void fs_table_remove(struct fs *fs, struct fs_node *dir, struct fs_node *child) REQUIRES(*dir);

/* Caller holds @dir's lock: hook @child (whose link names @dir) into @dir's table. */
void fs_table_insert(struct fs *fs, struct fs_node *dir, struct fs_node *child) REQUIRES(*dir);

/*
 * The last component of a path, as the operations that change the tree
 * see it: walk to the parent directory, then act on the name.
 */
struct fs_last {
	struct fs_node *dir; /* a counted reference */
	const char *name;    /* inside the caller's path, not NUL-terminated */
	uint32_t len;	     /* may exceed FS_NAME_MAX: fs_last_check says so */
	uint32_t hash;	     /* of a name of at most FS_NAME_MAX bytes */
	bool trailing_slash;
	/* A name, ".", "..", or none ("/": only slashes). */
	enum { FS_LAST_NAME, FS_LAST_DOT, FS_LAST_DOTDOT, FS_LAST_ROOT } kind;
};

/*
 * Resolve all of @path but its last component.  Returns 0 with @last
 * filled (drop last->dir with fs_put), -FS_EINVAL for a NULL @fs, or a
 * walk error.  The last name's length is not checked here: Linux checks it
 * only when it looks the name up in its directory, after errors it finds
 * first (fs.h, "Errors").
 */
int fs_walk_parent(struct fs *fs, const char *path, struct fs_last *last);

/*
 * The checks of looking @last's name up in its directory, in Linux's
 * order: -FS_ENOENT if last->dir was removed, -FS_ENAMETOOLONG if the name
 * is over FS_NAME_MAX bytes, else 0.  Caller holds last->dir's lock.
 */
int fs_last_check(const struct fs_last *last);

/* Count a rare event. */
static inline void fs_count(uint64_t *counter)
{
	atomic_xadd64(counter, 1);
}

/* The removed flag, written under the node's lock, as a snapshot. */
static inline bool fs_node_removed(const struct fs_node *n)
{
	return atomic_load8_relaxed((const uint8_t *)&n->removed) != 0;
}

/* The length a component of @len bytes may have, or 0 if it is too long. */
static inline uint32_t fs_name_ok(size_t len)
{
	if (len <= FS_NAME_MAX)
		return (uint32_t)len;
	/* Negative control: the truncation the rules forbid. */
	return FS_BUG(FS_BUG_TRUNCATE) ? FS_NAME_MAX : 0;
}

static inline bool fs_is_dot(const char *s, size_t len)
{
	return len == 1 && s[0] == '.';
}

static inline bool fs_is_dotdot(const char *s, size_t len)
{
	return len == 2 && s[0] == '.' && s[1] == '.';
}

/*
 * Chain entries one lockless scan may visit.  Renames can divert a scan
 * into other chains, even round a loop of them; past this many it gives
 * up (the ref-walk settles the step under the lock, the RCU-walk tries
 * again).
 */
#define FS_SCAN_MAX 1024

enum fs_step {
	FS_STEP_FOUND,	/* found (fs_scan) / a reference was taken (a ref-walk step) */
	FS_STEP_MISS,	/* not in the chain (if no rename moved anything meanwhile) */
	FS_STEP_LONG,	/* the scan ran too long */
	FS_STEP_RACE,	/* seen, but it changed before the get: scan again */
	FS_STEP_POISON, /* freed memory was read */
};

/*
 * Inside a read section: scan @dir's bucket for @name (@len bytes, @hash)
 * without locks or references.  FS_STEP_FOUND puts the child in *@out and,
 * for a directory, the generation read before its link in *@gen.  A miss
 * is trustworthy only if fs->rename_seq was even and unchanged around the
 * scan (fs_lookup.c).
 */
enum fs_step fs_scan(struct fs *fs, struct fs_node *dir, const char *name, uint32_t len,
		     uint32_t hash, struct fs_node **out, uint32_t *gen);

/* fs_walk_rcu's "walk again with references". */
#define FS_WALK_AGAIN 1

/*
 * The RCU-walk of [@p, @end) from the root (fs_walk_rcu.c): 0 with a
 * reference on the last node in *@out, a negative errno, or FS_WALK_AGAIN
 * when FS_WALK_RCU_TRIES tries failed their checks (counted).
 */
int fs_walk_rcu(struct fs *fs, const char *p, const char *end, struct fs_node **out);

/*
 * The next component of the path [*@p, @end): skips slashes, then sets
 * *@name to the component and moves *@p past it.  False at the path's end.
 */
static inline bool fs_path_next(const char **p, const char *end, const char **name)
{
	while (*p < end && **p == '/')
		(*p)++;
	if (*p == end)
		return false;
	*name = *p;
	while (*p < end && **p != '/')
		(*p)++;
	return true;
}

#endif /* FS_FS_IMPL_H */
