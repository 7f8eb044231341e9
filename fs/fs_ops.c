// SPDX-License-Identifier: MIT
/*
 * fs_ops.c - the operations that change the tree: create, unlink, rmdir,
 * rename.
 *
 * Each walks to the parent directory first (holding only references), then
 * takes locks in the fixed order of fs.h, checks everything that can fail,
 * and only then changes anything, so a failed operation leaves the tree as
 * it was.  Memory is allocated last, under those locks, once every other
 * check has passed: the slot allocator and the RCU poll it may run take
 * only their own leaf locks, never a node's.  So -FS_ENOMEM is the last
 * error an operation can give, and it too leaves the tree untouched.
 *
 * Removing a node (unlink, rmdir, or replacing it by rename) always
 * detaches it from its parent's table at once.  If nobody holds a
 * reference it is marked dead under its lock and retired with its
 * reference on the parent dropped; otherwise it lives on, detached and
 * marked removed, until fs_put drops the last reference.
 */
#include "atomic.h"
#include "busted.h"
#include "errno.h"
#include "fs.h"
#include "fs_impl.h"
#include "lockref16.h"
#include "rcu.h"
#include "spinlock.h"
#include "trace.h"

/* A node's child count, written under its lock and read as a snapshot by stat. */
static void fs_set_nchildren(struct fs_node *dir, uint32_t n)
{
	atomic_store32_relaxed(&dir->nchildren, n);
}

/*
 * Caller holds @dir's lock and checked the name is free: allocate the node
 * and its link and hook them in.  The new node's count is 1 (the caller's
 * reference in *@out) or, without @out, 0 (cached, unused).
 */
static int fs_create_locked(struct fs *fs, struct fs_node *dir, const struct fs_last *last,
			    const char *path, enum fs_type type, struct fs_node **out)
    REQUIRES(*dir)
{
	struct fs_node *n = fs_node_alloc(fs, type);
	struct fs_link *l = n ? fs_link_alloc(fs, dir, last->name, last->len, last->hash) : NULL;

	if (!l) {
		/* Never published: free at once. */
		if (n)
			fs_node_free_now(fs, n);
		return -FS_ENOMEM;
	}
	n->link = l;
	trace_name(fs_node_spinlock(n), "fs:%s", path);
	if (!out) {
		/* Nobody can see it yet: no deadlock, but an order all the same (a child). */
		fs_node_lock_nested(n, FS_LOCK_CHILD);
		fs_node_put_locked(n);
		fs_node_unlock(n);
	} else {
		*out = n;
	}
	/* The new child's reference on its parent. */
	fs_node_get_locked(dir);
	fs_table_insert(fs, dir, n);
	fs_set_nchildren(dir, dir->nchildren + 1);
	return 0;
}

int fs_create(struct fs *fs, const char *path, enum fs_type type, struct fs_node **out)
{
	struct fs_last last;
	struct fs_node *dir;
	int err;

	if (type != FS_FILE && type != FS_DIR)
		return -FS_EINVAL;
	err = fs_walk_parent(fs, path, &last);
	if (err)
		return err;
	dir = last.dir;
	if (last.kind != FS_LAST_NAME) {
		err = -FS_EEXIST;
		goto out;
	}
	if (last.trailing_slash && type == FS_FILE) {
		err = -FS_EISDIR;
		goto out;
	}
	fs_node_lock(dir);
	err = fs_last_check(&last);
	if (!err && fs_child_locked(fs, dir, last.name, last.len, last.hash))
		err = -FS_EEXIST;
	if (!err)
		err = fs_create_locked(fs, dir, &last, path, type, out);
	fs_node_unlock(dir);
out:
	fs_put(fs, dir);
	return err;
}

/*
 * Caller holds @dir's and @child's locks: detach @child.  Returns true if
 * it died (nobody held it): the caller retires it after unlocking, and its
 * reference on @dir is already dropped.  Otherwise the holders' last
 * fs_put frees it.
 */
static bool fs_detach_locked(struct fs *fs, struct fs_node *dir, struct fs_node *child)
    REQUIRES(*dir, *child)
{
	fs_table_remove(fs, dir, child);
	fs_set_nchildren(dir, dir->nchildren - 1);
	atomic_store8((uint8_t *)&child->removed, 1); /* stat reads it unlocked */
	/* Lookups that read the old generation must not take a new reference now. */
	if (fs_is_dir(child))
		fs_dir_bump_gen(child);
	if (fs_node_count(child) != 0 && !FS_BUG(FS_BUG_UNLINK_BUSY))
		return false;
	fs_node_mark_dead(child);
	fs_node_put_locked(dir);
	return true;
}

