// SPDX-License-Identifier: MIT
/*
 * fs_audit.c - fsck for the in-memory fs: every invariant, checked from
 * the slots up.
 *
 * Why from the slots: a walk from the root only sees what is reachable,
 * and the bugs worth catching are exactly the nodes that are not (leaks)
 * or are reachable twice, and the counts that drifted.  So the audit takes
 * the slot inventory as the truth about what exists, then derives what
 * every count should be (one per child naming the node as parent, one per
 * reference the caller says it holds, one for the fs's own reference on
 * the root) and compares.
 *
 * Runs only while nobody else uses the fs: it reads without locks.
 */
#include <stdarg.h>

#include "errno.h"
#include "fs.h"
#include "fs_impl.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "rcu.h"
#include "slots.h"
#include "string.h"

/* Problems logged one per line; the rest are only counted. */
#define FS_AUDIT_LOG_LIMIT 10

struct fs_auditor {
	struct fs *fs;
	struct fs_audit *out;
	uint32_t *expect; /* per slot: references that should exist */
	uint32_t *seen;	  /* per slot: times found in a table (nodes) or named by a node (links) */
};

static void fs_problem(struct fs_auditor *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fs_problem(struct fs_auditor *a, const char *fmt, ...)
{
	char line[sizeof(a->out->first)];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (a->out->problems == 0)
		memcpy(a->out->first, line, sizeof(line));
	if (a->out->problems < FS_AUDIT_LOG_LIMIT)
		/* No address: a log, expected lines included, must read the same on every run. */
		platform_log("fs audit: %s", line);
	a->out->problems++;
}

/* The slot number of @p if it is the start of a slot of @kind, else -1. */
static long fs_slot_of(const struct fs *fs, const void *p, enum fs_slot_kind kind)
{
	long slot = fs_slots_index(&fs->slots, p);

	if (slot < 0 || fs_slots_kind(&fs->slots, (unsigned)slot) != kind)
		return -1;
	return slot;
}

/* The allocator's and readers' counters, and the poison of every free slot. */
static void fs_audit_memory(struct fs_auditor *a)
{
	struct fs *fs = a->fs;
	struct fs_stats st;

	fs_stats(fs, &st);
	if (st.double_frees)
		fs_problem(a, "%llu double free(s)", (unsigned long long)st.double_frees);
	if (st.poison_damaged)
		fs_problem(a, "%llu free slot(s) written to",
			   (unsigned long long)st.poison_damaged);
	if (st.poison_reads)
		fs_problem(a, "%llu read(s) of freed memory", (unsigned long long)st.poison_reads);
	if (st.allocs - st.frees != (uint64_t)st.nodes + st.links)
		fs_problem(a, "%llu allocations - %llu frees != %u slots in use",
			   (unsigned long long)st.allocs, (unsigned long long)st.frees,
			   st.nodes + st.links);
	for (unsigned i = 0; i < fs->slots.nslots; i++)
		if (fs_slots_kind(&fs->slots, i) == FS_SLOT_FREE &&
		    !fs_slots_poison_intact(&fs->slots, i))
			fs_problem(a, "free slot %u lost its poison", i);
}

/* Each node: its magic, its link, its parent's expected count, the holders'. */
static void fs_audit_nodes(struct fs_auditor *a, struct fs_node *const *held, unsigned nheld)
{
	struct fs *fs = a->fs;

	for (unsigned i = 0; i < fs->slots.nslots; i++) {
		struct fs_node *n = fs_slots_at(&fs->slots, i);
		long ls, ps;

		if (fs_slots_kind(&fs->slots, i) != FS_SLOT_NODE)
			continue;
		a->out->nodes++;
		if (n->magic != FS_NODE_MAGIC) {
			fs_problem(a, "node slot %u has magic %llx", i,
				   (unsigned long long)n->magic);
			continue;
		}
		a->out->dirs += fs_is_dir(n);
		a->out->removed += n->removed;
		ls = fs_slot_of(fs, n->link, FS_SLOT_LINK);
		if (ls < 0 || n->link->magic != FS_LINK_MAGIC) {
			fs_problem(a, "node %llu: link %p is no live link",
				   (unsigned long long)n->ino, (void *)n->link);
			continue;
		}
		a->seen[ls]++;
		if (n == fs->root) {
			a->expect[i]++;
			continue;
		}
		ps = fs_slot_of(fs, n->link->parent, FS_SLOT_NODE);
		if (ps < 0 || !fs_is_dir(n->link->parent))
			fs_problem(a, "node %llu '%s': parent %p is no live directory",
				   (unsigned long long)n->ino, n->link->name,
				   (void *)n->link->parent);
		else
			a->expect[ps]++;
	}
	for (unsigned h = 0; h < nheld; h++) {
		long hs = fs_slot_of(fs, held[h], FS_SLOT_NODE);

		if (hs < 0)
			fs_problem(a, "held reference %u (%p) is no live node", h, (void *)held[h]);
		else
			a->expect[hs]++;
	}
}

/* Entry @c of directory @d's bucket @b: its link names @d, the right bucket, a unique name. */
static void fs_audit_entry(struct fs_auditor *a, struct fs_node *d, unsigned b, struct fs_node *c)
{
	struct fs *fs = a->fs;
	struct fs_link *l = c->link;
	unsigned later = 0;

	if (fs_slot_of(fs, l, FS_SLOT_LINK) < 0 || l->magic != FS_LINK_MAGIC) {
		fs_problem(a, "node %llu in dir %llu has no live link", (unsigned long long)c->ino,
			   (unsigned long long)d->ino);
		return;
	}
	if (l->parent != d)
		fs_problem(a, "node %llu '%s' is in dir %llu's table but names %p as parent",
			   (unsigned long long)c->ino, l->name, (unsigned long long)d->ino,
			   (void *)l->parent);
	if (l->hash != fs_name_hash(l->name, l->len) || fs_bucket(fs, l->hash) != b ||
	    strnlen(l->name, FS_NAME_MAX + 1) != l->len)
		fs_problem(a, "node %llu '%s': hash, length or bucket wrong",
			   (unsigned long long)c->ino, l->name);
	/* Equal names hash alike, so a duplicate would be further down this chain. */
	for (struct fs_node *o = c->next; o && ++later <= fs->slots.nslots; o = o->next)
		if (fs_slot_of(fs, o, FS_SLOT_NODE) >= 0 && o->magic == FS_NODE_MAGIC &&
		    o->link->len == l->len && memcmp(o->link->name, l->name, l->len) == 0)
			fs_problem(a, "dir %llu holds '%s' twice", (unsigned long long)d->ino,
				   l->name);
}

/* Each directory's table: members, and how many; each entry by fs_audit_entry. */
static void fs_audit_tables(struct fs_auditor *a)
{
	struct fs *fs = a->fs;

	for (unsigned i = 0; i < fs->slots.nslots; i++) {
		struct fs_node *d = fs_slots_at(&fs->slots, i);
		uint32_t children = 0;

		if (fs_slots_kind(&fs->slots, i) != FS_SLOT_NODE || d->magic != FS_NODE_MAGIC ||
		    !fs_is_dir(d))
			continue;
		for (unsigned b = 0; b < fs->buckets; b++) {
			unsigned steps = 0;

			for (struct fs_node *c = d->table[b]; c; c = c->next) {
				long cs = fs_slot_of(fs, c, FS_SLOT_NODE);

				if (cs < 0 || c->magic != FS_NODE_MAGIC ||
				    ++steps > fs->slots.nslots) {
					fs_problem(
					    a,
					    "dir %llu bucket %u: entry %p is no live node (or "
					    "the chain loops)",
					    (unsigned long long)d->ino, b, (void *)c);
					break;
				}
				a->seen[cs]++;
				children++;
				fs_audit_entry(a, d, b, c);
			}
		}
		if (children != d->nchildren)
			fs_problem(a, "dir %llu counts %u children, its table holds %u",
				   (unsigned long long)d->ino, d->nchildren, children);
	}
}

/* @n's name for a problem line, or "?" if its link is itself broken. */
static const char *fs_audit_name(const struct fs *fs, const struct fs_node *n)
{
	return fs_slot_of(fs, n->link, FS_SLOT_LINK) >= 0 ? n->link->name : "?";
}

/* Reachability, counts and acyclicity, per node; link slots named exactly once. */
static void fs_audit_verdicts(struct fs_auditor *a)
{
	struct fs *fs = a->fs;

	for (unsigned i = 0; i < fs->slots.nslots; i++) {
		struct fs_node *n = fs_slots_at(&fs->slots, i);
		unsigned want_seen, depth = 0;
		int64_t count;

		if (fs_slots_kind(&fs->slots, i) == FS_SLOT_LINK && a->seen[i] != 1)
			fs_problem(a, "link slot %u ('%s') is named by %u nodes", i,
				   ((struct fs_link *)(void *)n)->name, a->seen[i]);
		if (fs_slots_kind(&fs->slots, i) != FS_SLOT_NODE || n->magic != FS_NODE_MAGIC)
			continue;
		want_seen = n == fs->root || n->removed ? 0 : 1;
		if (a->seen[i] != want_seen)
			fs_problem(a, "node %llu '%s' (%s) is in %u tables, should be in %u",
				   (unsigned long long)n->ino, fs_audit_name(fs, n),
				   n->removed ? "removed" : "linked", a->seen[i], want_seen);
		count = fs_node_count(n);
		if (count != (int64_t)a->expect[i])
			fs_problem(a, "node %llu '%s': count %lld, but %u references exist",
				   (unsigned long long)n->ino, fs_audit_name(fs, n),
				   (long long)count, a->expect[i]);
		if (n->removed && count == 0)
			fs_problem(a, "node %llu '%s' is removed and unreferenced yet not freed",
				   (unsigned long long)n->ino, fs_audit_name(fs, n));
		for (struct fs_node *p = n; p != fs->root; p = p->link->parent) {
			if (++depth > fs->slots.nslots || fs_slot_of(fs, p, FS_SLOT_NODE) < 0 ||
			    fs_slot_of(fs, p->link, FS_SLOT_LINK) < 0) {
				fs_problem(a, "node %llu '%s': its parents loop or break off",
					   (unsigned long long)n->ino, fs_audit_name(fs, n));
				break;
			}
		}
		if (depth > a->out->max_depth)
			a->out->max_depth = depth;
	}
}

int fs_audit(struct fs *fs, struct fs_node *const *held, unsigned nheld, struct fs_audit *out)
{
	struct fs_auditor a = {fs, out, NULL, NULL};
	size_t bytes = sizeof(uint32_t) * fs->slots.nslots;

	*out = (struct fs_audit){0};
	if (fs_synchronize(fs) != 0)
		fs_problem(&a, "a grace period did not end: removed nodes cannot be counted");
	a.expect = platform_alloc(bytes, sizeof(uint32_t));
	a.seen = platform_alloc(bytes, sizeof(uint32_t));
	if (!a.expect || !a.seen) {
		fs_problem(&a, "no memory for the audit's %zu-byte tables", 2 * bytes);
	} else {
		fs_audit_memory(&a);
		fs_audit_nodes(&a, held, nheld);
		fs_audit_tables(&a);
		fs_audit_verdicts(&a);
	}
	if (a.expect)
		platform_free(a.expect, bytes);
	if (a.seen)
		platform_free(a.seen, bytes);
	return out->problems ? -FS_EIO : 0;
}
