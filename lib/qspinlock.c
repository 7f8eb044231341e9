// SPDX-License-Identifier: MIT
/*
 * qspinlock.c - the queued spinlock of qspinlock.h: a locked byte, a
 * pending bit and an MCS queue of per-CPU nodes in one 32-bit word.
 *
 * Written from the design Linux uses since 4.2 (a 4-byte lock whose waiters
 * beyond the second queue on nodes of their own CPU), not from its code.
 * Steps, named in the comments and in tests/model/qspinlock.pml:
 *
 *   F  fast path: compare-exchange 0 -> LOCKED.
 *   P0-P3 only while paravirtual waiting is off; with it on, every waiter
 *      queues (Q1), since a pending waiter cannot halt.
 *   P0 a word that is exactly PENDING is a hand-over in flight (P2->P3
 *      takes a few instructions): re-read it a bounded number of times.
 *   P1 the word has at most the locked byte: set pending with one LOCK BTS,
 *      which cannot fail or retry (Linux's form since 4.18; the
 *      compare-exchange loop before it could be made to retry for ever by
 *      CPUs passing the lock around).  If the word then shows another
 *      pending CPU or a queue, back out (clear pending, if the bit was
 *      ours: only its owner writes the pending byte) and queue (Q1).
 *      Otherwise we own pending and are next.  P2 wait until the locked
 *      byte is 0.  P3 take the lock and drop pending in one 16-bit store of
 *      LOCKED to the low half: only the pending owner writes that half now
 *      (the unlock stores the locked byte only while held, and the queue
 *      head waits for pending to clear), so the store cannot lose anyone's
 *      update, and the lock is never seen free in between.
 *   Q1 anything more (pending or a tail): take a node of this CPU,
 *      initialise it, and only then publish it as the tail (XCHG of the
 *      upper half: locked, so a full barrier, SDM Vol. 3A 8.2.2 and
 *      Vol. 2B "XCHG").  Q2 a previous tail: link our node behind it and
 *      spin on our own node until the predecessor hands us the head.
 *   Q3 at the head: wait until the locked byte and pending are both 0.
 *   Q4 if we are still the tail, compare-exchange tail|0 -> LOCKED (the
 *      queue empties).  Otherwise set the locked byte (no other path can:
 *      a non-zero tail makes their compare-exchanges fail and sends them
 *      into the queue), wait for our successor to link, and hand it the
 *      head (Q5).
 *   U  unlock: a byte store of 0 to the locked byte (x86 stores are
 *      releases, SDM Vol. 3A 8.2.2); it must not touch pending or the tail.
 *
 * Every wait is bounded: P0 by a count, and P2, Q2, Q3 and Q5 by
 * spinlock_wait.h: SPIN_TIMEOUT_NS without the lock word changing panics
 * naming the lock, the CPU and what it waited for.  Nothing else loops.
 *
 * Trace events (trace.h, docs/tracing.md): the slow path's start, the tail
 * XCHG done (naming the predecessor), the acquisition and how it happened,
 * each stamped once the lock is ours, and the release, stamped before the
 * store that hands the lock on.  The fast path and the unlock are the
 * bodies in qspinlock.h, whose untraced copies have no hook; the slow path
 * tests the tracing switch at each event, where a branch costs nothing.
 */
#include "qspinlock.h"

#include "atomic.h"
#include "platform.h"
#include "qspinlock_pv.h"
#include "spinlock_pv.h"
#include "spinlock_wait.h"
#include "trace.h"

/* P0: re-reading a hand-over in flight this many times is cheaper than queueing. */
#define QSPIN_HANDOVER_SPINS 64

/*
 * One queue node: the successor's tail (0: none yet), "you are the head",
 * and in paravirtual mode whether its CPU halted (qspinlock_pv.h).
 */
struct qspin_node {
	uint32_t next;
	uint32_t head;
	uint32_t state;
};

/*
 * A CPU's nodes and how many it uses now.  Only that CPU (and the contexts
 * that interrupt it, which return before it resumes) writes its depth; its
 * nodes are written by it and by the one predecessor or successor that
 * finds them through the tail.  One line pair per CPU: queueing on one CPU
 * never slows another.
 */
