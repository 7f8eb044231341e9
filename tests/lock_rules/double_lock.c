// SPDX-License-Identifier: MIT
/*
 * double_lock.c - planted mistake: taking a lock the caller already holds,
 * which on a ticket lock waits forever for itself.  Must not compile under
 * the lock rules ("already held").
 */
#include "spinlock.h"

void lock_twice(spinlock_t *lock)
{
	spin_lock(lock);
	spin_lock(lock); /* the mistake */
	spin_unlock(lock);
}
