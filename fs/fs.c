// SPDX-License-Identifier: MIT
/*
 * fs.c - the life of an fs and of its nodes: creation, references
 * (fs_put, fs_get_parent), freeing after grace periods, teardown.
 *
 * fs_put is the dput of the v7 series' dcache patch: put_or_lock drops the
 * reference without the lock while the count stays above zero; only the
 * last reference comes back with the lock held, and only then does the
 * node's state matter.  fs_get_parent is its dget_parent: the parent is
 * referenced by the child, so its count is above zero and get_not_zero
 * succeeds without the lock, unless a rename just moved the child away.
 */
#include "fs.h"

#include "atomic.h"
#include "busted.h"
#include "errno.h"
#include "fs_impl.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "rcu.h"
#include "slots.h"
#include "spinlock.h"
#include "string.h"
#include "trace.h"

#ifdef FS_BUSTED
unsigned fs_busted;
#endif

/* After this many logged poison reads the rest are only counted. */
#define FS_POISON_LOG_LIMIT 8
/* Lockless fs_get_parent attempts that lost a race before it takes the rename lock. */
#define FS_PARENT_TRIES 8
/* The FNV-1a constants (32-bit). */
#define FNV_OFFSET 2166136261u
#define FNV_PRIME  16777619u

/* fs.walk= at boot: the walk of every fs whose config leaves it 0. */
static uint32_t fs_walk_boot = FS_WALK_RCU;

void fs_set_walk_default(enum fs_walk walk)
{
	atomic_store32(&fs_walk_boot,
		       walk > FS_WALK_BOOT && walk < FS_WALK_END ? walk : FS_WALK_RCU);
}

enum fs_walk fs_walk_default(void)
{
	return (enum fs_walk)atomic_load32(&fs_walk_boot);
}

const char *fs_walk_name(enum fs_walk walk)
{
#define FS_X_WALK_NAME(id, name) [FS_WALK_##id] = #name,
	static const char *const names[FS_WALK_END] = {FS_WALK_LIST(FS_X_WALK_NAME)};
#undef FS_X_WALK_NAME

	return walk > FS_WALK_BOOT && walk < FS_WALK_END ? names[walk] : "?";
}

const char *fs_errno_name(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return "0";
	case FS_ENOENT:
		return "ENOENT";
	case FS_EIO:
		return "EIO";
	case FS_ENOMEM:
		return "ENOMEM";
	case FS_EBUSY:
		return "EBUSY";
	case FS_EEXIST:
		return "EEXIST";
	case FS_ENOTDIR:
		return "ENOTDIR";
	case FS_EISDIR:
		return "EISDIR";
	case FS_EINVAL:
		return "EINVAL";
	case FS_ENAMETOOLONG:
		return "ENAMETOOLONG";
	case FS_ENOTEMPTY:
		return "ENOTEMPTY";
	}
	return "E?";
}

bool fs_check_live(struct fs *fs, const void *obj, uint64_t magic, const char *where)
{
	uint64_t seen = atomic_load64((const uint64_t *)obj);

	if (seen == magic)
		return true;
	if (atomic_xadd64(&fs->poison_reads, 1) < FS_POISON_LOG_LIMIT)
		platform_log("fs: %s read freed memory at %p (magic %llx, want %llx) on cpu %u",
			     where, obj, (unsigned long long)seen, (unsigned long long)magic,
			     platform_cpu_id());
	return false;
}

uint32_t fs_name_hash(const char *name, uint32_t len)
{
	uint32_t h = FNV_OFFSET;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * FNV_PRIME;
	return h;
}

/*
 * A slot, or NULL.  When none is free, some may only be waiting for a
 * grace period: try to advance the epoch a few times (without waiting)
 * before calling node memory exhausted.
 */
static void *fs_slot_alloc(struct fs *fs, enum fs_slot_kind kind)
{
	void *obj = fs_slots_alloc(&fs->slots, kind);

	for (unsigned i = 0; !obj && i < FS_RCU_LISTS; i++) {
		fs_rcu_poll(&fs->rcu);
		obj = fs_slots_alloc(&fs->slots, kind);
	}
	return obj;
}

