// SPDX-License-Identifier: MIT
/*
 * spinlock_debug.h - the owner checks of a SPINLOCK_DEBUG build, for
 * spinlock.c alone (it includes this once).
 *
 * Why a header of its own: the checks are the same for both lock kinds and
 * have nothing to do with how a lock is taken, so they sit apart from the
 * ticket lock; they stay static so that a build without SPINLOCK_DEBUG
 * compiles them to nothing.
 */
#ifndef LIB_SPINLOCK_DEBUG_H
#define LIB_SPINLOCK_DEBUG_H

#include "platform.h"
#include "spinlock.h"

#ifdef SPINLOCK_DEBUG

/* How many locks one CPU may hold at once in a debug build (deeper nesting panics). */
#define SPIN_DEBUG_DEPTH 8

/*
 * The locks each CPU holds.  Only that CPU writes or reads its own entry, so
 * no locking is needed; each entry has its own cache-line pair so that the
 * bookkeeping of one CPU never slows another.
 */
struct spin_held {
	const spinlock_t *locks[SPIN_DEBUG_DEPTH];
	unsigned n;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

static struct spin_held spin_held_by_cpu[MAX_CPUS];

static bool spin_debug_holds(const struct spin_held *h, const spinlock_t *lock)
{
	for (unsigned i = 0; i < h->n; i++)
		if (h->locks[i] == lock)
			return true;
	return false;
}

static void spin_debug_before_lock(spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();

	if (spin_debug_holds(&spin_held_by_cpu[cpu], lock))
		platform_panic("spinlock %p: cpu %u takes a lock it already holds (deadlock)",
			       (void *)lock, cpu);
}

static void spin_debug_acquired(spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();
	struct spin_held *h = &spin_held_by_cpu[cpu];

	if (h->n == SPIN_DEBUG_DEPTH)
		platform_panic("spinlock %p: cpu %u holds more than %d locks", (void *)lock, cpu,
			       SPIN_DEBUG_DEPTH);
	h->locks[h->n++] = lock;
}

static void spin_debug_release(spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();
	struct spin_held *h = &spin_held_by_cpu[cpu];

	for (unsigned i = 0; i < h->n; i++) {
		if (h->locks[i] == lock) {
			/* Locks need not be released in order: close the gap. */
			h->locks[i] = h->locks[--h->n];
			return;
		}
	}
	platform_panic("spinlock %p: cpu %u unlocks a lock it does not hold (word %#x)",
		       (void *)lock, cpu, lock->val);
}

bool spin_is_held(const spinlock_t *lock)
{
	return spin_debug_holds(&spin_held_by_cpu[platform_cpu_id()], lock);
}

#else /* !SPINLOCK_DEBUG */

/* Without SPINLOCK_DEBUG the checks compile to nothing. */
#define spin_debug_before_lock(lock) ((void)(lock))
#define spin_debug_acquired(lock)    ((void)(lock))
#define spin_debug_release(lock)     ((void)(lock))

bool spin_is_held(const spinlock_t *lock)
{
	return spin_is_locked(lock);
}

#endif /* SPINLOCK_DEBUG */

#endif /* LIB_SPINLOCK_DEBUG_H */
