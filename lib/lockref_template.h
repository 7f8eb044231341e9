// SPDX-License-Identifier: MIT
/*
 * lockref_template.h - a template, not a header: the policy loop and the
 * locked path of a lockref, written once for both widths ("forms").
 *
 * Why a template included twice: the loop must be compiled for each form's
 * word and instruction, with the operation and the instruction as
 * constants, or the fast path would pay for generality at run time.  So
 * lockref.c and lockref16.c each define the few form-specific pieces
 * below, then include this file once, which builds every operation of that
 * form from them as static functions named form_*.  It #undefs its FORM_*
 * macros at the end, so nothing of one form leaks past it.  Include it
 * from nowhere else.
 *
 * The including file defines:
 *   FORM_REF      the object type (struct lockref, struct lockref16)
 *   FORM_VAL      a snapshot of the whole object, as the lockless path holds it
 *   FORM_NAME     the form's name for warnings ("lockref", "lockref16")
 *   FORM_MAX      the count at which it saturates (unreachable for 64 bits)
 *   FORM_DEAD     the count of a dead object
 *   FORM_TORN     1 if a snapshot can tear (two loads): a lockless refusal
 *                must then be confirmed by a compare-exchange of the
 *                snapshot with itself, which fails on a torn value
 * and these static inline functions:
 *   FORM_VAL form_snapshot(const FORM_REF *)         read the whole object
 *   spinlock_t form_val_lock(FORM_VAL)              its lock half
 *   int64_t form_val_count(FORM_VAL), uint32_t form_val_gen(FORM_VAL)
 *   FORM_VAL form_val_with_count(FORM_VAL, int64_t)  the same with another count
 *   bool    form_cas(FORM_REF *, FORM_VAL *old, FORM_VAL new, enum lockref_mode)
 *   int64_t form_load_count(const FORM_REF *), void form_store_count(FORM_REF *, int64_t)
 *   uint32_t form_load_gen(const FORM_REF *)        for lock holders
 */
#if !defined(FORM_REF) || !defined(FORM_VAL) || !defined(FORM_NAME) || !defined(FORM_MAX) ||       \
    !defined(FORM_DEAD) || !defined(FORM_TORN)
#error "a template: define the FORM_* macros and form_* pieces first, as lockref.c does"
#endif

#include "lockref_impl.h"
#include "spinlock.h"
#include "trace.h"

/* @v's lock half reads free, under the kind the lock layer is switched to. */
static inline __attribute__((always_inline)) bool form_val_unlocked(FORM_VAL v)
{
	return spin_value_unlocked(form_val_lock(v));
}

/* The same as the fast path's @copy tests it: the live kind, or the copy's constant one. */
static inline __attribute__((always_inline)) bool form_val_unlocked_as(FORM_VAL v,
								       enum lockref_copy copy)
{
	if (copy == LOCKREF_COPY_TICKET)
		return spin_value_unlocked_ticket(form_val_lock(v));
	if (copy == LOCKREF_COPY_ZERO)
		return spin_value_unlocked_zero(form_val_lock(v));
	return form_val_unlocked(v);
}

/*
 * v7: PAUSE until the lock reads free, at most LOCKREF_WAIT_SPINS times.
 * Returns the last snapshot: its lock half says whether the wait succeeded.
 */
static __attribute__((noinline)) FORM_VAL form_wait_unlocked(FORM_REF *ref)
{
	FORM_VAL cur = form_snapshot(ref);

	for (unsigned i = 0; i < LOCKREF_WAIT_SPINS && !form_val_unlocked(cur); i++) {
		platform_relax();
		cur = form_snapshot(ref);
	}
	return cur;
}

/*
 * A trace event of the slow path, kept only in its @traced copy: the copy
 * that runs while tracing is off has no hook at all (see form_slow).
 */
#define FORM_TRACE(traced, type, ref, arg)                                                         \
	do {                                                                                       \
		if (traced)                                                                        \
			trace_ev(type, &(ref)->lock, arg);                                         \
	} while (0)

/*
 * Try @op without the lock as @p says, with the compare-exchange @mode,
 * @failed attempts having failed already, recording its steps if @traced.
 * Returns true when it is finished (*@result holds its answer), false when
 * the caller must take the lock (put_return: must give up).
 */
static inline __attribute__((always_inline)) bool
form_lockless(FORM_REF *ref, const struct lockref_policy *p, enum lockref_mode mode,
	      enum lockref_op op, uint32_t gen, unsigned failed, int64_t *result, bool traced)
{
	FORM_VAL old, next;
	int64_t count = 0;
	enum lockref_step step;

