// SPDX-License-Identifier: MIT
/*
 * lockref.c - the 8-byte lockref of lockref.h, its policies, statistics,
 * lock-holder records and misuse warnings.
 *
 * The operations come from lockref_template.h, specialised here to one 64-bit
 * word: x86 is little-endian, so the lock is the low half and the count the
 * high half, and the lockless path handles the word in a register.  Each
 * call picks the compare-exchange instruction once (lockref_boot.mode8 for
 * the plain calls, the policy's cas for the _p calls) and runs a body
 * compiled for that instruction, so the instruction costs no branch inside
 * the loop.
 *
 * Reading order: lockref.h (the contract of every call), lockref_impl.h
 * (the one decision table, lockref_decide, and each CPU's record), the
 * form pieces below (how this width snapshots, tests and exchanges its
 * word), lockref_template.h (form_do, the inline first attempt; form_slow
 * and form_lockless, the policy loop; form_locked, the locked path), and
 * last the public calls at the end of this file.  lockref16.c gives the
 * same pieces for the 16-byte form.
 */
#include "lockref.h"

#include "atomic.h"
#include "lockref_fixed.h"
#include "lockref_impl.h"
#include "platform.h"
#include "spinlock.h"
#include "string.h"
#include "trace.h"

/* After this many logged warnings the rest are only counted. */
#define LOCKREF_WARN_LOG_LIMIT 16

const struct lockref_policy lockref_policy_mainline = {
    .name = "mainline",
    .retries = 100,
    .wait_unlocked = false,
    .cas = LOCKREF_CAS_CMPXCHG8B,
};
const struct lockref_policy lockref_policy_v7 = {
    .name = "v7",
    .retries = 4,
    .wait_unlocked = true,
    .cas = LOCKREF_CAS_CMPXCHG8B,
};
const struct lockref_policy lockref_policy_locked = {
    .name = "locked",
    .retries = 0,
    .wait_unlocked = false,
    .cas = LOCKREF_CAS_CMPXCHG8B,
};

struct lockref_boot lockref_boot = {
    .policy = {.name = "mainline", .retries = 100, .cas = LOCKREF_CAS_CMPXCHG8B},
    .mode8 = LOCKREF_MODE_CMPXCHG8B,
    .mode16 = LOCKREF_MODE_LOCKED,
    .cx16 = false,
};

struct lockref_cpu lockref_cpu[MAX_CPUS];
struct static_key lockref_mode_key = STATIC_KEY_INIT("lockref.policy");
struct static_key lockref_stats_key = STATIC_KEY_INIT("lockref.stats");

static uint64_t lockref_warn_count;
static uint32_t lockref_saturation_logged;

/* ---- the width-specific pieces of lockref_template.h ---- */

#define FORM_REF  struct lockref
#define FORM_VAL  uint64_t
#define FORM_NAME "lockref"
#define FORM_MAX  LOCKREF_COUNT_MAX
#define FORM_DEAD LOCKREF_DEAD
#define FORM_TORN 0

_Static_assert(__builtin_offsetof(struct lockref, count) == 4, "count is the high half");

static inline uint64_t form_snapshot(const struct lockref *ref)
{
	return atomic_load64(&ref->lock_count);
}

static inline spinlock_t form_val_lock(uint64_t word)
{
	return (spinlock_t){.val = (uint32_t)word};
}

static inline int64_t form_val_count(uint64_t word)
{
	return (int32_t)(word >> 32);
}

static inline uint32_t form_val_gen(uint64_t word)
{
	(void)word;
	return 0;
}

/*
 * Written as adding the difference to the high half, which the compiler
 * folds to one add of +-2^32 (count is the snapshot's +-1): the shortest
 * chain from the load to the exchange.  The count stays within int32
 * (saturation stops it at LOCKREF_COUNT_MAX), so no carry leaves the word.
 */
static inline uint64_t form_val_with_count(uint64_t word, int64_t count)
{
	return word + ((uint64_t)(count - form_val_count(word)) << 32);
}

static inline __attribute__((always_inline)) bool form_cas(struct lockref *ref, uint64_t *old,
							   uint64_t new, enum lockref_mode mode)
{
	if (mode == LOCKREF_MODE_CMPXCHGQ)
		return atomic_cmpxchg64_q(&ref->lock_count, old, new);
	return atomic_cmpxchg64_8b(&ref->lock_count, old, new);
}

