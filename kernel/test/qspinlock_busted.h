// SPDX-License-Identifier: MIT
/*
 * qspinlock_busted.h - NEGATIVE CONTROLS ONLY: queued spinlocks with one
 * step broken each.  torture.busted= (torture_spinlock_setup.c) runs the
 * qspinlock torture on one of them, and the run must then fail.  They live
 * with the tests, not in lib/, so production code carries nothing that
 * exists only to be wrong.
 *
 *   qspinlock            the pending waiter does not wait for the holder
 *                        (P2 of lib/qspinlock.c skipped): two holders
 *                        whenever the second arrival takes the pending path.
 *   qspinlock-skip-head  a queued CPU does not wait for its predecessor's
 *                        hand-off: two queued CPUs both see the locked byte
 *                        clear and take the lock (the torture's invariants,
 *                        and the trace's queue order).
 *   qspinlock-early-handoff  the head hands its successor the head before
 *                        it sets the locked byte: the successor finds the
 *                        lock free and takes it too.
 *   qspinlock-plain-tail the last queued CPU empties the queue with a plain
 *                        store of LOCKED to the word, not a compare-exchange:
 *                        a CPU that queued in between is wiped off the word
 *                        and never handed the head (a lost waiter).
 *
 * The queue variants are a small queued lock of their own (the fast path,
 * the MCS queue with one node per CPU, the byte unlock of qspinlock.c,
 * with the same trace events), without the pending step, so every
 * contended acquisition goes through the queue and reaches the broken step.
 * Each bug's window is widened, as a vCPU preempted there would widen it,
 * until the other CPU has stepped in (at most QBUSTED_WINDOW_NS): with 4
 * vCPUs on 2 busy host cores two of them rarely run at the same instant,
 * and a short run would otherwise pass now and then.
 *
 * A lost waiter would wait forever; the real lock would panic after
 * SPIN_TIMEOUT_NS.  Here a queued CPU that finds the word's tail 0 (which a
 * working queued lock never shows while any CPU is queued: the tail is
 * cleared only by the last queued CPU as it takes the lock) counts itself
 * in qbusted_lost, which the torture reports as the broken invariant
 * lost-waiter, and takes the lock by compare-exchange of the locked byte
 * so the run still ends.
 */
#ifndef KERNEL_TEST_QSPINLOCK_BUSTED_H
#define KERNEL_TEST_QSPINLOCK_BUSTED_H

#include "atomic.h"
#include "platform.h"
#include "qspinlock.h"
#include "trace.h"

static inline void qspin_lock_busted(spinlock_t *lock)
{
	uint32_t val = QSPIN_LOCKED;

	/* Held, nobody waiting: set pending and take the lock at once (P2 skipped). */
	if (atomic_cmpxchg32(&lock->val, &val, QSPIN_LOCKED | QSPIN_PENDING)) {
		atomic_store16(&lock->queued.locked_pending, QSPIN_LOCKED);
		return;
	}
	qspin_lock(lock);
}

/*
 * The byte store of a plain queued unlock, traced, for every busted lock
 * here: the real unlock, once paravirtual sleeping is armed, panics on a
 * lock that two CPUs released ("not held"), which would end the run
 * before the torture names what broke.
 */
static inline void qspin_unlock_busted(spinlock_t *lock)
{
	trace_ev(TR_SPIN_REL, lock, 0);
	atomic_store8(&lock->queued.locked, 0);
}

/* Which step of the queue is broken (torture.busted=qspinlock-*). */
enum qbusted_bug { QBUSTED_SKIP_HEAD, QBUSTED_EARLY_HANDOFF, QBUSTED_PLAIN_TAIL };

/*
 * The longest a bug's window is held open for the other CPU to step in;
 * longer for the plain tail, which needs another CPU to arrive, not one
 * that already waits.
 */
#define QBUSTED_WINDOW_NS      (10ull * 1000 * 1000)
#define QBUSTED_TAIL_WINDOW_NS (100ull * 1000 * 1000)
/* A queued CPU looks at the word's tail once per this many spins. */
#define QBUSTED_LOOK_EVERY 64u
/*
 * The longest a CPU of a busted queue waits for a step the bug may have
 * lost (its turn as head, the lock byte, a successor's link); then it
 * counts a lost waiter and goes on, so a broken queue ends the torture
 * with a verdict, not with a CPU stuck until the runner gives up on it
 * minutes later.
 */
#define QBUSTED_STUCK_NS (2ull * 1000 * 1000 * 1000)

