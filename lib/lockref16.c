/*
 * lockref16.c - the 16-byte lockref of lockref16.h on CMPXCHG16B.
 *
 * The shape is lockref.c's: a lockless part that decides from a snapshot
 * and installs the result with one compare-exchange of the whole 16 bytes,
 * and a locked part for everything else.  One difference: x86-64 has no
 * plain 16-byte atomic load, so the snapshot is two 8-byte loads that can
 * tear.  That is harmless for a change, whose compare-exchange fails on any
 * torn value, but a refusal ("the generation moved on") would then be
 * decided from a state that never existed.  So a lockless refusal is first
 * confirmed by a compare-exchange of the snapshot with itself, which either
 * proves the snapshot was real or hands back a real one to decide again.
 */
#include "lockref16.h"

#include "atomic.h"
#include "lockref.h"
#include "lockref_impl.h"
#include "platform.h"
#include "spinlock.h"

enum lockref16_op {
	LOCKREF16_GET,
	LOCKREF16_GET_NOT_ZERO,
	LOCKREF16_GET_NOT_DEAD,
	LOCKREF16_GET_IF_GEN,
	LOCKREF16_PUT_NOT_ZERO,
	LOCKREF16_PUT_RETURN,
	LOCKREF16_PUT_OR_LOCK,
};

void lockref16_set_cx16(bool have_cx16)
{
	static uint32_t logged;
	uint32_t never = 0;

	lockref_boot.cx16 = have_cx16;
	lockref_boot_update();
	if (!have_cx16 && atomic_cmpxchg32(&logged, &never, 1))
		platform_log("lockref16: no CMPXCHG16B (CPUID.1:ECX.CX16 clear); every lockref16 "
			     "operation takes its lock");
}

/*
 * Decide @op from an unlocked snapshot @cur: either *@next is the value to
 * install and *@result the answer once it is, or *@result is final as it
 * stands, or the locked path decides (a get on a dead lockref16, which
 * warns, and put_or_lock's last reference).
 */
static inline __attribute__((always_inline)) enum lockref_step
lockref16_decide(enum lockref16_op op, uint32_t gen, const struct lockref16 *cur,
		 struct lockref16 *next, int64_t *result)
{
	int64_t count = cur->count;

	*next = *cur;
	switch (op) {
	case LOCKREF16_GET:
		if (count < 0)
			return LOCKREF_STEP_LOCK;
		next->count = count + 1;
		return LOCKREF_STEP_CHANGE;
	case LOCKREF16_GET_NOT_ZERO:
	case LOCKREF16_GET_NOT_DEAD:
	case LOCKREF16_GET_IF_GEN:
		*result = false;
		if (count < 0 || (op == LOCKREF16_GET_NOT_ZERO && count == 0) ||
		    (op == LOCKREF16_GET_IF_GEN && cur->gen != gen))
			return LOCKREF_STEP_FINISH;
		*result = true;
		next->count = count + 1;
		return LOCKREF_STEP_CHANGE;
	case LOCKREF16_PUT_NOT_ZERO:
	case LOCKREF16_PUT_OR_LOCK:
		if (count <= 1) {
			*result = false;
			return op == LOCKREF16_PUT_OR_LOCK ? LOCKREF_STEP_LOCK
							   : LOCKREF_STEP_FINISH;
		}
		*result = true;
		next->count = count - 1;
		return LOCKREF_STEP_CHANGE;
	case LOCKREF16_PUT_RETURN:
		if (count <= 0) {
			*result = -1;
			return LOCKREF_STEP_FINISH;
		}
		next->count = *result = count - 1;
		return LOCKREF_STEP_CHANGE;
	}
	return LOCKREF_STEP_LOCK;
}

/* Two 8-byte loads: a snapshot that may be torn (see the top of the file). */
static inline struct lockref16 lockref16_snapshot(const struct lockref16 *ref)
{
	const uint64_t *half = (const uint64_t *)&ref->whole;
	uint64_t lo = atomic_load64(&half[0]);
	uint64_t hi = atomic_load64(&half[1]);

	return (struct lockref16){.whole = (atomic_u128)hi << 64 | lo};
}

/* v7: PAUSE until the lock reads free, at most LOCKREF_WAIT_SPINS times; returns the last snapshot. */
static __attribute__((noinline)) struct lockref16 lockref16_wait_unlocked(struct lockref16 *ref)
{
	struct lockref16 cur = {.whole = 0};

	for (unsigned i = 0; i < LOCKREF_WAIT_SPINS; i++) {
		platform_relax();
		cur = lockref16_snapshot(ref);
		if (spin_value_unlocked(cur.lock))
			break;
	}
	return cur;
}

/*
 * Try @op without the lock as @p says.  Returns true when it is finished
 * (*@result holds its answer), false when the caller must take the lock.
 * Callers pass the locked policy when CMPXCHG16B is absent (lockref_boot).
 */