	if (mode == LOCKREF_MODE_LOCKED || failed >= p->retries)
		goto give_up;
	old = form_snapshot(ref);
	for (;;) {
		if (!form_val_unlocked(old)) {
			FORM_TRACE(traced, TR_LR_FAIL, ref, TR_FAIL_HELD);
			if (!p->wait_unlocked)
				break;
			old = form_wait_unlocked(ref);
			if (!form_val_unlocked(old))
				break;
		}
		step = lockref_decide(op, form_val_count(old),
				      op != LOCKREF_GET_IF_GEN || form_val_gen(old) == gen,
				      FORM_MAX, &count, result);
		if (step == LOCKREF_STEP_LOCK)
			break;
		if (step == LOCKREF_STEP_FINISH && !FORM_TORN) {
			lockref_account(LOCKREF_DONE_LOCKLESS, failed);
			FORM_TRACE(traced, TR_LR_OK, ref, failed);
			return true;
		}
		/* The exchange also compares the lock half: it fails if anyone took the lock. */
		next = step == LOCKREF_STEP_CHANGE ? form_val_with_count(old, count) : old;
		if (form_cas(ref, &old, next, mode)) {
			lockref_account(LOCKREF_DONE_LOCKLESS, failed);
			FORM_TRACE(traced, TR_LR_OK, ref, failed);
			return true;
		}
		FORM_TRACE(traced, TR_LR_FAIL, ref,
			   form_val_unlocked(old) ? TR_FAIL_CHANGED : TR_FAIL_HELD);
		if (++failed >= p->retries)
			break;
		if (p->wait_unlocked)
			platform_relax();
	}
give_up:
	FORM_TRACE(traced, op == LOCKREF_PUT_RETURN ? TR_LR_GIVEUP : TR_LR_LOCK, ref, failed);
	lockref_account(op == LOCKREF_PUT_RETURN ? LOCKREF_DONE_ABANDONED : LOCKREF_DONE_LOCKED,
			failed);
	return false;
}

/* Add one to the count of @ref, whose lock the caller holds. */
static int64_t form_get_held(FORM_REF *ref)
{
	int64_t count = form_load_count(ref);

	if (count < 0) {
		lockref_warn(ref, FORM_NAME, "get on a dead lockref");
		return count;
	}
	if (count == FORM_MAX) {
		lockref_warn_saturated(ref);
		return count;
	}
	form_store_count(ref, count + 1);
	return count + 1;
}

static int64_t form_get_locked(FORM_REF *ref)
{
	if (!lockref_holds(ref, &ref->lock)) {
		lockref_warn(ref, FORM_NAME, "get_locked without the lock");
		return form_load_count(ref);
	}
	return form_get_held(ref);
}

static int64_t form_put_locked(FORM_REF *ref)
{
	int64_t count = form_load_count(ref);

	if (!lockref_holds(ref, &ref->lock)) {
		lockref_warn(ref, FORM_NAME, "put_locked without the lock");
		return count;
	}
	if (count <= 0) {
		lockref_warn(ref, FORM_NAME,
			     count < 0 ? "put on a dead lockref" : "put below zero");
		return count;
	}
	if (count != FORM_MAX)
		form_store_count(ref, count - 1);
	return form_load_count(ref);
}

static void form_mark_dead(FORM_REF *ref)
{
	if (!lockref_holds(ref, &ref->lock)) {
		lockref_warn(ref, FORM_NAME, "mark_dead without the lock");
		return;
	}
	form_store_count(ref, FORM_DEAD);
}

/* The lock, for the caller's caller at @site (lockref_lock's), under lock class @subclass. */
static void form_lock(FORM_REF *ref, unsigned subclass, uintptr_t site) ACQUIRES(ref->lock)
{
	spin_lock_at(&ref->lock, subclass, site);
	lockref_held_add(ref);
}

static void form_unlock(FORM_REF *ref, uintptr_t site) RELEASES(ref->lock)
{
	lockref_held_remove(ref);
	spin_unlock_at(&ref->lock, site);
}

/*
 * The locked path of every operation but put_return: under the lock the
 * count is stable, so decide as the lockless step would and apply it.  The
 * cases the step hands over (dead, saturated) are decided and warned
 * about here.  put_or_lock's last reference returns false with the lock
 * held, recorded as this CPU's.  Exempt from the lock rules: whether it
 * returns with the lock held depends on @op as well as on the result, a
 * rule the analysis cannot state; the public calls state it per operation
 * (lockref.h), and their callers are checked against that.
 */
