// SPDX-License-Identifier: MIT
/*
 * spinlock.c - the ticket spinlock of spinlock.h, plain or paravirtual.
 *
 * Taking the lock is one XADD on the whole 32-bit word that adds one ticket
 * to the tail and returns the old word: its tail half (less the sleepers
 * flag) is our ticket, its head half the ticket being served.  If they
 * match the lock was free and is now ours; otherwise we wait until the
 * owner's unlock advances the head to our ticket.  The 16-bit halves wrap
 * independently, which is why the tail carries out of bit 31 harmlessly.
 *
 * Plain unlock is a 16-bit store of head + SPIN_TICKET_STEP: only the owner
 * writes the head, and an x86 store has release semantics (SDM Vol. 3A
 * 8.2.2), so no LOCK prefix is needed.
 *
 * Paravirtual mode (the idea of Linux 3.12's paravirt ticket locks; this
 * is our own code).  A waiter spins a while (SPIN_PV_SPINS, SPIN_PV_MIN_NS), then:
 *   W1  writes (lock, ticket) into its CPU's slot in spin_pv_slots;
 *   W2  sets SPIN_TAIL_SLEEPERS in the lock word with a locked
 *       compare-exchange (which gives up if the head already is its ticket);
 *   W3  re-reads the head: if it is its ticket, it owns the lock, else
 *   W4  sleeps in platform_cpu_wait, which returns at once if the word
 *       changed since W3, or on a kick, or after a bounded time.
 * The unlocker:
 *   U1  advances the head with a locked XADD (not a plain store);
 *   U2  reads the tail: if SPIN_TAIL_SLEEPERS is set,
 *   U3  finds the CPU whose slot holds (lock, new head) and kicks it, and
 *       clears the flag if the lock is now free (nobody left to wake).
 *
 * Why no wake-up is lost.  W2 and U1 are locked instructions on the same
 * word, and locked instructions have one total order that plain loads do
 * not pass (SDM Vol. 3A 8.2.2, 8.2.3.8/9).  Either U1 came first: then W3,
 * after W2, reads the new head (or a later one) and the waiter does not
 * sleep.  Or W2 came first: then U2, after U1, sees the flag (nobody clears
 * it while the waiter's ticket is outstanding: U3 clears it only when head
 * == tail, i.e. no ticket is outstanding), and U3 sees the slot, which W1
 * wrote before W2; so the unlocker kicks.  The kick comes after U1, so if
 * the waiter has not yet compared the word in W4 it sees it changed and
 * does not sleep, and if it has, the kick ends the sleep
 * (platform_cpu_wait's contract).  That is why U1 is a locked XADD and not
 * the plain store: a store may wait in the store buffer while U2's load
 * goes ahead (SDM 8.2.3.4), letting U2 miss a flag that W2 sets while W3
 * still reads the old head.  tests/model/spinlock_pv.pml checks the
 * protocol, and that dropping W3, or kicking before U1, loses a wake-up.
 *
 * A kicked CPU that finds the head not yet its ticket (a stray kick, or a
 * stale slot) simply waits again; a kick to a CPU that is not asleep only
 * ends its next sleep early.  Either way nobody takes the lock out of turn:
 * ownership is decided by the head alone.
 */
#include "spinlock.h"

#include "atomic.h"
#include "platform.h"

/* Waiters look at the clock once per this many PAUSEs: cheap, yet a timeout is noticed soon. */
#define SPIN_CLOCK_EVERY (1u << 14)
/*
 * Paravirtual mode: a waiter sleeps once it has made SPIN_PV_SPINS PAUSEs
 * and waited SPIN_PV_MIN_NS, whichever comes later.  Under QEMU TCG, where
 * PAUSE leaves the vCPU loop, the count decides: measured with 4 vCPUs on
 * 2 busy host cores, the refcount benchmark at 4 CPUs kept 0.43x of its
 * 2-CPU throughput with 2^8 PAUSEs, 0.39x with 2^6 and 0.05x with 2^12
 * (spinning longer only burns the time slices the holder and the next
 * waiter need).  On hardware 2^8 PAUSEs take a few microseconds, less than
 * a plain queue of lock holders may: there the time decides, so a waiter
 * whose turn is near does not pay a sleep and a kick.
 */
#define SPIN_PV_SPINS  (1u << 8)
#define SPIN_PV_MIN_NS (50u * 1000)

/* Paravirtual mode on: read on every unlock, written only when no lock is contended. */
static bool spin_pv;