static inline __attribute__((always_inline)) bool lockref16_lockless(struct lockref16 *ref,
								     const struct lockref_policy *p,
								     enum lockref16_op op,
								     uint32_t gen, int64_t *result)
{
	struct lockref16 old, next;
	unsigned attempts = p->retries;
	unsigned failed = 0;
	enum lockref_step step;

	if (attempts == 0)
		goto locked;
	old = lockref16_snapshot(ref);
	for (;;) {
		/* ignore_lock is read only here, after the lock was seen held. */
		if (!spin_value_unlocked(old.lock) && !p->ignore_lock) {
			if (!p->wait_unlocked)
				break;
			old = lockref16_wait_unlocked(ref);
			if (!spin_value_unlocked(old.lock))
				break;
		}
		step = lockref16_decide(op, gen, &old, &next, result);
		if (step == LOCKREF_STEP_LOCK)
			goto locked;
		/* A refusal installs the snapshot itself: success proves it was not torn. */
		if (atomic_cmpxchg128(&ref->whole, &old.whole, next.whole)) {
			lockref_account(true, failed);
			return true;
		}
		failed++;
		if (--attempts == 0)
			break;
		if (p->wait_unlocked)
			platform_relax();
	}
locked:
	lockref_account(false, failed);
	return false;
}

/* The policy an explicit-policy call may follow: without CMPXCHG16B, only the lock. */
static inline const struct lockref_policy *lockref16_usable(const struct lockref_policy *policy)
{
	return lockref_boot.cx16 ? policy : &lockref_preset_locked;
}

/* Atomic accessors for lock holders (lockless readers may look at any time). */
static inline int64_t lockref16_load_count(const struct lockref16 *ref)
{
	return (int64_t)atomic_load64((const uint64_t *)&ref->count);
}

static inline void lockref16_store_count(struct lockref16 *ref, int64_t count)
{
	atomic_store64((uint64_t *)&ref->count, (uint64_t)count);
}

int64_t lockref16_get_locked(struct lockref16 *ref)
{
	int64_t count = lockref16_load_count(ref);

	if (!spin_is_held(&ref->lock)) {
		lockref_warn(ref, "lockref16 get_locked without the lock");
		return count;
	}
	if (count < 0) {
		lockref_warn(ref, "get on a dead lockref16");
		return count;
	}
	lockref16_store_count(ref, count + 1);
	return count + 1;
}

int64_t lockref16_put_locked(struct lockref16 *ref)
{
	int64_t count = lockref16_load_count(ref);

	if (!spin_is_held(&ref->lock)) {
		lockref_warn(ref, "lockref16 put_locked without the lock");
		return count;
	}
	if (count <= 0) {
		lockref_warn(ref,
			     count < 0 ? "put on a dead lockref16" : "lockref16 put below zero");
		return count;
	}
	lockref16_store_count(ref, count - 1);
	return count - 1;
}

/* Locked path of the conditional gets and puts: decide on the stable value and apply it. */
static bool lockref16_locked_cond(struct lockref16 *ref, enum lockref16_op op, uint32_t gen)
{
	struct lockref16 cur = {.whole = 0}, next;
	int64_t result = false;

	spin_lock(&ref->lock);
	cur.count = lockref16_load_count(ref);
	cur.gen = atomic_load32(&ref->gen);
	if (lockref16_decide(op, gen, &cur, &next, &result) == LOCKREF_STEP_CHANGE)
		lockref16_store_count(ref, next.count);
	spin_unlock(&ref->lock);
	return result;
}

static inline __attribute__((always_inline)) void lockref16_do_get(struct lockref16 *ref,
								   const struct lockref_policy *p)
{
	int64_t result;

	if (lockref16_lockless(ref, p, LOCKREF16_GET, 0, &result))
		return;
	spin_lock(&ref->lock);
	lockref16_get_locked(ref);
	spin_unlock(&ref->lock);
}

static inline __attribute__((always_inline)) bool lockref16_do_cond(struct lockref16 *ref,
								    enum lockref16_op op,
								    uint32_t gen,
								    const struct lockref_policy *p)
{
	int64_t result;

	if (lockref16_lockless(ref, p, op, gen, &result))
		return result;
	return lockref16_locked_cond(ref, op, gen);
}

static inline __attribute__((always_inline)) int64_t
lockref16_do_put_return(struct lockref16 *ref, const struct lockref_policy *p)
{
	int64_t result;

	if (lockref16_lockless(ref, p, LOCKREF16_PUT_RETURN, 0, &result))
		return result;
	return -1;
}

static inline __attribute__((always_inline)) bool
lockref16_do_put_or_lock(struct lockref16 *ref, const struct lockref_policy *p)
{
	int64_t result, count;

	if (lockref16_lockless(ref, p, LOCKREF16_PUT_OR_LOCK, 0, &result))
		return result;
	spin_lock(&ref->lock);
	count = lockref16_load_count(ref);
	if (count <= 1)
		return false; /* with the lock held: the caller owns the last reference */
	lockref16_store_count(ref, count - 1);
	spin_unlock(&ref->lock);
	return true;
}

