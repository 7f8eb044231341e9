// SPDX-License-Identifier: MIT
/*
 * spinlock_ticket.h - the ticket lock, the default kind of spinlock_t
 * (spinlock_kinds.h's line "ticket", prefix ticket: ticket_lock_body,
 * ticket_trylock_body, ticket_unlock_body, ticket_lock_traced,
 * ticket_unlock_traced, ticket_lock_bare, ticket_unlock_bare,
 * ticket_value_waiters, and the broken twin ticket_lock_busted,
 * ticket_unlock_busted at the end).  The word's layout: spinlock.h, beside
 * spinlock_t.
 *
 * Why tickets: a CPU takes a ticket (one XADD on the tail) and waits until
 * the head reaches it, so waiters are served in arrival order and nobody
 * starves under contention.
 *
 * Why it can sleep ("paravirtual" mode, spin_pv_set): FIFO hands the lock
 * to exactly one waiter, and when virtual CPUs outnumber the host's cores
 * that waiter is often descheduled while the others burn their time slices
 * spinning.  In paravirtual mode a waiter spins a bounded while, then
 * announces that it sleeps and halts.  When the head reaches a sleeper's
 * ticket, the unlocker wakes that CPU (platform_cpu_kick) and, the first
 * time in that acquisition, passes it over: the turn goes to the next
 * ticket, and the sleeper queues again when it wakes, so the lock does not
 * idle while a vCPU wakes up.  The second time the turn waits for it, so
 * nobody starves.  Off, the lock is the plain ticket lock and never sleeps.
 * A sleeper costs every unlock a full fence, so sleeping is armed only when
 * a waiter first needs it: until then a paravirtual unlock costs what a
 * plain one does.  spinlock_pv.c argues why no wake-up is lost and no turn is
 * granted twice.
 *
 * Taking the lock is one XADD on the whole 32-bit word that adds one ticket
 * to the tail and returns the old word: its tail half (less the sleepers
 * flag) is our ticket, its head half the ticket being served.  If they
 * match the lock was free and is now ours; otherwise we wait until the
 * owner's unlock advances the head to our ticket.  The 16-bit halves wrap
 * independently, which is why the tail carries out of bit 31 harmlessly.
 *
 * Unlock is a 16-bit store of head + SPIN_TICKET_STEP: only the owner
 * writes the head, and an x86 store has release semantics (SDM Vol. 3A
 * 8.2.2), so no LOCK prefix is needed.
 *
 * Paravirtual mode (spin, then halt until kicked) lives in spinlock_pv.c,
 * whose file comment names its steps W0-W5 (a waiter) and U0-U5 (an
 * unlock) and argues that no wake-up is lost.  This file calls in at those
 * steps only: a waiter that has spun long enough asks to sleep (W0-W5),
 * and an unlock reads the mode before and after its store (U0, U2).
 */
#ifndef LIB_SPINLOCK_TICKET_H
#define LIB_SPINLOCK_TICKET_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "platform.h"
#include "spinlock.h"
#include "spinlock_pv.h"
#include "spinlock_wait.h"
#include "trace.h"

/* The ticket a queued CPU takes: the tail before the XADD, less the flag. */
static inline uint16_t spin_take_ticket(spinlock_t *lock, uint32_t *old)
{
	*old = atomic_xadd32(&lock->val, SPIN_TICKET_ONE);
	return (uint16_t)(*old >> SPIN_TICKET_BITS) & (uint16_t)~SPIN_TAIL_SLEEPERS;
}

/*
 * Wait until the head reaches @ticket and the turn is ours.  Panics once
 * the head has not moved for SPIN_TIMEOUT_NS; in paravirtual mode sleeps
 * between bursts of spinning, and queues again if passed over while asleep.
 * Records its events whenever spin events are recorded (both copies call it).
 */
