// SPDX-License-Identifier: MIT
/*
 * torture_lockref_hot.c - phase A of the lockref torture: every CPU on the
 * count of one hot object.
 *
 * Why: a lockref promises two things at once, that its lockless operations
 * never lose an update, and that while someone holds its lock the count
 * does not move (Linux's dcache reads d_count under d_lock and trusts it).
 * One object hammered by every CPU tests both where they meet hardest.
 *
 * Every CPU hammers the count with a random mix of get, get_not_zero,
 * get_not_dead, put_not_zero, put_return and put_or_lock, and now and then
 * takes the lock and holds it a random while, reading the count all along:
 * it must not move.  Now and then the hold is long (a millisecond once
 * another CPU is seen to contend for it), which both builds queues and
 * gives a broken lockref the time to show itself even when the host runs
 * our vCPUs one at a time.
 *
 * The object starts with one base reference nobody drops, and each CPU
 * only drops references it took, so the count can never legally be below
 * 1 + the references the looking CPU holds, and every conditional
 * operation must succeed.  A lock holder's count that moves is
 * hold-verify; a count out of that range is count-range; a refusal is
 * wrong-refusal; and CPU 0 checks at the end that the count is the base
 * reference plus every CPU's net gain (conservation).
 */
#include "atomic.h"
#include "platform.h"
#include "random.h"
#include "torture_lockref.h"

/* References one CPU may hold on the hot object. */
#define LR_MINE_MAX 8
/* One operation in this many on the hot object is a lock-hold-and-verify. */
#define LR_HOLD_ODDS 8u
/* Longest a long hold waits for another CPU to contend (lr_hold_watch). */
#define LR_LONG_HOLD_MAX_MS 50u
/* Longest random short lock hold, in count reads. */
#define LR_HOLD_MAX_READS 256u

/* Check a count @c the calling CPU saw while holding @mine references of its own. */
static void lr_hot_range(struct ktest_ctx *t, int64_t c, int64_t mine, const char *where)
{
	int64_t most = 1 + (int64_t)lr.ncpus * LR_MINE_MAX;

	if (c < 1 + mine || c > most)
		lr_fail(t, LR_COUNT_RANGE,
			"%s saw count %ld; with the base reference and %ld of its own it must be "
			"in [%ld, %ld]",
			where, c, mine, 1 + mine, most);
}

/* Operations every other CPU has started on the hot object. */
static uint64_t lr_others_started(const struct lr_cpu *me)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < lr.ncpus; i++)
		if (&lr.cpu[i] != me)
			sum += atomic_load64_relaxed(&lr.cpu[i].started);
	return sum;
}

/*
 * Whether another CPU shows, since @base (the sum of their started
 * operations) and @tail0 (the ticket tail) were read, that it runs against
 * the lock the caller holds: it started an operation, or it queued for
 * the lock.  Under a policy that waits for the lock to be free (v7), a CPU
 * inside an operation counts too: it is spinning on our lock, which leaves
 * no other trace.
 */
static bool lr_contended(const struct lr_cpu *me, uint64_t base, uint16_t tail0)
{
	if (lr_others_started(me) != base ||
	    atomic_load16(&lr.ops->lock_of(&lr.hot)->tickets.tail) != tail0)
		return true;
	if (!lr.policy->wait_unlocked)
		return false;
	for (unsigned i = 0; i < lr.ncpus; i++)
		if (&lr.cpu[i] != me && atomic_load64_relaxed(&lr.cpu[i].started) !=
					    atomic_load64_relaxed(&lr.cpu[i].finished))
			return true;
	return false;
}

/*
 * Caller holds the lock of the hot object, whose count was @c1: keep
 * holding for @reads reads of the count, or, if @long_hold, a long hold,
 * reading the count all along.  Returns the first count that differs from
 * @c1, or @c1.  Watching throughout, not just at the end, catches a change
 * that a later one undid (a get and a put by another CPU).
 *
 * A long hold lasts TORTURE_LONG_HOLD_US from the moment another CPU is
 * seen to run against it (lr_contended; a CPU already queued behind us
 * counts from the start), waiting at most LR_LONG_HOLD_MAX_MS for that: on
 * a busy host the other vCPUs may not run at all for milliseconds, and a
 * hold nobody contends proves nothing.
 */
