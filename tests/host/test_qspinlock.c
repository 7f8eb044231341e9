// SPDX-License-Identifier: MIT
/*
 * test_qspinlock.c - the queued spinlock (lib/qspinlock.c) on host threads,
 * through the spinlock_t API with spin_kind_set(SPIN_KIND_QSPINLOCK).
 *
 * Why each part: the word's layout is what the lockref tests for "free", so
 * single-threaded checks pin every state (held, pending, queued) and the
 * copied-value test; the pending and queue paths are driven step by step
 * with threads whose arrival is forced in order, and the word checked at
 * each step, so each path is known to run (a stress alone might only ever
 * take the fast path); the queue's nesting uses two threads with the same
 * CPU index, as an interrupt queueing on the CPU it interrupted would; the
 * panics (nesting overflow, a tail naming an offline CPU, and in the debug
 * build a recursive lock) run in child processes; the stress proves mutual
 * exclusion with a plain counter and an occupancy flag at 2, 4 and 8 threads.
 */
#include "platform.h"
#include "platform_host.h"
#include "qspinlock.h"
#include "pv_stats.h"
#include "spinlock.h"
#include "check.h"
#include "child_panics.h"
#include "lock_stress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long a step waits for a thread to reach the state it must reach. */
#define STEP_TIMEOUT_NS (5ull * 1000 * 1000 * 1000)

static uint32_t word(spinlock_t *lock)
{
	return __atomic_load_n(&lock->val, __ATOMIC_ACQUIRE);
}

/* Wait until @lock's word is @want; false (and says so) after STEP_TIMEOUT_NS. */
static bool wait_word(spinlock_t *lock, uint32_t want)
{
	uint64_t start = platform_now_ns();

	while (word(lock) != want) {
		if (platform_now_ns() - start > STEP_TIMEOUT_NS) {
			printf("# word %#x, waited for %#x\n", word(lock), want);
			return false;
		}
		sched_yield();
	}
	return true;
}

static void test_single(void)
{
	spinlock_t lock = SPINLOCK_INIT;

	CHECK(!spin_is_locked(&lock), "a fresh lock is free");
	spin_lock(&lock);
	CHECK(word(&lock) == QSPIN_LOCKED, "held: word %#x", word(&lock));
	CHECK(spin_is_locked(&lock), "held after spin_lock");
	CHECK(!spin_trylock(&lock), "trylock of a held lock must fail");
	CHECK(word(&lock) == QSPIN_LOCKED, "a failed trylock changes nothing: %#x", word(&lock));
	spin_unlock(&lock);
	CHECK(word(&lock) == 0, "unlock leaves 0: %#x", word(&lock));
	CHECK(spin_trylock(&lock), "trylock of a free lock succeeds");
	CHECK(word(&lock) == QSPIN_LOCKED, "trylock took it: %#x", word(&lock));
	spin_unlock(&lock);
	/* A pending waiter or a queue alone, the holder gone: not free, trylock fails. */
	lock.val = QSPIN_PENDING;
	CHECK(!spin_trylock(&lock) && lock.val == QSPIN_PENDING, "pending alone is not free");
	lock.val = (uint32_t)qspin_tail(0, 0) << QSPIN_TAIL_SHIFT;
	CHECK(!spin_trylock(&lock), "a queue alone is not free");
	CHECK(spin_is_locked(&lock), "a queue reads as locked");
	for (uint32_t v = 0; v < 4; v++) {
		spinlock_t copy = {.val = (v & 1 ? QSPIN_LOCKED : 0) | (v & 2 ? QSPIN_PENDING : 0)};

		CHECK(spin_value_unlocked(copy) == (v == 0), "copy %#x: free iff 0", copy.val);
	}
	/* The word a ticket lock would call free (head == tail) is held here. */
	spinlock_t ticket_free = {.val = 0x01000100u};
	CHECK(!spin_value_unlocked(ticket_free), "head == tail is not free for a qspinlock");
}

struct waiter {
	spinlock_t *lock;
	unsigned cpu;
	unsigned *order; /* next arrival number, under the lock */
	unsigned got;	 /* this waiter's arrival number */
	unsigned depth;	 /* qspin_depth() while holding: 0 once out of the queue */
	pthread_t tid;
};

