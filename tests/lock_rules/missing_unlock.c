// SPDX-License-Identifier: MIT
/*
 * missing_unlock.c - planted mistake: an error path that returns with the
 * lock still held.  Must not compile under the lock rules ("is not held on
 * every path"): the analysis sees the lock taken on one path, dropped on
 * the other, and the two meeting at the function's end.
 */
#include "lockref.h"

int rename_like(struct lockref *ref, int err)
{
	lockref_lock(ref);
	if (err)
		return err; /* the mistake: lockref_unlock is missing here */
	lockref_get_locked(ref);
	lockref_unlock(ref);
	return 0;
}
