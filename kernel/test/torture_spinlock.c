// SPDX-License-Identifier: MIT
/*
 * torture_spinlock.c - the ticket lock under fire on every CPU (suite
 * spinlock): the tests, the shared lock and each CPU's loop.
 *
 * Every online CPU takes one shared ticket lock over and over for
 * torture.secs=, holding it a random while (now and then for a
 * millisecond), thinking a random while between acquisitions, and pausing
 * with the others at every stutter point: checking at every acquisition that it holds the critical section alone
 * (held-on-entry, exclusive-hold), and at the end that no update was lost,
 * that waiters were served in order (fifo) and none starved: the
 * invariants are named, judged and explained in torture_spinlock_report.c.
 *
 * Why not the per-CPU acquisition counts (printed all the same, with
 * max:min): counts also measure the scheduler.  A CPU the host deschedules
 * outside the lock misses turns, and at each stutter restart one CPU may
 * run alone for thousands of uncontended acquisitions; on host threads
 * under load that skews counts by 10:1 around a perfectly FIFO lock, so
 * fifo judges order, and starvation judges counts only where they mean
 * something (torture_spinlock_report.c).
 *
 * It also measures how long acquisitions waited (maximum and a log2
 * histogram in cycles, from one acquisition in SPIN_TIME_EVERY).
 *
 * Two tests: ticket_lock_torture takes spin_lock, so it runs on the boot's
 * kind (spinlock.kind=) with its debug checks; qspinlock_torture takes the
 * queued lock's own qspin_lock on the torture's private lock, so every boot
 * tortures the queued spinlock whatever its kind, without switching the
 * kind every other lock uses.  FIFO is judged for the ticket lock only:
 * the queued lock is FIFO once a waiter owns pending or has queued, but
 * before that a CPU whose compare-exchange found the word changed retries,
 * and a CPU arriving when the word reads 0 takes the lock ahead of it (lock
 * stealing, as in Linux's).  Under TCG at 2 CPUs that overtook 354 of
 * 318052 acquisitions, just over the ticket lock's allowance; its count is
 * still printed.
 *
 * Why three files and a header, each one concern: this one the tests and the loop every
 * CPU runs; torture_spinlock_setup.c CPU 0's set-up, with the broken locks
 * torture.busted= swaps in; torture_spinlock_report.c the invariants'
 * names, the failure lines, the judgement at the end and the statistics
 * lines (people and checks read them); torture_spinlock.h the state they
 * share.
 */
#include "torture_spinlock.h"

#include "atomic.h"
#include "platform.h"
#include "random.h"

/* Longest random hold inside, and think time outside, the critical section, in loop iterations. */
#define SPIN_HOLD_MAX_LOOPS  256u
#define SPIN_THINK_MAX_LOOPS 256u

struct spin_state spin_torture __attribute__((aligned(CACHE_PAIR_BYTES)));

/* At the end of a long hold: how many CPUs wait behind us now (queue-depth). */
static void spin_count_waiting(struct spin_cpu *me)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < spin_torture.ncpus; i++)
		n += atomic_load32_relaxed(&spin_torture.cpu[i].waiting);
	if (n > me->deepest)
		me->deepest = n;
}

