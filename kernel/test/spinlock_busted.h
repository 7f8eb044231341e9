// SPDX-License-Identifier: MIT
/*
 * spinlock_busted.h - NEGATIVE CONTROL ONLY: a "lock" that excludes nobody,
 * the ticket kind's broken twin, and one that excludes but starves.
 *
 * torture.busted=spinlock and torture.busted=ticket (torture_spinlock.c)
 * and the host spinlock test's busted build (tests/host/test_spinlock.c)
 * run their stress on the first, torture.busted=unfair the spinlock
 * torture's queued test on the second; each run must then fail: a harness
 * is only trusted once it was seen to catch a broken lock.  The other
 * kinds' twins are in their headers (spinlock_kinds.h), which no code but
 * the torture calls.
 */
#ifndef KERNEL_TEST_SPINLOCK_BUSTED_H
#define KERNEL_TEST_SPINLOCK_BUSTED_H

#include "spinlock.h"
#include "trace.h"

/* The trace records the hold the caller believes it has: trace_check.py must see the overlap. */
static inline void ticket_lock_busted(spinlock_t *lock)
{
	trace_ev(TR_SPIN_ACQ, lock, 0);
}

static inline void ticket_unlock_busted(spinlock_t *lock)
{
	trace_ev(TR_SPIN_REL, lock, 0);
}

/*
 * Unfair: a test-and-set lock on the lock's word that makes odd CPUs wait
 * SPIN_UNFAIR_ODD_GAP_NS after each acquisition before they may try again,
 * while even CPUs retry at once: the odd ones get a few hundred turns a
 * second, the even ones hundreds of thousands.  It excludes correctly;
 * only the torture's starvation check can see what is wrong.  (Odd CPUs
 * merely standing back between attempts was not enough: the host's
 * scheduler evened the counts out to 5:1-27:1 at -smp 4 under TCG.)
 */
#define SPIN_UNFAIR_ODD_GAP_NS (1000ull * 1000)

static inline void spin_lock_unfair(spinlock_t *lock)
{
	static uint64_t next_try_ns[MAX_CPUS]; /* odd CPUs: not before this */
	unsigned cpu = platform_cpu_id();

	if (cpu & 1)
		while (platform_now_ns() < next_try_ns[cpu])
			atomic_pause();
	while (atomic_xchg32(&lock->val, 1))
		atomic_pause();
	if (cpu & 1)
		next_try_ns[cpu] = platform_now_ns() + SPIN_UNFAIR_ODD_GAP_NS;
	trace_ev(TR_SPIN_ACQ, lock, 0);
}

static inline void spin_unlock_unfair(spinlock_t *lock)
{
	trace_ev(TR_SPIN_REL, lock, 0);
	atomic_store32(&lock->val, 0);
}

#endif /* KERNEL_TEST_SPINLOCK_BUSTED_H */
