/*
 * lockref.c - the 8-byte lockref of lockref.h, its policies, statistics and
 * misuse warnings.
 *
 * Every operation is one static inline body with the policy as a parameter:
 * the _p call passes the caller's policy; the plain call passes the boot
 * policy, as the constant preset object when it is a preset, so that the
 * compiler specialises the body (LOCKREF_BOOT_CALL in lockref_impl.h).  The
 * lockless part (lockref_lockless) reads the whole word once, checks that
 * the lock half is free, lets the operation decide from that snapshot
 * (lockref_decide), and installs the result with one compare-exchange of the
 * whole word.  A failed exchange hands back the current word, so a retry
 * needs no new load.  Whatever the lockless part cannot finish, the locked
 * part finishes under the spinlock, where the count stands still.
 */
#include "lockref.h"

#include "atomic.h"
#include "lockref_impl.h"
#include "platform.h"
#include "spinlock.h"

/* After this many logged warnings the rest are only counted. */
#define LOCKREF_WARN_LOG_LIMIT 16

const struct lockref_policy lockref_policy_mainline = LOCKREF_POLICY_MAINLINE_INIT;
const struct lockref_policy lockref_policy_v7 = LOCKREF_POLICY_V7_INIT;
const struct lockref_policy lockref_policy_locked = LOCKREF_POLICY_LOCKED_INIT;
const struct lockref_policy lockref_policy_busted = {
    .name = "busted",
    .retries = 100,
    .wait_unlocked = false,
    .ignore_lock = true,
};

struct lockref_boot lockref_boot = {
    .policy = LOCKREF_POLICY_MAINLINE_INIT,
    .preset = LOCKREF_PRESET_MAINLINE,
    .preset16 = LOCKREF_PRESET_LOCKED,
    .cx16 = false,
};

struct lockref_cpu_stats lockref_cpu_stats[MAX_CPUS];

static uint64_t lockref_warn_count;
static uint32_t lockref_saturation_logged;

/* The operations, as the lockless step and the locked path see them. */
enum lockref_op {
	LOCKREF_GET,
	LOCKREF_GET_NOT_ZERO,
	LOCKREF_GET_NOT_DEAD,
	LOCKREF_PUT_NOT_ZERO,
	LOCKREF_PUT_RETURN,
	LOCKREF_PUT_OR_LOCK,
};

