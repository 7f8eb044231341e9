// SPDX-License-Identifier: MIT
/*
 * torture_lockref.c - the lockref under fire on every CPU (suite lockref).
 *
 * One test per policy (mainline, v7, locked) and form (8 and 16 bytes),
 * each in two phases that share torture.secs=:
 *
 * Phase A, the hot object: every CPU hammers the count of one object with
 * a random mix of get, get_not_zero, get_not_dead, put_not_zero,
 * put_return and put_or_lock, and now and then takes the lock and holds it
 * a random while, reading the count all along: it must not move.  Now and
 * then the hold is long (a millisecond once another CPU is seen to contend
 * for it), which both builds queues and gives a broken lockref the time to
 * show itself even when the host runs our vCPUs one at a time.
 * The object starts with one base reference nobody drops, and each CPU only
 * drops references it took, so the count can never legally be below
 * 1 + the references the looking CPU holds, and every conditional
 * operation must succeed.
 *
 * Phase B, the dead-object race (the dcache's life cycle): a table of slots
 * holds objects from a pool.  CPUs look objects up (get_not_dead or
 * get_not_zero on a pointer read from a slot), drop references with every
 * kind of put, and the CPU that drops the last one (or a reaper that finds
 * a count of 0) marks the object dead under its lock, unlinks it and frees
 * it into the pool, where it is poisoned.  Freed objects are reused only
 * when no CPU can still be looking at them (a hazard pointer per CPU, as
 * RCU would guarantee in Linux), so every lookup races with kills, never
 * with reuse.
 *
 * Invariants (the names the failure lines use):
 *   conservation   phase A: the final count is 1 + every CPU's net change;
 *                  phase B: every object ends with count 0 once all
 *                  references are dropped.
 *   hold-verify    a lock holder's count does not move.
 *   count-range    no count below the references known to be held, or
 *                  above all that could be; none below zero unless dead.
 *   wrong-refusal  a conditional operation refused though the count allows it.
 *   dead-revived   a dead count only ever reads exactly dead.
 *   get-after-kill a successful get_not_dead/get_not_zero never lands on a
 *                  killed object.
 *   freed-once     every incarnation of an object is freed exactly once.
 *   use-after-free a reference holder never sees the free poison.
 *   object-accounting  each object is in exactly one slot or free list.
 *   zero-warnings  the lockref's misuse warnings stay at zero.
 *   lockless-path, fallback-path  under contention both paths ran (the
 *                  locked policy, or the 16-byte form without CMPXCHG16B,
 *                  must never go lockless).
 *
 * torture.busted=lockref runs each test on the busted form of lockref_form.h
 * (lockless operations that ignore the lock): hold-verify and conservation
 * must catch it.
 */
#include "torture.h"

#include "atomic.h"
#include "cpuinfo.h"
#include "ktest.h"
#include "lockref.h"
#include "lockref16.h"
#include "lockref_form.h"
#include "platform.h"
#include "random.h"
#include "trace.h"

/* Phase A gets this share (percent) of the run; phase B the rest. */
#define LR_HOT_SHARE_PCT 60u
/* References one CPU may hold on the hot object. */
#define LR_MINE_MAX 8
/* One operation in this many on the hot object is a lock-hold-and-verify. */
#define LR_HOLD_ODDS 8u
/* Longest a long hold waits for another CPU to contend (lr_hold_watch). */
#define LR_LONG_HOLD_MAX_MS 50u
/* Longest random short lock hold, in count reads. */
#define LR_HOLD_MAX_READS 256u

/* Phase B: slots of the lookup table, objects in the pool, references one CPU holds. */
#define LR_SLOTS    16u
#define LR_OBJS	    64u
#define LR_HELD_MAX 4u
/* A slot being filled: lookups treat it as empty. */
#define LR_SLOT_BUSY UINT32_MAX
/* Payload words checked by every reference holder. */
#define LR_OBJ_WORDS 4u
/* A freed object's payload (Linux's POISON_FREE byte). */
#define LR_POISON 0x6b6b6b6b6b6b6b6bull
/* A last put that leaves the count at 0 kills the object one time in this many. */
#define LR_KILL_ODDS 2u

#define LR_LINE_MAX 400u

enum lr_phase { LR_HOT, LR_RACE, LR_PHASES };

enum lr_invariant {
	LR_CONSERVATION,
	LR_HOLD_VERIFY,
	LR_COUNT_RANGE,
	LR_WRONG_REFUSAL,
	LR_DEAD_REVIVED,
	LR_GET_AFTER_KILL,
	LR_FREED_ONCE,
	LR_USE_AFTER_FREE,
	LR_ACCOUNTING,
	LR_WARNINGS,
	LR_LOCKLESS_PATH,
	LR_FALLBACK_PATH,
	LR_INVARIANTS,
};

static const char *const lr_invariant_names[LR_INVARIANTS] = {
    "conservation",	 "hold-verify",	   "count-range",   "wrong-refusal",
    "dead-revived",	 "get-after-kill", "freed-once",    "use-after-free",
    "object-accounting", "zero-warnings",  "lockless-path", "fallback-path",
};