void lockref16_init(struct lockref16 *ref)
{
	struct lockref16 fresh = {.count = 1, .lock = SPINLOCK_INIT, .gen = 0};
	uint64_t *half = (uint64_t *)&ref->whole;

	atomic_store64(&half[0], (uint64_t)fresh.whole);
	atomic_store64(&half[1], (uint64_t)(fresh.whole >> 64));
}

void lockref16_get(struct lockref16 *ref)
{
	const enum lockref_preset preset = lockref_boot.preset16;

	LOCKREF_BOOT_CALL(preset, lockref16_do_get, ref);
}

bool lockref16_get_not_zero(struct lockref16 *ref)
{
	const enum lockref_preset preset = lockref_boot.preset16;

	return LOCKREF_BOOT_CALL(preset, lockref16_do_cond, ref, LOCKREF16_GET_NOT_ZERO, 0);
}

bool lockref16_get_not_dead(struct lockref16 *ref)
{
	const enum lockref_preset preset = lockref_boot.preset16;

	return LOCKREF_BOOT_CALL(preset, lockref16_do_cond, ref, LOCKREF16_GET_NOT_DEAD, 0);
}

bool lockref16_get_if_gen(struct lockref16 *ref, uint32_t gen)
{
	const enum lockref_preset preset = lockref_boot.preset16;

	return LOCKREF_BOOT_CALL(preset, lockref16_do_cond, ref, LOCKREF16_GET_IF_GEN, gen);
}

bool lockref16_put_not_zero(struct lockref16 *ref)
{
	const enum lockref_preset preset = lockref_boot.preset16;

	return LOCKREF_BOOT_CALL(preset, lockref16_do_cond, ref, LOCKREF16_PUT_NOT_ZERO, 0);
}

int64_t lockref16_put_return(struct lockref16 *ref)
{
	const enum lockref_preset preset = lockref_boot.preset16;

	return LOCKREF_BOOT_CALL(preset, lockref16_do_put_return, ref);
}

bool lockref16_put_or_lock(struct lockref16 *ref)
{
	const enum lockref_preset preset = lockref_boot.preset16;

	return LOCKREF_BOOT_CALL(preset, lockref16_do_put_or_lock, ref);
}

void lockref16_get_p(struct lockref16 *ref, const struct lockref_policy *policy)
{
	lockref16_do_get(ref, lockref16_usable(policy));
}

bool lockref16_get_not_zero_p(struct lockref16 *ref, const struct lockref_policy *policy)
{
	return lockref16_do_cond(ref, LOCKREF16_GET_NOT_ZERO, 0, lockref16_usable(policy));
}

bool lockref16_get_not_dead_p(struct lockref16 *ref, const struct lockref_policy *policy)
{
	return lockref16_do_cond(ref, LOCKREF16_GET_NOT_DEAD, 0, lockref16_usable(policy));
}

bool lockref16_get_if_gen_p(struct lockref16 *ref, uint32_t gen,
			    const struct lockref_policy *policy)
{
	return lockref16_do_cond(ref, LOCKREF16_GET_IF_GEN, gen, lockref16_usable(policy));
}

bool lockref16_put_not_zero_p(struct lockref16 *ref, const struct lockref_policy *policy)
{
	return lockref16_do_cond(ref, LOCKREF16_PUT_NOT_ZERO, 0, lockref16_usable(policy));
}

int64_t lockref16_put_return_p(struct lockref16 *ref, const struct lockref_policy *policy)
{
	return lockref16_do_put_return(ref, lockref16_usable(policy));
}

bool lockref16_put_or_lock_p(struct lockref16 *ref, const struct lockref_policy *policy)
{
	return lockref16_do_put_or_lock(ref, lockref16_usable(policy));
}

void lockref16_mark_dead(struct lockref16 *ref)
{
	if (!spin_is_held(&ref->lock)) {
		lockref_warn(ref, "lockref16 mark_dead without the lock");
		return;
	}
	lockref16_store_count(ref, LOCKREF16_DEAD);
}

uint32_t lockref16_bump_gen(struct lockref16 *ref)
{
	uint32_t gen = atomic_load32(&ref->gen);

	if (!spin_is_held(&ref->lock)) {
		lockref_warn(ref, "lockref16 bump_gen without the lock");
		return gen;
	}
	atomic_store32(&ref->gen, gen + 1);
	return gen + 1;
}

uint32_t lockref16_gen(const struct lockref16 *ref)
{
	return atomic_load32(&ref->gen);
}

bool lockref16_is_dead(const struct lockref16 *ref)
{
	return lockref16_load_count(ref) < 0;
}

int64_t lockref16_count(const struct lockref16 *ref)
{
	return lockref16_load_count(ref);
}

void lockref16_lock(struct lockref16 *ref)
{
	spin_lock(&ref->lock);
}

void lockref16_unlock(struct lockref16 *ref)
{
	spin_unlock(&ref->lock);
}