/* One lock class for every node, both forms (fs_impl.h: its subclasses). */
static struct lock_class_key fs_node_class = {.name = "fs:node"};

struct fs_node *fs_node_alloc(struct fs *fs, enum fs_type type)
{
	struct fs_node *n = fs_slot_alloc(fs, FS_SLOT_NODE);

	if (!n)
		return NULL;
	n->type = type;
	n->ino = atomic_xadd64(&fs->next_ino, 1);
	if (type == FS_DIR)
		lockref16_init_key(&n->dref, &fs_node_class);
	else
		lockref_init_key(&n->fref, &fs_node_class);
	n->magic = FS_NODE_MAGIC;
	return n;
}

struct fs_link *fs_link_alloc(struct fs *fs, struct fs_node *parent, const char *name, uint32_t len,
			      uint32_t hash)
{
	struct fs_link *l = fs_slot_alloc(fs, FS_SLOT_LINK);

	if (!l)
		return NULL;
	l->parent = parent;
	l->hash = hash;
	l->len = len;
	memcpy(l->name, name, len);
	l->name[len] = '\0';
	l->magic = FS_LINK_MAGIC;
	return l;
}

void fs_node_free_now(struct fs *fs, struct fs_node *n)
{
	fs_slots_free(&fs->slots, n);
}

void fs_link_free_now(struct fs *fs, struct fs_link *l)
{
	fs_slots_free(&fs->slots, l);
}

static void fs_node_free_rcu(struct fs_rcu_head *head, void *owner)
{
	struct fs_node *n =
	    (struct fs_node *)((char *)head - __builtin_offsetof(struct fs_node, rcu));

	fs_node_free_now(owner, n);
}

static void fs_link_free_rcu(struct fs_rcu_head *head, void *owner)
{
	struct fs_link *l =
	    (struct fs_link *)((char *)head - __builtin_offsetof(struct fs_link, rcu));

	fs_link_free_now(owner, l);
}

void fs_link_retire(struct fs *fs, struct fs_link *l)
{
	fs_rcu_retire(&fs->rcu, &l->rcu, fs_link_free_rcu);
}

void fs_node_retire(struct fs *fs, struct fs_node *n)
{
	/* Dead: nothing changes the link any more, and no reader can get a reference. */
	fs_link_retire(fs, fs_rcu_deref(n->link));
	fs_rcu_retire(&fs->rcu, &n->rcu, fs_node_free_rcu);
}

struct fs *fs_new(const struct fs_config *cfg)
{
	unsigned buckets = cfg->dir_buckets ? cfg->dir_buckets : FS_DIR_BUCKETS_DEFAULT;
	const struct lockref_policy *policy = cfg->policy ? cfg->policy : lockref_get_policy();
	size_t node_size, slot_size;
	struct fs *fs;

