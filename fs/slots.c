// SPDX-License-Identifier: MIT
/*
 * slots.c - the slot allocator of slots.h.
 *
 * One platform_alloc for all slots, a FIFO of free slot numbers, and a
 * kind byte per slot, all under one spinlock: the fs allocates only on
 * create and rename and frees only after grace periods, far from the
 * lookup path, so one lock is plenty.
 */
#include "slots.h"

#include "atomic.h"
#include "errno.h"
#include "platform.h"
#include "spinlock.h"
#include "string.h"

/* Round @n up to a multiple of @align (a power of two). */
static size_t fs_round_up(size_t n, size_t align)
{
	return (n + align - 1) & ~(align - 1);
}

int fs_slots_init(struct fs_slots *s, unsigned nslots, size_t slot_size)
{
	spin_init_named(&s->lock, "fs:slots");
	s->slot_size = fs_round_up(slot_size, FS_SLOT_ALIGN);
	s->nslots = nslots;
	s->base = platform_alloc(s->slot_size * nslots, FS_SLOT_ALIGN);
	s->kind = platform_alloc(nslots, 1);
	s->queue = platform_alloc(sizeof(*s->queue) * nslots, sizeof(*s->queue));
	if (!s->base || !s->kind || !s->queue) {
		platform_log("fs: no memory for %u node slots of %zu bytes", nslots, s->slot_size);
		fs_slots_fini(s);
		return -FS_ENOMEM;
	}
	memset(s->base, FS_POISON_BYTE, s->slot_size * nslots);
	for (unsigned i = 0; i < nslots; i++)
		s->queue[i] = i;
	s->head = 0;
	s->nfree = nslots;
	s->allocs = s->frees = s->double_frees = s->damaged = 0;
	return 0;
}

void fs_slots_fini(struct fs_slots *s)
{
	if (s->base)
		platform_free(s->base, s->slot_size * s->nslots);
	if (s->kind)
		platform_free(s->kind, s->nslots);
	if (s->queue)
		platform_free(s->queue, sizeof(*s->queue) * s->nslots);
	s->base = NULL;
	s->kind = NULL;
	s->queue = NULL;
}

void *fs_slots_at(const struct fs_slots *s, unsigned i)
{
	return s->base + (size_t)i * s->slot_size;
}

enum fs_slot_kind fs_slots_kind(const struct fs_slots *s, unsigned i)
{
	return (enum fs_slot_kind)s->kind[i];
}

bool fs_slots_poison_intact(const struct fs_slots *s, unsigned i)
{
	const uint8_t *p = fs_slots_at(s, i);

	for (size_t b = 0; b < s->slot_size; b++)
		if (p[b] != FS_POISON_BYTE)
			return false;
	return true;
}

void *fs_slots_alloc(struct fs_slots *s, enum fs_slot_kind kind)
{
	unsigned i;
	bool intact;
	void *obj;

	spin_lock(&s->lock);
	if (s->nfree == 0) {
		spin_unlock(&s->lock);
		return NULL;
	}
	i = s->queue[s->head];
	s->head = (s->head + 1) % s->nslots;
	s->nfree--;
	s->kind[i] = (uint8_t)kind;
	s->allocs++;
	intact = fs_slots_poison_intact(s, i);
	if (!intact)
		s->damaged++;
	spin_unlock(&s->lock);
	obj = fs_slots_at(s, i);
	if (!intact)
		platform_log("fs: slot %u (%p) was written to while free: use after free", i, obj);
	memset(obj, 0, s->slot_size);
	return obj;
}

long fs_slots_index(const struct fs_slots *s, const void *p)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)s->base;

	if (!p || a < base || a - base >= (uintptr_t)s->nslots * s->slot_size ||
	    (a - base) % s->slot_size != 0)
		return -1;
	return (long)((a - base) / s->slot_size);
}

void fs_slots_free(struct fs_slots *s, void *obj)
{
	long slot = fs_slots_index(s, obj);
	unsigned i = (unsigned)slot;

	if (slot < 0) {
		platform_log("fs: free of %p, which is no node slot", obj);
		spin_lock(&s->lock);
		s->double_frees++;
		spin_unlock(&s->lock);
		return;
	}
	/* A node's lock still held by this CPU would be held in the next node of the slot. */
	lockdep_check_free(obj, s->slot_size, LOCKDEP_SITE());
	spin_lock(&s->lock);
	if (s->kind[i] == FS_SLOT_FREE) {
		s->double_frees++;
		spin_unlock(&s->lock);
		platform_log("fs: slot %u (%p) freed twice", i, obj);
		return;
	}
	/* The magic word first: see the top of slots.h. */
	atomic_store64((uint64_t *)obj, FS_POISON_WORD);
	memset((uint8_t *)obj + sizeof(uint64_t), FS_POISON_BYTE, s->slot_size - sizeof(uint64_t));
	s->kind[i] = FS_SLOT_FREE;
	s->queue[(s->head + s->nfree) % s->nslots] = i;
	s->nfree++;
	s->frees++;
	spin_unlock(&s->lock);
}

void fs_slots_stats(struct fs_slots *s, struct fs_slots_stats *out)
{
	*out = (struct fs_slots_stats){0};
	spin_lock(&s->lock);
	for (unsigned i = 0; i < s->nslots; i++) {
		out->nodes += s->kind[i] == FS_SLOT_NODE;
		out->links += s->kind[i] == FS_SLOT_LINK;
	}
	out->in_use = s->nslots - s->nfree;
	out->allocs = s->allocs;
	out->frees = s->frees;
	out->double_frees = s->double_frees;
	out->damaged = s->damaged;
	spin_unlock(&s->lock);
}
