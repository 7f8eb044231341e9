// SPDX-License-Identifier: MIT
/*
 * qspinlock_busted.h - NEGATIVE CONTROL ONLY: a queued spinlock whose
 * pending waiter does not wait for the holder.
 *
 * torture.busted=qspinlock (torture_spinlock.c) runs the qspinlock torture
 * on it, and the run must then fail: two CPUs hold the lock whenever the
 * second arrival takes the pending path.  It breaks one step (P2 of
 * lib/qspinlock.c) of an otherwise real qspinlock, so the queue, the
 * pending bit and the byte unlock all run as they do in the library, and
 * nothing deadlocks: the failure is the torture's invariant, not a hang.
 * It lives with the tests, not in lib/, so production code carries nothing
 * that exists only to be wrong.
 */
#ifndef KERNEL_TEST_QSPINLOCK_BUSTED_H
#define KERNEL_TEST_QSPINLOCK_BUSTED_H

#include "atomic.h"
#include "qspinlock.h"

static inline void qspin_lock_busted(spinlock_t *lock)
{
	uint32_t val = QSPIN_LOCKED;

	/* Held, nobody waiting: set pending and take the lock at once (P2 skipped). */
	if (atomic_cmpxchg32(&lock->val, &val, QSPIN_LOCKED | QSPIN_PENDING)) {
		atomic_store16(&lock->queued.locked_pending, QSPIN_LOCKED);
		return;
	}
	qspin_lock(lock);
}

static inline void qspin_unlock_busted(spinlock_t *lock)
{
	qspin_unlock(lock);
}

#endif /* KERNEL_TEST_QSPINLOCK_BUSTED_H */