static int64_t lr_hold_watch(struct lr_cpu *me, int64_t c1, bool long_hold, uint64_t reads)
{
	const spinlock_t *lock = lr.ops->lock_of(&lr.hot);
	uint64_t now = 0, base = 0, end_ns = 0, cap_ns = 0;
	uint16_t tail0 = 0;
	bool contended = lr.ncpus == 1;
	int64_t c;

	if (long_hold) {
		now = platform_now_ns();
		base = lr_others_started(me);
		tail0 = atomic_load16(&lock->tickets.tail);
		/* We hold the lock: anyone past our ticket queued behind us. */
		contended |= spin_value_waiters((spinlock_t){.val = atomic_load32(&lock->val)}) > 0;
		end_ns = now + TORTURE_LONG_HOLD_US * TORTURE_NS_PER_US;
		cap_ns = now + LR_LONG_HOLD_MAX_MS * TORTURE_NS_PER_MS;
	}
	for (uint64_t i = 0;; i++) {
		c = lr.ops->count(&lr.hot);
		if (c != c1)
			return c;
		if (!long_hold) {
			if (i >= reads)
				return c1;
			continue;
		}
		now = platform_now_ns();
		if (!contended && lr_contended(me, base, tail0)) {
			contended = true;
			end_ns = now + TORTURE_LONG_HOLD_US * TORTURE_NS_PER_US;
		}
		if ((contended && now >= end_ns) || now >= cap_ns)
			return c1;
	}
}

/* Lock, check the count stands still for a random (now and then a long) while, maybe change it. */
static void lr_hot_hold(struct ktest_ctx *t, struct lr_cpu *me, struct torture_pace *pace)
{
	const struct lockref_form *ops = lr.ops;
	void *ref = &lr.hot;
	int64_t c1, c2, r;
	bool long_hold;

	ops->lock(ref);
	/* Hold ids are unique; the CPU rides in the low digits (lr_check_span). */
	atomic_xchg64(&lr.holding, (atomic_xadd64(&lr.hold_seq, 1) + 1) * MAX_CPUS + t->cpu);
	c1 = ops->count(ref);
	long_hold = torture_long_hold_due(pace);
	c2 = lr_hold_watch(me, c1, long_hold, rng_below(pace->rng, LR_HOLD_MAX_READS + 1));
	if (c1 != c2) {
		lr_fail(t, LR_HOLD_VERIFY,
			"the count moved from %ld to %ld while this CPU held the lock (a %s hold)",
			c1, c2, long_hold ? "long" : "short");
		c2 = ops->count(ref);
	}
	lr_hot_range(t, c2, me->mine, "a lock holder");
	switch (rng_below(pace->rng, 3)) {
	case 0:
		if (me->mine < LR_MINE_MAX) {
			r = ops->get_locked(ref);
			me->mine++;
			if (r != c2 + 1)
				lr_fail(t, LR_HOLD_VERIFY, "get_locked on count %ld returned %ld",
					c2, r);
		}
		break;
	case 1:
		if (me->mine > 0) {
			r = ops->put_locked(ref);
			me->mine--;
			if (r != c2 - 1)
				lr_fail(t, LR_HOLD_VERIFY, "put_locked on count %ld returned %ld",
					c2, r);
		}
		break;
	default:
		break;
	}
	atomic_xchg64(&lr.holding, 0);
	ops->unlock(ref);
	me->holds++;
}

/* The hold of the hot object in progress (lr_hot_hold), or 0. */
static uint64_t lr_holding(void)
{
	return atomic_load64(&lr.holding);
}

/*
 * An operation that changed the hot count ran from when lr_holding() read
 * @before until now.  If one and the same hold covered all of it, the
 * operation changed the count while the lock was held throughout, which a
 * lockref must never do.  This needs no two CPUs running at the same time:
 * on a host that runs our vCPUs one at a time, a holder descheduled in the
 * middle of its hold is enough.
 */
static void lr_check_span(struct ktest_ctx *t, uint64_t before, const char *how)
{
	if (before != 0 && lr_holding() == before)
		lr_fail(t, LR_HOLD_VERIFY,
			"%s changed the count while cpu %lu held the lock from before it began "
			"until after it returned",
			how, before % MAX_CPUS);
}

