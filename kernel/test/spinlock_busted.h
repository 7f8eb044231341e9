// SPDX-License-Identifier: MIT
/*
 * spinlock_busted.h - NEGATIVE CONTROL ONLY: a "lock" that excludes nobody.
 *
 * torture.busted=spinlock (torture_spinlock.c) and the host spinlock test's
 * busted build (tests/host/test_spinlock.c) run their stress on it, and
 * must then fail: a harness is only trusted once it was seen to catch a
 * broken lock.  It lives with the tests, not in lib/, so production code
 * carries nothing that exists only to be wrong.
 */
#ifndef KERNEL_TEST_SPINLOCK_BUSTED_H
#define KERNEL_TEST_SPINLOCK_BUSTED_H

#include "spinlock.h"
#include "trace.h"

/* The trace records the hold the caller believes it has: trace_check.py must see the overlap. */
static inline void spin_lock_busted(spinlock_t *lock)
{
	trace_ev(TR_SPIN_ACQ, lock, 0);
}

static inline void spin_unlock_busted(spinlock_t *lock)
{
	trace_ev(TR_SPIN_REL, lock, 0);
}

#endif /* KERNEL_TEST_SPINLOCK_BUSTED_H */