/* Either form of lockref, so one harness drives both. */
union lr_ref {
	struct lockref r8;
	struct lockref16 r16;
};

/* Phase B's objects.  Every field but the lockref is read by CPUs that hold no lock. */
struct lr_obj {
	union lr_ref ref;
	uint32_t inc;			/* incarnation: bumped each time the object is created */
	uint32_t state;			/* LR_OBJ_LIVE or LR_OBJ_FREE */
	uint32_t slot;			/* the slot it is published in while live */
	uint32_t creates;		/* incarnations so far */
	uint32_t frees;			/* frees so far: creates, or creates - 1 while live */
	uint64_t payload[LR_OBJ_WORDS]; /* lr_pattern() while live, LR_POISON once freed */
} __attribute__((aligned(CACHE_PAIR_BYTES)));

#define LR_OBJ_FREE 0u
#define LR_OBJ_LIVE 1u

/* A reference a CPU holds in phase B: object index + 1 (0: none) and its incarnation. */
struct lr_held {
	uint32_t obj;
	uint32_t inc;
};

/* One CPU's state and results, in its own cache-line pair. */
struct lr_cpu {
	uint64_t ops[LR_PHASES];
	struct lockref_stats path[LR_PHASES]; /* what this CPU's operations did */
	uint64_t fails[LR_INVARIANTS];
	uint64_t long_holds, pauses;
	/* Phase A. */
	int64_t mine;	   /* references held on the hot object */
	uint64_t started;  /* operations started on it; others read it (lr_contended) */
	uint64_t finished; /* operations finished; others read it */
	uint64_t holds;
	uint64_t put_return_locked; /* put_return said -1: finished under the lock */
	/* Phase B. */
	uint64_t created, killed_last, killed_reaped, refused, raced, deferred;
	uint32_t hazard; /* object (index + 1) this CPU may be looking at; others read it */
	struct lr_held held[LR_HELD_MAX]; /* others read .obj */
	unsigned nheld;
	uint32_t *stack; /* free objects this CPU reuses: LR_OBJS entries of room */
	unsigned nfree;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* The test in progress: written by CPU 0 between barriers, read by all during a phase. */
static struct {
	union lr_ref hot __attribute__((aligned(CACHE_PAIR_BYTES)));
	uint64_t holding;  /* hold of the hot object in progress: id * MAX_CPUS + cpu, or 0 */
	uint64_t hold_seq; /* holds so far */
	uint32_t slot[LR_SLOTS] __attribute__((aligned(CACHE_PAIR_BYTES)));
	const struct lockref_form *ops;
	const struct lockref_policy *policy;
	bool lockless_possible; /* the policy tries locklessly and the CPU can */
	struct torture_clock clock[LR_PHASES];
	struct lr_cpu *cpu; /* ncpus of them; NULL if set-up failed */
	struct lr_obj *obj; /* LR_OBJS of them */
	uint32_t *stacks;   /* ncpus * LR_OBJS */
	unsigned ncpus;
	uint64_t warnings_before;
	uint32_t printed[LR_INVARIANTS]; /* failure lines printed (torture_fail) */
	char label[48];			 /* "mainline/8" */
} lr;

static void lr_fail(struct ktest_ctx *t, enum lr_invariant inv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A failure of @inv seen by the calling CPU, with the test's label in front. */
static void lr_fail(struct ktest_ctx *t, enum lr_invariant inv, const char *fmt, ...)
{
	char msg[TORTURE_MSG_MAX];

	KSNPRINTF_ARGS(msg, fmt);
	torture_fail(t, &lr.cpu[t->cpu].fails[inv], &lr.printed[inv], lr_invariant_names[inv],
		     "%s: %s", lr.label, msg);
}

/* What a live object of index @idx, incarnation @inc holds in payload word @w. */
static uint64_t lr_pattern(uint32_t idx, uint32_t inc, unsigned w)
{
	return (((uint64_t)inc << 32) | idx) * 0x9e3779b97f4a7c15ull + w;
}

static uint32_t lr_load32(const uint32_t *p)
{
	return atomic_load32(p);
}

static void lr_store32(uint32_t *p, uint32_t v)
{
	atomic_store32(p, v);
}

/* ---- Phase A: the hot object ---- */

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

static void lr_hot_run(struct ktest_ctx *t, struct lr_cpu *me, struct torture_pace *pace)
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
static void lr_hot_check(struct ktest_ctx *t)
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

/* ---- Phase B: the dead-object race ---- */

static struct lr_obj *lr_obj_of(uint32_t v)
{
	return &lr.obj[v - 1];
}

/*
 * May object @v (index + 1) be created afresh?  Not while any CPU may be
 * looking it up (its hazard) or holds a reference to it: reuse must not
 * race with anything but kills.  Hazards are read before references,
 * because a CPU records a reference before it drops its hazard.
 */
static bool lr_obj_quiet(uint32_t v)
{
	for (unsigned i = 0; i < lr.ncpus; i++)
		if (atomic_load32(&lr.cpu[i].hazard) == v)
			return false;
	for (unsigned i = 0; i < lr.ncpus; i++)
		for (unsigned k = 0; k < LR_HELD_MAX; k++)
			if (atomic_load32(&lr.cpu[i].held[k].obj) == v)
				return false;
	return true;
}

static void lr_held_add(struct lr_cpu *me, uint32_t v, uint32_t inc)
{
	struct lr_held *h = &me->held[me->nheld++];

	h->inc = inc;
	atomic_xchg32(&h->obj, v);
}

/* Check the payload of object @v, incarnation @inc, which the caller holds a reference to. */
static void lr_obj_verify(struct ktest_ctx *t, uint32_t v, uint32_t inc, const char *when)
{
	struct lr_obj *o = lr_obj_of(v);
	uint32_t now_inc = lr_load32(&o->inc), state = lr_load32(&o->state);

	if (now_inc != inc || state != LR_OBJ_LIVE) {
		lr_fail(t, LR_USE_AFTER_FREE,
			"%s: object %u incarnation %u, referenced by this CPU, is now incarnation "
			"%u and %s",
			when, v - 1, inc, now_inc, state == LR_OBJ_LIVE ? "live" : "free");
		return;
	}
	for (unsigned w = 0; w < LR_OBJ_WORDS; w++) {
		uint64_t seen = atomic_load64_relaxed(&o->payload[w]);

		if (seen != lr_pattern(v - 1, inc, w)) {
			lr_fail(t, LR_USE_AFTER_FREE,
				"%s: object %u incarnation %u, referenced by this CPU, has payload "
				"word %u = 0x%lx%s",
				when, v - 1, inc, w, seen,
				seen == LR_POISON ? " (free poison)" : "");
			return;
		}
	}
}

/* Free object @v, just killed and unlinked by this CPU, into this CPU's pool, poisoned. */
static void lr_obj_free(struct ktest_ctx *t, struct lr_cpu *me, uint32_t v)
{
	struct lr_obj *o = lr_obj_of(v);
	uint32_t live = LR_OBJ_LIVE;

	if (!atomic_cmpxchg32(&o->state, &live, LR_OBJ_FREE)) {
		lr_fail(t, LR_FREED_ONCE, "object %u incarnation %u freed a second time", v - 1,
			lr_load32(&o->inc));
		return;
	}
	for (unsigned w = 0; w < LR_OBJ_WORDS; w++)
		atomic_store64_relaxed(&o->payload[w], LR_POISON);
	atomic_xadd32(&o->frees, 1);
	if (me->nfree == LR_OBJS) {
		lr_fail(t, LR_ACCOUNTING, "a free list outgrew the pool freeing object %u", v - 1);
		return;
	}
	me->stack[me->nfree++] = v;
}

/*
 * With @v's lock held and its count 0: mark it dead, unlink it, unlock and
 * free it.  Returns with the lock released.
 */
static void lr_obj_kill(struct ktest_ctx *t, struct lr_cpu *me, uint32_t v)
{
	struct lr_obj *o = lr_obj_of(v);
	void *ref = &o->ref;
	uint32_t slot = lr_load32(&o->slot), expect = v;
	int64_t c;

	lr.ops->mark_dead(ref);
	c = lr.ops->count(ref);
	if (c != lr.ops->dead)
		lr_fail(t, LR_DEAD_REVIVED, "object %u reads count %ld right after mark_dead",
			v - 1, c);
	if (!atomic_cmpxchg32(&lr.slot[slot], &expect, 0))
		lr_fail(t, LR_ACCOUNTING, "object %u was not in its slot %u when killed (slot: %u)",
			v - 1, slot, expect);
	lr.ops->unlock(ref);
	lr_obj_free(t, me, v);
}

/*
 * Create an object in empty slot @slot from this CPU's pool, holding its
 * first reference.  Skips (counted as deferred) when every pooled object
 * may still be looked at.
 */
static void lr_obj_create(struct ktest_ctx *t, struct lr_cpu *me, uint32_t slot)
{
	uint32_t v = 0, empty = 0, inc;
	unsigned i;
	struct lr_obj *o;
	int64_t c;

	for (i = me->nfree; i-- > 0;) {
		if (lr_obj_quiet(me->stack[i])) {
			v = me->stack[i];
			break;
		}
	}
	if (!v) {
		me->deferred++;
		return;
	}
	if (!atomic_cmpxchg32(&lr.slot[slot], &empty, LR_SLOT_BUSY))
		return;
	me->stack[i] = me->stack[--me->nfree];
	o = lr_obj_of(v);
	c = lr.ops->count(&o->ref);
	if (c != lr.ops->dead)
		lr_fail(t, LR_DEAD_REVIVED, "free object %u (incarnation %u) has count %ld", v - 1,
			lr_load32(&o->inc), c);
	for (unsigned w = 0; w < LR_OBJ_WORDS; w++)
		if (atomic_load64_relaxed(&o->payload[w]) != LR_POISON)
			lr_fail(t, LR_USE_AFTER_FREE,
				"free object %u: poison overwritten in payload word %u", v - 1, w);
	/* Identity first, the count last: a get that succeeds sees the new incarnation. */
	inc = lr_load32(&o->inc) + 1;
	lr_store32(&o->inc, inc);
	for (unsigned w = 0; w < LR_OBJ_WORDS; w++)
		atomic_store64_relaxed(&o->payload[w], lr_pattern(v - 1, inc, w));
	lr_store32(&o->slot, slot);
	lr_store32(&o->state, LR_OBJ_LIVE);
	atomic_xadd32(&o->creates, 1);
	lr.ops->init(&o->ref);
	lr_held_add(me, v, inc);
	lr_store32(&lr.slot[slot], v);
	me->created++;
}

/*
 * Read slot @slot and publish the object found as this CPU's hazard.
 * Returns it (index + 1), or 0 if the slot is empty, being filled, or
 * changed before the hazard was visible (then the caller must not touch it).
 */
static uint32_t lr_slot_grab(struct lr_cpu *me, uint32_t slot)
{
	uint32_t v = lr_load32(&lr.slot[slot]);

	if (v == 0 || v == LR_SLOT_BUSY)
		return 0;
	atomic_xchg32(&me->hazard, v);
	if (atomic_load32(&lr.slot[slot]) != v) {
		atomic_xchg32(&me->hazard, 0);
		me->raced++;
		return 0;
	}
	return v;
}

/* Look an object up and take a reference (or create one in an empty slot). */
static void lr_lookup(struct ktest_ctx *t, struct lr_cpu *me, struct rng *rng)
{
	uint32_t slot = (uint32_t)rng_below(rng, LR_SLOTS), v, inc, state;
	bool not_dead = rng_below(rng, 4) != 0;
	const char *how = not_dead ? "get_not_dead" : "get_not_zero";
	struct lr_obj *o;
	bool ok;
	int64_t c;

	if (lr_load32(&lr.slot[slot]) == 0) {
		lr_obj_create(t, me, slot);
		return;
	}
	v = lr_slot_grab(me, slot);
	if (!v)
		return;
	o = lr_obj_of(v);
	ok = not_dead ? lr.ops->get_not_dead(&o->ref, lr.policy)
		      : lr.ops->get_not_zero(&o->ref, lr.policy);
	if (!ok) {
		me->refused++;
		atomic_xchg32(&me->hazard, 0);
		return;
	}
	inc = lr_load32(&o->inc);
	state = lr_load32(&o->state);
	c = lr.ops->count(&o->ref);
	if (state != LR_OBJ_LIVE)
		lr_fail(t, LR_GET_AFTER_KILL,
			"%s succeeded on object %u incarnation %u after it was killed and freed "
			"(count now %ld)",
			how, v - 1, inc, c);
	else if (c < 0)
		lr_fail(
		    t, LR_GET_AFTER_KILL,
		    "%s succeeded on object %u incarnation %u, yet its count reads %ld (dead is "
		    "%ld): the kill went ahead",
		    how, v - 1, inc, c, lr.ops->dead);
	else if (c < 1)
		lr_fail(t, LR_COUNT_RANGE,
			"object %u incarnation %u: count %ld after this CPU's %s succeeded", v - 1,
			inc, c, how);
	lr_held_add(me, v, inc);
	atomic_xchg32(&me->hazard, 0);
	lr_obj_verify(t, v, inc, how);
}

/*
 * With @v's lock held, drop this CPU's reference under it; if that was the
 * last, kill the object now and then (a kill releases the lock itself).
 */
static void lr_put_last_locked(struct ktest_ctx *t, struct lr_cpu *me, struct rng *rng, uint32_t v,
			       uint32_t inc)
{
	void *ref = &lr_obj_of(v)->ref;
	int64_t c = lr.ops->count(ref), r;

	if (c < 1) {
		lr_fail(t, LR_COUNT_RANGE,
			"object %u incarnation %u: count %ld under the lock while this CPU holds a "
			"reference",
			v - 1, inc, c);
		lr.ops->unlock(ref);
		return;
	}
	r = lr.ops->put_locked(ref);
	if (r != c - 1)
		lr_fail(t, LR_HOLD_VERIFY, "object %u: put_locked on count %ld returned %ld", v - 1,
			c, r);
	if (r == 0 && rng_below(rng, LR_KILL_ODDS) == 0) {
		lr_obj_kill(t, me, v);
		me->killed_last++;
		return;
	}
	lr.ops->unlock(ref);
}

/* Drop held reference @k, one of the ways a real user would. */
static void lr_release(struct ktest_ctx *t, struct lr_cpu *me, struct rng *rng, unsigned k)
{
	struct lr_held h = me->held[k], last;
	void *ref = &lr_obj_of(h.obj)->ref;
	int64_t r;

	lr_obj_verify(t, h.obj, h.inc, "before a put");
	switch (rng_below(rng, 4)) {
	case 0:
		if (!lr.ops->put_not_zero(ref, lr.policy)) {
			lr.ops->lock(ref);
			lr_put_last_locked(t, me, rng, h.obj, h.inc);
		}
		break;
	case 1:
		r = lr.ops->put_return(ref, lr.policy);
		if (r == -1) {
			lr.ops->lock(ref);
			lr_put_last_locked(t, me, rng, h.obj, h.inc);
		} else if (r < 0) {
			lr_fail(t, LR_COUNT_RANGE, "object %u: put_return returned %ld", h.obj - 1,
				r);
		}
		break;
	case 2:
		/* A second reference taken unconditionally, so the put after it cannot be the last. */
		lr.ops->get(ref, lr.policy);
		if (!lr.ops->put_not_zero(ref, lr.policy)) {
			lr_fail(
			    t, LR_WRONG_REFUSAL,
			    "object %u: put_not_zero refused right after this CPU took a second "
			    "reference (count %ld)",
			    h.obj - 1, lr.ops->count(ref));
			lr.ops->lock(ref);
			lr.ops->put_locked(ref);
			lr.ops->unlock(ref);
		}
		/* Then drop the first one as case 3 does. */
		__attribute__((fallthrough));
	default:
		if (!lr.ops->put_or_lock(ref, lr.policy))
			lr_put_last_locked(t, me, rng, h.obj, h.inc);
		break;
	}
	/* Others read .obj: move the last entry into the hole with atomic stores. */
	last = me->held[--me->nheld];
	me->held[k].inc = last.inc;
	atomic_xchg32(&me->held[k].obj, last.obj);
	atomic_xchg32(&me->held[me->nheld].obj, 0);
}

/* Find an object whose count is 0 and kill it, as a cache shrinker would. */
static void lr_reap(struct ktest_ctx *t, struct lr_cpu *me, struct rng *rng)
{
	uint32_t v = lr_slot_grab(me, (uint32_t)rng_below(rng, LR_SLOTS));
	void *ref;
	int64_t c;

	if (!v)
		return;
	ref = &lr_obj_of(v)->ref;
	lr.ops->lock(ref);
	c = lr.ops->count(ref);
	if (c == 0) {
		lr_obj_kill(t, me, v);
		me->killed_reaped++;
	} else {
		if (c < 0 && c != lr.ops->dead)
			lr_fail(t, LR_DEAD_REVIVED,
				"object %u: count %ld under its lock (dead is %ld)", v - 1, c,
				lr.ops->dead);
		lr.ops->unlock(ref);
	}
	atomic_xchg32(&me->hazard, 0);
}

static void lr_race_run(struct ktest_ctx *t, struct lr_cpu *me, struct torture_pace *pace)
{
	while (torture_continue(pace)) {
		unsigned r = (unsigned)rng_below(pace->rng, 16);

		if (r < 8 && me->nheld < LR_HELD_MAX)
			lr_lookup(t, me, pace->rng);
		else if (r < 14 && me->nheld > 0)
			lr_release(t, me, pace->rng, (unsigned)rng_below(pace->rng, me->nheld));
		else
			lr_reap(t, me, pace->rng);
		me->ops[LR_RACE]++;
	}
	while (me->nheld > 0)
		lr_release(t, me, pace->rng, me->nheld - 1);
}

/* CPU 0 before phase B: every object free and dead, spread over the CPUs' pools. */
static void lr_race_setup(void)
{
	for (uint32_t i = 0; i < LR_OBJS; i++) {
		struct lr_obj *o = &lr.obj[i];
		struct lr_cpu *owner = &lr.cpu[i % lr.ncpus];

		lr.ops->init(&o->ref);
		trace_name(lr.ops->lock_of(&o->ref), "torture:lockref[%u]", i);
		lr.ops->lock(&o->ref);
		lr.ops->mark_dead(&o->ref);
		lr.ops->unlock(&o->ref);
		o->inc = 0;
		o->state = LR_OBJ_FREE;
		o->creates = 0;
		o->frees = 0;
		for (unsigned w = 0; w < LR_OBJ_WORDS; w++)
			o->payload[w] = LR_POISON;
		owner->stack[owner->nfree++] = i + 1;
	}
	for (unsigned s = 0; s < LR_SLOTS; s++)
		lr.slot[s] = 0;
}

/* CPU 0 after phase B: every object accounted for exactly once, counts back to 0. */
static void lr_race_check(struct ktest_ctx *t)
{
	uint8_t seen[LR_OBJS] = {0};

	for (unsigned s = 0; s < LR_SLOTS; s++) {
		uint32_t v = lr.slot[s];

		if (v == 0)
			continue;
		if (v == LR_SLOT_BUSY || v > LR_OBJS) {
			lr_fail(t, LR_ACCOUNTING, "slot %u holds 0x%x after the run", s, v);
			continue;
		}
		struct lr_obj *o = lr_obj_of(v);
		int64_t c = lr.ops->count(&o->ref);

		seen[v - 1]++;
		if (o->state != LR_OBJ_LIVE || o->slot != s)
			lr_fail(t, LR_ACCOUNTING, "object %u in slot %u is %s and says slot %u",
				v - 1, s, o->state == LR_OBJ_LIVE ? "live" : "free", o->slot);
		if (c != 0)
			lr_fail(t, LR_CONSERVATION,
				"object %u ends with count %ld after every reference was dropped",
				v - 1, c);
		if (o->creates != o->frees + 1)
			lr_fail(t, LR_FREED_ONCE, "live object %u was created %u times, freed %u",
				v - 1, o->creates, o->frees);
	}
	for (unsigned i = 0; i < lr.ncpus; i++) {
		for (unsigned k = 0; k < lr.cpu[i].nfree; k++) {
			uint32_t v = lr.cpu[i].stack[k];
			struct lr_obj *o = lr_obj_of(v);
			int64_t c = lr.ops->count(&o->ref);

			seen[v - 1]++;
			if (o->state != LR_OBJ_FREE)
				lr_fail(t, LR_ACCOUNTING, "object %u is in cpu %u's pool but live",
					v - 1, i);
			if (c != lr.ops->dead)
				lr_fail(t, LR_DEAD_REVIVED, "freed object %u ends with count %ld",
					v - 1, c);
			if (o->creates != o->frees)
				lr_fail(t, LR_FREED_ONCE,
					"free object %u was created %u times, freed %u", v - 1,
					o->creates, o->frees);
		}
	}
	for (unsigned i = 0; i < LR_OBJS; i++)
		if (seen[i] != 1)
			lr_fail(t, LR_ACCOUNTING,
				"object %u is in %u places (slots and pools) instead of one", i,
				seen[i]);
}

/* ---- The test ---- */

/* CPU 0, before the others look: results, pool and hot object for one run. */
static bool lr_setup(struct ktest_ctx *t, enum torture_form form,
		     const struct lockref_policy *policy, bool have_cx16)
{
	bool busted = opts.busted == BUSTED_LOCKREF;
	bool r8 = form == TORTURE_LOCKREF8;

	if (busted)
		lr.ops = r8 ? &lockref_form8_busted : &lockref_form16_busted;
	else
		lr.ops = r8 ? &lockref_form8 : &lockref_form16;
	lr.policy = policy;
	/*
	 * The lockless lines count every operation: the count of the first
	 * attempt's successes on (lockref.h).  A boot that runs this suite turned
	 * it on before the other CPUs started (cmdline_apply_keys); the host's
	 * key may go on now.  Refused, the counts would be short: fail, not lie.
	 */
	if (!lockref_stats_count_all()) {
		ktest_fail(t,
			   "lockref %s: the count of lockless operations is off and cannot be "
			   "turned on now",
			   policy->name);
		return false;
	}
	lr.lockless_possible = policy->retries > 0 && (r8 || have_cx16);
	lr.ncpus = t->ncpus;
	ksnprintf(lr.label, sizeof(lr.label), "%s%s/%s", busted ? "busted-for-" : "", policy->name,
		  r8 ? "8" : "16");
	lr.cpu = platform_alloc(sizeof(struct lr_cpu) * t->ncpus, CACHE_PAIR_BYTES);
	lr.obj = platform_alloc(sizeof(struct lr_obj) * LR_OBJS, CACHE_PAIR_BYTES);
	lr.stacks = platform_alloc(sizeof(uint32_t) * LR_OBJS * t->ncpus, sizeof(uint32_t));
	if (!lr.cpu || !lr.obj || !lr.stacks) {
		ktest_fail(t, "out of memory for %u CPUs and %u objects", t->ncpus, LR_OBJS);
		return false;
	}
	for (unsigned i = 0; i < t->ncpus; i++)
		lr.cpu[i].stack = &lr.stacks[i * LR_OBJS];
	if (busted)
		ktest_diag(t,
			   "torture.busted=lockref: running %s in place of the library's "
			   "lockless path; this test must fail",
			   lr.ops->name);
	if (form == TORTURE_LOCKREF16 && !have_cx16)
		ktest_diag(t, "lockref %s: no CMPXCHG16B, so no lockless path to exercise",
			   lr.label);
	lr.ops->init(&lr.hot);
	trace_name(lr.ops->lock_of(&lr.hot), "torture:lockref-hot");
	lr.holding = 0;
	lr.hold_seq = 0;
	for (unsigned i = 0; i < LR_INVARIANTS; i++)
		lr.printed[i] = 0;
	lr.warnings_before = lockref_warnings();
	torture_clock_init(&lr.clock[LR_HOT], torture_duration_ns() * LR_HOT_SHARE_PCT / 100,
			   lr.ncpus);
	return true;
}

static void lr_release_memory(void)
{
	if (lr.cpu)
		platform_free(lr.cpu, sizeof(struct lr_cpu) * lr.ncpus);
	if (lr.obj)
		platform_free(lr.obj, sizeof(struct lr_obj) * LR_OBJS);
	if (lr.stacks)
		platform_free(lr.stacks, sizeof(uint32_t) * LR_OBJS * lr.ncpus);
	lr.cpu = NULL;
	lr.obj = NULL;
	lr.stacks = NULL;
}

/* Run phase @ph's loop on this CPU, recording what its operations did. */
static void lr_phase(struct ktest_ctx *t, struct lr_cpu *me, struct rng *rng, enum lr_phase ph)
{
	struct lockref_stats before, after;
	struct torture_pace pace;

	torture_pace_init(&pace, &lr.clock[ph], rng);
	lockref_stats_cpu(platform_cpu_id(), &before);
	if (ph == LR_HOT)
		lr_hot_run(t, me, &pace);
	else
		lr_race_run(t, me, &pace);
	lockref_stats_cpu(platform_cpu_id(), &after);
	me->path[ph].lockless = after.lockless - before.lockless;
	me->path[ph].retries = after.retries - before.retries;
	me->path[ph].fallbacks = after.fallbacks - before.fallbacks;
	me->path[ph].abandoned = after.abandoned - before.abandoned;
	me->long_holds += pace.long_holds;
	me->pauses += pace.pauses;
}

/* Every CPU's counts of the run added up, for CPU 0's judgement and lines at the end. */
struct lr_totals {
	struct lockref_stats path[LR_PHASES], all;
	uint64_t fails[LR_INVARIANTS], ops[LR_PHASES], min, max;
	uint64_t holds, long_holds, pauses, locked_puts;
	uint64_t created, killed_last, killed_reaped, refused, raced, deferred;
	uint64_t per_cpu_ops[MAX_CPUS];
};

/* Add up every CPU's operations and paths (not its failures: judging adds some). */
static void lr_sum(struct lr_totals *s)
{
	s->min = UINT64_MAX;
	for (unsigned i = 0; i < lr.ncpus; i++) {
		const struct lr_cpu *c = &lr.cpu[i];

		s->per_cpu_ops[i] = c->ops[LR_HOT] + c->ops[LR_RACE];
		s->min = s->per_cpu_ops[i] < s->min ? s->per_cpu_ops[i] : s->min;
		s->max = s->per_cpu_ops[i] > s->max ? s->per_cpu_ops[i] : s->max;
		for (unsigned ph = 0; ph < LR_PHASES; ph++) {
			s->ops[ph] += c->ops[ph];
			s->path[ph].lockless += c->path[ph].lockless;
			s->path[ph].retries += c->path[ph].retries;
			s->path[ph].fallbacks += c->path[ph].fallbacks;
			s->path[ph].abandoned += c->path[ph].abandoned;
		}
		s->holds += c->holds;
		s->long_holds += c->long_holds;
		s->pauses += c->pauses;
		s->locked_puts += c->put_return_locked;
		s->created += c->created;
		s->killed_last += c->killed_last;
		s->killed_reaped += c->killed_reaped;
		s->refused += c->refused;
		s->raced += c->raced;
		s->deferred += c->deferred;
	}
	for (unsigned ph = 0; ph < LR_PHASES; ph++) {
		s->all.lockless += s->path[ph].lockless;
		s->all.retries += s->path[ph].retries;
		s->all.fallbacks += s->path[ph].fallbacks;
	}
}

/*
 * The run's own invariants: no lockref misuse warning, and the paths the
 * policy and CPU allow were taken (lockless and fallback both, under
 * contention; never lockless where there is no lockless path).  Returns
 * the warnings.
 */
static uint64_t lr_judge_paths(struct ktest_ctx *t, const struct lr_totals *s)
{
	uint64_t warnings = lockref_warnings() - lr.warnings_before;
	uint64_t ops = s->ops[LR_HOT] + s->ops[LR_RACE];

	if (warnings)
		lr_fail(t, LR_WARNINGS, "%lu lockref misuse warnings during the run", warnings);
	if (lr.ncpus == 1) {
		ktest_diag(t,
			   "lockref %s: 1 CPU: no contention, so the lockless/fallback split "
			   "is not judged",
			   lr.label);
	} else if (lr.lockless_possible) {
		if (s->all.lockless == 0)
			lr_fail(t, LR_LOCKLESS_PATH, "no operation finished locklessly in %lu",
				ops);
		if (s->all.fallbacks == 0)
			lr_fail(t, LR_FALLBACK_PATH,
				"no operation fell back to the lock in %lu under contention", ops);
	} else {
		if (s->all.lockless != 0)
			lr_fail(t, LR_LOCKLESS_PATH,
				"%lu operations finished locklessly, but this policy/CPU has no "
				"lockless path",
				s->all.lockless);
		if (s->all.fallbacks == 0)
			lr_fail(t, LR_FALLBACK_PATH, "no operation took the lock in %lu", ops);
	}
	return warnings;
}

/* The statistics lines: per CPU, each phase, then the summary with every invariant's failures. */
static void lr_print(struct ktest_ctx *t, struct lr_totals *s, uint64_t warnings)
{
	char line[LR_LINE_MAX];
	uint64_t nfail;

	for (unsigned i = 0; i < lr.ncpus; i++)
		for (unsigned k = 0; k < LR_INVARIANTS; k++)
			s->fails[k] += lr.cpu[i].fails[k];
	torture_per_cpu(line, sizeof(line), s->per_cpu_ops, sizeof(s->per_cpu_ops[0]), lr.ncpus);
	ktest_diag(t, "lockref %s: ops per cpu:%s", lr.label, line);
	ktest_diag(
	    t,
	    "lockref %s: hot object: ops %lu lockless %lu fallback %lu retries %lu holds %lu "
	    "put_return_abandoned %lu put_return_locked %lu",
	    lr.label, s->ops[LR_HOT], s->path[LR_HOT].lockless, s->path[LR_HOT].fallbacks,
	    s->path[LR_HOT].retries, s->holds, s->path[LR_HOT].abandoned, s->locked_puts);
	ktest_diag(
	    t,
	    "lockref %s: dead race: ops %lu lockless %lu fallback %lu retries %lu objects %u "
	    "slots %u created %lu killed %lu (last put %lu, reaper %lu) refused %lu "
	    "lookup_races %lu reuse_deferred %lu",
	    lr.label, s->ops[LR_RACE], s->path[LR_RACE].lockless, s->path[LR_RACE].fallbacks,
	    s->path[LR_RACE].retries, LR_OBJS, LR_SLOTS, s->created,
	    s->killed_last + s->killed_reaped, s->killed_last, s->killed_reaped, s->refused,
	    s->raced, s->deferred);
	nfail =
	    torture_fail_summary(line, sizeof(line), s->fails, lr_invariant_names, LR_INVARIANTS);
	ktest_diag(
	    t,
	    "lockref %s: cpus %u ops/cpu min %lu max %lu total %lu lockless %lu fallback %lu "
	    "retries %lu long_holds %lu stutter_pauses %lu warnings %lu failures %lu:%s "
	    "seed=%lu",
	    lr.label, lr.ncpus, s->min, s->max, s->ops[LR_HOT] + s->ops[LR_RACE], s->all.lockless,
	    s->all.fallbacks, s->all.retries, s->long_holds, s->pauses, warnings, nfail, line,
	    opts.seed);
}

/* CPU 0 at the end: path and warning invariants, then the statistics lines. */
static void lr_report(struct ktest_ctx *t)
{
	struct lr_totals s = {0};
	uint64_t warnings;

	lr_sum(&s);
	warnings = lr_judge_paths(t, &s);
	lr_print(t, &s, warnings);
}

void torture_lockref_run(struct ktest_ctx *t, enum torture_form form,
			 const struct lockref_policy *policy, bool have_cx16)
{
	unsigned end_ms = opts.torture_ms + TORTURE_END_SLACK_MS;
	struct lr_cpu *me;
	struct rng rng;

	if (t->cpu == 0 && !lr_setup(t, form, policy, have_cx16))
		lr_release_memory();
	if (!ktest_barrier(t, TORTURE_START_TIMEOUT_MS) || !lr.cpu)
		return;
	if (opts.busted == BUSTED_LOCKREF && t->ncpus == 1 && t->cpu == 0)
		ktest_fail(t, "torture.busted=lockref needs 2 or more CPUs: one CPU alone cannot "
			      "race with a lock holder");
	me = &lr.cpu[t->cpu];
	torture_rng_init(&rng, t);
	lr_phase(t, me, &rng, LR_HOT);
	/* If some CPU never finishes, keep the memory: a straggler may still use it. */
	if (!ktest_barrier(t, end_ms))
		return;
	if (t->cpu == 0) {
		lr_hot_check(t);
		lr_race_setup();
		torture_clock_init(&lr.clock[LR_RACE],
				   torture_duration_ns() * (100 - LR_HOT_SHARE_PCT) / 100,
				   lr.ncpus);
	}
	if (!ktest_barrier(t, TORTURE_START_TIMEOUT_MS))
		return;
	lr_phase(t, me, &rng, LR_RACE);
	if (!ktest_barrier(t, end_ms) || t->cpu != 0)
		return;
	lr_race_check(t);
	lr_report(t);
	lr_release_memory();
}

/* One test per policy and form, in the order the runner runs them. */
#define LR_TEST(fn, policy, form)                                                                  \
	static void fn(struct ktest_ctx *t)                                                        \
	{                                                                                          \
		torture_lockref_run(t, form, &policy, cpuinfo.cx16);                               \
	}                                                                                          \
	KTEST(lockref, #fn, fn, KTEST_ALL_CPUS)

LR_TEST(torture_mainline_8, lockref_policy_mainline, TORTURE_LOCKREF8);
LR_TEST(torture_v7_8, lockref_policy_v7, TORTURE_LOCKREF8);
LR_TEST(torture_locked_8, lockref_policy_locked, TORTURE_LOCKREF8);
LR_TEST(torture_mainline_16, lockref_policy_mainline, TORTURE_LOCKREF16);
LR_TEST(torture_v7_16, lockref_policy_v7, TORTURE_LOCKREF16);
LR_TEST(torture_locked_16, lockref_policy_locked, TORTURE_LOCKREF16);