static __attribute__((noinline)) void spin_wait_for(spinlock_t *lock, uint16_t ticket)
{
	uint64_t start = platform_now_ns();
	uint16_t head;
	struct spin_wait w;
	bool passed = false;

	spin_wait_start(&w, lock);
	trace_ev(TR_SPIN_WAIT, lock, ticket);
	while ((head = atomic_load16(&lock->tickets.head)) != ticket) {
		bool due = spin_wait_due(&w);
		bool sleep = w.turns % SPIN_PV_SPINS == 0 && spin_pv_enabled() &&
			     platform_now_ns() - start >= SPIN_PV_MIN_NS && spin_pv_arm();

		if (sleep) {
			if (spin_pv_sleep(lock, ticket, passed)) {
				uint32_t old;

				/* Queued again: spin afresh before sleeping, the turn is near. */
				passed = true;
				ticket = spin_take_ticket(lock, &old);
				trace_ev(TR_SPIN_WAIT, lock, ticket);
				start = platform_now_ns();
			}
		} else {
			platform_relax();
		}
		if (sleep || due)
			spin_wait_check(&w, head, "the head to reach its ticket", ticket);
	}
	trace_ev(TR_SPIN_ACQ, lock, ticket);
}

/*
 * The ticket lock's bodies, for a constant @traced.  Lock: one XADD, and
 * the wait if the lock was not free (spin_wait_for records its own events).
 */
static inline __attribute__((always_inline)) void ticket_lock_body(spinlock_t *lock, bool traced)
{
	uint32_t old;
	uint16_t ticket = spin_take_ticket(lock, &old);

	if (__builtin_expect((uint16_t)old != ticket, 0))
		spin_wait_for(lock, ticket);
	else if (traced)
		trace_ev(TR_SPIN_ACQ, lock, ticket);
}

/* Unlock: the release stamped before the store that hands the lock on. */
static inline __attribute__((always_inline)) void ticket_unlock_body(spinlock_t *lock, bool traced)
{
	uint16_t head;

	if (traced)
		trace_ev(TR_SPIN_REL, lock, 0);
	if (__builtin_expect(spin_pv_mode() == SPIN_PV_ARMED, 0)) { /* U0 */
		spin_pv_unlock_armed(lock);
		return;
	}
	/* Only the owner writes the head: a release store hands the lock on. */
	head = (uint16_t)(atomic_load16(&lock->tickets.head) + SPIN_TICKET_STEP);
	atomic_store16(&lock->tickets.head, head); /* U1 */
	/* U1 before U2 in program order, where the arming CPU's fence interrupt sees them. */
	atomic_compiler_barrier();
	if (__builtin_expect(spin_pv_mode() >= SPIN_PV_ARMING, 0)) /* U2 */
		spin_pv_unlock_fence(lock, head);
}

/* Trylock: take the next ticket only if nobody else took one since we looked. */
static inline __attribute__((always_inline)) bool ticket_trylock_body(spinlock_t *lock, bool traced)
{
	spinlock_t old = {.val = atomic_load32(&lock->val)};

	if (old.tickets.head != old.tickets.tail ||
	    !atomic_cmpxchg32(&lock->val, &old.val, old.val + SPIN_TICKET_ONE))
		return false;
	if (traced)
		trace_ev(TR_SPIN_ACQ, lock, old.tickets.tail);
	return true;
}

/* The bodies with @traced true, out of line: spinlock_kinds.c makes them from the list. */
void ticket_lock_traced(spinlock_t *lock);
void ticket_unlock_traced(spinlock_t *lock);

/* spin_lock and spin_unlock of this kind alone, no dispatch: spinlock_bare.c. */
void ticket_lock_bare(spinlock_t *lock) ACQUIRES(*lock);
void ticket_unlock_bare(spinlock_t *lock) RELEASES(*lock);

/* The ticket lock's waiters column: the tickets handed out past the holder's. */
static inline unsigned ticket_value_waiters(spinlock_t copy)
{
	uint16_t queued = (uint16_t)((copy.tickets.tail & ~SPIN_TAIL_SLEEPERS) - copy.tickets.head);

	return queued ? queued / SPIN_TICKET_STEP - 1 : 0;
}

/*
 * The broken twin, for torture.busted=ticket and torture.busted=spinlock
 * only (NEGATIVE CONTROL: no lock calls it): a "lock" that excludes nobody.
 * The trace records the hold the caller believes it has: trace_check.py
 * must see the overlap.
 */
static inline void ticket_lock_busted(spinlock_t *lock)
{
	trace_ev(TR_SPIN_ACQ, lock, 0);
}

static inline void ticket_unlock_busted(spinlock_t *lock)
{
	trace_ev(TR_SPIN_REL, lock, 0);
}

#endif /* LIB_SPINLOCK_TICKET_H */
