// SPDX-License-Identifier: MIT
/*
 * lockref16.c - the 16-byte lockref of lockref16.h on CMPXCHG16B.
 *
 * The operations come from lockref_template.h, as for lockref.c, specialised
 * here to the whole 16 bytes and CMPXCHG16B.  One difference: x86-64 has no
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
#include "lockref_fixed.h"
#include "lockref_impl.h"
#include "platform.h"
#include "spinlock.h"
#include "trace.h"

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

/* ---- the width-specific pieces of lockref_template.h ---- */

#define FORM_REF  struct lockref16
#define FORM_VAL  struct lockref16
#define FORM_NAME "lockref16"
#define FORM_MAX  INT64_MAX
#define FORM_DEAD LOCKREF16_DEAD
#define FORM_TORN 1

/* Two 8-byte loads: a snapshot that may be torn (see the top of the file). */
static inline struct lockref16 form_snapshot(const struct lockref16 *ref)
{
	const uint64_t *half = (const uint64_t *)&ref->whole;
	uint64_t lo = atomic_load64(&half[0]);
	uint64_t hi = atomic_load64(&half[1]);

	return (struct lockref16){.whole = (atomic_u128)hi << 64 | lo};
}

static inline spinlock_t form_val_lock(struct lockref16 v)
{
	return v.lock;
}

static inline int64_t form_val_count(struct lockref16 v)
{
	return v.count;
}

static inline uint32_t form_val_gen(struct lockref16 v)
{
	return v.gen;
}

static inline struct lockref16 form_val_with_count(struct lockref16 v, int64_t count)
{
	v.count = count;
	return v;
}

static inline bool form_cas(struct lockref16 *ref, struct lockref16 *old, struct lockref16 new,
			    enum lockref_mode mode)
{
	(void)mode;
	return atomic_cmpxchg128(&ref->whole, &old->whole, new.whole);
}

/* Atomic accessors for lock holders (lockless readers may look at any time). */
static inline int64_t form_load_count(const struct lockref16 *ref)
{
	return (int64_t)atomic_load64((const uint64_t *)&ref->count);
}

static inline void form_store_count(struct lockref16 *ref, int64_t count)
{
	atomic_store64((uint64_t *)&ref->count, (uint64_t)count);
}

static inline uint32_t form_load_gen(const struct lockref16 *ref)
{
	return atomic_load32(&ref->gen);
}

#include "lockref_template.h"

/*
 * @op under @p: CMPXCHG16B when the policy tries locklessly and the CPU
 * has it (the plain calls read that choice from lockref_boot.mode16),
 * else the lock.
 */
static inline __attribute__((always_inline)) int64_t lockref16_run(struct lockref16 *ref,
								   enum lockref_op op, uint32_t gen,
								   const struct lockref_policy *p,
								   enum lockref_mode mode)
{
	if (mode == LOCKREF_MODE_CMPXCHG16B)
		return form_do(ref, op, gen, p, LOCKREF_MODE_CMPXCHG16B, LOCKREF_COPY_LIVE);
	return form_do(ref, op, gen, p, LOCKREF_MODE_LOCKED, LOCKREF_COPY_LIVE);
}

/* The fixed copies (lockref_fixed.h): ticket kind, untraced, no lockless count, CMPXCHG16B. */
LOCKREF_FAST_PATH void lockref16_get_fixed(struct lockref16 *ref,
					   const struct lockref_policy *policy)
{
	if (policy->retries)
		form_do(ref, LOCKREF_GET, 0, policy, LOCKREF_MODE_CMPXCHG16B, LOCKREF_COPY_TICKET);
	else
		form_do(ref, LOCKREF_GET, 0, policy, LOCKREF_MODE_LOCKED, LOCKREF_COPY_TICKET);
}

LOCKREF_FAST_PATH bool lockref16_put_or_lock_fixed(struct lockref16 *ref,
						   const struct lockref_policy *policy)
{
	if (policy->retries)
		return form_do(ref, LOCKREF_PUT_OR_LOCK, 0, policy, LOCKREF_MODE_CMPXCHG16B,
			       LOCKREF_COPY_TICKET);
	return form_do(ref, LOCKREF_PUT_OR_LOCK, 0, policy, LOCKREF_MODE_LOCKED,
		       LOCKREF_COPY_TICKET);
}

#define LOCKREF16_PLAIN(ref, op, gen)                                                              \
	lockref16_run(ref, op, gen, &lockref_boot.policy, lockref_boot.mode16)
#define LOCKREF16_EXPLICIT(ref, op, gen, p)                                                        \
	lockref16_run(ref, op, gen, p,                                                             \
		      lockref_boot.cx16 && (p)->retries ? LOCKREF_MODE_CMPXCHG16B                  \
							: LOCKREF_MODE_LOCKED)