static void *take_and_release(void *arg)
{
	struct waiter *w = arg;

	host_set_cpu_id(w->cpu);
	spin_lock(w->lock);
	w->got = (*w->order)++;
	w->depth = qspin_depth();
	spin_unlock(w->lock);
	return NULL;
}

static void start(struct waiter *w, spinlock_t *lock, unsigned cpu, unsigned *order)
{
	*w = (struct waiter){.lock = lock, .cpu = cpu, .order = order};
	pthread_create(&w->tid, NULL, take_and_release, w);
}

/*
 * Pending path, then the queue: CPU 0 holds; CPU 1 arrives second and must
 * set pending (no node); CPU 2 arrives third and queues on node 0; a
 * second context of CPU 2 queues on node 1 behind it.  Then CPU 0 unlocks
 * and they must get the lock in that order, leaving the word 0.
 */
static void test_pending_and_queue(void)
{
	spinlock_t lock = SPINLOCK_INIT;
	struct waiter w[3];
	unsigned order = 0;
	uint32_t q0 = (uint32_t)qspin_tail(2, 0) << QSPIN_TAIL_SHIFT;
	uint32_t q1 = (uint32_t)qspin_tail(2, 1) << QSPIN_TAIL_SHIFT;

	host_set_cpu_count(3);
	spin_lock(&lock);
	start(&w[0], &lock, 1, &order);
	CHECK(wait_word(&lock, QSPIN_LOCKED | QSPIN_PENDING), "the second CPU sets pending");
	start(&w[1], &lock, 2, &order);
	CHECK(wait_word(&lock, QSPIN_LOCKED | QSPIN_PENDING | q0), "the third queues on node 0");
	start(&w[2], &lock, 2, &order);
	CHECK(wait_word(&lock, QSPIN_LOCKED | QSPIN_PENDING | q1),
	      "a nested context of CPU 2 queues on node 1");
	spin_unlock(&lock);
	for (unsigned i = 0; i < 3; i++) {
		pthread_join(w[i].tid, NULL);
		CHECK(w[i].got == i, "waiter %u got the lock %u-th", i, w[i].got);
	}
	CHECK(w[0].depth == 0, "the pending waiter used no node");
	CHECK(word(&lock) == 0, "all gone: word %#x", word(&lock));
	host_set_cpu_id(2);
	CHECK(qspin_depth() == 0, "CPU 2's nodes are all free again: depth %u", qspin_depth());
	host_set_cpu_id(0);
}

/*
 * Paravirtual: no pending step.  CPU 0 holds; CPU 1 arrives second and
 * must queue on its node 0 (the word shows its tail, never pending), as
 * Linux's slow path goes straight to the queue when pv is on.
 */
static void test_pv_no_pending(void)
{
	spinlock_t lock = SPINLOCK_INIT;
	struct waiter w;
	unsigned order = 0;
	uint32_t q0 = (uint32_t)qspin_tail(1, 0) << QSPIN_TAIL_SHIFT;

	host_set_cpu_count(2);
	spin_pv_set(true);
	spin_lock(&lock);
	start(&w, &lock, 1, &order);
	/* Its locked byte may read SLOW by now: the head halts, after hashing itself (H2). */
	for (uint64_t t0 = platform_now_ns();
	     (word(&lock) & QSPIN_TAIL_MASK) != q0 && platform_now_ns() - t0 < STEP_TIMEOUT_NS;)
		sched_yield();
	CHECK((word(&lock) & ~QSPIN_LOCKED_MASK) == q0, "pv: the second CPU queues, word %#x",
	      word(&lock));
	CHECK(!(word(&lock) & QSPIN_PENDING), "pv: nobody pends, word %#x", word(&lock));
	spin_unlock(&lock);
	pthread_join(w.tid, NULL);
	CHECK(word(&lock) == 0, "pv: all gone: word %#x", word(&lock));
	spin_pv_set(false);
	host_set_cpu_id(0);
}