struct qbusted_node {
	uint32_t next;
	uint32_t head;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

static struct qbusted_node qbusted_nodes[MAX_CPUS];
/* Lost waiters seen, and the first: its CPU, its predecessor's and the word it read. */
static uint64_t qbusted_lost;
static uint32_t qbusted_lost_cpu, qbusted_lost_prev, qbusted_lost_word;

/* Hold the window open until the word's bits @mask read other than @now, or @ns passed. */
static inline void qbusted_window(spinlock_t *lock, uint32_t mask, uint32_t now, uint64_t ns)
{
	uint64_t end = platform_now_ns() + ns;

	while ((atomic_load32(&lock->val) & mask) == (now & mask) && platform_now_ns() < end)
		platform_relax();
}

static inline struct qbusted_node *qbusted_node_of(uint16_t tail)
{
	return &qbusted_nodes[(tail >> QSPIN_IDX_BITS) - 1];
}

/* Count a waiter the broken queue lost: @cpu, queued behind @prev, saw @word. */
static inline void qbusted_count_lost(unsigned cpu, uint16_t prev, uint32_t word)
{
	if (atomic_xadd64(&qbusted_lost, 1) == 0) {
		qbusted_lost_cpu = cpu;
		qbusted_lost_prev = prev ? (prev >> QSPIN_IDX_BITS) - 1u : cpu;
		qbusted_lost_word = word;
	}
}

/* True, once per QBUSTED_LOOK_EVERY @spins, when the wait begun at @start has lasted too long. */
static inline bool qbusted_stuck(unsigned spins, uint64_t start)
{
	return spins % QBUSTED_LOOK_EVERY == 0 && platform_now_ns() - start > QBUSTED_STUCK_NS;
}

/*
 * A queued CPU found the tail wiped, or waited past QBUSTED_STUCK_NS:
 * count it, then take the lock by the byte alone.
 */
static inline void qbusted_rescue(spinlock_t *lock, unsigned cpu, uint16_t prev, uint32_t word)
{
	uint8_t *locked = &lock->queued.locked;
	uint8_t free;

	qbusted_count_lost(cpu, prev, word);
	do {
		free = 0;
		platform_relax();
	} while (!atomic_cmpxchg8(locked, &free, QSPIN_LOCKED));
	trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_QUEUE);
}

/* The small queued lock with @bug's step broken (the top of the file). */
static inline void qbusted_lock(spinlock_t *lock, enum qbusted_bug bug)
{
	unsigned cpu = platform_cpu_id(), spins = 0;
	uint64_t start = platform_now_ns();
	struct qbusted_node *node = &qbusted_nodes[cpu];
	uint16_t me = qspin_tail(cpu, 0), prev, next;
	uint32_t val = 0;

	if (atomic_cmpxchg32(&lock->val, &val, QSPIN_LOCKED)) {
		trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_FAST);
		return;
	}
	trace_ev(TR_QSPIN_WAIT, lock, val);
	atomic_store32(&node->head, 0);
	atomic_store32(&node->next, 0);
	prev = atomic_xchg16(&lock->queued.tail, me);
	if (prev)
		atomic_store32(&qbusted_node_of(prev)->next, me);
	trace_ev(TR_QSPIN_QUEUED, lock, prev >> QSPIN_IDX_BITS);
	while (prev && bug != QBUSTED_SKIP_HEAD && !atomic_load32(&node->head)) {
		platform_relax();
		if (++spins % QBUSTED_LOOK_EVERY == 0 &&
		    ((val = atomic_load32(&lock->val)) >> QSPIN_TAIL_SHIFT == 0 ||
		     qbusted_stuck(spins, start))) {
			qbusted_rescue(lock, cpu, prev, val);
			return;
		}
	}
	while ((val = atomic_load32(&lock->val)) & QSPIN_LOCKED_MASK) {
		platform_relax();
		if (qbusted_stuck(++spins, start)) {
			qbusted_rescue(lock, cpu, prev, val);
			return;
		}
	}
	if (prev && bug == QBUSTED_SKIP_HEAD)
		qbusted_window(lock, QSPIN_LOCKED_MASK, 0,
			       QBUSTED_WINDOW_NS); /* until the true head takes it */
	if ((uint16_t)(val >> QSPIN_TAIL_SHIFT) == me) {
		if (bug == QBUSTED_PLAIN_TAIL) {
			/* until another CPU queues behind us */
			qbusted_window(lock, QSPIN_TAIL_MASK, val, QBUSTED_TAIL_WINDOW_NS);
			atomic_store32(&lock->val,
				       QSPIN_LOCKED); /* the bug: a CPU queued since is wiped */
			trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_QUEUE);
			return;
		}
		if (atomic_cmpxchg32(&lock->val, &val, QSPIN_LOCKED)) {
			trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_QUEUE);
			return;
		}
	}
	if (bug != QBUSTED_EARLY_HANDOFF)
		atomic_store8(&lock->queued.locked, QSPIN_LOCKED);
	start = platform_now_ns();
	while (!(next = (uint16_t)atomic_load32(&node->next))) {
		platform_relax();
		if (qbusted_stuck(++spins, start)) {
			/* no successor ever linked: it is lost; the lock is ours all the same */
			qbusted_count_lost(cpu, prev, atomic_load32(&lock->val));
			atomic_store8(&lock->queued.locked, QSPIN_LOCKED);
			trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_QUEUE);
			return;
		}
	}
	atomic_store32(&qbusted_node_of(next)->head, 1);
	if (bug == QBUSTED_EARLY_HANDOFF) {
		/* the bug: the successor has the head, the byte is still clear, until it takes it */
		qbusted_window(lock, QSPIN_LOCKED_MASK, 0, QBUSTED_WINDOW_NS);
		atomic_store8(&lock->queued.locked, QSPIN_LOCKED);
	}
	trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_QUEUE);
}

/*
 * One acquire per bug, each a plain spinlock_t call, so a row of BUSTED_LIST
 * (kernel/busted_list.h) names its lock as every other row does.
 */
static inline void qspin_lock_skip_head(spinlock_t *lock)
{
	qbusted_lock(lock, QBUSTED_SKIP_HEAD);
}

static inline void qspin_lock_early_handoff(spinlock_t *lock)
{
	qbusted_lock(lock, QBUSTED_EARLY_HANDOFF);
}

static inline void qspin_lock_plain_tail(spinlock_t *lock)
{
	qbusted_lock(lock, QBUSTED_PLAIN_TAIL);
}

#endif /* KERNEL_TEST_QSPINLOCK_BUSTED_H */