static LOCK_RULES_EXEMPT("@op picks the held state") __attribute__((noinline)) int64_t
    form_locked(FORM_REF *ref, enum lockref_op op, uint32_t gen)
{
	int64_t count, next = 0, result = true;

	spin_lock(&ref->lock);
	count = form_load_count(ref);
	if (op == LOCKREF_GET) {
		form_get_held(ref);
	} else if (op == LOCKREF_PUT_OR_LOCK && count <= 1) {
		lockref_held_add(ref);
		return false;
	} else if (count == FORM_MAX && op != LOCKREF_PUT_NOT_ZERO && op != LOCKREF_PUT_OR_LOCK) {
		/* A conditional get on a saturated count succeeds without counting; get_if_gen
		 * only in its generation, as the lockless step decides. */
		result = op != LOCKREF_GET_IF_GEN || form_load_gen(ref) == gen;
		if (result)
			lockref_warn_saturated(ref);
	} else if (lockref_decide(op, count, op != LOCKREF_GET_IF_GEN || form_load_gen(ref) == gen,
				  FORM_MAX, &next, &result) == LOCKREF_STEP_CHANGE) {
		form_store_count(ref, next);
	}
	spin_unlock(&ref->lock);
	return result;
}

/*
 * The rest of @op once the first attempt did not finish it (@failed: its
 * exchange lost a race): the policy loop from a fresh snapshot, then the
 * lock.  Out of line, so the inline first attempt stays a few instructions.
 * Two copies: form_slow has no trace hook, so an operation that takes the
 * lock (the locked policy, every contended one) pays nothing for tracing
 * while it is off; form_slow_traced records every step.
 */
static inline __attribute__((always_inline)) int64_t
form_slow_body(FORM_REF *ref, enum lockref_op op, uint32_t gen, const struct lockref_policy *p,
	       enum lockref_mode mode, unsigned failed, bool traced)
{
	int64_t result = 0;

	FORM_TRACE(traced, TR_LR_START, ref, op);
	if (form_lockless(ref, p, mode, op, gen, failed, &result, traced))
		return result;
	if (op == LOCKREF_PUT_RETURN)
		return -1;
	return form_locked(ref, op, gen);
}

static __attribute__((noinline)) int64_t form_slow(FORM_REF *ref, enum lockref_op op, uint32_t gen,
						   const struct lockref_policy *p,
						   enum lockref_mode mode, unsigned failed)
{
	return form_slow_body(ref, op, gen, p, mode, failed, false);
}

static __attribute__((noinline)) int64_t form_slow_traced(FORM_REF *ref, enum lockref_op op,
							  uint32_t gen,
							  const struct lockref_policy *p,
							  enum lockref_mode mode)
{
	return form_slow_body(ref, op, gen, p, mode, 0, true);
}

/*
 * @op under @p with @mode: lockless if it can, else the locked path
 * (put_return: -1).  The first attempt, which succeeds whenever nobody
 * else is at the object, is inline and holds only the algorithm: one load,
 * the unlocked test, the new count (with the bound the operation needs),
 * one exchange.  It reads nothing of @p and no switch word: tracing, the
 * lock kind and the statistics are each behind a static key
 * (lib/static_key.h) while @copy is LOCKREF_COPY_LIVE, and constants in
 * the fixed copies (lockref_impl.h).  Everything else (refusals, waits,
 * retries, the lock) is form_slow, which counts what it does.
 */
static inline __attribute__((always_inline)) int64_t
form_do(FORM_REF *ref, enum lockref_op op, uint32_t gen, const struct lockref_policy *p,
	enum lockref_mode mode, enum lockref_copy copy)
{
	int64_t result = 0, count = 0;
	FORM_VAL old;

	if (copy == LOCKREF_COPY_LIVE && trace_active()) /* traced: each step recorded */
		return form_slow_traced(ref, op, gen, p, mode);
	if (mode == LOCKREF_MODE_LOCKED)
		return form_slow(ref, op, gen, p, mode, 0);
	old = form_snapshot(ref);
	if (!form_val_unlocked_as(old, copy) ||
	    lockref_decide(op, form_val_count(old),
			   op != LOCKREF_GET_IF_GEN || form_val_gen(old) == gen, FORM_MAX, &count,
			   &result) != LOCKREF_STEP_CHANGE)
		return form_slow(ref, op, gen, p, mode, 0);
	if (!form_cas(ref, &old, form_val_with_count(old, count), mode))
		return form_slow(ref, op, gen, p, mode, 1);
	/* Off by default (lockref_stats_key): a store the next exchange would wait for. */
	if (copy == LOCKREF_COPY_LIVE && static_key_on(&lockref_stats_key))
		lockref_account(LOCKREF_DONE_LOCKLESS, 0);
	return result;
}

#undef FORM_REF
#undef FORM_VAL
#undef FORM_NAME
#undef FORM_MAX
#undef FORM_DEAD
#undef FORM_TORN
#undef FORM_TRACE
