// SPDX-License-Identifier: MIT
/*
 * lockref_core.h - the policy loop and the locked path of a lockref, written
 * once for both widths.
 *
 * Why a header included twice: the loop must be compiled for each width's
 * word and instruction, with the operation and the instruction as
 * constants, or the fast path would pay for generality at run time.  So
 * lockref.c and lockref16.c each define the few width-specific pieces
 * below, then include this file, which builds every operation of that
 * width from them.  Not a public interface.
 *
 * The including file defines:
 *   LRC_REF      the object type (struct lockref, struct lockref16)
 *   LRC_VAL      a snapshot of the whole object, as the lockless path holds it
 *   LRC_NAME     the form's name for warnings ("lockref", "lockref16")
 *   LRC_MAX      the count at which it saturates (unreachable for 64 bits)
 *   LRC_DEAD     the count of a dead object
 *   LRC_TORN     1 if a snapshot can tear (two loads): a lockless refusal
 *                must then be confirmed by a compare-exchange of the
 *                snapshot with itself, which fails on a torn value
 * and these static inline functions:
 *   LRC_VAL lrc_snapshot(const LRC_REF *)         read the whole object
 *   bool    lrc_val_unlocked(LRC_VAL)             its lock half reads free
 *   int64_t lrc_val_count(LRC_VAL), uint32_t lrc_val_gen(LRC_VAL)
 *   LRC_VAL lrc_val_with_count(LRC_VAL, int64_t)  the same with another count
 *   bool    lrc_cas(LRC_REF *, LRC_VAL *old, LRC_VAL new, enum lockref_mode)
 *   int64_t lrc_load_count(const LRC_REF *), void lrc_store_count(LRC_REF *, int64_t)
 *   uint32_t lrc_load_gen(const LRC_REF *)        for lock holders
 */
#ifndef LIB_LOCKREF_CORE_H
#define LIB_LOCKREF_CORE_H

#include "lockref_impl.h"
#include "spinlock.h"

/*
 * v7: PAUSE until the lock reads free, at most LOCKREF_WAIT_SPINS times.
 * Returns the last snapshot: its lock half says whether the wait succeeded.
 */
static __attribute__((noinline)) LRC_VAL lrc_wait_unlocked(LRC_REF *ref)
{
	LRC_VAL cur = lrc_snapshot(ref);

	for (unsigned i = 0; i < LOCKREF_WAIT_SPINS && !lrc_val_unlocked(cur); i++) {
		platform_relax();
		cur = lrc_snapshot(ref);
	}
	return cur;
}

/*
 * Try @op without the lock as @p says, with the compare-exchange @mode,
 * @failed attempts having failed already.  Returns true when it is
 * finished (*@result holds its answer), false when the caller must take
 * the lock (put_return: must give up).
 */
static inline __attribute__((always_inline)) bool
lrc_lockless(LRC_REF *ref, const struct lockref_policy *p, enum lockref_mode mode,
	     enum lockref_op op, uint32_t gen, unsigned failed, int64_t *result)
{
	LRC_VAL old, next;
	int64_t count = 0;
	enum lockref_step step;

	if (mode == LOCKREF_MODE_LOCKED || failed >= p->retries)
		goto give_up;
	old = lrc_snapshot(ref);
	for (;;) {
		if (!lrc_val_unlocked(old)) {
			if (!p->wait_unlocked)
				break;
			old = lrc_wait_unlocked(ref);
			if (!lrc_val_unlocked(old))
				break;
		}
		step = lockref_decide(op, lrc_val_count(old),
				      op != LOCKREF_GET_IF_GEN || lrc_val_gen(old) == gen, LRC_MAX,
				      &count, result);
		if (step == LOCKREF_STEP_LOCK)
			break;
		if (step == LOCKREF_STEP_FINISH && !LRC_TORN) {
			lockref_account(LOCKREF_DONE_LOCKLESS, failed);
			return true;
		}
		/* The exchange also compares the lock half: it fails if anyone took the lock. */
		next = step == LOCKREF_STEP_CHANGE ? lrc_val_with_count(old, count) : old;
		if (lrc_cas(ref, &old, next, mode)) {
			lockref_account(LOCKREF_DONE_LOCKLESS, failed);
			return true;
		}
		if (++failed >= p->retries)
			break;
		if (p->wait_unlocked)
			platform_relax();
	}
give_up:
	lockref_account(op == LOCKREF_PUT_RETURN ? LOCKREF_DONE_ABANDONED : LOCKREF_DONE_LOCKED,
			failed);
	return false;
}

/* Add one to the count of @ref, whose lock the caller holds. */
static int64_t lrc_get_held(LRC_REF *ref)
{
	int64_t count = lrc_load_count(ref);

	if (count < 0) {
		lockref_warn(ref, LRC_NAME, "get on a dead lockref");
		return count;
	}
	if (count == LRC_MAX) {
		lockref_warn_saturated(ref);
		return count;
	}
	lrc_store_count(ref, count + 1);
	return count + 1;
}

