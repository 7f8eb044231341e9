// SPDX-License-Identifier: MIT
/*
 * fs.h - a tiny in-memory filesystem whose nodes live on lockrefs.
 *
 * Why it exists: the lockref was made for the Linux dcache, where every
 * path lookup takes and drops a reference on each directory it passes
 * through, so the reference counts of "/" and "/usr" are the hottest words
 * in the system.  This fs reproduces that use: nodes (files and
 * directories) with a name, a counted reference to their parent, a hashed
 * child table and a lockref whose lock guards the node.  Lookups walk
 * without locks: by default Linux's RCU-walk, which passes the directories
 * on the way without references and takes one lockless get on the last
 * node (fs_walk_rcu.c), or (fs.walk=ref) taking each reference with a
 * lockless get and dropping the previous one with a lockless put; only the
 * last reference of a removed node, and changes to the tree, take locks.
 *
 * References.  A node's count is the number of references that exist:
 * one per child that names it as parent, one per holder (fs_lookup,
 * fs_get_parent and fs_create hand them out, fs_put takes them back), and
 * one the fs keeps on the root.  Count 0 means unused but cached: still in
 * the tree and findable.  Removing a node that is in use (unlink, rmdir,
 * replaced by a rename) detaches it from the tree at once; it is freed, and
 * its parent reference dropped, at its last fs_put.  A node marked dead is
 * never found or revived again, and its memory is reused only after a
 * grace period (rcu.h), so a lookup that raced with the removal never
 * reads freed memory.
 *
 * Paths.  Absolute or relative, both resolved from the root (there is no
 * working directory).  Slashes repeat freely ("//a///b" is "/a/b"); "."
 * is the directory itself and ".." its parent ("/.." is "/").  A trailing
 * slash requires a directory.  Limits as Linux's: a component of more
 * than FS_NAME_MAX bytes, or a path of FS_PATH_MAX bytes or more (the
 * terminating NUL would not fit in FS_PATH_MAX), gives -FS_ENAMETOOLONG;
 * nothing is ever truncated.  Components are checked in order, so the
 * first problem on the way wins ("/missing/<300 bytes>" is -FS_ENOENT).
 *
 * Errors: every operation returns 0 (or a count) or a negative FS_E*
 * (errno.h); a failed operation changed nothing.  Each function below says
 * which errors it adds to those of the path walk: -FS_EINVAL (NULL
 * argument), -FS_ENOENT (empty path, a missing component),
 * -FS_ENOTDIR (a file used as a directory, or a trailing slash after a
 * file), -FS_ENAMETOOLONG (above), -FS_EIO (the fs read poison: a
 * use-after-free bug, also counted in fs_stats.poison_reads).
 *
 * Which error, when several apply: Linux's (6.x do_mkdirat, do_unlinkat,
 * do_rmdir, do_renameat2, vfs_rename, lookup_open; checked against the
 * real system calls by tests/diff/fs_vs_linux.c).  Each operation first
 * walks to the parent of its last component (a rename walks the source's,
 * then the target's), where the walk's errors arise in path order, an
 * empty or too long path's first.  Then:
 *
 *   create   "/", "." or ".." -EEXIST; a file with a trailing slash
 *            -EISDIR; parent removed -ENOENT; name too long
 *            -ENAMETOOLONG; name taken -EEXIST.
 *   unlink   "/", "." or ".." -EISDIR; parent removed -ENOENT; name too
 *            long; missing -ENOENT; a directory -EISDIR; a file with a
 *            trailing slash -ENOTDIR.
 *   rmdir    "/" -EBUSY, "." -EINVAL, ".." -ENOTEMPTY; parent removed;
 *            name too long; missing; a file -ENOTDIR; not empty -ENOTEMPTY.
 *   rename   "/", "." or ".." as either last component -EBUSY; source's
 *            parent removed, source name too long, source missing
 *            (-ENOENT); target's parent removed, target name too long; a
 *            file source with a trailing slash on either path -ENOTDIR;
 *            a directory into its own subtree -EINVAL; onto an ancestor of
 *            the source -ENOTEMPTY; onto itself: success, nothing done;
 *            a directory onto a file -ENOTDIR, a file onto a directory
 *            -EISDIR; onto a non-empty directory -ENOTEMPTY; -ENOMEM.
 *
 * So a last component's length is checked where Linux checks it, when the
 * name is looked up in its directory ("create /<256 bytes>/" is -EISDIR,
 * "rename /<256 bytes> /missing/x" is -ENOENT); a component in the middle
 * of a path is looked up at once, so its length is checked at its turn.
 *
 * Concurrency: every operation may run on any CPU at any time, on the
 * same fs, except fs_new, fs_destroy and fs_audit.  Lock order, fixed so
 * no two operations deadlock: the fs's rename lock, then node locks
 * ancestor before descendant, and two unrelated nodes by address, then
 * the node memory's and the RCU domain's own locks (leaves: nothing is
 * locked under them).  Only a rename (one at a time, under the rename
 * lock) ever holds two unrelated node locks; everything else locks a
 * directory and then one child.
 */
