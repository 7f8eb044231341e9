// SPDX-License-Identifier: MIT
/*
 * fs_lookup.c - path walking: fs_lookup and the parent walk of the
 * operations that change the tree, and the child tables they search.
 * Both walk in RCU-walk first when the fs does (fs_walk_rcu.c), and here,
 * with references, when it does not or when that gave up.
 *
 * One step of the ref-walk, from a directory D the walker holds a reference
 * to, to its child named N, first without any lock:
 *
 *   1. Inside an RCU read section, scan D's bucket for N.  The chain may
 *      change under the scan: unlink and rename unhook nodes but leave
 *      their `next` intact, and RCU keeps them allocated, so the scan
 *      never falls off into freed memory (and if it did, the magic check
 *      would say so: -FS_EIO).
 *   2. For a candidate C, read C's generation (directories), then C's
 *      link, and compare parent, hash and name with the link's.
 *   3. Take the reference: lockref16_get_if_gen for a directory (fails if
 *      C was renamed or removed since step 2), lockref_get_not_dead for a
 *      file (fails only if C died).  A failure means C changed under us:
 *      scan again.
 *
 * A rename can carry a node from D's chain into another chain while the
 * scan stands on it, so a lockless miss proves something only if no rename
 * moved anything meanwhile: fs->rename_seq, read before and after the scan
 * as Linux reads its rename_lock seqlock, says so.  Unlinks and creates
 * cannot divert a scan (an unhooked node keeps its `next`; a new node goes
 * in at the head, where a scan that missed it may linearise before the
 * create).  A miss under a moving rename_seq, a scan that ran too long, or
 * too many lost races are settled under D's lock, where D's table stands
 * still.  The walker then drops its reference on D with the lockless put.
 */
#include "atomic.h"
#include "busted.h"
#include "errno.h"
#include "fs.h"
#include "fs_impl.h"
#include "lockref.h"
#include "lockref16.h"
#include "rcu.h"
#include "string.h"

/* Lockless tries of one step that lost a race before it is settled under the lock. */
#define FS_LOOKUP_TRIES 4

/* Does @l name the child @name of @dir? */
static bool fs_link_matches(const struct fs_link *l, const struct fs_node *dir, const char *name,
			    uint32_t len, uint32_t hash)
{
	return l->parent == dir && l->hash == hash && l->len == len &&
	       memcmp(l->name, name, len) == 0;
}

enum fs_step fs_scan(struct fs *fs, struct fs_node *dir, const char *name, uint32_t len,
		     uint32_t hash, struct fs_node **out, uint32_t *gen_out)
{
	unsigned visited = 0;
	struct fs_node *c, *next;

	for (c = fs_rcu_deref(dir->table[fs_bucket(fs, hash)]); c; c = next) {
		uint32_t gen = 0;
		struct fs_link *l;

		if (++visited > FS_SCAN_MAX)
			return FS_STEP_LONG;
		if (!fs_check_live(fs, c, FS_NODE_MAGIC, "lookup"))
			return FS_STEP_POISON;
		/* The generation before the link: a rename stores the link, then bumps it. */
		if (fs_is_dir(c))
			gen = lockref16_gen(&c->dref);
		l = fs_rcu_deref(c->link);
		next = fs_rcu_deref(c->next);
		/* C still live after those loads: they were not of poison (slots.h). */
		if (!fs_check_live(fs, c, FS_NODE_MAGIC, "lookup") ||
		    !fs_check_live(fs, l, FS_LINK_MAGIC, "lookup"))
			return FS_STEP_POISON;
		if (fs_link_matches(l, dir, name, len, hash)) {
			*out = c;
			*gen_out = gen;
			return FS_STEP_FOUND;
		}
	}
	return FS_STEP_MISS;
}