/*
 * What unlink (@want_dir false) or rmdir of "/", "." or ".." gives: Linux's
 * do_unlinkat says -EISDIR to all three; do_rmdir says -EBUSY to "/",
 * -EINVAL to "." and -ENOTEMPTY to ".." (it names a directory that holds
 * at least the one the path came through).
 */
static int fs_remove_dots_error(int kind, bool want_dir)
{
	if (!want_dir)
		return -FS_EISDIR;
	return kind == FS_LAST_ROOT ? -FS_EBUSY : kind == FS_LAST_DOT ? -FS_EINVAL : -FS_ENOTEMPTY;
}

/* Why unlink (@want_dir false) or rmdir cannot remove @c (NULL: missing), or 0. */
static int fs_remove_type_error(const struct fs_node *c, bool want_dir, bool trailing_slash)
{
	if (!c)
		return -FS_ENOENT;
	if (want_dir && !fs_is_dir(c))
		return -FS_ENOTDIR;
	if (!want_dir && fs_is_dir(c))
		return -FS_EISDIR;
	if (trailing_slash && !fs_is_dir(c))
		return -FS_ENOTDIR;
	return 0;
}

/* unlink (@want_dir false) and rmdir (true). */
static int fs_remove(struct fs *fs, const char *path, bool want_dir)
{
	struct fs_last last;
	struct fs_node *dir, *c;
	bool dead = false;
	int err;

	err = fs_walk_parent(fs, path, &last);
	if (err)
		return err;
	dir = last.dir;
	if (last.kind != FS_LAST_NAME) {
		err = fs_remove_dots_error(last.kind, want_dir);
		goto out;
	}
	fs_node_lock(dir);
	err = fs_last_check(&last);
	c = err ? NULL : fs_child_locked(fs, dir, last.name, last.len, last.hash);
	if (!err)
		err = fs_remove_type_error(c, want_dir, last.trailing_slash);
	if (!err) {
		fs_node_lock_nested(c, FS_LOCK_CHILD);
		if (want_dir && c->nchildren)
			err = -FS_ENOTEMPTY;
		else
			dead = fs_detach_locked(fs, dir, c);
		fs_node_unlock(c);
	}
	fs_node_unlock(dir);
	if (dead)
		fs_node_retire(fs, c);
out:
	fs_put(fs, dir);
	return err;
}

int fs_unlink(struct fs *fs, const char *path)
{
	return fs_remove(fs, path, false);
}

int fs_rmdir(struct fs *fs, const char *path)
{
	return fs_remove(fs, path, true);
}

/*
 * True if @a is @n or one of its ancestors.  Caller holds the rename lock,
 * so no link changes under the walk.  A walk longer than there are slots
 * means the tree has a cycle: that is a bug, and stops everything.
 */
static bool fs_is_ancestor(struct fs *fs, const struct fs_node *a, struct fs_node *n)
    REQUIRES(fs->rename_lock)
{
	for (unsigned steps = 0; n; steps++) {
		if (n == a)
			return true;
		if (steps > fs->slots.nslots)
			platform_panic("fs %p: cycle in the directory tree above node %p",
				       (void *)fs, (void *)n);
		n = fs_rcu_deref(n->link)->parent;
	}
	return false;
}

/*
 * Lock @a and @b (either may be NULL or both the same), by address, the
 * first as lock subclass @sub (the second as @sub + 1).  Exempt inside: how
 * many locks it takes depends on the values, a rule the analysis cannot
 * state; callers are checked as if it took both.
 */
static LOCK_RULES_EXEMPT("the values pick the locks") void fs_lock_two(struct fs_node *a,
								       struct fs_node *b,
								       enum fs_lock_subclass sub)
    ACQUIRES(*a, *b)
{
	if (a && b && b < a) {
		struct fs_node *t = a;

		a = b;
		b = t;
	}
	if (a)
		fs_node_lock_nested(a, sub);
	if (b && b != a)
		fs_node_lock_nested(b, sub + 1);
}

/* Unlock what fs_lock_two(@a, @b) locked; exempt inside for the same reason. */
static LOCK_RULES_EXEMPT("the values pick the locks") void fs_unlock_two(struct fs_node *a,
									 struct fs_node *b)
    RELEASES(*a, *b)
{
	if (a)
		fs_node_unlock(a);
	if (b && b != a)
		fs_node_unlock(b);
}

/*
 * Caller holds the rename lock: lock the two parents of a rename, the
 * ancestor first if one is the other's ancestor, else by address.
 */
static void fs_lock_parents(struct fs *fs, struct fs_node *p1, struct fs_node *p2)
    REQUIRES(fs->rename_lock) ACQUIRES(*p1, *p2)
{
	if (p1 != p2 && fs_is_ancestor(fs, p1, p2)) {
		fs_node_lock(p1);
		fs_node_lock_nested(p2, FS_LOCK_PARENT2);
	} else if (p1 != p2 && fs_is_ancestor(fs, p2, p1)) {
		fs_node_lock(p2);
		fs_node_lock_nested(p1, FS_LOCK_PARENT2);
	} else {
		fs_lock_two(p1, p2, FS_LOCK_PARENT);
	}
}

