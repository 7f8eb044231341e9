// SPDX-License-Identifier: MIT
/*
 * ignored_result.c - planted mistake: ignoring lockref_put_or_lock's
 * result, which leaks the lock whenever it returns false.  Must not compile
 * (MUST_CHECK: "warn_unused_result"), with either compiler.
 */
#include "lockref.h"

void put_and_forget(struct lockref *ref)
{
	lockref_put_or_lock(ref); /* the mistake: false means the lock is held */
}
