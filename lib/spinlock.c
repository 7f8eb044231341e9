// SPDX-License-Identifier: MIT
/*
 * spinlock.c - the ticket spinlock of spinlock.h, with the debug build's owner
 * checks (spinlock_debug.h) and the trace events of docs/tracing.md.
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
 * The queued spinlock (qspinlock.c) is the other kind of spinlock_t: each
 * entry point below tests the kind first (spin_kind_set) and keeps the
 * debug checks for both kinds.
 *
 * Paravirtual mode (spin, then halt until kicked) lives in spinlock_pv.c,
 * whose file comment names its steps W0-W5 (a waiter) and U0-U5 (an
 * unlock) and argues that no wake-up is lost.  This file calls in at those
 * steps only: a waiter that has spun long enough asks to sleep (W0-W5),
 * and an unlock reads the mode before and after its store (U0, U2).
 */
#include "spinlock.h"

#include "atomic.h"
#include "lockdep.h"
#include "platform.h"
#include "qspinlock.h"
#include "spinlock_debug.h"
#include "spinlock_pv.h"
#include "trace.h"

void spin_kind_set(enum spin_kind kind)
{
	atomic_store8(&lock_switches.spin_kind, (uint8_t)kind);
}

/* The kind test of every call: a predicted branch on a line nobody writes. */
static inline bool spin_is_queued_kind(void)
{
	return __builtin_expect(spin_kind() != SPIN_KIND_TICKET, 0);
}

/*
 * The kind, the trace switch and the checker's in one load (lib/trace.h):
 * 0 is the plain ticket lock, untraced and unchecked; SPIN_KIND_QSPINLOCK
 * alone is the queued kind, untraced and unchecked.
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "spin_switches: the kind must be the low byte of the switch word");

static inline uint32_t spin_switches(void)
{
	return atomic_load32(&lock_switches.any);
}

/* The switch word less the lock-order checker's byte: the kind and the trace switch. */
#define SPIN_SWITCHES_LOCKDEP (0xffu << 16)

void spin_init_key(spinlock_t *lock, struct lock_class_key *key)
{
	atomic_store32(&lock->val, 0);
	trace_ev(TR_SPIN_INIT, lock, 0);
	if (__builtin_expect(atomic_load8_relaxed(&lock_switches.lockdep) != 0, 0))
		lockdep_init_lock(lock, key);
}

/* The ticket a queued CPU takes: the tail before the XADD, less the flag. */
static uint16_t spin_take_ticket(spinlock_t *lock, uint32_t *old)
{
	*old = atomic_xadd32(&lock->val, SPIN_TICKET_ONE);
	return (uint16_t)(*old >> SPIN_TICKET_BITS) & (uint16_t)~SPIN_TAIL_SLEEPERS;
}

static __attribute__((noreturn)) void spin_deadlock(spinlock_t *lock, uint16_t ticket,
						    uint16_t head)
{
	platform_panic("spinlock %p: cpu %u waited for ticket %u, and the head stayed at %u "
		       "(tail %u) for over %llu s: deadlock?",
		       (void *)lock, platform_cpu_id(), ticket, head,
		       atomic_load16(&lock->tickets.tail),
		       (unsigned long long)(SPIN_TIMEOUT_NS / 1000000000u));
}

/*
 * Wait until the head reaches @ticket and the turn is ours.  Panics once
 * the head has not moved for SPIN_TIMEOUT_NS; in paravirtual mode sleeps
 * between bursts of spinning, and queues again if passed over while asleep.
 */
static __attribute__((noinline)) void spin_wait_for(spinlock_t *lock, uint16_t ticket)
{
	uint64_t start = platform_now_ns(), since = start;
	uint16_t head, seen = atomic_load16(&lock->tickets.head);
	unsigned spins = 0;
	bool passed = false;

	if (seen != ticket)
		trace_ev(TR_SPIN_WAIT, lock, ticket);
	while ((head = atomic_load16(&lock->tickets.head)) != ticket) {
		bool sleep = ++spins % SPIN_PV_SPINS == 0 && spin_pv_enabled() &&
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
		if (!sleep && spins % SPIN_CLOCK_EVERY != 0)
			continue;
		if (head != seen) {
			seen = head;
			since = platform_now_ns();
		} else if (platform_now_ns() - since > SPIN_TIMEOUT_NS) {
			spin_deadlock(lock, ticket, head);
		}
	}
	trace_ev(TR_SPIN_ACQ, lock, ticket);
}

/*
 * The queued kind, the ticket lock traced, or either checked (@switches:
 * the switch word as spin_lock read it): the checker first, before any
 * wait, so that it reports a deadlock before it happens; a traced ticket
 * lock's wait, if any, and its acquisition are recorded by spin_wait_for.
 */