static int64_t lrc_get_locked(LRC_REF *ref)
{
	if (!lockref_holds(ref, &ref->lock)) {
		lockref_warn(ref, LRC_NAME, "get_locked without the lock");
		return lrc_load_count(ref);
	}
	return lrc_get_held(ref);
}

static int64_t lrc_put_locked(LRC_REF *ref)
{
	int64_t count = lrc_load_count(ref);

	if (!lockref_holds(ref, &ref->lock)) {
		lockref_warn(ref, LRC_NAME, "put_locked without the lock");
		return count;
	}
	if (count <= 0) {
		lockref_warn(ref, LRC_NAME, count < 0 ? "put on a dead lockref" : "put below zero");
		return count;
	}
	if (count != LRC_MAX)
		lrc_store_count(ref, count - 1);
	return lrc_load_count(ref);
}

static void lrc_mark_dead(LRC_REF *ref)
{
	if (!lockref_holds(ref, &ref->lock)) {
		lockref_warn(ref, LRC_NAME, "mark_dead without the lock");
		return;
	}
	lrc_store_count(ref, LRC_DEAD);
}

static void lrc_lock(LRC_REF *ref)
{
	spin_lock(&ref->lock);
	lockref_held_add(ref);
}

static void lrc_unlock(LRC_REF *ref)
{
	lockref_held_remove(ref);
	spin_unlock(&ref->lock);
}

/*
 * The locked path of every operation but put_return: under the lock the
 * count is stable, so decide as the lockless step would and apply it.  The
 * cases the step hands over (dead, saturated) are decided and warned
 * about here.  put_or_lock's last reference returns false with the lock
 * held, recorded as this CPU's.
 */
static __attribute__((noinline)) int64_t lrc_locked(LRC_REF *ref, enum lockref_op op, uint32_t gen)
{
	int64_t count, next = 0, result = true;

	spin_lock(&ref->lock);
	count = lrc_load_count(ref);
	if (op == LOCKREF_GET) {
		lrc_get_held(ref);
	} else if (op == LOCKREF_PUT_OR_LOCK && count <= 1) {
		lockref_held_add(ref);
		return false;
	} else if (count == LRC_MAX && op != LOCKREF_PUT_NOT_ZERO && op != LOCKREF_PUT_OR_LOCK) {
		/* A conditional get on a saturated count succeeds without counting. */
		lockref_warn_saturated(ref);
	} else if (lockref_decide(op, count, op != LOCKREF_GET_IF_GEN || lrc_load_gen(ref) == gen,
				  LRC_MAX, &next, &result) == LOCKREF_STEP_CHANGE) {
		lrc_store_count(ref, next);
	}
	spin_unlock(&ref->lock);
	return result;
}

/*
 * The rest of @op once the first attempt did not finish it (@failed: its
 * exchange lost a race): the policy loop from a fresh snapshot, then the
 * lock.  Out of line, so the inline first attempt stays a few instructions.
 */
static __attribute__((noinline)) int64_t lrc_slow(LRC_REF *ref, enum lockref_op op, uint32_t gen,
						  const struct lockref_policy *p,
						  enum lockref_mode mode, unsigned failed)
{
	int64_t result = 0;

	if (lrc_lockless(ref, p, mode, op, gen, failed, &result))
		return result;
	if (op == LOCKREF_PUT_RETURN)
		return -1;
	return lrc_locked(ref, op, gen);
}

/*
 * @op under @p with @mode: lockless if it can, else the locked path
 * (put_return: -1).  The first attempt, which succeeds whenever nobody
 * else is at the object, is inline and reads nothing of @p: the lock
 * free, a change to make, one exchange, the statistics on this CPU's own
 * line.  Everything else (refusals, waits, retries, the lock) is lrc_slow.
 */
static inline __attribute__((always_inline)) int64_t lrc_do(LRC_REF *ref, enum lockref_op op,
							    uint32_t gen,
							    const struct lockref_policy *p,
							    enum lockref_mode mode)
{
	int64_t result = 0, count = 0;
	LRC_VAL old;

	if (mode == LOCKREF_MODE_LOCKED)
		return lrc_slow(ref, op, gen, p, mode, 0);
	old = lrc_snapshot(ref);
	if (!lrc_val_unlocked(old) ||
	    lockref_decide(op, lrc_val_count(old),
			   op != LOCKREF_GET_IF_GEN || lrc_val_gen(old) == gen, LRC_MAX, &count,
			   &result) != LOCKREF_STEP_CHANGE)
		return lrc_slow(ref, op, gen, p, mode, 0);
	if (!lrc_cas(ref, &old, lrc_val_with_count(old, count), mode))
		return lrc_slow(ref, op, gen, p, mode, 1);
	lockref_account(LOCKREF_DONE_LOCKLESS, 0);
	return result;
}

#endif /* LIB_LOCKREF_CORE_H */
