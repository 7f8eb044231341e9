// SPDX-License-Identifier: MIT
/*
 * qspinlock.h - the queued spinlock, the lock under Linux's lockref since
 * 4.2, a kind of spinlock_t (spinlock_kinds.h's line "qspinlock", prefix
 * qspin: qspin_lock_body, qspin_trylock_body, qspin_unlock_body,
 * qspin_lock_traced, qspin_unlock_traced, qspin_lock_bare,
 * qspin_unlock_bare, qspin_value_waiters here, the
 * broken twin qspin_lock_busted and
 * qspin_unlock_busted in kernel/test/qspinlock_busted.h).
 *
 * Why a second kind: a ticket lock makes every waiter spin on the one
 * shared word, so each unlock sends that line to every waiter; the queued
 * lock makes each waiter spin on a node of its own CPU (an MCS queue), so
 * an unlock wakes one waiter.  The lockref packs its lock into 4 bytes and
 * decides "free" from a copy of them, so the queued lock keeps that shape:
 *
 *   bits  0-7   locked byte: 1 while someone holds the lock
 *   bit   8     pending: one CPU waits on the word itself, next in line
 *   bits  9-15  zero
 *   bits 16-17  tail nesting index: which of the tail CPU's queue nodes
 *   bits 18-31  tail CPU index + 1 (0: nobody queues)
 *
 * Free iff the whole word is 0.  The second CPU to arrive sets pending and
 * spins on the word (no queue node touched: the common contended case is
 * cheap); the third and later ones queue.  The queue's head waits until
 * both the holder and the pending CPU are gone, then takes the lock.
 *
 * A CPU uses one queue node per context it queues in at once (normal code,
 * an interrupt, an NMI, an exception taken while queueing): QSPIN_NODES.
 * This kernel takes spinlocks only in normal code with interrupts that could
 * take them masked, and its NMI and panic paths take none, so one level is
 * used today; running out panics naming the CPU.  The lock itself is left
 * as it was (the node count is checked before anything is published).
 *
 * spin_lock and friends (spinlock.c) take the queued kind through the
 * inline bodies below, one copy traced and one not; the torture and its
 * busted variants call qspin_lock and qspin_unlock directly, on a lock of
 * their own, whatever the boot's kind.  None of them disables interrupts.
 */
#ifndef LIB_QSPINLOCK_H
#define LIB_QSPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "platform.h"
#include "spinlock.h"
#include "qspinlock_pv.h"
#include "spinlock_pv.h"
#include "trace.h"

/* The word's parts (spinlock_t's queued.locked, .pending, .tail), as masks of val. */
#define QSPIN_LOCKED	     1u		 /* the locked byte's value while held */
#define QSPIN_LOCKED_MASK    0x000000ffu /* the locked byte */
#define QSPIN_PENDING	     0x00000100u /* the pending bit (bits 9-15 stay 0) */
#define QSPIN_PENDING_BIT    8
#define QSPIN_LOCKED_PENDING 0x0000ffffu /* both: the holder and the pending CPU */
#define QSPIN_TAIL_MASK	     0xffff0000u /* the tail: the last queued CPU's node */
#define QSPIN_TAIL_SHIFT     16
#define QSPIN_IDX_BITS	     2 /* the nesting index's width, low bits of the tail */
#define QSPIN_NODES	     (1u << QSPIN_IDX_BITS)
#define QSPIN_TAIL_CPU_MAX   ((1u << (16 - QSPIN_IDX_BITS)) - 1) /* largest CPU index + 1 */

_Static_assert(MAX_CPUS <= QSPIN_TAIL_CPU_MAX, "every CPU index + 1 must fit the tail");

/* The 16-bit tail naming @cpu's queue node @idx. */
static inline uint16_t qspin_tail(unsigned cpu, unsigned idx)
{
	return (uint16_t)(((cpu + 1) << QSPIN_IDX_BITS) | idx);
}

/*
 * Everything past the fast path's compare-exchange, which saw @val: the
 * pending step, the queue, their trace events.  Out of line and shared by
 * both copies of the body.
 */
void qspin_lock_slow(spinlock_t *lock, uint32_t val);

/*
 * The queued kind's bodies, for a constant @traced: inline in spinlock.c's
 * dispatch untraced, with no trace hook, and out of line traced
 * (spinlock_kinds.c).
 * F: compare-exchange 0 -> LOCKED.  U: a byte store of 0 to the locked byte
 * (x86 stores are releases, SDM Vol. 3A 8.2.2); it must not touch pending
 * or the tail.
 */
static inline __attribute__((always_inline)) void qspin_lock_body(spinlock_t *lock, bool traced)
{
	uint32_t val = 0;

	if (__builtin_expect(atomic_cmpxchg32(&lock->val, &val, QSPIN_LOCKED), 1)) { /* F */
		if (traced)
			trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_FAST);
		return;
	}
	qspin_lock_slow(lock, val);
}

/*
 * U with paravirtual waiting (qspinlock_pv.c names the steps): until some
 * queue head first needs to halt, the byte store and two loads of a byte
 * nobody writes; once sleeping is armed, a compare-exchange that finds SLOW
 * when a halted head is hashed.
 */
static inline __attribute__((always_inline)) void qspin_unlock_body(spinlock_t *lock, bool traced)
{
	if (traced)
		trace_ev(TR_SPIN_REL, lock, 0);
	if (__builtin_expect(spin_pv_mode() == SPIN_PV_ARMED, 0)) { /* U0 */
		qspin_pv_unlock_armed(lock);
		return;
	}
	atomic_store8(&lock->queued.locked, 0); /* U1 */
	/* U1 before U2 in program order, where the arming CPU's fence interrupt sees them. */
	atomic_compiler_barrier();
	if (__builtin_expect(spin_pv_mode() >= SPIN_PV_ARMING, 0)) /* U2 */
		qspin_pv_unlock_fence(lock);
}

/* Take @lock only if its word is 0 right now; true with it held, else nothing changed. */
static inline __attribute__((always_inline)) bool qspin_trylock_body(spinlock_t *lock, bool traced)
{
	uint32_t val = atomic_load32(&lock->val);

	if (val != 0 || !atomic_cmpxchg32(&lock->val, &val, QSPIN_LOCKED))
		return false;
	if (traced)
		trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_TRYLOCK);
	return true;
}

/* The bodies with @traced true, out of line: spinlock_kinds.c makes them from the list. */
void qspin_lock_traced(spinlock_t *lock);
void qspin_unlock_traced(spinlock_t *lock);

/* spin_lock and spin_unlock of this kind alone, no dispatch: spinlock_bare.c. */
void qspin_lock_bare(spinlock_t *lock) ACQUIRES(*lock);
void qspin_unlock_bare(spinlock_t *lock) RELEASES(*lock);

/* The waiters column (spinlock.h): what the word shows, a pending waiter and a queue. */
static inline unsigned qspin_value_waiters(spinlock_t copy)
{
	return (copy.queued.pending != 0) + (copy.queued.tail != 0);
}

/*
 * The queued lock whatever the kind (the torture's own calls): the bodies,
 * traced when spin events are recorded.  Panics on a wait without progress
 * for SPIN_TIMEOUT_NS.
 */
void qspin_lock(spinlock_t *lock);
void qspin_unlock(spinlock_t *lock);

/* How deep the calling CPU is in the queue path now (0 outside it): for tests. */
unsigned qspin_depth(void);

#endif /* LIB_QSPINLOCK_H */
