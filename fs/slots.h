// SPDX-License-Identifier: MIT
/*
 * slots.h - the fs's node memory: a fixed number of equal slots, poisoned
 * while free.
 *
 * Why not platform_alloc per node: three things the fs must prove need
 * memory it controls.  A limit, so "out of node memory" (-ENOMEM, tree
 * unchanged) can be tested at will.  Poison that stays: a freed slot is
 * filled with FS_POISON_BYTE and handed out again only in FIFO order, so a
 * lookup that reads a node after its grace period finds poison rather than
 * a reallocated node, and says so.  And an inventory: the audit walks every
 * slot in use to find leaks, and the allocator counts double frees and
 * slots written to after they were freed (their poison is damaged).
 *
 * Every slot starts with the object's 8-byte magic word; freeing poisons
 * that word first, so a reader that sees a live magic after loading a
 * field knows the field was loaded before the poisoning began.
 */
#ifndef FS_SLOTS_H
#define FS_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spinlock.h"

/* The byte freed slots are filled with (Linux's POISON_FREE, familiar in a dump). */
#define FS_POISON_BYTE 0x6b
#define FS_POISON_WORD 0x6b6b6b6b6b6b6b6bull

/* Slots are this aligned: whole cache lines, and 16 for CMPXCHG16B. */
#define FS_SLOT_ALIGN 64

/* What a slot holds. */
enum fs_slot_kind {
	FS_SLOT_FREE = 0,
	FS_SLOT_NODE,
	FS_SLOT_LINK,
};

struct fs_slots {
	spinlock_t lock; /* everything below but base, size and nslots */
	uint8_t *base;
	size_t slot_size;
	unsigned nslots;
	uint8_t *kind;	 /* enum fs_slot_kind per slot */
	uint32_t *queue; /* free slots, oldest first */
	unsigned head, nfree;
	uint64_t allocs, frees, double_frees, damaged;
};

/*
 * Reserve @nslots slots of at least @slot_size bytes, all poisoned.
 * Returns 0, or -FS_ENOMEM (logged) when the memory is not there.
 */
int fs_slots_init(struct fs_slots *s, unsigned nslots, size_t slot_size);

/* Give the memory back.  No slot may be in use by anyone any more. */
void fs_slots_fini(struct fs_slots *s);

/*
 * A zeroed slot for an object of @kind, or NULL when none is free.  A
 * slot whose poison was damaged while free is counted and logged (it is
 * handed out all the same: the damage is the bug being reported).
 */
void *fs_slots_alloc(struct fs_slots *s, enum fs_slot_kind kind);

/*
 * Poison @obj's slot and queue it for reuse.  A slot that is already free
 * (a double free) or a pointer that is no slot is counted, logged, and
 * otherwise ignored.
 */
void fs_slots_free(struct fs_slots *s, void *obj);

/*
 * The number of the slot that @p starts, or -1 for NULL, a pointer outside
 * the slots or inside one.  Compares addresses as integers: subtracting or
 * ordering pointers into different objects is undefined in ISO C.
 */
long fs_slots_index(const struct fs_slots *s, const void *p);

/* Slot @i's object and kind; for the audit, while nothing allocates or frees. */
void *fs_slots_at(const struct fs_slots *s, unsigned i);
enum fs_slot_kind fs_slots_kind(const struct fs_slots *s, unsigned i);

/* True if every byte of slot @i is poison (for free slots: nothing wrote to it). */
bool fs_slots_poison_intact(const struct fs_slots *s, unsigned i);

/* The counters, as one snapshot under the lock. */
struct fs_slots_stats {
	unsigned in_use, nodes, links;
	uint64_t allocs, frees, double_frees, damaged;
};
void fs_slots_stats(struct fs_slots *s, struct fs_slots_stats *out);

#endif /* FS_SLOTS_H */
