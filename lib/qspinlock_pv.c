// SPDX-License-Identifier: MIT
/*
 * qspinlock_pv.c - the queued spinlock's paravirtual half: a queued CPU
 * spins a bounded while, then halts until kicked (the design of Linux's
 * qspinlock_paravirt.h; this is our own code).  Why: with more vCPUs than
 * cores, the queued CPU whose turn comes is often not running, and the
 * plain queue then stalls behind it while the running CPUs burn their
 * slices (at -smp 16 on 2 cores, TCG: 3 to 13694 acquisitions per CPU in
 * the spinlock torture).  Halting gives the core to a CPU that can run.
 *
 * A queued CPU that is not the head (its predecessor hands it the head):
 *   N1  after SPIN_PV_SPINS PAUSEs and SPIN_PV_MIN_NS, XCHG its node's
 *       state to HALTED;
 *   N2  re-read its head flag: if set, it does not halt;
 *   N3  platform_cpu_wait on the state word while it reads HALTED;
 *   N4  XCHG the state back to RUNNING, and spin again.
 * The predecessor, handing on the head (Q5 in qspinlock.c):
 *   K   stores the successor's head flag, then XCHGs its state to RUNNING
 *       and kicks it only if the XCHG returned HALTED.
 * Both sides store, then use a locked instruction that orders the store
 * before their load (SDM Vol. 3A 8.2.2), so one of them sees the other:
 * either N2 sees the head, or K sees HALTED and kicks; and K's XCHG
 * changes the word N3 compares, so a kick that comes before the
 * comparison is not needed.  No arming: both sides pay a locked
 * instruction only on the contended path.
 *
 * The queue head waits for the holder (and a pending CPU) to go:
 *   H1  after spinning as in N1, puts (lock, its tail) into the hash
 *       table (a compare-exchange of a free slot), unless it is still
 *       there from an earlier round;
 *   H2  compare-exchanges the locked byte LOCKED -> SLOW ("a head halts:
 *       kick it"); if the byte is 0 the holder is gone, and it looks again;
 *       SLOW already is its own mark from before a spurious wake-up;
 *   H3  platform_cpu_wait on the word while it is what H2 left;
 *   H4  once the byte and pending read 0, takes itself out of the hash if
 *       it is still there, and goes on to take the lock (Q4).
 * The unlock (one byte store, as the plain lock's, until some CPU first
 * needs to halt as head: the ticket lock's arming, spinlock_pv.c):
 *   U0  reads the mode: if ARMED, compare-exchanges the byte LOCKED -> 0,
 *       and if it found SLOW goes to S1;
 *   U1  else stores 0 to the byte; U2 reads the mode again, and if ARMING
 *       or ARMED: U3 a full fence, then kicks a head hashed for the lock
 *       (its SLOW was overwritten: it wakes, finds the lock free, H4);
 *   S1  takes the head out of the hash, before the lock is free, so that
 *       a head that finds it free finds itself out of the hash too;
 *   S2  XCHGs the byte to 0, so that the release is visible before
 *   S3  the kick: a kick before it would find the head re-checking, still
 *       seeing SLOW, and halting again for good.
 * Why no wake-up is lost at H3: SLOW is set only by H2 (a locked
 * instruction) while the lock is held, after H1; once armed, every unlock
 * decides by a compare-exchange on the same byte, so it sees SLOW and S1
 * finds the entry; an unlock whose plain store U1 came before the arming
 * finished is covered as in spinlock_pv.c: U2 reads ARMING or ARMED, and
 * U3 kicks whatever H1 hashed (H1 before H2 before U1 reached memory).  A
 * head that H2 finds the lock free for never halts; one that halted has
 * an entry only S1 or its own H4 removes.
 * tests/model/qspinlock.pml (-DPV) checks this on x86-TSO with store
 * buffers, sleeping armed from the start: no lost wake-up, mutual
 * exclusion, the word is 0 only with nobody in the lock, and that K
 * without its XCHG, S2 as a plain store, N3 without N2, an armed unlock
 * ignoring SLOW and SLOW before H1 each lose a wake-up or the head.
 *
 * Bad input, counted (pv_stats.h): an unlock that finds SLOW but no head
 * hashed for the lock (said once on a line, after the lock is released),
 * a full hash table (the head spins instead; counted only, since the head
 * is queued on the lock, which may be the console's: the spinlock torture
 * fails a run with either, pv-bad-input).  A kick to a CPU that is not halted is harmless (at
 * most its next halt ends early) and happens legitimately (U3).  A head
 * that wakes to a word with no tail (the lock was re-initialised under a
 * queue) panics naming the lock and the CPU.
 */