/* Take a reference on the hot object, one of three ways; every one must succeed. */
static void lr_hot_get(struct ktest_ctx *t, struct lr_cpu *me, struct rng *rng)
{
	const struct lockref_form *ops = lr.ops;
	void *ref = &lr.hot;
	uint64_t before = lr_holding();
	bool ok = true;
	const char *how = "get";

	switch (rng_below(rng, 3)) {
	case 0:
		ops->get(ref, lr.policy);
		break;
	case 1:
		how = "get_not_zero";
		ok = ops->get_not_zero(ref, lr.policy);
		break;
	default:
		how = "get_not_dead";
		ok = ops->get_not_dead(ref, lr.policy);
		break;
	}
	if (ok) {
		me->mine++;
		lr_check_span(t, before, how);
	} else {
		lr_fail(t, LR_WRONG_REFUSAL,
			"%s refused although the base reference and %ld of this CPU's keep the "
			"count >= %ld (count now %ld)",
			how, me->mine, 1 + me->mine, ops->count(ref));
	}
}

/* Drop one of this CPU's references on the hot object, one of three ways. */
static void lr_hot_put(struct ktest_ctx *t, struct lr_cpu *me, struct rng *rng)
{
	const struct lockref_form *ops = lr.ops;
	void *ref = &lr.hot;
	uint64_t before = lr_holding();
	int64_t r, c;

	switch (rng_below(rng, 3)) {
	case 0:
		if (ops->put_not_zero(ref, lr.policy)) {
			me->mine--;
			lr_check_span(t, before, "put_not_zero");
		} else {
			lr_fail(t, LR_WRONG_REFUSAL,
				"put_not_zero refused although the count must be >= %ld (count "
				"now %ld)",
				1 + me->mine, ops->count(ref));
		}
		break;
	case 1:
		r = ops->put_return(ref, lr.policy);
		if (r != -1)
			lr_check_span(t, before, "put_return");
		if (r == -1) {
			/* Lock held or too many lost races: finish under the lock, as callers do. */
			ops->lock(ref);
			r = ops->put_locked(ref);
			ops->unlock(ref);
			me->put_return_locked++;
		}
		me->mine--;
		lr_hot_range(t, r, me->mine, "put_return");
		break;
	default:
		if (ops->put_or_lock(ref, lr.policy)) {
			me->mine--;
			lr_check_span(t, before, "put_or_lock");
			break;
		}
		/* We hold the lock: the count claimed to be <= 1 although we hold one too. */
		c = ops->count(ref);
		lr_fail(t, LR_COUNT_RANGE,
			"put_or_lock fell to the last-reference path at count %ld while the "
			"count must be >= %ld",
			c, 1 + me->mine);
		ops->put_locked(ref);
		ops->unlock(ref);
		me->mine--;
		break;
	}
}

/* One CPU's phase A: now and then a hold, else a get or a put, each marked for lr_contended. */
void lr_hot_run(struct ktest_ctx *t, struct lr_cpu *me, struct torture_pace *pace)
{
	while (torture_continue(pace)) {
		atomic_store64_relaxed(&me->started, me->started + 1);
		if (rng_below(pace->rng, LR_HOLD_ODDS) == 0)
			lr_hot_hold(t, me, pace);
		else if (me->mine == 0 || (me->mine < LR_MINE_MAX && rng_below(pace->rng, 2)))
			lr_hot_get(t, me, pace->rng);
		else
			lr_hot_put(t, me, pace->rng);
		atomic_store64_relaxed(&me->finished, me->started);
		me->ops[LR_HOT]++;
	}
}

/* CPU 0 after phase A: the count must be the base reference plus every CPU's net gain. */
void lr_hot_check(struct ktest_ctx *t)
{
	int64_t want = 1, got = lr.ops->count(&lr.hot);

	for (unsigned i = 0; i < lr.ncpus; i++)
		want += lr.cpu[i].mine;
	if (got != want)
		lr_fail(t, LR_CONSERVATION,
			"the hot object ends with count %ld, but 1 + the net references every "
			"CPU took is %ld (off by %ld)",
			got, want, got - want);
}