struct qspin_cpu {
	struct qspin_node nodes[QSPIN_NODES];
	uint32_t depth;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

static struct qspin_cpu qspin_cpus[MAX_CPUS];

/* One PAUSE of a wait for @what (@who: a CPU it names, or -1); progress is any change of the word. */
static void qspin_wait_step(struct spin_wait *w, spinlock_t *lock, const char *what, int who)
{
	platform_relax();
	if (spin_wait_due(w))
		spin_wait_check(w, atomic_load32(&lock->val), what, who);
}

/* The node a tail names; panics (before touching it) if it names no online CPU. */
static struct qspin_node *qspin_node_of(spinlock_t *lock, uint16_t tail, unsigned *cpu)
{
	unsigned plus1 = tail >> QSPIN_IDX_BITS;

	*cpu = plus1 - 1;
	if (plus1 == 0 || *cpu >= platform_cpu_count())
		platform_panic("qspinlock %p: cpu %u found tail %#x naming cpu %d, but only %u "
			       "CPUs are online: corrupt lock word %#x",
			       (void *)lock, platform_cpu_id(), tail, (int)plus1 - 1,
			       platform_cpu_count(), atomic_load32(&lock->val));
	return &qspin_cpus[*cpu].nodes[tail & (QSPIN_NODES - 1)];
}

/* Q1-Q5: queue on a node of this CPU, and return with the lock held. */
static void qspin_queue(spinlock_t *lock, struct spin_wait *w)
{
	unsigned cpu = platform_cpu_id(), prev_cpu, next_cpu;
	struct qspin_cpu *c = &qspin_cpus[cpu];
	unsigned idx = atomic_load32_relaxed(&c->depth);
	struct qspin_node *node, *succ;
	uint16_t me, prev, next;
	uint32_t val;
	bool pv = spin_pv_mode() != SPIN_PV_OFF;

	if (idx >= QSPIN_NODES)
		platform_panic("qspinlock %p: cpu %u queues in %u nested contexts at once, but has "
			       "only %u queue nodes",
			       (void *)lock, cpu, idx + 1, QSPIN_NODES);
	/* Claimed before use: a context that interrupts us from here takes the next node. */
	atomic_store32_relaxed(&c->depth, idx + 1);
	atomic_compiler_barrier();
	node = &c->nodes[idx];
	atomic_store32(&node->head, 0);
	atomic_store32(&node->next, 0);
	atomic_store32(&node->state, QSPIN_PV_RUNNING);
	me = qspin_tail(cpu, idx);
	/* Q1: the node is initialised before the XCHG makes it findable. */
	prev = atomic_xchg16(&lock->queued.tail, me);
	if (prev)
		atomic_store32(&qspin_node_of(lock, prev, &prev_cpu)->next, me); /* Q2 */
	/* Stamped after the link, so tracing delays no hand-off to us; the arg is the tail's CPU + 1. */
	trace_ev(TR_QSPIN_QUEUED, lock, prev >> QSPIN_IDX_BITS);
	if (prev && pv) /* N1-N4: spin, then halt until the hand-off's kick */
		qspin_pv_wait_node(lock, &node->head, &node->state, prev_cpu);
	while (prev && !atomic_load32(&node->head))
		qspin_wait_step(w, lock, "its turn at the queue head from its predecessor, cpu",
				(int)prev_cpu);
	/* Q3: the holder and the pending CPU go first. */
	if (pv) /* H1-H4: spin, then hash ourselves and halt until the unlock's kick */
		val = qspin_pv_wait_head(lock, me, &node->state);
	else
		while ((val = atomic_load32(&lock->val)) & QSPIN_LOCKED_PENDING)
			qspin_wait_step(w, lock,
					"the holder and the pending waiter to go (queue head)", -1);
	/* Q4: last in the queue, empty it as we take the lock. */
	if ((val & QSPIN_TAIL_MASK) == (uint32_t)me << QSPIN_TAIL_SHIFT &&
	    atomic_cmpxchg32(&lock->val, &val, QSPIN_LOCKED)) {
		trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_QUEUE);
		goto out;
	}
	/* Someone queued behind us; with a tail set, only the head may set the byte. */
	atomic_store8(&lock->queued.locked, QSPIN_LOCKED);
	/* Ours from the store on: a successor slow to link is waited for while holding. */
	trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_QUEUE);
	while (!(next = (uint16_t)atomic_load32(&node->next)))
		qspin_wait_step(w, lock, "its successor to link behind it", -1);
	succ = qspin_node_of(lock, next, &next_cpu);
	atomic_store32(&succ->head, 1); /* Q5 */
	if (pv)
		qspin_pv_kick_node(&succ->state, next_cpu); /* K */