#include "qspinlock_pv.h"

#include "atomic.h"
#include "platform.h"
#include "qspinlock.h"
#include "spinlock_pv.h"
#include "spinlock_wait.h"
#include "trace.h"

/*
 * Every head that can halt at once fits: a CPU queues on at most one lock
 * per nesting level (QSPIN_NODES of them), so at most QSPIN_NODES heads
 * per CPU are hashed at any moment, and the table never fills (a full one
 * is bad input, counted).
 */
#define QSPIN_PV_SLOTS (QSPIN_NODES * MAX_CPUS)
#define QSPIN_PV_ADDR  0x0000fffffffffffcull /* a lock's address in an entry (bits 2-47) */

_Static_assert((QSPIN_PV_SLOTS & (QSPIN_PV_SLOTS - 1)) == 0, "the hash wraps by a mask");

/* lock -> halted head: (tail << 48) | address, 0 when free. */
static uint64_t qspin_pv_hash[QSPIN_PV_SLOTS];

/* Count bad input in @counter; the first time, say what it was on one line. */
static void qspin_pv_bad(uint64_t *counter, const char *what, spinlock_t *lock, unsigned cpu)
{
	if (atomic_xadd64(counter, 1) == 0)
		platform_log("qspinlock %p: %s (cpu %u, cpu %u); counted, further ones not shown",
			     (void *)lock, what, platform_cpu_id(), cpu);
}

static uint64_t qspin_pv_entry(const spinlock_t *lock, uint16_t tail)
{
	return (uint64_t)tail << 48 | ((uintptr_t)lock & QSPIN_PV_ADDR);
}

static unsigned qspin_pv_hash_of(const spinlock_t *lock)
{
	return (unsigned)(((uintptr_t)lock >> 2) * 0x9e3779b97f4a7c15ull >> 40) &
	       (QSPIN_PV_SLOTS - 1);
}

/* H1: a free slot for (@lock, @tail), or NULL if the table is full. */
static uint64_t *qspin_pv_hash_add(spinlock_t *lock, uint16_t tail)
{
	unsigned h = qspin_pv_hash_of(lock);

	for (unsigned i = 0; i < QSPIN_PV_SLOTS; i++) {
		uint64_t *slot = &qspin_pv_hash[(h + i) & (QSPIN_PV_SLOTS - 1)], free = 0;

		if (atomic_cmpxchg64_q(slot, &free, qspin_pv_entry(lock, tail)))
			return slot;
	}
	return NULL;
}

/* The slot of a head hashed for @lock (one at most: a lock has one head), its entry in @entry. */
static uint64_t *qspin_pv_hash_find(const spinlock_t *lock, uint64_t *entry)
{
	unsigned h = qspin_pv_hash_of(lock);

	for (unsigned i = 0; i < QSPIN_PV_SLOTS; i++) {
		uint64_t *slot = &qspin_pv_hash[(h + i) & (QSPIN_PV_SLOTS - 1)];

		*entry = atomic_load64(slot);
		if (*entry && (*entry & QSPIN_PV_ADDR) == ((uintptr_t)lock & QSPIN_PV_ADDR))
			return slot;
	}
	return NULL;
}

/* Spun long enough to halt: SPIN_PV_SPINS PAUSEs (the caller counts) and SPIN_PV_MIN_NS. */
static bool qspin_pv_spun(uint64_t since)
{
	return platform_now_ns() - since >= SPIN_PV_MIN_NS;
}

void qspin_pv_wait_node(spinlock_t *lock, uint32_t *head, uint32_t *state, unsigned prev_cpu)
{
	struct spin_wait w;
	uint64_t start = platform_now_ns();

	spin_wait_start(&w, lock);
	for (;;) {
		for (unsigned i = 0; i < SPIN_PV_SPINS; i++) {
			if (atomic_load32(head))
				return;
			platform_relax();
		}
		/* One clock read per round of spinning or halt: a halt takes up to 100 ms. */
		spin_wait_check(&w, atomic_load32(&lock->val),
				"its turn at the queue head from its predecessor (halting), cpu",
				(int)prev_cpu);
		if (!qspin_pv_spun(start))
			continue;
		atomic_xchg32(state, QSPIN_PV_HALTED); /* N1 */
		if (!atomic_load32(head)) {	       /* N2 */
			atomic_xadd64(&pv_counters.sleeps, 1);
			trace_ev(TR_PV_SLEEP, lock, 0);
			pv_halt(state, QSPIN_PV_HALTED, lock); /* N3 */
		}
		atomic_xchg32(state, QSPIN_PV_RUNNING); /* N4 */
	}
}