#ifndef FS_FS_H
#define FS_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errno.h"
#include "lockref.h"

/* Longest name (one component), in bytes, without a terminating NUL. */
#define FS_NAME_MAX 255
/* A path must be shorter than this many bytes (so that it fits with its NUL). */
#define FS_PATH_MAX 4096

/* Child table size of every directory unless the config says otherwise. */
#define FS_DIR_BUCKETS_DEFAULT 16
#define FS_DIR_BUCKETS_MAX     256

/* A grace period longer than this is reported as stuck (fs_rcu_synchronize). */
#define FS_GRACE_TIMEOUT_NS (10ull * 1000 * 1000 * 1000)

enum fs_type {
	FS_FILE = 1,
	FS_DIR = 2,
};

struct fs;
struct fs_node;

/*
 * How a path walk passes the directories on its way (docs/fs.md):
 *   FS_WALK_RCU  Linux's RCU-walk: inside one read section, taking no
 *                reference, each step validated by the directory's
 *                generation (and the rename sequence for a miss); one
 *                reference, on the last node.  A failed check tries again,
 *                and after FS_WALK_RCU_TRIES failed tries the walk is done
 *                as FS_WALK_REF (both counted in fs_stats).
 *   FS_WALK_REF  a reference taken and dropped on every component.
 * 0 in fs_config.walk means the boot's choice (fs_set_walk_default).
 *
 * Declared once, X(ID, name), the default first: the enum, fs_walk_name
 * and fs.walk='s choices (kernel/cmdline_options.c: its i-th choice stores
 * FS_WALK_FIRST + i, so opts.fs_walk is this enum) derive from it.
 */
#define FS_WALK_LIST(X)                                                                            \
	X(RCU, rcu)                                                                                \
	X(REF, ref)

#define FS_X_WALK(id, name) FS_WALK_##id,
enum fs_walk {
	FS_WALK_BOOT, /* 0: the boot's choice */
	FS_WALK_LIST(FS_X_WALK) FS_WALK_END,
	FS_WALK_FIRST = FS_WALK_BOOT + 1,
};
#undef FS_X_WALK

/* RCU-walk tries of one lookup before it walks with references. */
#define FS_WALK_RCU_TRIES 3

/* The walk of every fs made later with walk 0 (fs.walk= at boot); FS_WALK_RCU until set. */
void fs_set_walk_default(enum fs_walk walk);
enum fs_walk fs_walk_default(void);

/* Its name in FS_WALK_LIST ("rcu", "ref"), or "?". */
const char *fs_walk_name(enum fs_walk walk);

