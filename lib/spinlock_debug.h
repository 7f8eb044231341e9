// SPDX-License-Identifier: MIT
/*
 * spinlock_debug.h - the owner checks of a SPINLOCK_DEBUG build
 * (spinlock_debug.c), called by spin_lock, spin_unlock and spin_trylock
 * (spinlock.c) at their one hook point each, for both lock kinds.
 * Internal to lib/: users see spinlock.h.
 *
 * Why apart from the lock: the checks are the same for both kinds and have
 * nothing to do with how a lock is taken.  Without SPINLOCK_DEBUG they are
 * empty inline functions here, so the lock's fast path keeps no call.
 */
#ifndef LIB_SPINLOCK_DEBUG_H
#define LIB_SPINLOCK_DEBUG_H

#include "spinlock.h"

#ifdef SPINLOCK_DEBUG

/* Before taking @lock: panics if the calling CPU already holds it (it would deadlock). */
void spin_debug_before_lock(const spinlock_t *lock);

/* @lock is now held by the calling CPU: panics if it holds too many. */
void spin_debug_acquired(const spinlock_t *lock);

/* Before releasing @lock: panics if the calling CPU does not hold it. */
void spin_debug_release(const spinlock_t *lock);

#else /* !SPINLOCK_DEBUG */

static inline void spin_debug_before_lock(const spinlock_t *lock)
{
	(void)lock;
}

static inline void spin_debug_acquired(const spinlock_t *lock)
{
	(void)lock;
}

static inline void spin_debug_release(const spinlock_t *lock)
{
	(void)lock;
}

#endif /* SPINLOCK_DEBUG */

#endif /* LIB_SPINLOCK_DEBUG_H */