/* One lockless step: FS_STEP_FOUND with a reference in *@out, or why not. */
static enum fs_step fs_step_lockless(struct fs *fs, struct fs_node *dir, const char *name,
				     uint32_t len, uint32_t hash, struct fs_node **out)
{
	enum fs_step step;
	struct fs_node *c;
	uint32_t gen;
	bool got;

	fs_rcu_read_lock(&fs->rcu);
	step = fs_scan(fs, dir, name, len, hash, &c, &gen);
	if (step == FS_STEP_FOUND) {
		if (fs_is_dir(c))
			got = lockref16_get_if_gen_p(&c->dref, gen, fs->policy);
		else
			got = lockref_get_not_dead_p(&c->fref, fs->policy);
		if (got)
			*out = c;
		else
			step = FS_STEP_RACE;
	}
	fs_rcu_read_unlock(&fs->rcu);
	return step;
}

struct fs_node *fs_child_locked(struct fs *fs, struct fs_node *dir, const char *name, uint32_t len,
				uint32_t hash)
{
	struct fs_node *c;

	for (c = fs_rcu_deref(dir->table[fs_bucket(fs, hash)]); c; c = fs_rcu_deref(c->next))
		if (fs_link_matches(fs_rcu_deref(c->link), dir, name, len, hash))
			return c;
	return NULL;
}

void fs_table_remove(struct fs *fs, struct fs_node *dir, struct fs_node *child)
{
	struct fs_node **pp = &dir->table[fs_bucket(fs, fs_rcu_deref(child->link)->hash)];
	struct fs_node *c;

	while ((c = fs_rcu_deref(*pp)) != child) {
		if (!c)
			platform_panic("fs: node %p is not in the table of directory %p",
				       (void *)child, (void *)dir);
		pp = &c->next;
	}
	/* Readers standing on @child keep following its `next`: leave it as it is. */
	fs_rcu_assign(*pp, fs_rcu_deref(child->next));
}

void fs_table_insert(struct fs *fs, struct fs_node *dir, struct fs_node *child)
{
	struct fs_node **head = &dir->table[fs_bucket(fs, fs_rcu_deref(child->link)->hash)];

	fs_rcu_assign(child->next, fs_rcu_deref(*head));
	/* Release: a reader that finds @child sees it initialised and linked. */
	fs_rcu_assign(*head, child);
}

/* Under @dir's lock: the child's reference, or -FS_ENOENT. */
static int fs_step_locked(struct fs *fs, struct fs_node *dir, const char *name, uint32_t len,
			  uint32_t hash, struct fs_node **out)
{
	struct fs_node *c;

	fs_node_lock(dir);
	c = fs_child_locked(fs, dir, name, len, hash);
	if (c) {
		/* In the table, so not dead: removal unhooks and kills under this lock. */
		fs_node_lock_nested(c, FS_LOCK_CHILD);
		fs_node_get_locked(c);
		fs_node_unlock(c);
	}
	fs_node_unlock(dir);
	if (!c)
		return -FS_ENOENT;
	*out = c;
	return 0;
}

/* From @dir (referenced) to its child @name: a reference to it in *@out, or an error. */
static int fs_step(struct fs *fs, struct fs_node *dir, const char *name, uint32_t len,
		   struct fs_node **out)
{
	uint32_t hash = fs_name_hash(name, len);

	for (unsigned i = 0; i < FS_LOOKUP_TRIES; i++) {
		/* Acquire: the scan's loads come after this one, and the check's after them. */
		uint32_t seq = atomic_load32(&fs->rename_seq);

		switch (fs_step_lockless(fs, dir, name, len, hash, out)) {
		case FS_STEP_FOUND:
			return 0;
		case FS_STEP_POISON:
			return -FS_EIO;
		case FS_STEP_MISS:
			if (seq % 2 == 0 && atomic_load32(&fs->rename_seq) == seq)
				return -FS_ENOENT;
			i = FS_LOOKUP_TRIES;
			break;
		case FS_STEP_LONG:
			i = FS_LOOKUP_TRIES;
			break;
		case FS_STEP_RACE:
			fs_count(&fs->lookup_retries);
			break;
		}
	}
	fs_count(&fs->lookup_locked);
	return fs_step_locked(fs, dir, name, len, hash, out);
}