struct fs_config {
	/*
	 * Node memory, in slots.  A node uses two (the node and its name), a
	 * rename one more until a grace period has passed; the root takes two
	 * at fs_new.  At least 2.
	 */
	unsigned mem_slots;
	/* Child-table buckets per directory: a power of two up to FS_DIR_BUCKETS_MAX; 0: default. */
	unsigned dir_buckets;
	/*
	 * How references change: NULL for the boot policy (lockref.h), or
	 * e.g. &lockref_policy_locked to take the node's lock for every count
	 * change (the pre-lockref way, for the benchmark's "spinlock" impl).
	 */
	const struct lockref_policy *policy;
	/* How lookups walk: FS_WALK_RCU, FS_WALK_REF, or 0 for fs_walk_default(). */
	enum fs_walk walk;
};

/*
 * A new fs holding an empty root directory, or NULL (with a log line saying
 * why) if @cfg is out of range or there is no memory.
 */
struct fs *fs_new(const struct fs_config *cfg);

/*
 * Free @fs and everything in it.  Nobody may use @fs any more, nor hold a
 * reference into it: -FS_EBUSY, with a log line and nothing freed, if the
 * audit (fs_audit with no holders) finds anything wrong, e.g. a reference
 * somebody still holds.  Returns 0 when all is freed.
 */
int fs_destroy(struct fs *fs);

/*
 * Resolve @path and return a counted reference to its node in *@node
 * (release it with fs_put).  Errors: those of the path walk.
 */
int fs_lookup(struct fs *fs, const char *path, struct fs_node **node);

/*
 * Drop a reference from fs_lookup, fs_get_parent or fs_create.  Lockless
 * while the count stays above zero; the last reference of a removed node
 * marks it dead, frees it after a grace period and drops its reference on
 * its parent (which may cascade).  NULL is ignored.
 */
void fs_put(struct fs *fs, struct fs_node *node);

/*
 * A counted reference to @node's parent in *@parent (the root's parent is
 * the root); the caller holds a reference to @node.  Lockless
 * (get_not_zero) unless a rename races, then under the parent's lock.
 * Errors: -FS_EINVAL (NULL), -FS_EIO.
 */
int fs_get_parent(struct fs *fs, struct fs_node *node, struct fs_node **parent);

/*
 * Create a file or directory at @path.  If @node is not NULL it receives a
 * counted reference to the new node.  Errors besides the walk's:
 * -FS_EEXIST (the name is taken, or is "/", "." or ".."), -FS_ENOENT (the
 * parent directory was removed), -FS_EISDIR (a file named with a trailing
 * slash), -FS_ENOMEM (node memory exhausted), -FS_EINVAL (bad @type).
 */
int fs_create(struct fs *fs, const char *path, enum fs_type type, struct fs_node **node);

/*
 * Remove the file at @path.  Errors besides the walk's: -FS_EISDIR (a
 * directory, including "/", "." and ".."), -FS_ENOENT.
 */
int fs_unlink(struct fs *fs, const char *path);

/*
 * Remove the empty directory at @path.  Errors besides the walk's:
 * -FS_ENOTDIR (a file), -FS_ENOTEMPTY (not empty, or ".."), -FS_EBUSY
 * ("/"), -FS_EINVAL ("."), -FS_ENOENT.
 */
int fs_rmdir(struct fs *fs, const char *path);

/*
 * Move the node at @from to @to, within a directory or across, replacing
 * what @to names where POSIX allows (a file by a file, an empty directory
 * by a directory).  Renaming a node onto itself succeeds and does nothing.
 * Errors besides the walks': -FS_EINVAL (a directory into its own
 * subtree), -FS_EBUSY ("/", "." or ".." as either last component),
 * -FS_ENOTDIR (a directory onto a file, or a trailing slash after a
 * file), -FS_EISDIR (a file onto a
 * directory), -FS_ENOTEMPTY (onto a non-empty directory, or onto an
 * ancestor of @from), -FS_ENOENT (@from missing or a parent removed),
 * -FS_ENOMEM.
 */
int fs_rename(struct fs *fs, const char *from, const char *to);

