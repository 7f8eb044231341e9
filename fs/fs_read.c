// SPDX-License-Identifier: MIT
/*
 * fs_read.c - the operations that only look: stat, a node's name, readdir.
 *
 * stat reads nothing under the node's lock: the type and inode number
 * never change, and the child count and the removed flag are snapshots
 * (atomic loads of words written under the lock).  A stat loop therefore
 * costs exactly its path walk, which is what the path-walk benchmark
 * measures, and its put: lockless even when it is the node's last
 * reference (fs_put_rcu), as Linux's dput has been since 4.1.  readdir holds the directory's lock while it copies, so the
 * entries it returns in one call are a consistent view.
 */
#include "errno.h"
#include "fs.h"
#include "fs_impl.h"
#include "rcu.h"
#include "string.h"

int fs_node_stat(struct fs *fs, struct fs_node *node, struct fs_stat *st)
{
	if (!fs || !node || !st)
		return -FS_EINVAL;
	st->ino = node->ino;
	st->type = node->type;
	st->nchildren = atomic_load32_relaxed(&node->nchildren);
	st->removed = fs_node_removed(node);
	return 0;
}

int fs_stat(struct fs *fs, const char *path, struct fs_stat *st)
{
	struct fs_node *n;
	int err;

	if (!st || !fs)
		return -FS_EINVAL;
	/* One read section around walk and put: the put may be the last, lockless (fs_put_rcu). */
	fs_rcu_read_lock(&fs->rcu);
	err = fs_lookup(fs, path, &n);
	if (!err) {
		fs_node_stat(fs, n, st);
		fs_put_rcu(fs, n);
	}
	fs_rcu_read_unlock(&fs->rcu);
	return err;
}

int fs_node_name(struct fs *fs, struct fs_node *node, char *buf, size_t size)
{
	struct fs_link *l;
	int len;

	if (!fs || !node || !buf)
		return -FS_EINVAL;
	fs_rcu_read_lock(&fs->rcu);
	l = fs_rcu_deref(node->link);
	if (!fs_check_live(fs, l, FS_LINK_MAGIC, "node_name")) {
		fs_rcu_read_unlock(&fs->rcu);
		return -FS_EIO;
	}
	len = (int)l->len;
	if ((size_t)len + 1 > size)
		len = -FS_ENAMETOOLONG;
	else
		memcpy(buf, l->name, (size_t)len + 1);
	fs_rcu_read_unlock(&fs->rcu);
	return len;
}

/* One entry for @n named @name into *@e. */
static void fs_fill(struct fs_dirent *e, const struct fs_node *n, const char *name, uint32_t len)
{
	e->ino = n->ino;
	e->type = n->type;
	memcpy(e->name, name, len);
	e->name[len] = '\0';
}

int fs_readdir(struct fs *fs, const char *path, uint64_t *pos, struct fs_dirent *ents, unsigned max)
{
	struct fs_node *d, *parent;
	uint64_t idx = 2; /* the children start after "." and ".." */
	unsigned n = 0;
	int err;

	if (!pos || !ents || max == 0)
		return -FS_EINVAL;
	err = fs_lookup(fs, path, &d);
	if (err)
		return err;
	if (!fs_is_dir(d)) {
		fs_put(fs, d);
		return -FS_ENOTDIR;
	}
	fs_node_lock(d);
	/* Under d's lock neither d's link nor its children's links change (rename holds it). */
	parent = d == fs->root ? d : fs_rcu_deref(d->link)->parent;
	if (*pos == 0 && n < max)
		fs_fill(&ents[n++], d, ".", 1);
	if (*pos + n == 1 && n < max)
		fs_fill(&ents[n++], parent, "..", 2);
	for (unsigned b = 0; b < fs->buckets && n < max; b++) {
		for (struct fs_node *c = fs_rcu_deref(d->table[b]); c && n < max;
		     c = fs_rcu_deref(c->next), idx++) {
			struct fs_link *l = fs_rcu_deref(c->link);

			if (idx >= *pos + n)
				fs_fill(&ents[n++], c, l->name, l->len);
		}
	}
	fs_node_unlock(d);
	fs_put(fs, d);
	*pos += n;
	return (int)n;
}