out:
	/* A decrement, not idx: the host tests share a CPU index between threads. */
	atomic_store32_relaxed(&c->depth, atomic_load32_relaxed(&c->depth) - 1);
}

/*
 * P1: set pending and return the word as it was, pending as the BTS found it
 * and the rest as read just after (x86 has no fetch-or; the rest may have
 * moved on since, which only makes the caller queue when it need not).
 */
static uint32_t qspin_fetch_set_pending(spinlock_t *lock)
{
	uint32_t was = atomic_test_and_set_bit32(&lock->val, QSPIN_PENDING_BIT) ? QSPIN_PENDING : 0;

	return was | (atomic_load32(&lock->val) & ~QSPIN_PENDING);
}

/* P0-P3, or Q1-Q5 through qspin_queue: the slow path of both copies of qspin_lock_body. */
__attribute__((noinline)) void qspin_lock_slow(spinlock_t *lock, uint32_t val)
{
	struct spin_wait w;

	spin_wait_start(&w, lock);
	trace_ev(TR_QSPIN_WAIT, lock, val);
	/*
	 * Paravirtual: no pending step, straight to the queue (as Linux's
	 * slow path does when pv is on).  A pending waiter spins on the locked
	 * byte and cannot halt, and a queue head waits for pending to clear:
	 * a pending CPU whose vCPU the host preempted would leave the head
	 * spinning with no way to halt, the very case pv mode exists for.
	 * Every pv waiter is a queue node, which halts (N1-N4, H1-H4).
	 */
	if (spin_pv_mode() != SPIN_PV_OFF)
		goto queue;
	for (unsigned i = 0; val == QSPIN_PENDING && i < QSPIN_HANDOVER_SPINS; i++) { /* P0 */
		platform_relax();
		val = atomic_load32(&lock->val);
	}
	if (val & ~QSPIN_LOCKED_MASK)
		goto queue;		     /* someone pends or queues already */
	val = qspin_fetch_set_pending(lock); /* P1 */
	if (val & ~QSPIN_LOCKED_MASK) {
		if (!(val & QSPIN_PENDING))
			atomic_store8(&lock->queued.pending, 0); /* ours: back out */
		goto queue;
	}
	while (atomic_load8(&lock->queued.locked)) /* P2 */
		qspin_wait_step(&w, lock, "the holder to go (pending waiter)", -1);
	atomic_store16(&lock->queued.locked_pending, QSPIN_LOCKED); /* P3 */
	trace_ev(TR_QSPIN_ACQ, lock, TR_QACQ_PENDING);
	return;
queue:
	qspin_queue(lock, &w);
}

/* The traced copies are every kind's (spinlock.c's SPIN_KIND_TRACED); the test before the CMPXCHG. */
void qspin_lock(spinlock_t *lock)
{
	if (spin_mode() & SPIN_MODE_TRACED)
		qspin_lock_traced(lock);
	else
		qspin_lock_body(lock, false);
}

void qspin_unlock(spinlock_t *lock)
{
	if (spin_mode() & SPIN_MODE_TRACED)
		qspin_unlock_traced(lock);
	else
		qspin_unlock_body(lock, false);
}

unsigned qspin_depth(void)
{
	return atomic_load32_relaxed(&qspin_cpus[platform_cpu_id()].depth);
}
