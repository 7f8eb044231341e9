// SPDX-License-Identifier: MIT
/*
 * torture_lockref_race.c - phase B of the lockref torture: the dead-object
 * race, the dcache's life cycle.
 *
 * Why: the lockref's hardest promise is the one Linux's RCU path walk
 * leans on, that get_not_dead (and get_not_zero) never hands out a
 * reference to an object its last put has killed.  Only a lookup that
 * races with the kill can break it, so this phase makes such races
 * happen all the time.
 *
 * A table of slots holds objects from a pool.  CPUs look objects up
 * (get_not_dead or get_not_zero on a pointer read from a slot), drop
 * references with every kind of put, and the CPU that drops the last one
 * (or a reaper that finds a count of 0) marks the object dead under its
 * lock, unlinks it and frees it into the pool, where it is poisoned.
 * Freed objects are reused only when no CPU can still be looking at them
 * (a hazard pointer per CPU, as RCU would guarantee in Linux), so every
 * lookup races with kills, never with reuse.
 *
 * Besides count-range, wrong-refusal and hold-verify, as in phase A, the
 * invariants this phase judges are get-after-kill (a successful get on a
 * killed object), dead-revived (a dead count that reads anything but
 * dead), freed-once, use-after-free (a reference holder sees the poison
 * or another incarnation), object-accounting (each object in exactly one
 * slot or pool) and conservation (every count back to 0 at the end).
 */
#include "atomic.h"
#include "random.h"
#include "trace.h"
#include "torture_lockref.h"

/* A slot being filled: lookups treat it as empty. */
#define LR_SLOT_BUSY UINT32_MAX
/* A freed object's payload (Linux's POISON_FREE byte). */
#define LR_POISON 0x6b6b6b6b6b6b6b6bull
/* A last put that leaves the count at 0 kills the object one time in this many. */
#define LR_KILL_ODDS 2u

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

/* One CPU's phase B: lookups, puts and reaps at random, then its last references dropped. */
void lr_race_run(struct ktest_ctx *t, struct lr_cpu *me, struct torture_pace *pace)
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
void lr_race_setup(void)
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
void lr_race_check(struct ktest_ctx *t)
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