void lockref16_init_key(struct lockref16 *ref, struct lock_class_key *key)
{
	struct lockref16 fresh = {.count = 1, .lock = SPINLOCK_INIT, .gen = 0};
	uint64_t *half = (uint64_t *)&ref->whole;

	atomic_store64(&half[0], (uint64_t)fresh.whole);
	atomic_store64(&half[1], (uint64_t)(fresh.whole >> 64));
	trace_ev(TR_SPIN_INIT, &ref->lock, 0);
	if (lockdep_enabled())
		lockdep_init_lock(&ref->lock, key);
}

LOCKREF_FAST_PATH void lockref16_get(struct lockref16 *ref)
{
	LOCKREF16_PLAIN(ref, LOCKREF_GET, 0);
}

LOCKREF_FAST_PATH bool lockref16_get_not_zero(struct lockref16 *ref)
{
	return LOCKREF16_PLAIN(ref, LOCKREF_GET_NOT_ZERO, 0);
}

LOCKREF_FAST_PATH bool lockref16_get_not_dead(struct lockref16 *ref)
{
	return LOCKREF16_PLAIN(ref, LOCKREF_GET_NOT_DEAD, 0);
}

LOCKREF_FAST_PATH bool lockref16_get_if_gen(struct lockref16 *ref, uint32_t gen)
{
	return LOCKREF16_PLAIN(ref, LOCKREF_GET_IF_GEN, gen);
}

LOCKREF_FAST_PATH bool lockref16_put_not_zero(struct lockref16 *ref)
{
	return LOCKREF16_PLAIN(ref, LOCKREF_PUT_NOT_ZERO, 0);
}

LOCKREF_FAST_PATH int64_t lockref16_put_return(struct lockref16 *ref)
{
	return LOCKREF16_PLAIN(ref, LOCKREF_PUT_RETURN, 0);
}

LOCKREF_FAST_PATH bool lockref16_put_or_lock(struct lockref16 *ref)
{
	return LOCKREF16_PLAIN(ref, LOCKREF_PUT_OR_LOCK, 0);
}

LOCKREF_FAST_PATH void lockref16_get_p(struct lockref16 *ref, const struct lockref_policy *policy)
{
	LOCKREF16_EXPLICIT(ref, LOCKREF_GET, 0, policy);
}

/*
 * The explicit-policy calls without a generation: the plain call's
 * operation, under @policy.
 */
#define DEFINE_LOCKREF16_P(type, name, op)                                                         \
	LOCKREF_FAST_PATH type lockref16_##name##_p(struct lockref16 *ref,                         \
						    const struct lockref_policy *policy)           \
	{                                                                                          \
		return (type)LOCKREF16_EXPLICIT(ref, op, 0, policy);                               \
	}

DEFINE_LOCKREF16_P(bool, get_not_zero, LOCKREF_GET_NOT_ZERO)
DEFINE_LOCKREF16_P(bool, get_not_dead, LOCKREF_GET_NOT_DEAD)
DEFINE_LOCKREF16_P(bool, put_not_zero, LOCKREF_PUT_NOT_ZERO)
DEFINE_LOCKREF16_P(int64_t, put_return, LOCKREF_PUT_RETURN)
DEFINE_LOCKREF16_P(bool, put_or_lock, LOCKREF_PUT_OR_LOCK)

LOCKREF_FAST_PATH bool lockref16_get_if_gen_p(struct lockref16 *ref, uint32_t gen,
					      const struct lockref_policy *policy)
{
	return LOCKREF16_EXPLICIT(ref, LOCKREF_GET_IF_GEN, gen, policy);
}

int64_t lockref16_get_locked(struct lockref16 *ref)
{
	return form_get_locked(ref);
}

int64_t lockref16_put_locked(struct lockref16 *ref)
{
	return form_put_locked(ref);
}

void lockref16_mark_dead(struct lockref16 *ref)
{
	form_mark_dead(ref);
}

uint32_t lockref16_bump_gen(struct lockref16 *ref)
{
	uint32_t gen = atomic_load32(&ref->gen);

	if (!lockref_holds(ref, &ref->lock)) {
		lockref_warn(ref, "lockref16", "bump_gen without the lock");
		return gen;
	}
	atomic_store32(&ref->gen, gen + 1);
	return gen + 1;
}

uint32_t lockref16_gen(const struct lockref16 *ref)
{
	return form_load_gen(ref);
}

bool lockref16_is_dead(const struct lockref16 *ref)
{
	return form_load_count(ref) < 0;
}

int64_t lockref16_count(const struct lockref16 *ref)
{
	return form_load_count(ref);
}

void lockref16_lock(struct lockref16 *ref)
{
	form_lock(ref, 0, LOCKDEP_SITE());
}

void lockref16_lock_nested(struct lockref16 *ref, unsigned subclass)
{
	form_lock(ref, subclass, LOCKDEP_SITE());
}

void lockref16_unlock(struct lockref16 *ref)
{
	form_unlock(ref, LOCKDEP_SITE());
}
