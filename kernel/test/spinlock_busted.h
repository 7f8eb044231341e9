// SPDX-License-Identifier: MIT
/*
 * spinlock_busted.h - NEGATIVE CONTROL ONLY: a lock that excludes but
 * starves.  torture.busted=unfair runs the spinlock torture's queued test
 * on it, which must then fail (starvation): a harness is only trusted once
 * it was seen to catch a broken lock.  The kinds' broken twins are in
 * their headers (spinlock_kinds.h), which no code but the torture calls.
 */
#ifndef KERNEL_TEST_SPINLOCK_BUSTED_H
#define KERNEL_TEST_SPINLOCK_BUSTED_H

#include "spinlock.h"
#include "trace.h"

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