/* Atomic accessors of the count for lock holders (lockless readers may look at any time). */
static inline int64_t form_load_count(const struct lockref *ref)
{
	return (int32_t)atomic_load32((const uint32_t *)&ref->count);
}

static inline void form_store_count(struct lockref *ref, int64_t count)
{
	atomic_store32((uint32_t *)&ref->count, (uint32_t)count);
}

static inline uint32_t form_load_gen(const struct lockref *ref)
{
	(void)ref;
	return 0;
}

#include "lockref_template.h"

/* ---- policies, boot choices, holders, warnings (both forms) ---- */

void lockref_warn(const void *ref, const char *form, const char *what)
{
	uint64_t n = atomic_xadd64(&lockref_warn_count, 1);

	if (n < LOCKREF_WARN_LOG_LIMIT)
		platform_log("%s %p: WARNING: %s (cpu %u)", form, ref, what, platform_cpu_id());
	if (n + 1 == LOCKREF_WARN_LOG_LIMIT)
		platform_log("lockref: WARNING: %d warnings logged, counting the rest silently",
			     LOCKREF_WARN_LOG_LIMIT);
}

void lockref_warn_saturated(const void *ref)
{
	uint32_t never = 0;

	atomic_xadd64(&lockref_warn_count, 1);
	if (atomic_cmpxchg32(&lockref_saturation_logged, &never, 1))
		platform_log("lockref %p: WARNING: count saturated at its maximum; it stays "
			     "pinned there (logged once)",
			     ref);
}

uint64_t lockref_warnings(void)
{
	return atomic_load64(&lockref_warn_count);
}

void lockref_held_add(const void *ref)
{
	unsigned cpu = platform_cpu_id();
	struct lockref_cpu *c = &lockref_cpu[cpu];

	if (c->nheld == LOCKREF_HELD_MAX)
		platform_panic("lockref %p: cpu %u already holds %d lockref locks", ref, cpu,
			       LOCKREF_HELD_MAX);
	c->held[c->nheld++] = ref;
}

void lockref_held_remove(const void *ref)
{
	struct lockref_cpu *c = &lockref_cpu[platform_cpu_id()];

	for (unsigned i = 0; i < c->nheld; i++) {
		if (c->held[i] == ref) {
			/* Locks need not be released in order: close the gap. */
			c->held[i] = c->held[--c->nheld];
			return;
		}
	}
}

bool lockref_holds(const void *ref, const spinlock_t *lock)
{
	const struct lockref_cpu *c = &lockref_cpu[platform_cpu_id()];

	for (unsigned i = 0; i < c->nheld; i++)
		if (c->held[i] == ref)
			return spin_is_locked(lock);
	return false;
}

bool lockref_policy_by_name(const char *name, struct lockref_policy *out)
{
	static const struct lockref_policy *const presets[] = {
	    &lockref_policy_mainline,
	    &lockref_policy_v7,
	    &lockref_policy_locked,
	};

	for (unsigned i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		if (strcmp(name, presets[i]->name) == 0) {
			*out = *presets[i];
			return true;
		}
	}
	return false;
}

/* The 8-byte form's first step under @p. */
static enum lockref_mode lockref_mode_of(const struct lockref_policy *p)
{
	if (p->retries == 0)
		return LOCKREF_MODE_LOCKED;
	return p->cas == LOCKREF_CAS_CMPXCHGQ ? LOCKREF_MODE_CMPXCHGQ : LOCKREF_MODE_CMPXCHG8B;
}

void lockref_boot_update(void)
{
	const struct lockref_policy *p = &lockref_boot.policy;

	lockref_boot.mode8 = lockref_mode_of(p);
	lockref_boot.mode16 =
	    lockref_boot.cx16 && p->retries ? LOCKREF_MODE_CMPXCHG16B : LOCKREF_MODE_LOCKED;
}

bool lockref_set_policy(const struct lockref_policy *policy)
{
	if (policy->retries > LOCKREF_RETRIES_MAX) {
		platform_log("lockref: policy %s asks for %u lockless attempts, more than %u; "
			     "keeping %s",
			     policy->name, policy->retries, LOCKREF_RETRIES_MAX,
			     lockref_boot.policy.name);
		return false;
	}
	/* The plain calls read the mode only once the key is on (LOCKREF_PLAIN). */
	if (lockref_mode_of(policy) != LOCKREF_MODE_CMPXCHG8B &&
	    !static_key_enable(&lockref_mode_key)) {
		platform_log("lockref: policy %s: keeping %s", policy->name,
			     lockref_boot.policy.name);
		return false;
	}
	lockref_boot.policy = *policy;
	lockref_boot_update();
	return true;
}

