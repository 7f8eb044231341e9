// SPDX-License-Identifier: MIT
/*
 * spinlock_tas.h - the test-and-set lock, a kind of spinlock_t
 * (spinlock.h's SPIN_KIND_LIST, spinlock.kind=tas): what Linux falls back
 * to as a guest without paravirtual spinlocks (virt_spin_lock in
 * arch/x86/include/asm/qspinlock.h, used when the hypervisor bit is set).
 *
 * Why a lock this simple: a fair lock (ticket, queue) hands the lock to
 * the next waiter in line, and when virtual CPUs outnumber the host's
 * cores that waiter is often descheduled, so every CPU behind it waits for
 * the host to run it again.  A test-and-set lock has no line: whichever
 * CPU runs when the lock is released takes it.  Unfair (a CPU can lose
 * every race), but it only ever waits for a descheduled holder, never for
 * a descheduled waiter.
 *
 * The word: 0 free, TAS_LOCKED while held; nothing else, so it shows no
 * waiters and a copy is free iff it is 0 (the free column ZERO: the
 * lockref's lockless test works unchanged).
 *   L1  read the word until it reads 0: a waiter spins on its cached copy
 *       and sends nothing over the bus while the lock is held;
 *   L2  lock cmpxchg 0 -> TAS_LOCKED; if another CPU got there first, L1
 *       again (Linux's loop, with its cpu_relax between tries).
 *   U   a plain 4-byte store of 0: only the holder writes a held word, and
 *       an x86 store is a release (Intel SDM Vol. 3A 8.2.2).
 * L2's locked instruction is a full barrier, so the critical section
 * cannot begin before the lock is ours.
 *
 * No paravirtual waiting: Linux uses this lock exactly when the guest has
 * none (spinlock.pv= changes nothing for it).  A waiter panics once it has
 * not seen the word free for SPIN_TIMEOUT_NS (spinlock_wait.h): seeing it
 * free is the only progress the word shows, which is enough while the lock
 * changes hands at all.
 *
 * Trace events: those of a word lock without tickets (TR_QSPIN_WAIT with
 * the word seen, TR_QSPIN_ACQ with TR_QACQ_FAST or TR_QACQ_TRYLOCK, and
 * TR_SPIN_REL), so trace_check.py judges holds for overlap and applies no
 * order check: the lock promises none.
 */
#ifndef LIB_SPINLOCK_TAS_H
#define LIB_SPINLOCK_TAS_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "platform.h"
#include "qspinlock.h"
#include "spinlock.h"
#include "spinlock_wait.h"
#include "trace.h"

#define TAS_LOCKED QSPIN_LOCKED /* the word while held: the queued kind's locked byte */

/*
 * L1 and L2 after a first compare-exchange failed, having seen @val; out
 * of line, recording its events whenever spin events are recorded.
 */
static __attribute__((noinline)) void tas_lock_slow(spinlock_t *lock, uint32_t val)
{
	struct spin_wait w;
	uint32_t seen_free = 0;

	spin_wait_start(&w, lock);
	trace_ev(TR_QSPIN_WAIT, lock, val);
	for (;;) {
		val = atomic_load32(&lock->val); /* L1 */
		if (val == 0) {
			seen_free++;
			if (atomic_cmpxchg32(&lock->val, &val, TAS_LOCKED)) /* L2 */
				break;
		}
		platform_relax();
		if (spin_wait_due(&w))
			spin_wait_check(&w, seen_free, "the word to read free", -1);
	}
	trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_FAST);
}

/*
 * The lock body of the kind's SPIN_KIND_LIST line, for a constant @traced:
 * L2 at once, L1 only if that failed.  Its trylock is the queued kind's
 * (qspin_trylock_body: the same compare-exchange of a word read 0, as
 * Linux's queued_spin_trylock serves virt_spin_lock's lock too).
 */
static inline __attribute__((always_inline)) void tas_lock_body(spinlock_t *lock, bool traced)
{
	uint32_t val = 0;

	if (__builtin_expect(!atomic_cmpxchg32(&lock->val, &val, TAS_LOCKED), 0)) /* L2 */
		tas_lock_slow(lock, val);
	else if (traced)
		trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_FAST);
}

static inline __attribute__((always_inline)) void tas_unlock_body(spinlock_t *lock, bool traced)
{
	if (traced)
		trace_ev(TR_SPIN_REL, lock, 0);
	atomic_store32(&lock->val, 0); /* U */
}

/* The waiters column: the word shows none. */
static inline unsigned tas_value_waiters(spinlock_t copy)
{
	(void)copy;
	return 0;
}

#endif /* LIB_SPINLOCK_TAS_H */