/* CPU 2 queues in QSPIN_NODES contexts at once; one more must panic naming CPU 2. */
static void nest_too_deep(void)
{
	static spinlock_t lock = SPINLOCK_INIT;
	static struct waiter w[QSPIN_NODES + 2];
	static unsigned order;

	host_set_cpu_count(3);
	spin_lock(&lock);
	start(&w[0], &lock, 1, &order);
	if (!wait_word(&lock, QSPIN_LOCKED | QSPIN_PENDING))
		return;
	for (unsigned i = 0; i < QSPIN_NODES; i++) {
		start(&w[i + 1], &lock, 2, &order);
		if (!wait_word(&lock, QSPIN_LOCKED | QSPIN_PENDING |
					  (uint32_t)qspin_tail(2, i) << QSPIN_TAIL_SHIFT))
			return;
	}
	start(&w[QSPIN_NODES + 1], &lock, 2, &order);
	pthread_join(w[QSPIN_NODES + 1].tid, NULL);
}

/* A held lock whose tail names CPU 7 while 2 CPUs are online: the next waiter must panic. */
static void tail_names_offline_cpu(void)
{
	static spinlock_t lock;
	static struct waiter w;
	static unsigned order;

	host_set_cpu_count(2);
	lock.val = QSPIN_LOCKED | (uint32_t)qspin_tail(7, 0) << QSPIN_TAIL_SHIFT;
	start(&w, &lock, 1, &order);
	pthread_join(w.tid, NULL);
}

#ifdef SPINLOCK_DEBUG
static void lock_twice(void)
{
	spinlock_t lock = SPINLOCK_INIT;

	spin_lock(&lock);
	spin_lock(&lock);
}
#endif

static void test_panics(void)
{
	char expect[64];

	snprintf(expect, sizeof(expect), "cpu 2 queues in %u nested contexts", QSPIN_NODES + 1);
	CHECK(child_panics(nest_too_deep, expect), "nesting overflow must panic naming CPU 2");
	CHECK(child_panics(tail_names_offline_cpu, "naming cpu 7, but only 2 CPUs are online"),
	      "a tail naming an offline CPU must panic naming it");
#ifdef SPINLOCK_DEBUG
	CHECK(child_panics(lock_twice, "already holds"), "recursive spin_lock must panic");
#endif
}

static void test_stress(unsigned threads)
{
	struct lock_stress s = {
	    .lock = SPINLOCK_INIT, .acquire = spin_lock, .release = spin_unlock, .trylocks = true};

	lock_stress_run(&s, threads);
	CHECK(word(&s.lock) == 0, "%u threads: word %#x left", threads, word(&s.lock));
}

/*
 * The same stress with paravirtual waiting on (qspinlock_pv.c): queued
 * threads halt on futexes and are kicked at hand-off or unlock.  More
 * threads than cores make them halt; what they did is printed.
 */
static void test_stress_pv(unsigned threads)
{
	struct pv_stats before = pv_stats(), run;
	char line[PV_STATS_LINE];

	spin_pv_set(true);
	test_stress(threads);
	spin_pv_set(false);
	run = pv_stats_delta(pv_stats(), before);
	printf("# %u threads, paravirtual: %s\n", threads,
	       pv_stats_format(line, sizeof(line), &run));
	CHECK(run.no_head == 0 && run.hash_full == 0, "%u threads, paravirtual: bad input counted",
	      threads);
	CHECK(run.lost_kicks == 0, "%u threads, paravirtual: %lu lost wake-ups", threads,
	      (unsigned long)run.lost_kicks);
	CHECK(run.passes == 0,
	      "%u threads, paravirtual: %lu turns passed over; the queue never does", threads,
	      (unsigned long)run.passes);
}

int main(void)
{
	static const unsigned thread_counts[] = {2, 4, LOCK_STRESS_MAX_THREADS};

	host_set_cpu_id(0);
	spin_kind_set(SPIN_KIND_QSPINLOCK);
	test_single();
	test_pending_and_queue();
	test_pv_no_pending();
	test_panics();
	for (unsigned i = 0; i < sizeof(thread_counts) / sizeof(thread_counts[0]); i++)
		test_stress(thread_counts[i]);
	for (unsigned i = 0; i < sizeof(thread_counts) / sizeof(thread_counts[0]); i++)
		test_stress_pv(thread_counts[i]);
	return check_exit("test_qspinlock");
}