bool lockref_stats_count_all(void)
{
	return static_key_enable(&lockref_stats_key);
}

bool lockref_stats_count_first(void)
{
	return static_key_disable(&lockref_stats_key);
}

unsigned lockref_keys_bare(struct static_key *out[])
{
	unsigned n = 0;

	if (lockref_mode_of(&lockref_boot.policy) == LOCKREF_MODE_CMPXCHG8B)
		out[n++] = &lockref_mode_key;
	out[n++] = &lockref_stats_key;
	return n;
}

const struct lockref_policy *lockref_get_policy(void)
{
	return &lockref_boot.policy;
}

/* ---- the operations ---- */

/*
 * @op under @p, with the instruction @mode as a constant in each branch,
 * the switches read as @copy says.
 */
static inline __attribute__((always_inline)) int64_t
lockref_run(struct lockref *ref, enum lockref_op op, const struct lockref_policy *p,
	    enum lockref_mode mode, enum lockref_copy copy)
{
	if (mode == LOCKREF_MODE_CMPXCHG8B)
		return form_do(ref, op, 0, p, LOCKREF_MODE_CMPXCHG8B, copy);
	if (mode == LOCKREF_MODE_CMPXCHGQ)
		return form_do(ref, op, 0, p, LOCKREF_MODE_CMPXCHGQ, copy);
	return form_do(ref, op, 0, p, LOCKREF_MODE_LOCKED, copy);
}

/*
 * The plain calls: the boot policy, whose first step is the default's
 * (CMPXCHG8B) unless lockref_mode_key is on; only then is the mode read.
 */
#define LOCKREF_PLAIN(ref, op)                                                                     \
	(static_key_guard(&lockref_mode_key)                                                       \
	     ? lockref_run(ref, op, &lockref_boot.policy, lockref_boot.mode8, LOCKREF_COPY_LIVE)   \
	     : form_do(ref, op, 0, &lockref_boot.policy, LOCKREF_MODE_CMPXCHG8B,                   \
		       LOCKREF_COPY_LIVE))
#define LOCKREF_EXPLICIT(ref, op, p) lockref_run(ref, op, p, lockref_mode_of(p), LOCKREF_COPY_LIVE)

void lockref_init_key(struct lockref *ref, struct lock_class_key *key)
{
	struct lockref fresh = {.lock = SPINLOCK_INIT, .count = 1};

	atomic_store64(&ref->lock_count, fresh.lock_count);
	trace_ev(TR_SPIN_INIT, &ref->lock, 0);
	if (lockdep_enabled())
		lockdep_init_lock(&ref->lock, key);
}

LOCKREF_FAST_PATH void lockref_get(struct lockref *ref)
{
	LOCKREF_PLAIN(ref, LOCKREF_GET);
}

LOCKREF_FAST_PATH bool lockref_get_not_zero(struct lockref *ref)
{
	return LOCKREF_PLAIN(ref, LOCKREF_GET_NOT_ZERO);
}

LOCKREF_FAST_PATH bool lockref_get_not_dead(struct lockref *ref)
{
	return LOCKREF_PLAIN(ref, LOCKREF_GET_NOT_DEAD);
}

LOCKREF_FAST_PATH bool lockref_put_not_zero(struct lockref *ref)
{
	return LOCKREF_PLAIN(ref, LOCKREF_PUT_NOT_ZERO);
}

LOCKREF_FAST_PATH int lockref_put_return(struct lockref *ref)
{
	return (int)LOCKREF_PLAIN(ref, LOCKREF_PUT_RETURN);
}

LOCKREF_FAST_PATH bool lockref_put_or_lock(struct lockref *ref)
{
	return LOCKREF_PLAIN(ref, LOCKREF_PUT_OR_LOCK);
}

LOCKREF_FAST_PATH void lockref_get_p(struct lockref *ref, const struct lockref_policy *policy)
{
	LOCKREF_EXPLICIT(ref, LOCKREF_GET, policy);
}

LOCKREF_FAST_PATH bool lockref_get_not_zero_p(struct lockref *ref,
					      const struct lockref_policy *policy)
{
	return LOCKREF_EXPLICIT(ref, LOCKREF_GET_NOT_ZERO, policy);
}

