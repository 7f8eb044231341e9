// SPDX-License-Identifier: MIT
/*
 * spinlock.h - the 4-byte spinlock_t of every lock and lockref, and its kinds
 * (spinlock_kinds.h's SPIN_KIND_LIST: one line each, chosen at boot by
 * spinlock.kind=).  Each kind has a header of its own, the default the ticket lock
 * (spinlock_ticket.h: why tickets, and why it can sleep when CPUs are
 * virtual); spinlock_kinds.h lists them.  This file holds what every kind
 * shares: the word, the switches and the entry points that dispatch over
 * the kinds (spinlock.c).
 *
 * Why 4 bytes: the lockref (lockref.h) packs this lock and a 32-bit count
 * into one 8-byte word that a single compare-exchange updates, so the lock
 * must be exactly 32 bits and "unlocked" must be decidable from a copy of
 * those bits (spin_value_unlocked).
 *
 * Layout of the 32-bit word under the ticket kind (the queued kind's:
 * qspinlock.h): head in bits 0-15 (the ticket being served), tail in bits
 * 16-31 (the next ticket to hand out).  Tickets advance by
 * SPIN_TICKET_STEP (2), so they are even and bit 0 of the tail is free for
 * SPIN_TAIL_SLEEPERS: "a waiter may be asleep; the unlocker must look".
 * Free iff head == tail: a set flag makes the tail odd, so a lock with a
 * sleeper never looks free, and the lockref's one-comparison test is
 * unchanged.  Both halves wrap at 2^16; that is harmless while fewer than
 * 2^15 CPUs can wait at once, which a static assertion checks.
 *
 * None of these functions disables interrupts; a paravirtual waiter enables
 * them for its halt alone (platform_cpu_wait).  The kernel holds spinlocks
 * only with interrupts that could take the same lock masked.
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

#include "atomic.h"
#include "lock_rules.h"
#include "lockdep.h"
#include "platform.h"
#include "spinlock_kinds.h"
#include "static_key.h"

typedef struct LOCK_TYPE("spinlock") spinlock {
	union {
		uint32_t val;
		struct {
			uint16_t head; /* ticket now being served */
			uint16_t tail; /* next ticket to hand out */
		} tickets;
		/* The queued kind's word (qspinlock.h), with Linux's names for its parts. */
		struct {
			union {
				struct {
					uint8_t locked;	 /* QSPIN_LOCKED while held */
					uint8_t pending; /* 1: a CPU waits on the word */
				};
				uint16_t locked_pending; /* both, for the pending CPU's one store */
			};
			uint16_t tail; /* the last queued CPU's node, 0: no queue */
		} queued;
	};
} spinlock_t;

/* One ticket; bit 0 of the tail is SPIN_TAIL_SLEEPERS, so tickets are even. */
#define SPIN_TICKET_STEP 2u
#define SPIN_TICKET_BITS 16
/* Adding this to val hands out the next ticket: the tail is the upper half. */
#define SPIN_TICKET_ONE (SPIN_TICKET_STEP << SPIN_TICKET_BITS)
/* In the tail: some waiter announced that it sleeps (paravirtual mode only). */
#define SPIN_TAIL_SLEEPERS 1u

_Static_assert(sizeof(spinlock_t) == 4, "the lockref needs a 4-byte lock");
_Static_assert(MAX_CPUS < (1u << SPIN_TICKET_BITS) / SPIN_TICKET_STEP,
	       "MAX_CPUS waiters must fit the 16-bit tickets");

/*
 * How long spin_lock waits while the queue does not move at all (the head
 * stays put) before deciding the system is deadlocked and panicking.  On
 * progress, not on the total wait: with hundreds of virtual CPUs on two
 * cores a waiter far back in the queue rightly waits long, but the queue
 * always moves.  Generous: a descheduled holder can stall it for a while.
 */
#define SPIN_TIMEOUT_NS (20ull * 1000 * 1000 * 1000)

/* A free lock, for static initialisation. */
#define SPINLOCK_INIT                                                                              \
	{                                                                                          \
		.val = 0                                                                           \
	}

/*
 * Make @lock free, of @key's lock class (lib/lockdep.h).  Only for a lock
 * nobody else can be using yet.  spin_init names the class after the
 * argument's text at the call site ("&fs->rename_lock"), spin_init_named
 * after @name ("fs:rename"); every lock initialised at one site shares its
 * class, as in Linux.
 */
void spin_init_key(spinlock_t *lock, struct lock_class_key *key);
#define spin_init(lock)		    spin_init_key((lock), LOCKDEP_KEY(#lock))
#define spin_init_named(lock, name) spin_init_key((lock), LOCKDEP_KEY(name))

/*
 * Take @lock, waiting (with PAUSE, and in paravirtual mode halting after a
 * while) as long as necessary; returns with the lock held.  Panics if the
 * head does not move for SPIN_TIMEOUT_NS, and in a debug build if the
 * caller already holds @lock.
 */
void spin_lock(spinlock_t *lock) ACQUIRES(*lock);