/* What a rename leaves for after the unlocking. */
struct fs_rename_done {
	struct fs_link *old_link; /* the source's previous name, to retire */
	struct fs_node *victim;	  /* the replaced target if it died, to retire */
};

/*
 * Caller holds the rename lock.  Checks, then moves @a's child to @b with
 * a new link.  Returns 0 (done->old_link NULL if there was nothing to do)
 * or an error with nothing changed.
 */
static int fs_rename_locked(struct fs *fs, const struct fs_last *a, const struct fs_last *b,
			    struct fs_rename_done *done) REQUIRES(fs->rename_lock)
{
	struct fs_node *p1 = a->dir, *p2 = b->dir, *s, *t;
	struct fs_link *nl;
	int err = 0;

	fs_lock_parents(fs, p1, p2);
	/* Linux's order (fs.h): the source's name, then the target's, then their relation. */
	err = fs_last_check(a);
	s = err ? NULL : fs_child_locked(fs, p1, a->name, a->len, a->hash);
	if (!err && !s)
		err = -FS_ENOENT;
	if (!err)
		err = fs_last_check(b);
	if (err)
		goto unlock_parents;
	t = fs_child_locked(fs, p2, b->name, b->len, b->hash);
	if ((a->trailing_slash || b->trailing_slash) && !fs_is_dir(s))
		err = -FS_ENOTDIR;
	else if (fs_is_dir(s) && fs_is_ancestor(fs, s, p2))
		err = -FS_EINVAL;
	else if (t && fs_is_ancestor(fs, t, p1))
		err = -FS_ENOTEMPTY;
	else if (t == s)
		goto unlock_parents; /* onto itself: nothing to do */
	else if (t && fs_is_dir(s) && !fs_is_dir(t))
		err = -FS_ENOTDIR;
	else if (t && !fs_is_dir(s) && fs_is_dir(t))
		err = -FS_EISDIR;
	if (err)
		goto unlock_parents;
	/* s and t are children of locked parents and ancestors of neither: by address. */
	fs_lock_two(s, t, FS_LOCK_CHILD);
	if (t && fs_is_dir(t) && t->nchildren) {
		err = -FS_ENOTEMPTY;
		goto unlock_all;
	}
	nl = fs_link_alloc(fs, p2, b->name, b->len, b->hash);
	if (!nl) {
		err = -FS_ENOMEM;
		goto unlock_all;
	}
	/* Odd while s moves between chains: lockless misses meanwhile are not trusted. */
	atomic_store32(&fs->rename_seq, fs->rename_seq + 1);
	fs_table_remove(fs, p1, s);
	fs_set_nchildren(p1, p1->nchildren - 1);
	if (t && fs_detach_locked(fs, p2, t))
		done->victim = t;
	done->old_link = fs_rcu_deref(s->link);
	/* The link first, then the generation: the order fs_lookup.c reads them in reverse. */
	fs_rcu_assign(s->link, nl);
	if (fs_is_dir(s))
		fs_dir_bump_gen(s);
	fs_table_insert(fs, p2, s);
	atomic_store32(&fs->rename_seq, fs->rename_seq + 1);
	fs_set_nchildren(p2, p2->nchildren + 1);
	if (p1 != p2) {
		/* The parent reference moves with the node. */
		fs_node_get_locked(p2);
		if (!FS_BUG(FS_BUG_RENAME_REF))
			fs_node_put_locked(p1);
	}
unlock_all:
	fs_unlock_two(s, t);
unlock_parents:
	fs_unlock_two(p1, p2);
	return err;
}

int fs_rename(struct fs *fs, const char *from, const char *to)
{
	struct fs_rename_done done = {NULL, NULL};
	struct fs_last a, b;
	int err;

	err = fs_walk_parent(fs, from, &a);
	if (err)
		return err;
	err = fs_walk_parent(fs, to, &b);
	if (err) {
		fs_put(fs, a.dir);
		return err;
	}
	/* "/", "." or ".." as either last component: Linux's do_renameat2 says -EBUSY. */
	if (a.kind != FS_LAST_NAME || b.kind != FS_LAST_NAME) {
		err = -FS_EBUSY;
		goto out;
	}
	spin_lock(&fs->rename_lock);
	err = fs_rename_locked(fs, &a, &b, &done);
	spin_unlock(&fs->rename_lock);
	if (done.old_link)
		fs_link_retire(fs, done.old_link);
	if (done.victim)
		fs_node_retire(fs, done.victim);
out:
	fs_put(fs, a.dir);
	fs_put(fs, b.dir);
	return err;
}