void lockref_warn(const void *ref, const char *what)
{
	uint64_t n = atomic_xadd64(&lockref_warn_count, 1);

	if (n < LOCKREF_WARN_LOG_LIMIT)
		platform_log("lockref %p: WARNING: %s (cpu %u)", ref, what, platform_cpu_id());
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

/* Names compared without libc, which the kernel does not have. */
static bool lockref_name_is(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

bool lockref_policy_by_name(const char *name, struct lockref_policy *out)
{
	static const struct lockref_policy *const presets[] = {
	    &lockref_policy_mainline,
	    &lockref_policy_v7,
	    &lockref_policy_locked,
	};

	for (unsigned i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		if (lockref_name_is(name, presets[i]->name)) {
			*out = *presets[i];
			return true;
		}
	}
	return false;
}

/* The preset @p behaves as, whatever its name. */
static enum lockref_preset lockref_preset_of(const struct lockref_policy *p)
{
	static const struct lockref_policy *const presets[] = {
	    [LOCKREF_PRESET_MAINLINE] = &lockref_preset_mainline,
	    [LOCKREF_PRESET_V7] = &lockref_preset_v7,
	    [LOCKREF_PRESET_LOCKED] = &lockref_preset_locked,
	};

	for (unsigned i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (p->retries == presets[i]->retries &&
		    p->wait_unlocked == presets[i]->wait_unlocked &&
		    p->ignore_lock == presets[i]->ignore_lock)
			return (enum lockref_preset)i;
	return LOCKREF_PRESET_OTHER;
}

void lockref_boot_update(void)
{
	lockref_boot.preset = lockref_preset_of(&lockref_boot.policy);
	lockref_boot.preset16 = lockref_boot.cx16 ? lockref_boot.preset : LOCKREF_PRESET_LOCKED;
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
	lockref_boot.policy = *policy;
	lockref_boot_update();
	return true;
}

const struct lockref_policy *lockref_get_policy(void)
{
	return &lockref_boot.policy;
}

/*
 * Decide @op from an unlocked snapshot @count: either *@next is the count to
 * install and *@result what the operation returns once it is installed, or
 * *@result is final with nothing to install, or the locked path decides.
 * Dead and saturated counts go to the locked path, which warns.
 */
static inline __attribute__((always_inline)) enum lockref_step
lockref_decide(enum lockref_op op, int32_t count, int32_t *next, int *result)
{
	switch (op) {
	case LOCKREF_GET:
		if (count < 0 || count == LOCKREF_COUNT_MAX)
			return LOCKREF_STEP_LOCK;
		*next = count + 1;
		return LOCKREF_STEP_CHANGE;
	case LOCKREF_GET_NOT_ZERO:
	case LOCKREF_GET_NOT_DEAD:
		*result = false;
		if (count < 0 || (op == LOCKREF_GET_NOT_ZERO && count == 0))
			return LOCKREF_STEP_FINISH;
		if (count == LOCKREF_COUNT_MAX)
			return LOCKREF_STEP_LOCK;
		*result = true;
		*next = count + 1;
		return LOCKREF_STEP_CHANGE;
	case LOCKREF_PUT_NOT_ZERO:
	case LOCKREF_PUT_OR_LOCK:
		if (count <= 1) {
			*result = false;
			return op == LOCKREF_PUT_OR_LOCK ? LOCKREF_STEP_LOCK : LOCKREF_STEP_FINISH;
		}
		*result = true;
		if (count == LOCKREF_COUNT_MAX)
			return LOCKREF_STEP_FINISH;
		*next = count - 1;
		return LOCKREF_STEP_CHANGE;
	case LOCKREF_PUT_RETURN:
		if (count <= 0) {
			*result = -1;
			return LOCKREF_STEP_FINISH;
		}
		if (count == LOCKREF_COUNT_MAX) {
			*result = count;
			return LOCKREF_STEP_FINISH;
		}
		*next = *result = count - 1;
		return LOCKREF_STEP_CHANGE;
	}
	return LOCKREF_STEP_LOCK;
}

/*
 * The 64-bit word as the lockless path handles it, in registers: x86 is
 * little-endian, so the lock is the low half and the count the high half.
 */
_Static_assert(__builtin_offsetof(struct lockref, count) == 4, "count is the high half");

static inline spinlock_t lockref_word_lock(uint64_t word)
{
	return (spinlock_t){.val = (uint32_t)word};
}

static inline int32_t lockref_word_count(uint64_t word)
{
	return (int32_t)(word >> 32);
}

static inline uint64_t lockref_word_with_count(uint64_t word, int32_t count)
{
	return (uint64_t)(uint32_t)count << 32 | (uint32_t)word;
}

/*
 * v7: PAUSE until the lock reads free, at most LOCKREF_WAIT_SPINS times.
 * Returns the last word read: its lock half says whether the wait succeeded.
 */
static __attribute__((noinline)) uint64_t lockref_wait_unlocked(struct lockref *ref)
{
	uint64_t word = 0;

	for (unsigned i = 0; i < LOCKREF_WAIT_SPINS; i++) {
		platform_relax();
		word = atomic_load64(&ref->lock_count);
		if (spin_value_unlocked(lockref_word_lock(word)))
			break;
	}
	return word;
}

/*
 * Try @op without the lock as @p says.  Returns true when it is finished
 * (*@result holds its answer), false when the caller must take the lock.
 */
static inline __attribute__((always_inline)) bool lockref_lockless(struct lockref *ref,
								   const struct lockref_policy *p,
								   enum lockref_op op, int *result)
{
	uint64_t old;
	int32_t count;
	unsigned attempts = p->retries;
	unsigned failed = 0;

	if (attempts == 0)
		goto locked;
	old = atomic_load64(&ref->lock_count);
	for (;;) {
		/* ignore_lock is read only here, after the lock was seen held. */
		if (!spin_value_unlocked(lockref_word_lock(old)) && !p->ignore_lock) {
			if (!p->wait_unlocked)
				break;
			old = lockref_wait_unlocked(ref);
			if (!spin_value_unlocked(lockref_word_lock(old)))
				break;
		}
		switch (lockref_decide(op, lockref_word_count(old), &count, result)) {
		case LOCKREF_STEP_FINISH:
			lockref_account(true, failed);
			return true;
		case LOCKREF_STEP_LOCK:
			goto locked;
		case LOCKREF_STEP_CHANGE:
			break;
		}
		/* The exchange also compares the lock half: it fails if anyone took the lock. */
		if (atomic_cmpxchg64(&ref->lock_count, &old, lockref_word_with_count(old, count))) {
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

/* Atomic accessors of the count for lock holders (lockless readers may look at any time). */
static inline int32_t lockref_load_count(const struct lockref *ref)
{
	return (int32_t)atomic_load32((const uint32_t *)&ref->count);
}

static inline void lockref_store_count(struct lockref *ref, int32_t count)
{
	atomic_store32((uint32_t *)&ref->count, (uint32_t)count);
}

int lockref_get_locked(struct lockref *ref)
{
	int32_t count = lockref_load_count(ref);

	if (!spin_is_held(&ref->lock)) {
		lockref_warn(ref, "get_locked without the lock");
		return count;
	}
	if (count < 0) {
		lockref_warn(ref, "get on a dead lockref");
		return count;
	}
	if (count == LOCKREF_COUNT_MAX) {
		lockref_warn_saturated(ref);
		return count;
	}
	lockref_store_count(ref, count + 1);
	return count + 1;
}

int lockref_put_locked(struct lockref *ref)
{
	int32_t count = lockref_load_count(ref);

	if (!spin_is_held(&ref->lock)) {
		lockref_warn(ref, "put_locked without the lock");
		return count;
	}
	if (count <= 0) {
		lockref_warn(ref, count < 0 ? "put on a dead lockref" : "put below zero");
		return count;
	}
	if (count != LOCKREF_COUNT_MAX)
		lockref_store_count(ref, count - 1);
	return lockref_load_count(ref);
}

/*
 * Locked path of the conditional gets and puts: under the lock the count is
 * stable, so decide as the lockless step would and apply it directly.
 * Dead and saturated counts, which the step hands over, are decided here.
 */
static bool lockref_locked_cond(struct lockref *ref, enum lockref_op op)
{
	int32_t count, next = 0;
	int result = false;
	bool ok;

	spin_lock(&ref->lock);
	count = lockref_load_count(ref);
	if (count == LOCKREF_COUNT_MAX && op != LOCKREF_PUT_NOT_ZERO) {
		/* A conditional get on a saturated count succeeds without counting. */
		lockref_warn_saturated(ref);
		spin_unlock(&ref->lock);
		return true;
	}
	if (lockref_decide(op, count, &next, &result) == LOCKREF_STEP_CHANGE)
		lockref_store_count(ref, next);
	ok = result;
	spin_unlock(&ref->lock);
	return ok;
}

static inline __attribute__((always_inline)) void lockref_do_get(struct lockref *ref,
								 const struct lockref_policy *p)
{
	int result;

	if (lockref_lockless(ref, p, LOCKREF_GET, &result))
		return;
	spin_lock(&ref->lock);
	lockref_get_locked(ref);
	spin_unlock(&ref->lock);
}

static inline __attribute__((always_inline)) bool
lockref_do_cond(struct lockref *ref, enum lockref_op op, const struct lockref_policy *p)
{
	int result;

	if (lockref_lockless(ref, p, op, &result))
		return result;
	return lockref_locked_cond(ref, op);
}

static inline __attribute__((always_inline)) int
lockref_do_put_return(struct lockref *ref, const struct lockref_policy *p)
{
	int result;

	if (lockref_lockless(ref, p, LOCKREF_PUT_RETURN, &result))
		return result;
	return -1;
}

static inline __attribute__((always_inline)) bool
lockref_do_put_or_lock(struct lockref *ref, const struct lockref_policy *p)
{
	int result;
	int32_t count;

	if (lockref_lockless(ref, p, LOCKREF_PUT_OR_LOCK, &result))
		return result;
	spin_lock(&ref->lock);
	count = lockref_load_count(ref);
	if (count <= 1)
		return false; /* with the lock held: the caller owns the last reference */
	if (count != LOCKREF_COUNT_MAX)
		lockref_store_count(ref, count - 1);
	spin_unlock(&ref->lock);
	return true;
}

void lockref_init(struct lockref *ref)
{
	struct lockref fresh = {.lock = SPINLOCK_INIT, .count = 1};

	atomic_store64(&ref->lock_count, fresh.lock_count);
}

void lockref_get(struct lockref *ref)
{
	const enum lockref_preset preset = lockref_boot.preset;

	LOCKREF_BOOT_CALL(preset, lockref_do_get, ref);
}

bool lockref_get_not_zero(struct lockref *ref)
{
	const enum lockref_preset preset = lockref_boot.preset;

	return LOCKREF_BOOT_CALL(preset, lockref_do_cond, ref, LOCKREF_GET_NOT_ZERO);
}

bool lockref_get_not_dead(struct lockref *ref)
{
	const enum lockref_preset preset = lockref_boot.preset;

	return LOCKREF_BOOT_CALL(preset, lockref_do_cond, ref, LOCKREF_GET_NOT_DEAD);
}

bool lockref_put_not_zero(struct lockref *ref)
{
	const enum lockref_preset preset = lockref_boot.preset;

	return LOCKREF_BOOT_CALL(preset, lockref_do_cond, ref, LOCKREF_PUT_NOT_ZERO);
}

int lockref_put_return(struct lockref *ref)
{
	const enum lockref_preset preset = lockref_boot.preset;

	return LOCKREF_BOOT_CALL(preset, lockref_do_put_return, ref);
}

bool lockref_put_or_lock(struct lockref *ref)
{
	const enum lockref_preset preset = lockref_boot.preset;

	return LOCKREF_BOOT_CALL(preset, lockref_do_put_or_lock, ref);
}

void lockref_get_p(struct lockref *ref, const struct lockref_policy *policy)
{
	lockref_do_get(ref, policy);
}

bool lockref_get_not_zero_p(struct lockref *ref, const struct lockref_policy *policy)
{
	return lockref_do_cond(ref, LOCKREF_GET_NOT_ZERO, policy);
}

bool lockref_get_not_dead_p(struct lockref *ref, const struct lockref_policy *policy)
{
	return lockref_do_cond(ref, LOCKREF_GET_NOT_DEAD, policy);
}

bool lockref_put_not_zero_p(struct lockref *ref, const struct lockref_policy *policy)
{
	return lockref_do_cond(ref, LOCKREF_PUT_NOT_ZERO, policy);
}

int lockref_put_return_p(struct lockref *ref, const struct lockref_policy *policy)
{
	return lockref_do_put_return(ref, policy);
}

bool lockref_put_or_lock_p(struct lockref *ref, const struct lockref_policy *policy)
{
	return lockref_do_put_or_lock(ref, policy);
}

void lockref_mark_dead(struct lockref *ref)
{
	if (!spin_is_held(&ref->lock)) {
		lockref_warn(ref, "mark_dead without the lock");
		return;
	}
	lockref_store_count(ref, LOCKREF_DEAD);
}

bool lockref_is_dead(const struct lockref *ref)
{
	return lockref_load_count(ref) < 0;
}

int lockref_count(const struct lockref *ref)
{
	return lockref_load_count(ref);
}

void lockref_lock(struct lockref *ref)
{
	spin_lock(&ref->lock);
}

void lockref_unlock(struct lockref *ref)
{
	spin_unlock(&ref->lock);
}

void lockref_stats_cpu(unsigned cpu, struct lockref_stats *out)
{
	const struct lockref_cpu_stats *s;

	*out = (struct lockref_stats){0};
	if (cpu >= MAX_CPUS)
		return;
	s = &lockref_cpu_stats[cpu];
	out->lockless = atomic_load64_relaxed(&s->lockless);
	out->retries = atomic_load64_relaxed(&s->retries);
	out->fallbacks = atomic_load64_relaxed(&s->fallbacks);
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
	}
}

void lockref_stats_reset(void)
{
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		atomic_store64_relaxed(&lockref_cpu_stats[cpu].lockless, 0);
		atomic_store64_relaxed(&lockref_cpu_stats[cpu].retries, 0);
		atomic_store64_relaxed(&lockref_cpu_stats[cpu].fallbacks, 0);
	}
}