	if (cfg->mem_slots < 2) {
		platform_log("fs: %u slot%s of node memory cannot even hold the root (needs 2)",
			     cfg->mem_slots, plural(cfg->mem_slots));
		return NULL;
	}
	if (buckets > FS_DIR_BUCKETS_MAX || (buckets & (buckets - 1)) != 0) {
		platform_log("fs: %u buckets per directory: want a power of two up to %d", buckets,
			     FS_DIR_BUCKETS_MAX);
		return NULL;
	}
	if ((unsigned)cfg->walk >= FS_WALK_END) {
		platform_log("fs: walk %d: want 0 (the boot's) or one of FS_WALK_LIST, 1 to %d",
			     cfg->walk, FS_WALK_END - 1);
		return NULL;
	}
	if (policy->retries > LOCKREF_RETRIES_MAX) {
		platform_log("fs: policy %s asks for %u lockless attempts, more than %u",
			     policy->name, policy->retries, LOCKREF_RETRIES_MAX);
		return NULL;
	}
	fs = platform_alloc(sizeof(*fs), CACHE_PAIR_BYTES);
	if (!fs) {
		platform_log("fs: no memory for the fs itself (%zu bytes)", sizeof(*fs));
		return NULL;
	}
	node_size = sizeof(struct fs_node) + buckets * sizeof(struct fs_node *);
	slot_size = node_size > sizeof(struct fs_link) ? node_size : sizeof(struct fs_link);
	if (fs_slots_init(&fs->slots, cfg->mem_slots, slot_size) != 0) {
		platform_free(fs, sizeof(*fs));
		return NULL;
	}
	fs_rcu_init(&fs->rcu, fs);
	fs->policy = policy;
	fs->walk = cfg->walk ? cfg->walk : fs_walk_default();
	fs->buckets = buckets;
	spin_init_named(&fs->rename_lock, "fs:rename");
	trace_name(&fs->rename_lock, "fs:rename");
	fs->rename_seq = 0;
	fs->next_ino = 1;
	fs->poison_reads = fs->lookup_retries = fs->lookup_locked = fs->parent_locked = 0;
	fs->walk_restarts = fs->walk_fallbacks = 0;
	/* The root's count starts at 1: the fs's own reference, which keeps it forever. */
	fs->root = fs_node_alloc(fs, FS_DIR);
	fs->root->link = fs_link_alloc(fs, NULL, "/", 1, fs_name_hash("/", 1));
	trace_name(fs_node_spinlock(fs->root), "fs:/");
	return fs;
}

int fs_destroy(struct fs *fs)
{
	struct fs_audit audit;

	if (fs_audit(fs, NULL, 0, &audit) != 0) {
		platform_log("fs: not destroyed: %u problem%s, first: %s", audit.problems,
			     plural(audit.problems), audit.first);
		return -FS_EBUSY;
	}
	/* The audit waited out the grace periods, and nobody else may look any more. */
	fs_slots_fini(&fs->slots);
	platform_free(fs, sizeof(*fs));
	return 0;
}

/*
 * Kill @node, locked, removed (nobody can find it any more) and with no
 * reference left but the caller's: mark it dead, unlock it, retire it to
 * the grace period.  Returns its
 * parent, whose reference the caller now drops.
 */
static struct fs_node *fs_node_kill(struct fs *fs, struct fs_node *node) RELEASES(*node)
{
	struct fs_node *parent;

	fs_node_mark_dead(node);
	fs_node_unlock(node);
	parent = fs_rcu_deref(node->link)->parent;
	fs_node_retire(fs, node);
	return parent;
}

void fs_put(struct fs *fs, struct fs_node *node)
{
	while (node) {
		if (fs_node_put_or_lock(fs, node))
			return;
		/* Locked, and ours was the last reference (or the count is broken: put_locked warns). */
		if (!node->removed || fs_node_count(node) != 1) {
			fs_node_put_locked(node);
			fs_node_unlock(node);
			return;
		}
		/*
		 * A removed node's last reference: nobody can find it, so it dies
		 * here; its reference on the parent goes with it, which may be the
		 * parent's last.
		 */
		node = fs_node_kill(fs, node);
	}
}

/*
 * Linux's fast_dput (4.1): drop the reference without the lock even when
 * it is the last, and look at the node only then.  A node still in the tree
 * just stays cached at count 0.  One that was removed meanwhile must die,
 * and exactly once: its remover kills it if it saw the count 0 under the
 * node's lock, else the last put does.  So a put that brought a removed
 * node to 0 takes the lock and kills it only if it is still at 0 and not
 * dead.  The caller's read section keeps the node's memory valid for that
 * look even if the remover killed and retired it in between.  (The
 * decrement is a locked instruction: the load of `removed` after it cannot
 * pass it; and the remover sets `removed` under the lock, which the lockless
 * decrement cannot overlap.)
 */
void fs_put_rcu(struct fs *fs, struct fs_node *node)
{
	int64_t left = fs_node_put_return(fs, node);

	if (left < 0) {
		fs_put(fs, node);
		return;
	}
	if (left > 0 || !fs_node_removed(node))
		return;
	fs_node_lock(node);
	if (fs_node_count(node) != 0 || fs_node_is_dead(node)) {
		/* Found again by a walk that stood on it (its put decides), or killed by the remover. */
		fs_node_unlock(node);
		return;
	}
	fs_put(fs, fs_node_kill(fs, node));
}

