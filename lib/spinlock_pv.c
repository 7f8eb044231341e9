// SPDX-License-Identifier: MIT
/*
 * spinlock_pv.c - the ticket lock's paravirtual half: spin, then halt
 * until kicked (the idea of Linux 3.12's paravirt ticket locks; this is
 * our own code).  spinlock_ticket.h is the plain lock; it calls in here
 * only when a waiter has spun a while, or when an unlock finds sleeping
 * armed.
 *
 * A waiter spins a while (SPIN_PV_SPINS, SPIN_PV_MIN_NS), then:
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
 *   U1  advances the head with a plain store (ticket_unlock_body, spinlock_ticket.h);
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
 * (spin_pv) starts ON, where an unlock is U1 and U2, exactly what a
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
#include "spinlock_pv.h"
#include "spinlock_wait.h"
#include "trace.h"

#include "platform.h"

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

void spin_pv_set(bool on)
{
	if (on && !static_key_enable(&spin_switched_key))
		return; /* the key's line said why; the locks stay plain */
	atomic_xchg8(&spin_switches.pv, on ? SPIN_PV_ON : SPIN_PV_OFF);
}

bool spin_pv_enabled(void)
{
	return spin_pv_mode() != SPIN_PV_OFF;
}

bool spin_pv_arm(void)
{
	uint8_t mode = atomic_load8(&spin_switches.pv);

	if (mode == SPIN_PV_ARMED)
		return true;
	if (mode != SPIN_PV_ON || !atomic_cmpxchg8(&spin_switches.pv, &mode, SPIN_PV_ARMING))
		return false;
	/* From here every unlock that reads the mode fences; this drains the ones that read ON. */
	if (!platform_fence_others())
		return false; /* stays ARMING: unlocks fence, nobody sleeps; the platform said why */
	atomic_xadd64(&pv_counters.arms, 1);
	atomic_store8(&spin_switches.pv, SPIN_PV_ARMED);
	trace_ev(TR_PV_ARM, NULL, 0);
	return true;
}

bool spin_pv_sleep(spinlock_t *lock, uint16_t ticket, bool again)
{
	struct spin_pv_slot *slot = &spin_pv_slots[platform_cpu_id()];
	const uint64_t mine =
	    spin_pv_slot_word(lock, ticket, again ? SPIN_PV_ASLEEP_AGAIN : SPIN_PV_ASLEEP);
	uint32_t word = atomic_load32(&lock->val);
	struct spin_wait w;
	uint64_t seen;

	atomic_store64(&slot->word, mine); /* W1 */
	do {
		if ((uint16_t)word == ticket)
			goto take_back;
	} while (!atomic_cmpxchg32(&lock->val, &word,
				   word | (SPIN_TAIL_SLEEPERS << SPIN_TICKET_BITS))); /* W2 */
	word = atomic_load32(&lock->val);
	if ((uint16_t)word != ticket) { /* W3 */
		atomic_xadd64(&pv_counters.sleeps, 1);
		trace_ev(TR_PV_SLEEP, lock, ticket);
		pv_halt(&lock->val, word, lock); /* W4 */
	}
take_back: /* W5 */
	spin_wait_start(&w, lock);
	for (;;) {
		seen = mine;
		if (atomic_cmpxchg64_q(&slot->word, &seen, 0))
			return false;
		if (seen == 0)
			return true; /* the unlocker that passed us over emptied the slot */
		/* SPIN_PV_PASSING: wait for the outcome, a few instructions away unless preempted. */
		platform_relax();
		if (spin_wait_due(&w))
			spin_wait_check(&w, (uint32_t)seen,
					"the unlocker passing it over to finish, ticket", ticket);
	}
}

/* The CPU whose slot says it sleeps for @ticket of @lock, in either state; -1 if none. */
static int spin_pv_sleeper(const spinlock_t *lock, uint16_t ticket, uint64_t *word)
{
	uint64_t asleep = spin_pv_slot_word(lock, ticket, SPIN_PV_ASLEEP);
	uint64_t again = spin_pv_slot_word(lock, ticket, SPIN_PV_ASLEEP_AGAIN);
	unsigned n = platform_cpu_count();

	for (unsigned cpu = 0; cpu < n; cpu++) {
		*word = atomic_load64(&spin_pv_slots[cpu].word);
		if (*word == asleep || *word == again)
			return (int)cpu;
	}
	return -1;
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

	if (!atomic_cmpxchg64_q(&slot->word, &word, passing))
		return false; /* it took its turn back (W5), so it is awake */
	if (!atomic_cmpxchg16(&lock->tickets.head, &expect, (uint16_t)(head + SPIN_TICKET_STEP))) {
		atomic_store64(&slot->word, word);
		pv_kick(cpu);
		return false;
	}
	atomic_store64(&slot->word, 0);
	pv_kick(cpu); /* so that it queues again */
	atomic_xadd64(&pv_counters.passes, 1);
	return true;
}

/*
 * U4-U5, for the turn of @head that U1 just began.  Passes over at most
 * one sleeper per CPU: more would mean tickets that came round again under
 * a stale unlocker, not sleepers in a row.
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
			pv_kick((unsigned)cpu);
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

/* U3, and U4-U5 if the flag is set, once U1 is visible. */
static void spin_pv_unlock_look(spinlock_t *lock, uint16_t head)
{
	if (atomic_load16(&lock->tickets.tail) & SPIN_TAIL_SLEEPERS)
		spin_pv_wake(lock, head);
}

void spin_pv_unlock_armed(spinlock_t *lock)
{
	uint16_t head = atomic_xadd16(&lock->tickets.head, SPIN_TICKET_STEP); /* U1, U3's fence */

	spin_pv_unlock_look(lock, (uint16_t)(head + SPIN_TICKET_STEP));
}

void spin_pv_unlock_fence(spinlock_t *lock, uint16_t head)
{
	atomic_full_fence(); /* U3: U1's store visible before the tail's load */
	spin_pv_unlock_look(lock, head);
}