/* Where each CPU announces the ticket it sleeps for (W1); lock NULL when it does not. */
struct spin_pv_slot {
	const spinlock_t *lock;
	uint16_t ticket;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

static struct spin_pv_slot spin_pv_slots[MAX_CPUS];
static uint64_t spin_pv_sleeps, spin_pv_kicks;

#ifdef SPINLOCK_DEBUG

/* How many locks one CPU may hold at once in a debug build (deeper nesting panics). */
#define SPIN_DEBUG_DEPTH 8

/*
 * The locks each CPU holds.  Only that CPU writes or reads its own entry, so
 * no locking is needed; each entry has its own cache-line pair so that the
 * bookkeeping of one CPU never slows another.
 */
struct spin_held {
	const spinlock_t *locks[SPIN_DEBUG_DEPTH];
	unsigned n;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

static struct spin_held spin_held_by_cpu[MAX_CPUS];

static bool spin_debug_holds(const struct spin_held *h, const spinlock_t *lock)
{
	for (unsigned i = 0; i < h->n; i++)
		if (h->locks[i] == lock)
			return true;
	return false;
}

static void spin_debug_before_lock(spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();

	if (spin_debug_holds(&spin_held_by_cpu[cpu], lock))
		platform_panic("spinlock %p: cpu %u takes a lock it already holds (deadlock)",
			       (void *)lock, cpu);
}

static void spin_debug_acquired(spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();
	struct spin_held *h = &spin_held_by_cpu[cpu];

	if (h->n == SPIN_DEBUG_DEPTH)
		platform_panic("spinlock %p: cpu %u holds more than %d locks", (void *)lock, cpu,
			       SPIN_DEBUG_DEPTH);
	h->locks[h->n++] = lock;
}

static void spin_debug_release(spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();
	struct spin_held *h = &spin_held_by_cpu[cpu];

	for (unsigned i = 0; i < h->n; i++) {
		if (h->locks[i] == lock) {
			/* Locks need not be released in order: close the gap. */
			h->locks[i] = h->locks[--h->n];
			return;
		}
	}
	platform_panic("spinlock %p: cpu %u unlocks a lock it does not hold (head %u tail %u)",
		       (void *)lock, cpu, lock->tickets.head, lock->tickets.tail);
}

bool spin_is_held(const spinlock_t *lock)
{
	return spin_debug_holds(&spin_held_by_cpu[platform_cpu_id()], lock);
}

#else /* !SPINLOCK_DEBUG */

static void spin_debug_before_lock(spinlock_t *lock)
{
	(void)lock;
}

static void spin_debug_acquired(spinlock_t *lock)
{
	(void)lock;
}

static void spin_debug_release(spinlock_t *lock)
{
	(void)lock;
}

bool spin_is_held(const spinlock_t *lock)
{
	return spin_is_locked(lock);
}

#endif /* SPINLOCK_DEBUG */

void spin_init(spinlock_t *lock)
{
	atomic_store32(&lock->val, 0);
}

void spin_pv_set(bool on)
{
	__atomic_store_n(&spin_pv, on, __ATOMIC_SEQ_CST);
}

bool spin_pv_enabled(void)
{
	return __atomic_load_n(&spin_pv, __ATOMIC_RELAXED);
}

void spin_pv_counts(uint64_t *sleeps, uint64_t *kicks)
{
	*sleeps = __atomic_load_n(&spin_pv_sleeps, __ATOMIC_RELAXED);
	*kicks = __atomic_load_n(&spin_pv_kicks, __ATOMIC_RELAXED);
}

/* W1-W4 of the file comment: announce, re-check, sleep; returns on any wake. */
static void spin_pv_sleep(spinlock_t *lock, uint16_t ticket)
{
	struct spin_pv_slot *slot = &spin_pv_slots[platform_cpu_id()];
	uint32_t word = atomic_load32(&lock->val);

	atomic_store16(&slot->ticket, ticket);
	__atomic_store_n(&slot->lock, lock, __ATOMIC_RELEASE); /* W1 */
	do {
		if ((uint16_t)word == ticket)
			goto out;
	} while (!atomic_cmpxchg32(&lock->val, &word,
				   word | (SPIN_TAIL_SLEEPERS << SPIN_TICKET_BITS))); /* W2 */
	word = atomic_load32(&lock->val);
	if ((uint16_t)word == ticket) /* W3 */
		goto out;
	__atomic_add_fetch(&spin_pv_sleeps, 1, __ATOMIC_RELAXED);
	platform_cpu_wait(&lock->val, word); /* W4 */
out:
	__atomic_store_n(&slot->lock, NULL, __ATOMIC_RELEASE);
}

/* U3: wake whoever sleeps for @head, and drop the flag if nobody is left to wake. */
static __attribute__((noinline)) void spin_pv_kick(spinlock_t *lock, uint16_t head)
{
	unsigned n = platform_cpu_count();
	spinlock_t now;

	for (unsigned cpu = 0; cpu < n; cpu++) {
		struct spin_pv_slot *slot = &spin_pv_slots[cpu];

		if (__atomic_load_n(&slot->lock, __ATOMIC_ACQUIRE) == lock &&
		    atomic_load16(&slot->ticket) == head) {
			__atomic_add_fetch(&spin_pv_kicks, 1, __ATOMIC_RELAXED);
			platform_cpu_kick(cpu);
			break;
		}
	}
	now.val = atomic_load32(&lock->val);
	if (now.tickets.head == (now.tickets.tail & ~SPIN_TAIL_SLEEPERS)) {
		uint32_t flagged = now.val;

		/* Fails harmlessly if a ticket was taken since: its unlock tries again. */
		atomic_cmpxchg32(&lock->val, &flagged,
				 flagged & ~(SPIN_TAIL_SLEEPERS << SPIN_TICKET_BITS));
	}
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
 * Wait until the head reaches @ticket.  Panics once the head has not moved
 * for SPIN_TIMEOUT_NS; in paravirtual mode sleeps between bursts of spinning.
 */
static __attribute__((noinline)) void spin_wait_for(spinlock_t *lock, uint16_t ticket)
{
	uint64_t start = platform_now_ns(), since = start;
	uint16_t head, seen = atomic_load16(&lock->tickets.head);
	unsigned spins = 0;

	while ((head = atomic_load16(&lock->tickets.head)) != ticket) {
		bool sleep = ++spins % SPIN_PV_SPINS == 0 && spin_pv_enabled() &&
			     platform_now_ns() - start >= SPIN_PV_MIN_NS;

		if (sleep)
			spin_pv_sleep(lock, ticket);
		else
			platform_relax();
		if (!sleep && spins % SPIN_CLOCK_EVERY != 0)
			continue;
		if (head != seen) {
			seen = head;
			since = platform_now_ns();
		} else if (platform_now_ns() - since > SPIN_TIMEOUT_NS) {
			spin_deadlock(lock, ticket, head);
		}
	}
}

void spin_lock(spinlock_t *lock)
{
	uint32_t old;
	uint16_t ticket;

	spin_debug_before_lock(lock);
	old = atomic_xadd32(&lock->val, SPIN_TICKET_ONE);
	ticket = (uint16_t)(old >> SPIN_TICKET_BITS) & (uint16_t)~SPIN_TAIL_SLEEPERS;
	if ((uint16_t)old != ticket)
		spin_wait_for(lock, ticket);
	spin_debug_acquired(lock);
}

void spin_unlock(spinlock_t *lock)
{
	uint16_t head;

	spin_debug_release(lock);
	if (!spin_pv_enabled()) {
		/* Only the owner writes the head: a release store hands the lock on. */
		atomic_store16(&lock->tickets.head,
			       (uint16_t)(atomic_load16(&lock->tickets.head) + SPIN_TICKET_STEP));
		return;
	}
	head = (uint16_t)(atomic_xadd16(&lock->tickets.head, SPIN_TICKET_STEP) +
			  SPIN_TICKET_STEP);						  /* U1 */
	if (__builtin_expect(atomic_load16(&lock->tickets.tail) & SPIN_TAIL_SLEEPERS, 0)) /* U2 */
		spin_pv_kick(lock, head);
}

bool spin_trylock(spinlock_t *lock)
{
	spinlock_t old = {.val = atomic_load32(&lock->val)};

	if (!spin_value_unlocked(old))
		return false;
	/* Take the next ticket only if nobody else took one since we looked. */
	if (!atomic_cmpxchg32(&lock->val, &old.val, old.val + SPIN_TICKET_ONE))
		return false;
	spin_debug_acquired(lock);
	return true;
}

bool spin_is_locked(const spinlock_t *lock)
{
	spinlock_t copy = {.val = atomic_load32(&lock->val)};

	return !spin_value_unlocked(copy);
}