LOCKREF_FAST_PATH bool lockref_get_not_dead_p(struct lockref *ref,
					      const struct lockref_policy *policy)
{
	return LOCKREF_EXPLICIT(ref, LOCKREF_GET_NOT_DEAD, policy);
}

LOCKREF_FAST_PATH bool lockref_put_not_zero_p(struct lockref *ref,
					      const struct lockref_policy *policy)
{
	return LOCKREF_EXPLICIT(ref, LOCKREF_PUT_NOT_ZERO, policy);
}

LOCKREF_FAST_PATH int lockref_put_return_p(struct lockref *ref, const struct lockref_policy *policy)
{
	return (int)LOCKREF_EXPLICIT(ref, LOCKREF_PUT_RETURN, policy);
}

LOCKREF_FAST_PATH bool lockref_put_or_lock_p(struct lockref *ref,
					     const struct lockref_policy *policy)
{
	return LOCKREF_EXPLICIT(ref, LOCKREF_PUT_OR_LOCK, policy);
}

/* The fixed copies (lockref_fixed.h): the kind a constant, untraced, no lockless count. */
LOCKREF_FAST_PATH void lockref_get_fixed(struct lockref *ref, const struct lockref_policy *policy)
{
	lockref_run(ref, LOCKREF_GET, policy, lockref_mode_of(policy), LOCKREF_COPY_TICKET);
}

LOCKREF_FAST_PATH bool lockref_put_or_lock_fixed(struct lockref *ref,
						 const struct lockref_policy *policy)
{
	return lockref_run(ref, LOCKREF_PUT_OR_LOCK, policy, lockref_mode_of(policy),
			   LOCKREF_COPY_TICKET);
}

LOCKREF_FAST_PATH void lockref_get_fixed_zero(struct lockref *ref,
					      const struct lockref_policy *policy)
{
	lockref_run(ref, LOCKREF_GET, policy, lockref_mode_of(policy), LOCKREF_COPY_ZERO);
}

LOCKREF_FAST_PATH bool lockref_put_or_lock_fixed_zero(struct lockref *ref,
						      const struct lockref_policy *policy)
{
	return lockref_run(ref, LOCKREF_PUT_OR_LOCK, policy, lockref_mode_of(policy),
			   LOCKREF_COPY_ZERO);
}

int lockref_get_locked(struct lockref *ref)
{
	return (int)form_get_locked(ref);
}

int lockref_put_locked(struct lockref *ref)
{
	return (int)form_put_locked(ref);
}

void lockref_mark_dead(struct lockref *ref)
{
	form_mark_dead(ref);
}

bool lockref_is_dead(const struct lockref *ref)
{
	return form_load_count(ref) < 0;
}

int lockref_count(const struct lockref *ref)
{
	return (int)form_load_count(ref);
}

void lockref_lock(struct lockref *ref)
{
	form_lock(ref, 0, LOCKDEP_SITE());
}

void lockref_lock_nested(struct lockref *ref, unsigned subclass)
{
	form_lock(ref, subclass, LOCKDEP_SITE());
}

void lockref_unlock(struct lockref *ref)
{
	form_unlock(ref, LOCKDEP_SITE());
}

/* ---- statistics (both forms) ---- */

void lockref_stats_cpu(unsigned cpu, struct lockref_stats *out)
{
	const struct lockref_cpu *c;

	*out = (struct lockref_stats){0};
	if (cpu >= MAX_CPUS)
		return;
	c = &lockref_cpu[cpu];
	out->lockless = atomic_load64_relaxed(&c->lockless);
	out->retries = atomic_load64_relaxed(&c->retries);
	out->fallbacks = atomic_load64_relaxed(&c->fallbacks);
	out->abandoned = atomic_load64_relaxed(&c->abandoned);
}

void lockref_stats_sum(struct lockref_stats *out)
{
	struct lockref_stats one;

	*out = (struct lockref_stats){0};
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		lockref_stats_cpu(cpu, &one);
		out->lockless += one.lockless;
		out->retries += one.retries;
		out->fallbacks += one.fallbacks;
		out->abandoned += one.abandoned;
	}
}

void lockref_stats_reset(void)
{
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		atomic_store64_relaxed(&lockref_cpu[cpu].lockless, 0);
		atomic_store64_relaxed(&lockref_cpu[cpu].retries, 0);
		atomic_store64_relaxed(&lockref_cpu[cpu].fallbacks, 0);
		atomic_store64_relaxed(&lockref_cpu[cpu].abandoned, 0);
	}
}