/* One acquisition: take the lock, check and bump inside, release, think. */
static void spin_one(struct ktest_ctx *t, struct spin_cpu *me, struct torture_pace *pace)
{
	uint32_t mark = t->cpu + 1, seen;
	bool timed = me->acquisitions % SPIN_TIME_EVERY == 0;
	uint64_t t0 = 0, waited = 0, value, asked, ahead;

	/* Acquisitions so far: those made between now and ours went first. */
	asked = atomic_load64_relaxed(&spin_torture.served);
	if (timed)
		t0 = platform_cycles();
	atomic_store32_relaxed(&me->waiting, 1);
	spin_torture.acquire(&spin_torture.lock);
	atomic_store32_relaxed(&me->waiting, 0);
	if (timed)
		waited = platform_cycles() - t0;

	seen = spin_torture.holder;
	if (seen != 0)
		spin_fail(t, me, SPIN_HELD_ON_ENTRY,
			  "cpu %u entered the critical section while cpu %u was inside "
			  "(counter %lu)",
			  t->cpu, seen - 1, spin_torture.counter);
	spin_torture.holder = mark;
	/* Read, hold, write: overlapping holders lose each other's updates. */
	value = spin_torture.counter;
	if (torture_long_hold_due(pace)) {
		torture_long_hold();
		spin_count_waiting(me);
	} else
		torture_spin(rng_below(pace->rng, SPIN_HOLD_MAX_LOOPS + 1));
	spin_torture.counter = value + 1;
	atomic_store64_relaxed(&spin_torture.served, value + 1);
	seen = spin_torture.holder;
	if (seen == 0)
		spin_fail(t, me, SPIN_EXCLUSIVE_HOLD,
			  "cpu %u found its critical section marked free on the way out "
			  "(counter %lu)",
			  t->cpu, value);
	else if (seen != mark)
		spin_fail(t, me, SPIN_EXCLUSIVE_HOLD,
			  "cpu %u found cpu %u's mark in its critical section on the way out "
			  "(counter %lu)",
			  t->cpu, seen - 1, value);
	spin_torture.holder = 0;
	spin_torture.release(&spin_torture.lock);

	me->acquisitions++;
	if (torture_all_running(pace))
		me->counted++;
	/* value < asked only with the busted lock, whose counter loses updates. */
	ahead = value > asked ? value - asked : 0;
	if (ahead >= 2 * t->ncpus)
		me->overtaken++;
	if (ahead > me->max_ahead)
		me->max_ahead = ahead;
	if (timed) {
		me->hist[torture_log2(waited)]++;
		if (waited > me->max_latency)
			me->max_latency = waited;
	}
	torture_spin(rng_below(pace->rng, SPIN_THINK_MAX_LOOPS + 1));
}

/* Every CPU: the torture on spin_lock (@queued false) or on qspin_lock. */
static void spin_torture_run(struct ktest_ctx *t, bool queued)
{
	struct torture_pace pace;
	struct spin_cpu *me;
	struct rng rng;

	if (t->cpu == 0)
		spin_setup(t, queued);
	if (!ktest_barrier(t, TORTURE_START_TIMEOUT_MS) || !spin_torture.cpu)
		return;
	if (spin_torture.busted && t->ncpus == 1 && t->cpu == 0)
		ktest_fail(t,
			   "torture.busted=%s needs 2 or more CPUs: one CPU alone "
			   "cannot show a lock that excludes nobody",
			   busted_name(opts.busted));
	me = &spin_torture.cpu[t->cpu];
	torture_rng_init(&rng, t);
	torture_pace_init(&pace, &spin_torture.clock, &rng);
	while (torture_continue(&pace))
		spin_one(t, me, &pace);
	me->long_holds = pace.long_holds;
	me->pauses = pace.pauses;
	/*
	 * If some CPU never finishes, leave the results allocated: a straggler
	 * may still write to them.
	 */
	bool all_done = ktest_barrier(t, opts.torture_ms + TORTURE_END_SLACK_MS);

	if (t->cpu != 0)
		return;
	pv_kick_drop = NULL; /* torture.busted=*-lost-kick ends with the loop: kicks are sent */
	if (!all_done)
		return;
	spin_report(t);
	platform_free(spin_torture.cpu, sizeof(struct spin_cpu) * t->ncpus);
	spin_torture.cpu = NULL;
}

void torture_spinlock_run(struct ktest_ctx *t)
{
	spin_torture_run(t, false);
}

void torture_qspinlock_run(struct ktest_ctx *t)
{
	spin_torture_run(t, true);
}

static void ticket_lock_torture(struct ktest_ctx *t)
{
	torture_spinlock_run(t);
}

static void qspinlock_torture(struct ktest_ctx *t)
{
	torture_qspinlock_run(t);
}

KTEST(spinlock, "ticket_lock_torture", ticket_lock_torture, KTEST_ALL_CPUS);
KTEST(spinlock, "qspinlock_torture", qspinlock_torture, KTEST_ALL_CPUS);
