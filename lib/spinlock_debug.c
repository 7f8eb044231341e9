// SPDX-License-Identifier: MIT
/*
 * spinlock_debug.c - the owner checks of spinlock_debug.h, and spin_is_held.
 *
 * Debug build (-DSPINLOCK_DEBUG): every CPU keeps a short list of the locks
 * it holds, outside the lock word (which must stay 4 bytes for the lockref),
 * so that spin_is_held is exact and the checks can name the mistake.
 * Without it only spin_is_held is built, and it can say only whether anyone
 * holds the lock (spinlock.h).
 */
#include "spinlock_debug.h"

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

void spin_debug_before_lock(const spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();

	if (spin_debug_holds(&spin_held_by_cpu[cpu], lock))
		platform_panic("spinlock %p: cpu %u takes a lock it already holds (deadlock)",
			       (const void *)lock, cpu);
}

void spin_debug_acquired(const spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();
	struct spin_held *h = &spin_held_by_cpu[cpu];

	if (h->n == SPIN_DEBUG_DEPTH)
		platform_panic("spinlock %p: cpu %u holds more than %d locks", (const void *)lock,
			       cpu, SPIN_DEBUG_DEPTH);
	h->locks[h->n++] = lock;
}

void spin_debug_release(const spinlock_t *lock)
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
		       (const void *)lock, cpu, lock->val);
}

bool spin_is_held(const spinlock_t *lock)
{
	return spin_debug_holds(&spin_held_by_cpu[platform_cpu_id()], lock);
}

#else /* !SPINLOCK_DEBUG */

bool spin_is_held(const spinlock_t *lock)
{
	return spin_is_locked(lock);
}

#endif /* SPINLOCK_DEBUG */