/* The length of a valid @path in *@len, or the error a bad one gets. */
static int fs_path_check(const char *path, size_t *len)
{
	if (!path)
		return -FS_EINVAL;
	*len = strnlen(path, FS_PATH_MAX);
	if (*len == FS_PATH_MAX)
		return -FS_ENAMETOOLONG;
	if (*len == 0)
		return -FS_ENOENT;
	return 0;
}

/* The ref-walk: a reference on every component on the way. */
static int fs_walk_ref(struct fs *fs, const char *p, const char *end, struct fs_node **out)
{
	struct fs_node *cur = fs_root_get(fs), *next;
	int err = 0;

	for (;;) {
		const char *s;
		uint32_t len;

		if (!fs_path_next(&p, end, &s))
			break;
		if (!fs_is_dir(cur)) {
			err = -FS_ENOTDIR;
			break;
		}
		len = fs_name_ok((size_t)(p - s));
		if (!len) {
			/* As in a lookup: a removed directory has no names, long or not. */
			err = fs_node_removed(cur) ? -FS_ENOENT : -FS_ENAMETOOLONG;
			break;
		}
		if (fs_is_dot(s, len))
			continue;
		if (fs_is_dotdot(s, len))
			err = fs_get_parent(fs, cur, &next);
		else
			err = fs_step(fs, cur, s, len, &next);
		if (err)
			break;
		fs_put(fs, cur);
		cur = next;
	}
	if (err) {
		fs_put(fs, cur);
		return err;
	}
	*out = cur;
	return 0;
}

/*
 * Resolve the components in [@p, @end) from the root: a reference in
 * *@out, or an error.  RCU-walk first if the fs walks so (fs_walk_rcu.c).
 */
static int fs_walk(struct fs *fs, const char *p, const char *end, struct fs_node **out)
{
	if (fs->walk == FS_WALK_RCU) {
		int err = fs_walk_rcu(fs, p, end, out);

		if (err != FS_WALK_AGAIN)
			return err;
	}
	return fs_walk_ref(fs, p, end, out);
}

int fs_lookup(struct fs *fs, const char *path, struct fs_node **node)
{
	struct fs_node *n;
	size_t len;
	int err;

	if (!fs || !node)
		return -FS_EINVAL;
	err = fs_path_check(path, &len);
	if (err)
		return err;
	err = fs_walk(fs, path, path + len, &n);
	if (err)
		return err;
	if (path[len - 1] == '/' && !fs_is_dir(n)) {
		fs_put(fs, n);
		return -FS_ENOTDIR;
	}
	*node = n;
	return 0;
}

int fs_walk_parent(struct fs *fs, const char *path, struct fs_last *last)
{
	const char *end, *s;
	size_t plen;
	int err;

	if (!fs)
		return -FS_EINVAL;
	err = fs_path_check(path, &plen);
	if (err)
		return err;
	end = path + plen;
	last->trailing_slash = end[-1] == '/';
	while (end > path && end[-1] == '/')
		end--;
	if (end == path) {
		/* Only slashes: the root itself, which has no name in any directory. */
		last->kind = FS_LAST_ROOT;
		last->dir = fs_root_get(fs);
		return 0;
	}
	for (s = end; s > path && s[-1] != '/'; s--)
		;
	err = fs_walk(fs, path, s, &last->dir);
	if (err)
		return err;
	if (!fs_is_dir(last->dir)) {
		fs_put(fs, last->dir);
		return -FS_ENOTDIR;
	}
	/* A name fs_name_ok refuses keeps its length, for fs_last_check to refuse in turn. */
	last->len = fs_name_ok((size_t)(end - s));
	if (!last->len)
		last->len = (uint32_t)(end - s);
	last->name = s;
	last->hash = last->len <= FS_NAME_MAX ? fs_name_hash(s, last->len) : 0;
	last->kind = fs_is_dot(s, last->len)	  ? FS_LAST_DOT
		     : fs_is_dotdot(s, last->len) ? FS_LAST_DOTDOT
						  : FS_LAST_NAME;
	return 0;
}

int fs_last_check(const struct fs_last *last)
{
	if (last->dir->removed)
		return -FS_ENOENT;
	if (last->len > FS_NAME_MAX)
		return -FS_ENAMETOOLONG;
	return 0;
}
