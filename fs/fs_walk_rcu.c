// SPDX-License-Identifier: MIT
/*
 * fs_walk_rcu.c - the RCU-walk: Linux's path walk since 2.6.38, which
 * passes the directories on its way without taking references.
 *
 * Why: the ref-walk (fs_lookup.c) takes and drops a reference on every
 * component, so a 9-component stat writes 20 counts on lines that every
 * walker of the same path shares (docs/fs.md measures what that costs).
 * Inside one read section nothing the walk reaches can be freed, so it
 * needs no reference to stand on a directory; it needs only to know, at
 * each step, that what it read was true at some instant.  The lockref's
 * job is then the one it had in Linux 3.12: the one reference taken on
 * the last node, and its put, without the lock.
 *
 * One step, from directory D read at generation g to D's child named N:
 *
 *   1. Scan D's bucket for N (fs_scan): the child C, and for a directory
 *      C's generation c, read before C's link.
 *   2. D's generation is still g: D was neither renamed nor removed since
 *      the walk stood on it (rename and removal bump it under D's lock),
 *      so C's link naming (D, N) was read while D was where the walk
 *      found it.  This is Linux's read_seqcount_retry on the parent's
 *      d_seq, hand over hand.
 *   3. Stand on C at generation c.
 *
 * ".." reads D's link's parent P and P's generation, then checks D's as
 * in 2.  A miss is an answer (-ENOENT) only if the rename sequence was
 * even and unchanged around the scan (a rename may carry a scan into
 * another chain, fs_lookup.c) and D's generation is still g; the other
 * errors met on the way (-ENOTDIR, -ENAMETOOLONG) are answered after the
 * same check.  At the end, one reference on the last node, still inside
 * the read section: lockref16_get_if_gen with the generation the walk read
 * for a directory (it fails if the directory moved or went since),
 * lockref_get_not_dead for a file (it fails only if the file died).  So
 * each component was the named child of the one before at an instant
 * after the walk stood on that one: what the ref-walk promises, and the
 * two give the same answers (the rule cases, the torture and the
 * differential test run in both modes).
 *
 * Any failed check (a generation that moved, a get that failed, a rename
 * in flight during a miss, a scan that ran too long) ends the try: counted
 * in walk_restarts, and tried again from the root, at most
 * FS_WALK_RCU_TRIES times in all.  Then the lookup walks with references
 * (counted in walk_fallbacks), which always finishes, so a rename storm
 * cannot keep a lookup from its answer.
 */
#include "atomic.h"
#include "busted.h"
#include "errno.h"
#include "fs.h"
#include "fs_impl.h"
#include "lockref.h"
#include "lockref16.h"
#include "rcu.h"

/* @dir is still at generation @gen: neither renamed nor removed since the walk read @gen. */
static bool fs_dir_still(const struct fs_node *dir, uint32_t gen)
{
	return lockref16_gen(&dir->dref) == gen;
}

/* The reference on the last node of a walk, @n at generation @gen if a directory. */
static bool fs_rcu_legitimize(struct fs *fs, struct fs_node *n, uint32_t gen)
{
	/* Negative control: the walk forgets to legitimize its last node. */
	if (FS_BUG(FS_BUG_RCU_NO_GET))
		return true;
	if (fs_is_dir(n))
		return lockref16_get_if_gen_p(&n->dref, gen, fs->policy);
	return lockref_get_not_dead_p(&n->fref, fs->policy);
}

/* "..": from @cur at @gen to its parent.  False if a check failed; -FS_EIO in *@err. */
static bool fs_rcu_dotdot(struct fs *fs, struct fs_node **cur, uint32_t *gen, int *err)
{
	struct fs_link *l;
	struct fs_node *parent;
	uint32_t pgen;

	if (*cur == fs->root)
		return true;
	l = fs_rcu_deref((*cur)->link);
	if (!fs_check_live(fs, l, FS_LINK_MAGIC, "walk")) {
		*err = -FS_EIO;
		return true;
	}
	parent = l->parent;
	if (!fs_check_live(fs, parent, FS_NODE_MAGIC, "walk")) {
		*err = -FS_EIO;
		return true;
	}
	pgen = lockref16_gen(&parent->dref);
	if (!fs_dir_still(*cur, *gen))
		return false;
	*cur = parent;
	*gen = pgen;
	return true;
}

/*
 * One try, inside the read section: true with 0 (a reference in *@out)
 * or an error in *@err, false if a check failed.
 */
static bool fs_rcu_try(struct fs *fs, const char *p, const char *end, struct fs_node **out,
		       int *err)
{
	struct fs_node *cur = fs->root, *c;
	uint32_t gen = lockref16_gen(&cur->dref), cgen = 0;

	for (;;) {
		const char *s;
		uint32_t len, seq;

		if (!fs_path_next(&p, end, &s))
			break;
		if (!fs_is_dir(cur)) {
			/* The file was checked to be this name's when the walk reached it. */
			*err = -FS_ENOTDIR;
			return true;
		}
		len = fs_name_ok((size_t)(p - s));
		if (!len) {
			*err = fs_node_removed(cur) ? -FS_ENOENT : -FS_ENAMETOOLONG;
			return fs_dir_still(cur, gen);
		}
		if (fs_is_dot(s, len))
			continue;
		if (fs_is_dotdot(s, len)) {
			if (!fs_rcu_dotdot(fs, &cur, &gen, err))
				return false;
			if (*err)
				return true;
			continue;
		}
		seq = atomic_load32(&fs->rename_seq);
		switch (fs_scan(fs, cur, s, len, fs_name_hash(s, len), &c, &cgen)) {
		case FS_STEP_FOUND:
			break;
		case FS_STEP_MISS:
			*err = -FS_ENOENT;
			return seq % 2 == 0 && atomic_load32(&fs->rename_seq) == seq &&
			       fs_dir_still(cur, gen);
		case FS_STEP_POISON:
			*err = -FS_EIO;
			return true;
		default:
			return false;
		}
		if (!fs_dir_still(cur, gen))
			return false;
		cur = c;
		gen = cgen;
	}
	if (!fs_rcu_legitimize(fs, cur, gen))
		return false;
	*out = cur;
	return true;
}

int fs_walk_rcu(struct fs *fs, const char *p, const char *end, struct fs_node **out)
{
	for (unsigned i = 0; i < FS_WALK_RCU_TRIES; i++) {
		int err = 0;
		bool done;

		fs_rcu_read_lock(&fs->rcu);
		done = fs_rcu_try(fs, p, end, out, &err);
		fs_rcu_read_unlock(&fs->rcu);
		if (done)
			return err;
		fs_count(&fs->walk_restarts);
	}
	fs_count(&fs->walk_fallbacks);
	return FS_WALK_AGAIN;
}
