/*
 * spinlock.h - a 4-byte ticket spinlock.
 *
 * Why tickets: a CPU takes a ticket (one XADD on the tail) and waits until
 * the head reaches it, so waiters are served in arrival order and nobody
 * starves under contention.  Why 4 bytes: the lockref (lockref.h) packs this
 * lock and a 32-bit count into one 8-byte word that a single compare-exchange
 * updates, so the lock must be exactly 32 bits and "unlocked" must be
 * decidable from a copy of those bits (spin_value_unlocked).
 *
 * Layout of the 32-bit word: head in bits 0-15 (the ticket being served),
 * tail in bits 16-31 (the next ticket to hand out).  Free iff head == tail.
 * Both halves wrap at 2^16; that is harmless while fewer than 2^16 CPUs can
 * wait at once, which a static assertion checks against MAX_CPUS.
 *
 * None of these functions sleeps or disables interrupts: the kernel holds
 * spinlocks only with interrupts that could take the same lock masked.
 *
 * Debug build (-DSPINLOCK_DEBUG): every CPU keeps a short list of the locks
 * it holds, outside the lock word (which must stay 4 bytes for the lockref);
 * spin_lock panics on a lock the caller already holds (it would deadlock)
 * and spin_unlock panics on a lock the caller does not hold.
 */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "platform.h"

typedef struct spinlock {
	union {
		uint32_t val;
		struct {
			uint16_t head; /* ticket now being served */
			uint16_t tail; /* next ticket to hand out */
		} tickets;
	};
} spinlock_t;

/* Adding this to val hands out the next ticket: the tail is the upper half. */
#define SPIN_TICKET_ONE	 (1u << 16)
#define SPIN_TICKET_BITS 16

_Static_assert(sizeof(spinlock_t) == 4, "the lockref needs a 4-byte lock");
_Static_assert(MAX_CPUS < (1u << SPIN_TICKET_BITS), "MAX_CPUS waiters must fit a 16-bit ticket");

/*
 * How long spin_lock waits before deciding the system is deadlocked and
 * panicking.  Generous: under emulation with more vCPUs than host cores a
 * holder can be descheduled for a long time.
 */
#define SPIN_TIMEOUT_NS (20ull * 1000 * 1000 * 1000)

/* A free lock, for static initialisation. */
#define SPINLOCK_INIT                                                                              \
	{                                                                                          \
		.val = 0                                                                           \
	}

/* Make @lock free.  Only for a lock nobody else can be using yet. */
void spin_init(spinlock_t *lock);

/*
 * Take @lock, waiting (with PAUSE) as long as necessary; returns with the
 * lock held.  Panics if the wait exceeds SPIN_TIMEOUT_NS, and in a debug
 * build if the caller already holds @lock.
 */
void spin_lock(spinlock_t *lock);

/* Release @lock, which the caller holds.  Debug build: panics if it does not. */
void spin_unlock(spinlock_t *lock);

/*
 * Take @lock only if it is free right now.  Returns true with the lock held,
 * or false (lock not held, nothing changed) if anyone holds or waits for it.
 */
bool spin_trylock(spinlock_t *lock);

/* True if someone holds @lock at this instant (a hint: it may change at once). */
bool spin_is_locked(const spinlock_t *lock);

/*
 * True if the caller holds @lock.  Exact in a debug build; otherwise it can
 * only say whether anyone holds it, so use it in assertions that a lock is
 * held, never to decide that the caller does not hold it.
 */
bool spin_is_held(const spinlock_t *lock);

/*
 * Decide from a copy of the lock word, not the live lock, whether that value
 * is free: unlocked iff head == tail.  A CPU waiting in the queue leaves
 * tail ahead of head, so it counts as locked.  Used by the lockref, which
 * reads the lock and its count in one load.
 */
static inline bool spin_value_unlocked(spinlock_t copy)
{
	return copy.tickets.head == copy.tickets.tail;
}

/*
 * NEGATIVE CONTROL ONLY (torture.busted=spinlock and the host test's busted
 * build): a "lock" that does nothing, so the torture test can prove that it
 * notices broken mutual exclusion.  Never use these for anything else.
 */
void spin_lock_busted(spinlock_t *lock);
void spin_unlock_busted(spinlock_t *lock);

#endif /* LIB_SPINLOCK_H */
