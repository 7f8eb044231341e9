// SPDX-License-Identifier: MIT
/*
 * unlocked_call.c - planted mistake: a call of a function that requires
 * the lock (lockref_put_locked) by a caller that does not hold it.  Must
 * not compile under the lock rules ("requires holding").
 */
#include "lockref.h"

int drop_without_lock(struct lockref *ref)
{
	return lockref_put_locked(ref); /* the mistake: lockref_lock(ref) first */
}