/*
 * Release @lock, which the caller holds, waking the next waiter if it
 * sleeps.  Debug build: panics if the caller does not hold it.
 */
void spin_unlock(spinlock_t *lock) RELEASES(*lock);

/*
 * spin_lock for a lock of the same class as one the caller holds: the
 * lock-order checker takes it as class @subclass (1 to LOCKDEP_SUBCLASSES
 * - 1, a class of its own), so the nesting is checked as an order
 * (Linux's spin_lock_nested).  fs/ nests parent and child nodes so.
 */
void spin_lock_nested(spinlock_t *lock, unsigned subclass) ACQUIRES(*lock);

/*
 * spin_lock_nested and spin_unlock naming @site as the code address of the
 * acquisition (LOCKDEP_SITE()), for a lock taken on someone's behalf: the
 * lockref passes its caller's, so reports name the fs line, not lockref.c.
 * The same one dispatch as spin_lock: the site is used only while checking.
 */
void spin_lock_at(spinlock_t *lock, unsigned subclass, uintptr_t site) ACQUIRES(*lock);
void spin_unlock_at(spinlock_t *lock, uintptr_t site) RELEASES(*lock);

/*
 * Paravirtual mode on or off, for every lock.  Switch only while no lock
 * is contended (at boot, or between benchmark runs with every other CPU at
 * a barrier): a waiter asleep when it is switched off is woken only by its
 * sleep's time bound (PLATFORM_WAIT_MAX_NS), late but correctly.  Either
 * way it disarms sleeping, so the next waiter that needs to sleep arms it
 * again (spinlock_pv.c).  What waiters did in it: pv_stats.h.
 */
void spin_pv_set(bool on);
bool spin_pv_enabled(void);

/*
 * Take @lock only if it is free right now.  Returns true with the lock held,
 * or false (lock not held, nothing changed) if anyone holds or waits for it.
 */
MUST_CHECK bool spin_trylock(spinlock_t *lock) TRY_ACQUIRES(true, *lock);

/*
 * True if someone holds @lock at this instant (a hint: it may change at
 * once; a sleepers flag not yet cleared also reads as held).
 */
bool spin_is_locked(const spinlock_t *lock);

/*
 * True if the caller holds @lock.  Exact in a debug build; otherwise it can
 * only say whether anyone holds it, so use it in assertions that a lock is
 * held, never to decide that the caller does not hold it.
 */
bool spin_is_held(const spinlock_t *lock);

/*
 * The kinds of spinlock_t (SPIN_KIND_LIST, enum spin_kind, spin_kind_names)
 * and what each promises (spin_kind_free, _fifo, _fair, _pv) are
 * spinlock_kinds.h's, included above.
 */

/*
 * The lock layer's switches, owned here and read by every spin_* call: the
 * kind and whether spin events are recorded (together the dispatch of
 * spin_lock, spin_unlock and spin_trylock: one byte, one load, one
 * predicted branch) and the paravirtual mode (spinlock_pv.h), which a ticket
 * unlock reads twice.  Written rarely, by the setters below and spin_pv_set
 * and the one arming of sleep (spinlock_pv.c); read-mostly and in a
 * cache-line pair of its own, so each read hits.
 */
#define SPIN_MODE_KIND	 7u /* bits of spin_switches.mode: the enum spin_kind in force (8) */
#define SPIN_MODE_TRACED 8u /* bit of spin_switches.mode: spin events are recorded */
/* Bit of spin_switches.mode: lock orders are checked (lib/lockdep.h); out of line, each kind. */
#define SPIN_MODE_CHECKED 16u
_Static_assert(SPIN_KINDS <= SPIN_MODE_KIND + 1, "every kind must fit SPIN_MODE_KIND's bits");
_Static_assert(SPIN_KIND_TICKET == 0, "mode 0 (every switch at its default) is the first kind");

struct spin_switches {
	uint8_t mode; /* SPIN_MODE_*: the kind, traced, checked */
	uint8_t pv;   /* enum spin_pv_mode (spinlock_pv.h) */
} __attribute__((aligned(CACHE_PAIR_BYTES)));
extern struct spin_switches spin_switches;

/*
 * The switch word is read only behind a static key (lib/static_key.h), so
 * that while every switch is at its default (the first kind, no pv,
 * unchecked, untraced) a lock call and the lockref's lockless test read no
 * switch at all: spin_switched_key guards every read of spin_switches,
 * spin_kinds_key (on only where another kind may be chosen) the lockref's
 * "is this word free" test.  The setters turn the keys on before they move
 * a switch off its default, and leave the switch alone if the platform
 * refuses (the kernel: after the other CPUs started).
 */
extern struct static_key spin_switched_key;
extern struct static_key spin_kinds_key;

/*
 * Make the dispatch byte's @mask bits @value (spinlock.c; for the lock
 * layer's own setters: spin_kind_set, spin_trace_set, spin_check_set).
 * Setting a bit turns spin_switched_key on first; false, nothing changed,
 * if the platform refused it.
 */
