// SPDX-License-Identifier: MIT
/*
 * spinlock_tas.h - the test-and-set lock, a kind of spinlock_t
 * (spinlock_kinds.h's line "tas", prefix tas, spinlock.kind=tas): what
 * Linux falls back to as a guest without paravirtual spinlocks
 * (virt_spin_lock in arch/x86/include/asm/qspinlock.h, used when the
 * hypervisor bit is set).  The line's prefix names this file's
 * tas_lock_body, tas_trylock_body, tas_unlock_body, tas_lock_traced,
 * tas_unlock_traced, tas_lock_bare, tas_unlock_bare, tas_value_waiters
 * and the broken twin
 * tas_lock_busted, tas_unlock_busted (at the end).
 *
 * Why a lock this simple: a fair lock (ticket, queue) hands the lock to
 * the next waiter in line, and when virtual CPUs outnumber the host's
 * cores that waiter is often descheduled, so every CPU behind it waits for
 * the host to run it again.  A test-and-set lock has no line: whichever
 * CPU runs when the lock is released takes it.  Unfair (a CPU can lose
 * every race), but it only ever waits for a descheduled holder, never for
 * a descheduled waiter.
 *
 * The word: 0 free, TAS_HELD_BY(the holder's CPU index) while held;
 * nothing else, so it shows no waiters and a copy is free iff it is 0
 * (.free = SPIN_FREE_ZERO: the lockref's lockless test works unchanged).
 * Why the holder in the word: a waiter sees each hand-over between two
 * CPUs as the word changing, even when it never reads it free.
 *   L1  read the word until it reads 0: a waiter spins on its cached copy
 *       and sends nothing over the bus while the lock is held;
 *   L2  lock cmpxchg 0 -> TAS_HELD_BY(cpu); if another CPU got there
 *       first, L1 again (Linux's loop, with its cpu_relax between tries).
 *   U   a plain 4-byte store of 0: only the holder writes a held word, and
 *       an x86 store is a release (Intel SDM Vol. 3A 8.2.2).
 * L2's locked instruction is a full barrier, so the critical section
 * cannot begin before the lock is ours.
 *
 * No paravirtual waiting: Linux uses this lock exactly when the guest has
 * none (spinlock.pv= changes nothing for it).  A waiter panics once it has
 * seen no hand-over for SPIN_TIMEOUT_NS (spinlock_wait.h): a hand-over is
 * the word read free or read held by another CPU than last time.  An
 * unfair lock may let one waiter lose every race while the others move;
 * that is the lock working, not a deadlock, and the torture judges it by
 * the unfair kinds' bound (kernel/test/torture_spinlock.c).  Only a word
 * that stays held by one CPU is called a deadlock.
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

/* The word while CPU @cpu holds the lock: never 0, so "free iff 0" holds. */
#define TAS_HELD_BY(cpu) ((uint32_t)(cpu) + 1u)

/*
 * The waiter's progress: @now, the word just read, shows a hand-over since
 * it read @last (free now, or held by another CPU).  The same holder twice
 * is no progress, even if it let go and took the lock again in between:
 * the word cannot tell, and a CPU that keeps it 20 s is stuck either way.
 */
static inline bool tas_handed_over(uint32_t last, uint32_t now)
{
	return now == 0 || now != last;
}

/*
 * L1 and L2 after a first compare-exchange failed, having seen @val; out
 * of line, recording its events whenever spin events are recorded.
 */
static __attribute__((noinline)) void tas_lock_slow(spinlock_t *lock, uint32_t val)
{
	struct spin_wait w;
	uint32_t handovers = 0, holder = val;

	spin_wait_start(&w, lock);
	trace_ev(TR_QSPIN_WAIT, lock, val);
	for (;;) {
		val = atomic_load32(&lock->val); /* L1 */
		if (tas_handed_over(holder, val)) {
			handovers++;
			holder = val;
		}
		if (val == 0 &&
		    atomic_cmpxchg32(&lock->val, &val, TAS_HELD_BY(platform_cpu_id()))) /* L2 */
			break;
		platform_relax();
		if (spin_wait_due(&w))
			spin_wait_check(&w, handovers, "a hand-over of the word", -1);
	}
	trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_FAST);
}

/*
 * The lock body of the kind's table line, for a constant @traced:
 * L2 at once, L1 only if that failed.
 */
static inline __attribute__((always_inline)) void tas_lock_body(spinlock_t *lock, bool traced)
{
	uint32_t val = 0;

	if (__builtin_expect(!atomic_cmpxchg32(&lock->val, &val, TAS_HELD_BY(platform_cpu_id())),
			     0)) /* L2 */
		tas_lock_slow(lock, val);
	else if (traced)
		trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_FAST);
}

/* Trylock: L2 once, on a word read 0 (as Linux's queued_spin_trylock serves virt_spin_lock). */
static inline __attribute__((always_inline)) bool tas_trylock_body(spinlock_t *lock, bool traced)
{
	uint32_t val = atomic_load32(&lock->val);

	if (val != 0 || !atomic_cmpxchg32(&lock->val, &val, TAS_HELD_BY(platform_cpu_id())))
		return false;
	if (traced)
		trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_TRYLOCK);
	return true;
}

static inline __attribute__((always_inline)) void tas_unlock_body(spinlock_t *lock, bool traced)
{
	if (traced)
		trace_ev(TR_SPIN_REL, lock, 0);
	atomic_store32(&lock->val, 0); /* U */
}

/* The bodies with @traced true, out of line: spinlock_kinds.c makes them from the list. */
void tas_lock_traced(spinlock_t *lock);
void tas_unlock_traced(spinlock_t *lock);

/* spin_lock and spin_unlock of this kind alone, no dispatch: spinlock_bare.c. */
void tas_lock_bare(spinlock_t *lock) ACQUIRES(*lock);
void tas_unlock_bare(spinlock_t *lock) RELEASES(*lock);

/* The waiters column: the word shows none. */
static inline unsigned tas_value_waiters(spinlock_t copy)
{
	(void)copy;
	return 0;
}

/*
 * The broken twin, for torture.busted=tas only (NEGATIVE CONTROL: no lock
 * calls it): L2 split in two: it
 * reads the word until it is 0, then stores the lock value with a plain
 * store, so two CPUs that both read 0 both go in.  The window between the
 * test and the store is widened by one PAUSE (which under TCG leaves the
 * vCPU's loop) so that short runs meet it too.  Its events are the kind's.
 */
static inline void tas_lock_busted(spinlock_t *lock)
{
	while (atomic_load32(&lock->val) != 0)
		atomic_pause();
	atomic_pause();
	atomic_store32(&lock->val, TAS_HELD_BY(platform_cpu_id()));
	trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_FAST);
}

static inline void tas_unlock_busted(spinlock_t *lock)
{
	trace_ev(TR_SPIN_REL, lock, 0);
	atomic_store32(&lock->val, 0);
}

#endif /* LIB_SPINLOCK_TAS_H */