void qspin_pv_kick_node(uint32_t *state, unsigned cpu)
{
	if (atomic_xchg32(state, QSPIN_PV_RUNNING) == QSPIN_PV_HALTED) /* K */
		pv_kick(cpu);
}

uint32_t qspin_pv_wait_head(spinlock_t *lock, uint16_t tail, uint32_t *state)
{
	struct spin_wait w;
	uint8_t *locked = &lock->queued.locked;
	const uint64_t mine = qspin_pv_entry(lock, tail);
	uint64_t start = platform_now_ns(), *slot = NULL;
	uint32_t val;

	spin_wait_start(&w, lock);
	for (;;) {
		for (unsigned i = 0; i < SPIN_PV_SPINS; i++) {
			val = atomic_load32(&lock->val);
			if (!(val & QSPIN_LOCKED_PENDING))
				goto out;
			platform_relax();
		}
		spin_wait_check(&w, val, "the holder and the pending waiter to go (halting head)",
				-1);
		if (!qspin_pv_spun(start) || !spin_pv_arm())
			continue;
		if (!slot || atomic_load64(slot) != mine) { /* H1 */
			slot = qspin_pv_hash_add(lock, tail);
			if (!slot) {
				/*
				 * Counted, not printed: this CPU is queued on @lock, which
				 * may be the console's, and printing would wait for it.
				 * Whoever reads pv_stats says it (the torture fails on it).
				 */
				atomic_xadd64(&pv_counters.hash_full, 1);
				continue;
			}
		}
		uint8_t byte = QSPIN_LOCKED;

		if (!atomic_cmpxchg8(locked, &byte, QSPIN_SLOW) && byte != QSPIN_SLOW) /* H2 */
			continue;
		atomic_store32(state, QSPIN_PV_HASHED);
		val = atomic_load32(&lock->val);
		if ((uint8_t)val == QSPIN_SLOW) {
			atomic_xadd64(&pv_counters.sleeps, 1);
			trace_ev(TR_PV_SLEEP, lock, 1);
			pv_halt(&lock->val, val, lock); /* H3 */
		}
		atomic_store32(state, QSPIN_PV_RUNNING);
		if (!(atomic_load32(&lock->val) >> QSPIN_TAIL_SHIFT))
			platform_panic(
			    "qspinlock %p: cpu %u is the halted queue head, but the word "
			    "%#x shows no queue: the lock was freed or re-initialised under it",
			    (void *)lock, platform_cpu_id(), atomic_load32(&lock->val));
	}
out:
	if (slot) { /* H4 */
		uint64_t expect = mine;

		atomic_cmpxchg64_q(slot, &expect, 0);
	}
	return val;
}

/* S1-S3, for an unlock that found the byte SLOW. */
static __attribute__((noinline)) void qspin_pv_unlock_slow(spinlock_t *lock)
{
	uint64_t entry = 0, *slot = qspin_pv_hash_find(lock, &entry);
	unsigned cpu = 0;

	if (slot && atomic_cmpxchg64_q(slot, &entry, 0)) /* S1 */
		cpu = (unsigned)(entry >> (48 + QSPIN_IDX_BITS)) - 1u;
	else
		slot = NULL;
	atomic_xchg8(&lock->queued.locked, 0); /* S2 */
	if (slot)
		pv_kick(cpu); /* S3 */
	else
		qspin_pv_bad(&pv_counters.no_head,
			     "unlocked with SLOW set but no halted head hashed", lock,
			     platform_cpu_id());
}

void qspin_pv_unlock_armed(spinlock_t *lock)
{
	uint8_t byte = QSPIN_LOCKED;

	if (atomic_cmpxchg8(&lock->queued.locked, &byte, 0)) /* U0 */
		return;
	if (byte == QSPIN_SLOW) {
		qspin_pv_unlock_slow(lock);
		return;
	}
	platform_panic("qspinlock %p: cpu %u unlocked it with the locked byte %#x: not held",
		       (void *)lock, platform_cpu_id(), byte);
}

void qspin_pv_unlock_fence(spinlock_t *lock)
{
	uint64_t entry;

	atomic_full_fence(); /* U3: U1's store visible before the hash is read */
	if (qspin_pv_hash_find(lock, &entry))
		pv_kick((unsigned)(entry >> (48 + QSPIN_IDX_BITS)) - 1u);
}
