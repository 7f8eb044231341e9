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
 * Unlock is a 16-bit store of head + SPIN_TICKET_STEP: only the owner
 * writes the head, and an x86 store has release semantics (SDM Vol. 3A
 * 8.2.2), so no LOCK prefix is needed.
 *
 * Paravirtual mode (the idea of Linux 3.12's paravirt ticket locks; this
 * is our own code).  A waiter spins a while (SPIN_PV_SPINS, SPIN_PV_MIN_NS), then:
 *   W0  makes sure sleeping is armed (below); if another CPU is arming it
 *       right now, it spins on instead;
 *   W1  writes (lock, ticket, ASLEEP) into its CPU's slot in spin_pv_slots
 *       (ASLEEP_AGAIN if it was passed over before in this acquisition);
 *   W2  sets SPIN_TAIL_SLEEPERS in the lock word with a locked
 *       compare-exchange (which gives up if the head already is its ticket);
 *   W3  re-reads the head: if it is its ticket, it does not sleep, else
 *   W4  sleeps in platform_cpu_wait, which returns at once if the word
 *       changed since W3, or on a kick, or after a bounded time;
 *   W5  takes its turn back: a compare-exchange of its slot from what W1
 *       wrote to empty.  If an unlocker holds the slot (PASSING, below) it
 *       waits for the outcome; if it finds the slot emptied, it was passed
 *       over: its turn went by, and it takes a new ticket at the tail.
 * The unlocker:
 *   U0  reads the mode: if sleeping is armed, U1 is a locked XADD of the
 *       head, which is U3's fence as well, and it goes on at U3;
 *   U1  advances the head with the plain store above;
 *   U2  reads the mode again: unless sleeping is armed or arming, that is
 *       all;
 *   U3  a full fence (the XADD, or a locked OR after the store), then reads
 *       the tail: if SPIN_TAIL_SLEEPERS is set,
 *   U4  looks for the slot that says (lock, new head, asleep).  If that CPU
 *       was not passed over yet in this acquisition and another ticket
 *       waits behind it, the unlocker passes it over: it turns the slot to
 *       PASSING with a compare-exchange, spends the turn with a compare-
 *       exchange of the head from the turn to the next, empties the slot,
 *       kicks the CPU (so that it queues again) and goes on with the next
 *       turn.  Otherwise it kicks the CPU and leaves it the lock;
 *   U5  clears the flag if the lock is now free (nobody left to wake).
 *
 * Why arm.  An unlock must not miss a waiter that is about to sleep, so
 * its store to the head (U1) and its load of the flag (U3) need a full
 * fence between them: x86 lets a load pass an earlier store to another
 * address (SDM 8.2.3.4), and then U3 could miss a flag that W2 sets while
 * W3 still reads the old head.  A fence costs about as much as the rest of
 * an uncontended lock and unlock together, and most runs never sleep: a
 * guest with a core per vCPU, or any short wait.  So the mode
 * (spin_pv.mode) starts ON, where an unlock is U1 and U2, exactly what a
 * plain ticket lock pays plus one load of a line every CPU keeps cached.
 * The first waiter that needs to sleep arms it: it moves the mode from ON
 * to ARMING with a compare-exchange, has every other CPU run a full fence
 * (platform_fence_others: an NMI to each on bare metal, membarrier(2) on a
 * host), and then stores ARMED.  Every unlock after that pays U3's fence,
 * as the XADD of U0: under contention a locked XADD of the head costs less
 * than a store of it and a fence (natively, at 2 threads, 0.74x-1.06x of
 * the plain lock in four runs, against 0.62x-0.81x in four).
 * spin_pv_set(), which is called only while no lock is contended,
 * disarms it again.
 *
 * Who owns a turn.  The head reaching a sleeper's ticket makes the turn
 * the sleeper's unless an unlocker reserves its slot first; both decide by
 * a compare-exchange on the slot, so exactly one of them owns the turn:
 * the sleeper (which then finds head == ticket and proceeds) or the
 * unlocker (which spends it).  The unlocker spends it with a compare-
 * exchange on the head, not an increment, because it may be stale: held
 * up after U1 while 2^15 turns went by and a ticket of the same value came
 * round, in which case the head is not the turn it thinks and the
 * compare-exchange fails.  It then gives the slot back and kicks the CPU,
 * since that CPU's own turn may have come while the slot was reserved and
 * its unlocker, finding it PASSING, left it alone.  For the same reason
 * one unlock passes over at most one sleeper per CPU.  The owner's plain
 * U1 cannot race with such a compare-exchange: while a CPU owns turn t, no
 * other CPU holds ticket t, so no slot says (lock, t, asleep) to reserve.
 *
 * Why pass over a sleeper.  Handing the lock to a sleeping CPU leaves it
 * idle until that CPU wakes: under QEMU TCG on a 2-core host a kick takes
 * 50-150 us to wake a vCPU, while two running vCPUs hand the lock on in
 * well under a microsecond, and with more vCPUs than cores most turns
 * fall to a sleeper.  Passing over moves the sleeper one round back and
 * gives the turn to a CPU that is running.  Once per acquisition only: a
 * CPU passed over announces ASLEEP_AGAIN when it sleeps again, and that
 * turn waits for it, so nobody starves.  The price is order: the CPU
 * passed over queues again when it wakes, and the CPUs that ran meanwhile
 * go first.  Among running waiters the lock stays FIFO, and plain mode
 * (bare metal) is FIFO throughout.
 *
 * Why no wake-up is lost.  Take the unlock U whose U1 stores the waiter's
 * ticket into the head, and what its U0 and U2 read.
 *   ARMED at U0, or ARMING or ARMED at U2: U3's fence (the XADD itself,
 *       or the locked OR) makes U1 visible before U3's load.  W2 is
 *       a locked instruction, and a later load does not pass it (SDM
 *       8.2.2).  If U3's load came before W2, U1 was visible before W2 and
 *       W3 reads the ticket: the waiter does not sleep.  If after, U3 sees
 *       the flag (U5 clears it only when head == tail, i.e. no ticket is
 *       outstanding, and the waiter's is) and U4 the slot, which W1 wrote
 *       before W2; so the unlocker kicks, whether it passes the CPU over
 *       or leaves it the lock.
 *   ON at U2: U2 came before the compare-exchange that began arming, since the
 *       mode only moves ON, ARMING, ARMED until spin_pv_set.  The arming
 *       CPU's fence then interrupted U's CPU at some instruction, and
 *       every load after it reads ARMING or later; so U2, and U1 before it
 *       in program order, came before that instruction, and the fence's
 *       locked instruction made U1 visible before platform_fence_others
 *       returned, before ARMED was stored, before the waiter's W0 read it,
 *       before W3.  W3 reads the ticket: the waiter does not sleep.
 * Hence a compiler barrier keeps U1 before U2 (an interrupt sees its own
 * CPU in program order), and W0 waits for ARMED, not ARMING.  The kick
 * comes after U1, so if the waiter has not yet compared the word in W4 it
 * sees it changed and does not sleep, and if it has, the kick ends the
 * sleep (platform_cpu_wait's contract).
 * tests/model/spinlock_pv.pml checks the protocol, and that dropping W3 or
 * kicking before U1 loses a wake-up, that reserving the slot with a plain
 * store spends a turn the sleeper took back, that spending the turn with
 * an increment lets a stale unlocker spend somebody else's, and that
 * without the once-only rule a CPU can be passed over forever.
 * tests/model/spinlock_pv_tso.pml gives each CPU a store buffer and checks
 * the arming: that a wake-up is lost if U0's reading stands in for U2's,
 * if U3 has no fence, if the arming CPU skips the fence round, or if a
 * waiter sleeps while another CPU is still arming.
 *
 * A kicked CPU that finds the head not yet its ticket (a stray kick, or a
 * kick to an earlier wait) simply waits again; a kick to a CPU that is not
 * asleep only ends its next sleep early.  Either way nobody takes the lock
 * out of turn.
 */
#include "spinlock.h"

#include "atomic.h"
#include "platform.h"

/* Waiters look at the clock once per this many PAUSEs: cheap, yet a timeout is noticed soon. */
#define SPIN_CLOCK_EVERY (1u << 14)
/*
 * Paravirtual mode: a waiter sleeps once it has made SPIN_PV_SPINS PAUSEs
 * and waited SPIN_PV_MIN_NS, whichever comes later.  Under QEMU TCG, where
 * PAUSE leaves the vCPU loop, the count decides: with 4 vCPUs on 2 idle
 * host cores, refcount at 4 CPUs kept 0.39x-0.64x of its 2-CPU throughput
 * with 2^6 PAUSEs (16 runs), 0.20x-0.57x with 2^8 (10 runs), 0.24x-0.39x
 * with 2^4 and 0.13x-0.25x with 2^10 (spinning longer burns the time
 * slices the holder and the next waiter need; shorter sends waiters to
 * sleep, and kicks, when their turn was near).  On hardware 2^6 PAUSEs
 * take well under a microsecond, less than a plain queue of lock holders
 * may: there the time decides, so a waiter whose turn is near does not pay
 * a sleep and a kick.
 */
#define SPIN_PV_SPINS  (1u << 6)
#define SPIN_PV_MIN_NS (50u * 1000)

/*
 * The mode, read by every unlock (U0, U2): OFF, the plain lock; ON,
 * paravirtual but no waiter has slept since spin_pv_set, so unlocks skip
 * U3; ARMING, a waiter is having every other CPU fence; ARMED, waiters may
 * sleep and unlocks fence and look for them.  Moves only forward, except in
 * spin_pv_set, which runs only while no lock is contended.
 */
enum spin_pv_mode { SPIN_PV_OFF, SPIN_PV_ON, SPIN_PV_ARMING, SPIN_PV_ARMED };
/* Alone in its cache-line pair: a neighbour written often would make every unlock miss. */
static struct {
	uint8_t mode;
} __attribute__((aligned(CACHE_PAIR_BYTES))) spin_pv;

/*
 * Where each CPU announces the ticket it sleeps for (W1): one 64-bit word,
 * so that the sleeper taking its turn back (W5) and an unlocker passing it
 * over (U4) decide by compare-exchanges on the same word.  The word is the
 * ticket in bits 48-63, the lock's address in bits 2-47 (locks are 4-byte
 * aligned, and a canonical x86-64 address is decided by its low 48 bits),
 * and a SPIN_PV_* state in bits 0-1; 0 when the CPU announces nothing.
 */
struct spin_pv_slot {
	uint64_t word;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* Asleep for the ticket; an unlocker may pass it over. */
#define SPIN_PV_ASLEEP 1u
/* Asleep for the ticket, and passed over once already in this acquisition: its turn waits. */
#define SPIN_PV_ASLEEP_AGAIN 2u
/* An unlocker is passing it over; the CPU waits for the outcome (the word back, or 0). */
#define SPIN_PV_PASSING 3u
#define SPIN_PV_STATE	3u
#define SPIN_PV_ADDR	0x0000fffffffffffcull

static uint64_t spin_pv_slot_word(const spinlock_t *lock, uint16_t ticket, unsigned state)
{
	return (uint64_t)ticket << 48 | ((uintptr_t)lock & SPIN_PV_ADDR) | state;
}

static struct spin_pv_slot spin_pv_slots[MAX_CPUS];
static uint64_t spin_pv_sleeps, spin_pv_kicks, spin_pv_passes, spin_pv_arms;

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
	__atomic_store_n(&spin_pv.mode, on ? SPIN_PV_ON : SPIN_PV_OFF, __ATOMIC_SEQ_CST);
}

bool spin_pv_enabled(void)
{
	return __atomic_load_n(&spin_pv.mode, __ATOMIC_RELAXED) != SPIN_PV_OFF;
}

/*
 * W0 of the file comment: true once sleeping is armed, arming it if
 * nobody has; false while another CPU arms it (the caller spins on and
 * asks again later), or for good if the platform cannot fence other CPUs.
 */
static bool spin_pv_arm(void)
{
	uint8_t mode = __atomic_load_n(&spin_pv.mode, __ATOMIC_ACQUIRE);

	if (mode == SPIN_PV_ARMED)
		return true;
	if (mode != SPIN_PV_ON ||
	    !__atomic_compare_exchange_n(&spin_pv.mode, &mode, SPIN_PV_ARMING, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE))
		return false;
	/* From here every unlock that reads the mode fences; this drains the ones that read ON. */
	if (!platform_fence_others())
		return false; /* stays ARMING: unlocks fence, nobody sleeps; the platform said why */
	__atomic_add_fetch(&spin_pv_arms, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&spin_pv.mode, SPIN_PV_ARMED, __ATOMIC_RELEASE);
	return true;
}

struct spin_pv_stats spin_pv_stats(void)
{
	return (struct spin_pv_stats){
	    .sleeps = __atomic_load_n(&spin_pv_sleeps, __ATOMIC_RELAXED),
	    .kicks = __atomic_load_n(&spin_pv_kicks, __ATOMIC_RELAXED),
	    .passes = __atomic_load_n(&spin_pv_passes, __ATOMIC_RELAXED),
	    .arms = __atomic_load_n(&spin_pv_arms, __ATOMIC_RELAXED),
	};
}

/* The ticket a queued CPU takes: the tail before the XADD, less the flag. */
static uint16_t spin_take_ticket(spinlock_t *lock, uint32_t *old)
{
	*old = atomic_xadd32(&lock->val, SPIN_TICKET_ONE);
	return (uint16_t)(*old >> SPIN_TICKET_BITS) & (uint16_t)~SPIN_TAIL_SLEEPERS;
}

/*
 * W1-W5 of the file comment: announce, re-check, sleep, take the turn
 * back.  @state is SPIN_PV_ASLEEP, or SPIN_PV_ASLEEP_AGAIN for a CPU passed
 * over before.  Returns true if it was passed over: @ticket is then spent,
 * and the caller queues again.
 */
static bool spin_pv_sleep(spinlock_t *lock, uint16_t ticket, unsigned state)
{
	struct spin_pv_slot *slot = &spin_pv_slots[platform_cpu_id()];
	const uint64_t mine = spin_pv_slot_word(lock, ticket, state);
	uint32_t word = atomic_load32(&lock->val);
	uint64_t seen, since = 0;

	__atomic_store_n(&slot->word, mine, __ATOMIC_RELEASE); /* W1 */
	do {
		if ((uint16_t)word == ticket)
			goto take_back;
	} while (!atomic_cmpxchg32(&lock->val, &word,
				   word | (SPIN_TAIL_SLEEPERS << SPIN_TICKET_BITS))); /* W2 */
	word = atomic_load32(&lock->val);
	if ((uint16_t)word != ticket) { /* W3 */
		__atomic_add_fetch(&spin_pv_sleeps, 1, __ATOMIC_RELAXED);
		platform_cpu_wait(&lock->val, word); /* W4 */
	}
take_back: /* W5 */
	for (unsigned spins = 0;; spins++) {
		seen = mine;
		if (__atomic_compare_exchange_n(&slot->word, &seen, 0, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return false;
		if (seen == 0)
			return true; /* the unlocker that passed us over emptied the slot */
		/* SPIN_PV_PASSING: wait for the outcome, a few instructions away unless preempted. */
		if (spins == 0)
			since = platform_now_ns();
		platform_relax();
		if (spins % SPIN_CLOCK_EVERY == SPIN_CLOCK_EVERY - 1 &&
		    platform_now_ns() - since > SPIN_TIMEOUT_NS)
			platform_panic("spinlock %p: cpu %u waited over %llu s for the unlocker "
				       "passing it over (ticket %u) to finish: deadlock?",
				       (void *)lock, platform_cpu_id(),
				       (unsigned long long)(SPIN_TIMEOUT_NS / 1000000000u), ticket);
	}
}

/* The CPU whose slot says it sleeps for @ticket of @lock, in either state; -1 if none. */
static int spin_pv_sleeper(const spinlock_t *lock, uint16_t ticket, uint64_t *word)
{
	uint64_t asleep = spin_pv_slot_word(lock, ticket, SPIN_PV_ASLEEP);
	uint64_t again = spin_pv_slot_word(lock, ticket, SPIN_PV_ASLEEP_AGAIN);
	unsigned n = platform_cpu_count();

	for (unsigned cpu = 0; cpu < n; cpu++) {
		*word = __atomic_load_n(&spin_pv_slots[cpu].word, __ATOMIC_ACQUIRE);
		if (*word == asleep || *word == again)
			return (int)cpu;
	}
	return -1;
}

static void spin_pv_kick(unsigned cpu)
{
	__atomic_add_fetch(&spin_pv_kicks, 1, __ATOMIC_RELAXED);
	platform_cpu_kick(cpu);
}

/*
 * U4's pass-over of @cpu, asleep (slot word @word) for the turn @head.
 * Reserves the slot, so that the sleeper cannot take its turn back
 * meanwhile, then spends the turn with a compare-exchange on the head, and
 * empties the slot: "you were passed over".  The compare-exchange fails
 * only for a stale unlocker, held up after U1 while the head went round to
 * a ticket of the same value; it gives the slot back, and kicks, because
 * the sleeper's turn may have come meanwhile and its unlocker, finding the
 * slot SPIN_PV_PASSING, left it alone.  Returns true if the turn was spent.
 */
static bool spin_pv_pass(spinlock_t *lock, unsigned cpu, uint64_t word, uint16_t head)
{
	struct spin_pv_slot *slot = &spin_pv_slots[cpu];
	uint64_t passing = (word & ~(uint64_t)SPIN_PV_STATE) | SPIN_PV_PASSING;
	uint16_t expect = head;

	if (!__atomic_compare_exchange_n(&slot->word, &word, passing, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return false; /* it took its turn back (W5), so it is awake */
	if (!__atomic_compare_exchange_n(&lock->tickets.head, &expect,
					 (uint16_t)(head + SPIN_TICKET_STEP), false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&slot->word, word, __ATOMIC_RELEASE);
		spin_pv_kick(cpu);
		return false;
	}
	__atomic_store_n(&slot->word, 0, __ATOMIC_RELEASE);
	spin_pv_kick(cpu); /* so that it queues again */
	__atomic_add_fetch(&spin_pv_passes, 1, __ATOMIC_RELAXED);
	return true;
}

/*
 * U4-U5 of the file comment, for the turn of @head that U1 just began.
 * Passes over at most one sleeper per CPU: more would mean tickets that
 * came round again under a stale unlocker, not sleepers in a row.
 */
static __attribute__((noinline)) void spin_pv_wake(spinlock_t *lock, uint16_t head)
{
	unsigned passes = 0, ncpus = platform_cpu_count();
	spinlock_t now;
	uint64_t word;
	int cpu;

	while ((cpu = spin_pv_sleeper(lock, head, &word)) >= 0) {
		uint16_t tail = atomic_load16(&lock->tickets.tail) & (uint16_t)~SPIN_TAIL_SLEEPERS;

		if ((word & SPIN_PV_STATE) == SPIN_PV_ASLEEP_AGAIN ||
		    tail == (uint16_t)(head + SPIN_TICKET_STEP) || passes == ncpus) {
			/* Passed over once already, or nobody behind it: the turn waits for it. */
			spin_pv_kick((unsigned)cpu);
			break;
		}
		if (!spin_pv_pass(lock, (unsigned)cpu, word, head))
			break;
		passes++;
		head = (uint16_t)(head + SPIN_TICKET_STEP);
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

	while ((head = atomic_load16(&lock->tickets.head)) != ticket) {
		bool sleep = ++spins % SPIN_PV_SPINS == 0 && spin_pv_enabled() &&
			     platform_now_ns() - start >= SPIN_PV_MIN_NS && spin_pv_arm();

		if (sleep) {
			if (spin_pv_sleep(lock, ticket,
					  passed ? SPIN_PV_ASLEEP_AGAIN : SPIN_PV_ASLEEP)) {
				uint32_t old;

				/* Queued again: spin afresh before sleeping, the turn is near. */
				passed = true;
				ticket = spin_take_ticket(lock, &old);
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
}

void spin_lock(spinlock_t *lock)
{
	uint32_t old;
	uint16_t ticket;

	spin_debug_before_lock(lock);
	ticket = spin_take_ticket(lock, &old);
	if ((uint16_t)old != ticket)
		spin_wait_for(lock, ticket);
	spin_debug_acquired(lock);
}

/* U3 of the file comment, and U4-U5 if the flag is set, once U1 is visible. */
static void spin_pv_unlock_look(spinlock_t *lock, uint16_t head)
{
	if (atomic_load16(&lock->tickets.tail) & SPIN_TAIL_SLEEPERS)
		spin_pv_wake(lock, head);
}

/* Sleeping was armed before this unlock: U1 as a locked XADD, which is U3's fence too. */
static __attribute__((noinline)) void spin_pv_unlock_armed(spinlock_t *lock)
{
	uint16_t head = atomic_xadd16(&lock->tickets.head, SPIN_TICKET_STEP);

	spin_pv_unlock_look(lock, (uint16_t)(head + SPIN_TICKET_STEP));
}

/* Sleeping was armed, or began arming, after this unlock's plain U1: U3's fence. */
static __attribute__((noinline)) void spin_pv_unlock_fence(spinlock_t *lock, uint16_t head)
{
	atomic_full_fence(); /* U1's store visible before the tail's load */
	spin_pv_unlock_look(lock, head);
}

void spin_unlock(spinlock_t *lock)
{
	uint16_t head;

	spin_debug_release(lock);
	if (__builtin_expect(__atomic_load_n(&spin_pv.mode, __ATOMIC_RELAXED) == SPIN_PV_ARMED,
			     0)) { /* U0 */
		spin_pv_unlock_armed(lock);
		return;
	}
	/* Only the owner writes the head: a release store hands the lock on. */
	head = (uint16_t)(atomic_load16(&lock->tickets.head) + SPIN_TICKET_STEP);
	atomic_store16(&lock->tickets.head, head); /* U1 */
	/* U1 before U2 in program order, where the arming CPU's fence interrupt sees them. */
	atomic_compiler_barrier();
	if (__builtin_expect(__atomic_load_n(&spin_pv.mode, __ATOMIC_RELAXED) >= SPIN_PV_ARMING,
			     0)) /* U2 */
		spin_pv_unlock_fence(lock, head);
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