/* Lockless dget_parent: the parent's reference if nothing moved @node meanwhile, else NULL. */
static struct fs_node *fs_parent_lockless(struct fs *fs, struct fs_node *node, int *err)
{
	struct fs_link *link;
	struct fs_node *parent = NULL;

	fs_rcu_read_lock(&fs->rcu);
	link = fs_rcu_deref(node->link);
	if (!fs_check_live(fs, link, FS_LINK_MAGIC, "get_parent")) {
		*err = -FS_EIO;
		goto out;
	}
	parent = link->parent;
	if (!fs_check_live(fs, parent, FS_NODE_MAGIC, "get_parent")) {
		*err = -FS_EIO;
		parent = NULL;
		goto out;
	}
	if (!fs_node_get_not_zero(fs, parent)) {
		parent = NULL;
		goto out;
	}
	/* Still the parent?  (A rename may have moved @node between the load and the get.) */
	if (fs_rcu_deref(node->link)->parent != parent) {
		fs_rcu_read_unlock(&fs->rcu);
		fs_put(fs, parent);
		return NULL;
	}
out:
	fs_rcu_read_unlock(&fs->rcu);
	return parent;
}

int fs_get_parent(struct fs *fs, struct fs_node *node, struct fs_node **out)
{
	struct fs_node *parent;
	int err = 0;

	if (!fs || !node || !out)
		return -FS_EINVAL;
	if (node == fs->root) {
		*out = fs_root_get(fs);
		return 0;
	}
	for (unsigned i = 0; i < FS_PARENT_TRIES; i++) {
		parent = fs_parent_lockless(fs, node, &err);
		if (err)
			return err;
		if (parent) {
			*out = parent;
			return 0;
		}
		fs_count(&fs->lookup_retries);
		/* The parent's lock, as dget_parent falls back to: recheck under it. */
		fs_rcu_read_lock(&fs->rcu);
		parent = fs_rcu_deref(node->link)->parent;
		fs_node_lock(parent);
		if (fs_rcu_deref(node->link)->parent == parent) {
			fs_node_get_locked(parent);
			fs_node_unlock(parent);
			fs_rcu_read_unlock(&fs->rcu);
			fs_count(&fs->parent_locked);
			*out = parent;
			return 0;
		}
		fs_node_unlock(parent);
		fs_rcu_read_unlock(&fs->rcu);
	}
	/* Renames keep moving it: stop them, and the parent stands still. */
	spin_lock(&fs->rename_lock);
	parent = fs_rcu_deref(node->link)->parent;
	fs_node_lock(parent);
	fs_node_get_locked(parent);
	fs_node_unlock(parent);
	spin_unlock(&fs->rename_lock);
	fs_count(&fs->parent_locked);
	*out = parent;
	return 0;
}

void fs_stats(struct fs *fs, struct fs_stats *out)
{
	struct fs_slots_stats s;

	fs_slots_stats(&fs->slots, &s);
	out->nodes = s.nodes;
	out->links = s.links;
	out->allocs = s.allocs;
	out->frees = s.frees;
	out->double_frees = s.double_frees;
	out->poison_damaged = s.damaged;
	out->poison_reads = atomic_load64_relaxed(&fs->poison_reads);
	out->rcu_pending = fs_rcu_pending(&fs->rcu);
	out->grace_periods = fs_rcu_grace_periods(&fs->rcu);
	out->lookup_retries = atomic_load64_relaxed(&fs->lookup_retries);
	out->lookup_locked = atomic_load64_relaxed(&fs->lookup_locked);
	out->parent_locked = atomic_load64_relaxed(&fs->parent_locked);
	out->walk_restarts = atomic_load64_relaxed(&fs->walk_restarts);
	out->walk_fallbacks = atomic_load64_relaxed(&fs->walk_fallbacks);
}

int fs_synchronize(struct fs *fs)
{
	return fs_rcu_synchronize(&fs->rcu, FS_GRACE_TIMEOUT_NS) ? 0 : -FS_EBUSY;
}