static __attribute__((noinline)) void spin_lock_switched(spinlock_t *lock, uint32_t switches,
							 unsigned subclass, uintptr_t site)
{
	uint32_t old;
	uint16_t ticket;

	if (switches & SPIN_SWITCHES_LOCKDEP) {
		lockdep_acquire(lock, subclass, false, site);
		switches &= ~SPIN_SWITCHES_LOCKDEP;
	}
	if (switches == 0) {
		ticket = spin_take_ticket(lock, &old);
		if ((uint16_t)old != ticket)
			spin_wait_for(lock, ticket);
	} else if (switches == SPIN_KIND_QSPINLOCK)
		qspin_lock_untraced(lock);
	else if (spin_is_queued_kind())
		qspin_lock(lock); /* traced inside */
	else
		spin_wait_for(lock, spin_take_ticket(lock, &old));
}

/*
 * Exempt from the lock rules: this is the lock itself, taken by an XADD the
 * analysis cannot see.  The switches are tested before the XADD: after it,
 * their load waited for the locked instruction and made every uncontended
 * acquisition slower (tools/trace_cost.py measured it).
 */
LOCK_RULES_EXEMPT void spin_lock(spinlock_t *lock)
{
	uint32_t switches = spin_switches(), old;
	uint16_t ticket;

	spin_debug_before_lock(lock);
	if (__builtin_expect(switches != 0, 0)) {
		spin_lock_switched(lock, switches, 0, LOCKDEP_SITE());
	} else {
		ticket = spin_take_ticket(lock, &old);
		if ((uint16_t)old != ticket)
			spin_wait_for(lock, ticket);
	}
	spin_debug_acquired(lock);
}

/* spin_lock with a declared subclass, from the caller's @site (lockref passes its own caller's). */
LOCK_RULES_EXEMPT void spin_lock_at(spinlock_t *lock, unsigned subclass, uintptr_t site)
{
	spin_debug_before_lock(lock);
	spin_lock_switched(lock, spin_switches(), subclass, site);
	spin_debug_acquired(lock);
}

LOCK_RULES_EXEMPT void spin_lock_nested(spinlock_t *lock, unsigned subclass)
{
	spin_lock_at(lock, subclass, LOCKDEP_SITE());
}

/* spin_unlock's work once the caller's hold is checked and recorded. */
static inline __attribute__((always_inline)) void spin_unlock_body(spinlock_t *lock)
{
	uint16_t head;

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

/*
 * The queued kind, the ticket lock traced, or either checked: the release
 * stamped before the store that hands it on.
 */
static __attribute__((noinline)) void spin_unlock_switched(spinlock_t *lock, uint32_t switches,
							   uintptr_t site)
{
	if (switches & SPIN_SWITCHES_LOCKDEP) {
		lockdep_release(lock, site);
		switches &= ~SPIN_SWITCHES_LOCKDEP;
	}
	if (switches == 0) {
		spin_unlock_body(lock);
	} else if (switches == SPIN_KIND_QSPINLOCK) {
		qspin_unlock_untraced(lock);
	} else if (spin_is_queued_kind()) {
		qspin_unlock(lock); /* traced inside */
	} else {
		trace_ev(TR_SPIN_REL, lock, 0);
		spin_unlock_body(lock);
	}
}

LOCK_RULES_EXEMPT void spin_unlock(spinlock_t *lock)
{
	uint32_t switches = spin_switches();

	spin_debug_release(lock);
	if (__builtin_expect(switches != 0, 0))
		spin_unlock_switched(lock, switches, LOCKDEP_SITE());
	else
		spin_unlock_body(lock);
}

LOCK_RULES_EXEMPT void spin_unlock_at(spinlock_t *lock, uintptr_t site)
{
	spin_debug_release(lock);
	spin_unlock_switched(lock, spin_switches(), site);
}

/* A trylock that took the lock: onto the checker's stack, with no order (it never waited). */
static void spin_trylock_taken(spinlock_t *lock, uintptr_t site)
{
	if (__builtin_expect(atomic_load8_relaxed(&lock_switches.lockdep) != 0, 0))
		lockdep_acquire(lock, 0, true, site);
	spin_debug_acquired(lock);
}

LOCK_RULES_EXEMPT bool spin_trylock(spinlock_t *lock)
{
	spinlock_t old = {.val = atomic_load32(&lock->val)};

	if (spin_is_queued_kind()) {
		if (!qspin_trylock(lock))
			return false;
		spin_trylock_taken(lock, LOCKDEP_SITE());
		return true;
	}
	if (!spin_value_unlocked(old))
		return false;
	/* Take the next ticket only if nobody else took one since we looked. */
	if (!atomic_cmpxchg32(&lock->val, &old.val, old.val + SPIN_TICKET_ONE))
		return false;
	trace_ev(TR_SPIN_ACQ, lock, old.tickets.tail);
	spin_trylock_taken(lock, LOCKDEP_SITE());
	return true;
}

bool spin_is_locked(const spinlock_t *lock)
{
	spinlock_t copy = {.val = atomic_load32(&lock->val)};

	return !spin_value_unlocked(copy);
}