bool spin_mode_write(uint8_t mask, uint8_t value);

/* The dispatch of every spin_* call; plain load, it changes only while no lock is in use. */
static inline __attribute__((always_inline)) unsigned spin_mode(void)
{
	if (!static_key_guard(&spin_switched_key))
		return 0;
	return atomic_load8_relaxed(&spin_switches.mode);
}

/* The kind in force. */
static inline enum spin_kind spin_kind(void)
{
	return (enum spin_kind)(spin_mode() & SPIN_MODE_KIND);
}

/*
 * Make every spinlock_t @kind.  Only while no lock is held or contended (at
 * boot, or between benchmark trials with every other CPU at a barrier): a
 * lock word means different things to the two kinds.  From ticket to
 * qspinlock, every lock used before must be spin_init'ed again before its
 * next use: a free ticket lock is head == tail, not necessarily 0, and the
 * queued kind reads any non-zero word as held.  The other way needs
 * nothing (0 is free to both).  The locks of spin_init_global are
 * re-initialised here, so the platform's own locks stay usable.
 */
void spin_kind_set(enum spin_kind kind);

/*
 * spin_init (spin_init_named with @name), and remember @lock as one that outlives kind switches (the
 * console's, the heap's: any CPU may take them at any time, a failure
 * report in the middle of a benchmark trial included).  spin_kind_set makes
 * every such lock free under the new kind: it panics, naming the lock, if
 * one is held then.  At most SPIN_GLOBALS_MAX; calling it again for the
 * same lock only re-initialises it.
 */
#define SPIN_GLOBALS_MAX 8
void spin_init_global_key(spinlock_t *lock, struct lock_class_key *key);
#define spin_init_global(lock)		   spin_init_global_key((lock), LOCKDEP_KEY(#lock))
#define spin_init_global_named(lock, name) spin_init_global_key((lock), LOCKDEP_KEY(name))

/*
 * The tracer's setter (lib/trace.c): @traced true while spin events are
 * recorded.  Safe at any time: it changes whether events are recorded, not
 * what a lock word means (a lock taken untraced and released traced only
 * leaves an R event without its A, as at a ring's start).
 */
void spin_trace_set(bool traced);

/*
 * Decide from a copy of the lock word, not the live lock, whether that value
 * is free.  Ticket: unlocked iff head == tail; a CPU waiting in the queue
 * leaves tail ahead of head, and a sleeper's flag makes the tail odd, so
 * both count as locked.  Zero: unlocked iff the word is 0 (the queued
 * spinlock's holder, pending waiter or queue each set bits; a test-and-set
 * lock's holder sets the word).  Used by the lockref, which reads the lock
 * and its count in one load.
 */
static inline __attribute__((always_inline)) bool spin_value_unlocked_ticket(spinlock_t copy)
{
	return copy.tickets.head == copy.tickets.tail;
}

static inline __attribute__((always_inline)) bool spin_value_unlocked_zero(spinlock_t copy)
{
	return copy.val == 0;
}

/* The test @free names (a kind's .free property, spinlock_kinds.h). */
static inline __attribute__((always_inline)) bool spin_value_free(enum spin_free free,
								  spinlock_t copy)
{
	return free == SPIN_FREE_ZERO ? spin_value_unlocked_zero(copy)
				      : spin_value_unlocked_ticket(copy);
}

/* The test of the kind in force: the default kind's unless spin_kinds_key is on. */
static inline __attribute__((always_inline)) bool spin_value_unlocked(spinlock_t copy)
{
	if (static_key_guard(&spin_kinds_key) && __builtin_expect(spin_mode() & SPIN_MODE_KIND, 0))
		return spin_value_free(spin_kind_free(spin_kind()), copy);
	return spin_value_unlocked_ticket(copy);
}

/*
 * From a copy of a held lock's word: how many CPUs queue behind the holder,
 * as the kind in force's waiters column reads it (a lower bound: the queued
 * spinlock's word shows a pending waiter and a queue, so 0, 1 or 2; a
 * test-and-set word shows none).
 */
unsigned spin_value_waiters(spinlock_t copy);

/*
 * Append to @out the lock layer's keys whose switches are at their default
 * now (spin_switched_key while no bit of the dispatch byte is set and pv is
 * off, spin_kinds_key while the kind is the first): the keys a caller may
 * turn off, in one round with others (static_keys_set), once no lock is
 * held or waited for.  Returns how many; at most 2.
 */
unsigned spin_keys_at_default(struct static_key *out[]);

/*
 * Turn off, in one round with one line, the keys spin_keys_at_default
 * names: after a benchmark that moved the kind or pv off their default
 * and back, so the next one times the bare path again.  Only while no
 * lock is held or waited for.
 */
void spin_keys_settle(void);

/*
 * Lock-order checking on or off for every lock (lockdep_set calls it): the
 * SPIN_MODE_CHECKED bit, so that while it is off the dispatch's one test
 * covers it and checking costs the locks nothing.
 */
void spin_check_set(bool on);

#endif /* LIB_SPINLOCK_H */