struct fs_stat {
	uint64_t ino; /* unique for the life of the fs (never reused); the root is 1 */
	enum fs_type type;
	uint32_t nchildren; /* directories: entries besides "." and ".." */
	bool removed;	    /* detached from the tree (held references keep it alive) */
};

/* Fill *@st for @path.  Errors: the walk's. */
int fs_stat(struct fs *fs, const char *path, struct fs_stat *st);

/* Fill *@st for a node the caller holds a reference to.  Errors: -FS_EINVAL. */
int fs_node_stat(struct fs *fs, struct fs_node *node, struct fs_stat *st);

/*
 * The name @node was last given, NUL-terminated, into @buf of @size bytes
 * ("/" for the root).  Returns its length, or -FS_ENAMETOOLONG if @size is
 * too small, -FS_EINVAL for NULL.
 */
int fs_node_name(struct fs *fs, struct fs_node *node, char *buf, size_t size);

struct fs_dirent {
	uint64_t ino;
	enum fs_type type;
	char name[FS_NAME_MAX + 1];
};

/*
 * Read the entries of directory @path: ".", "..", then the children in
 * table order.  Starts at entry *@pos (0 at first), fills up to @max
 * entries of @ents, advances *@pos past them, and returns how many it
 * filled: 0 at the end.  Entries added or removed meanwhile may or may not
 * appear (as POSIX allows).  Errors besides the walk's: -FS_ENOTDIR,
 * -FS_EINVAL (NULL, or @max 0).
 */
int fs_readdir(struct fs *fs, const char *path, uint64_t *pos, struct fs_dirent *ents,
	       unsigned max);

struct fs_stats {
	unsigned nodes, links;	 /* slots in use now, by kind */
	uint64_t allocs, frees;	 /* slot allocations and frees since fs_new */
	uint64_t double_frees;	 /* must stay 0 */
	uint64_t poison_damaged; /* free slots found written to: must stay 0 */
	uint64_t poison_reads;	 /* lookups that met freed memory: must stay 0 */
	uint64_t rcu_pending;	 /* retired, waiting for a grace period */
	uint64_t grace_periods;
	uint64_t lookup_retries; /* lockless steps that lost a race and looked again */
	uint64_t lookup_locked;	 /* steps settled under the directory's lock */
	uint64_t parent_locked;	 /* fs_get_parent steps that took the parent's lock */
	uint64_t walk_restarts;	 /* RCU-walk tries that failed a check and were tried again */
	uint64_t walk_fallbacks; /* walks done with references after FS_WALK_RCU_TRIES failed */
};

/* A snapshot of @fs's counters. */
void fs_stats(struct fs *fs, struct fs_stats *out);

/*
 * Wait for a grace period, so everything removed so far is freed (bounded
 * by FS_GRACE_TIMEOUT_NS).  Returns 0, or -FS_EBUSY if a CPU stayed in a
 * read section too long (logged).  Tests use it to count nodes exactly.
 */
int fs_synchronize(struct fs *fs);

struct fs_audit {
	unsigned nodes, dirs, removed; /* live nodes; of them directories; detached but held */
	unsigned max_depth;
	unsigned problems; /* 0 means all checks passed */
	char first[160];   /* the first problem, in words */
};

/*
 * Check every invariant of @fs: no cycles, every node reachable exactly
 * once (or detached and held), names unique and in the right bucket,
 * child counts right, every count equal to the references that exist
 * (children, the fs's own on the root, and @held: the references the
 * caller knows are held, @nheld of them, a node once per reference), every
 * free slot still poisoned, no double free, no poison read.  Frees what
 * waits for a grace period first.  Only while no other CPU uses @fs.
 * Returns 0, or -FS_EIO with *@out saying what (each problem also logged).
 */
int fs_audit(struct fs *fs, struct fs_node *const *held, unsigned nheld, struct fs_audit *out);

#endif /* FS_FS_H */
