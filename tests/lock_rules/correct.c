// SPDX-License-Identifier: MIT
/*
 * correct.c - the control: the same calls as the planted mistakes, used as
 * their contracts say.  Must compile under the lock rules, or the mistakes'
 * failures would prove nothing.
 */
#include "lockref.h"

int rename_like(struct lockref *ref, int err)
{
	lockref_lock(ref);
	if (err) {
		lockref_unlock(ref);
		return err;
	}
	lockref_get_locked(ref);
	lockref_unlock(ref);
	return 0;
}

int drop_with_lock(struct lockref *ref)
{
	int count;

	lockref_lock(ref);
	count = lockref_put_locked(ref);
	lockref_unlock(ref);
	return count;
}

void lock_once(spinlock_t *lock)
{
	spin_lock(lock);
	spin_unlock(lock);
}

void put_last(struct lockref *ref)
{
	if (lockref_put_or_lock(ref))
		return;
	lockref_mark_dead(ref);
	lockref_unlock(ref);
}
