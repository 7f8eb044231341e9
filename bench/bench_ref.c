// SPDX-License-Identifier: MIT
/*
 * bench_ref.c - the reference-count implementations of bench_ref.h, their
 * loops, and the reset, check and description hooks of their specs.
 *
 * The loops are generated from one always-inline body per operation with
 * the kind as a constant, so each loop calls its library function directly
 * and no implementation pays for a switch or an indirect call per
 * operation that another does not.
 */
#include "bench_ref.h"

#include "atomic.h"
#include "bench_impls.h"
#include "lockref_fixed.h"
#include "platform.h"
#include "printf.h"
#include "trace.h"

/* The kinds' headers, for their bare pairs (<prefix>_lock_bare: lib/spinlock_bare.c). */
#define SPIN_KIND_BODIES
#include "spinlock_kinds.h"

const struct bench_ref_impl bench_ref_impls[BENCH_IMPLS] = {
    [BENCH_IMPL_XADD] = {.name = BENCH_IMPL_NAME_XADD, .kind = BENCH_REF_XADD},
    [BENCH_IMPL_SPINLOCK] = {.name = BENCH_IMPL_NAME_SPINLOCK, .kind = BENCH_REF_SPINLOCK},
    [BENCH_IMPL_LOCKREF] = {.name = BENCH_IMPL_NAME_LOCKREF, .kind = BENCH_REF_LOCKREF},
    [BENCH_IMPL_LOCKREF_V7] = {.name = "lockref-v7",
			       .kind = BENCH_REF_LOCKREF,
			       .policy = &lockref_policy_v7},
    [BENCH_IMPL_LOCKREF_LOCKED] = {.name = "lockref-locked",
				   .kind = BENCH_REF_LOCKREF,
				   .policy = &lockref_policy_locked},
    [BENCH_IMPL_LOCKREF16] = {.name = "lockref16", .kind = BENCH_REF_LOCKREF16},
    [BENCH_IMPL_LOCKREF_OTHER_CAS] = {.name = NULL, .kind = BENCH_REF_LOCKREF},
    [BENCH_IMPL_SPINLOCK_PV] = {.name = "spinlock-pv", .kind = BENCH_REF_SPINLOCK, .pv = true},
    [BENCH_IMPL_LOCKREF_PV] = {.name = "lockref-pv", .kind = BENCH_REF_LOCKREF, .pv = true},
#define BENCH_IMPLS_OF_KIND(arg, kname, ID, prefix)                                                \
	[BENCH_IMPL_##                                                                             \
	    ID] = {.name = #kname, .kind = BENCH_REF_SPINLOCK, .lock_kind = SPIN_KIND_##ID},       \
	  [BENCH_IMPL_LOCKREF_##ID] = {                                                            \
	      .name = "lockref-" #kname, .kind = BENCH_REF_LOCKREF, .lock_kind = SPIN_KIND_##ID},
    SPIN_KINDS_SWITCHED(BENCH_IMPLS_OF_KIND, _)
#undef BENCH_IMPLS_OF_KIND
	[BENCH_IMPL_QSPINLOCK_PV] = {.name = "qspinlock-pv",
				     .kind = BENCH_REF_SPINLOCK,
				     .pv = true,
				     .lock_kind = SPIN_KIND_QSPINLOCK},
};

/*
 * Which lockref functions a loop calls: the public ones (LIVE), or their
 * copies with the lock layer's switches as constants (lib/lockref_fixed.h).
 * Where text is not patched (the native program) a public call reads each
 * switch's static key, a load the kernel's patched default does not have;
 * so there the loops time the fixed copies, which run what the kernel's
 * default runs, unless tracing is on (their fast path has no hook).
 */
enum ref_call { REF_LIVE, REF_FIXED, REF_FIXED_ZERO };

#ifdef PLATFORM_STATIC_KEYS_PATCHED
#define REF_FIXED_COPIES 0 /* the kernel: the public calls are the patched default */
#else
#define REF_FIXED_COPIES 1
#endif

static inline __attribute__((always_inline)) void ref_get(enum bench_ref_kind kind,
							  enum ref_call call,
							  struct bench_ref_obj *o,
							  const struct lockref_policy *p)
{
	switch (kind) {
	case BENCH_REF_XADD:
		atomic_xadd64(&o->counter, 1);
		break;
	case BENCH_REF_SPINLOCK:
		spin_lock(&o->locked.lock);
		atomic_store32(&o->locked.count, atomic_load32(&o->locked.count) + 1);
		spin_unlock(&o->locked.lock);
		break;
	case BENCH_REF_LOCKREF:
		if (call == REF_FIXED)
			lockref_get_fixed(&o->lr, p);
		else if (call == REF_FIXED_ZERO)
			lockref_get_fixed_zero(&o->lr, p);
		else
			lockref_get_p(&o->lr, p);
		break;
	case BENCH_REF_LOCKREF16:
		if (call == REF_FIXED)
			lockref16_get_fixed(&o->lr16, p);
		else
			lockref16_get_p(&o->lr16, p);
		break;
	}
}

/* Drop a reference; false if put_or_lock came back with the lock held (then released here). */
static inline __attribute__((always_inline)) bool ref_put(enum bench_ref_kind kind,
							  enum ref_call call,
							  struct bench_ref_obj *o,
							  const struct lockref_policy *p)
{
	switch (kind) {
	case BENCH_REF_XADD:
		atomic_xadd64(&o->counter, (uint64_t)-1);
		return true;
	case BENCH_REF_SPINLOCK:
		spin_lock(&o->locked.lock);
		atomic_store32(&o->locked.count, atomic_load32(&o->locked.count) - 1);
		spin_unlock(&o->locked.lock);
		return true;
	case BENCH_REF_LOCKREF:
		/* One call per branch: the lock analysis follows each try-acquire to its unlock. */
		if (call == REF_FIXED) {
			if (lockref_put_or_lock_fixed(&o->lr, p))
				return true;
			lockref_unlock(&o->lr);
			return false;
		}
		if (call == REF_FIXED_ZERO) {
			if (lockref_put_or_lock_fixed_zero(&o->lr, p))
				return true;
			lockref_unlock(&o->lr);
			return false;
		}
		if (lockref_put_or_lock_p(&o->lr, p))
			return true;
		lockref_unlock(&o->lr);
		return false;
	case BENCH_REF_LOCKREF16:
		if (call == REF_FIXED) {
			if (lockref16_put_or_lock_fixed(&o->lr16, p))
				return true;
			lockref16_unlock(&o->lr16);
			return false;
		}
		if (lockref16_put_or_lock_p(&o->lr16, p))
			return true;
		lockref16_unlock(&o->lr16);
		return false;
	}
	return false;
}

/* @n gets, puts or pairs on @arg's object; the object and policy stay in registers. */
static inline __attribute__((always_inline)) void
ref_loop(void *arg, unsigned n, enum bench_ref_kind kind, enum ref_call call, bool get, bool put)
{
	struct bench_ref *r = arg;
	struct bench_ref_obj *o = r->obj;
	const struct lockref_policy *p = r->policy;
	uint64_t bad = 0;

	for (unsigned i = 0; i < n; i++) {
		if (get)
			ref_get(kind, call, o, p);
		if (put)
			bad += !ref_put(kind, call, o, p);
	}
	if (bad)
		atomic_xadd64((uint64_t *)&r->errors, bad);
}

/* The get, put and pair loops of @kind calling as @call, each a function of its own. */
#define DEFINE_REF_LOOPS(name, kind, call)                                                         \
	static void name##_gets(void *arg, unsigned cpu, unsigned n)                               \
	{                                                                                          \
		(void)cpu;                                                                         \
		ref_loop(arg, n, kind, call, true, false);                                         \
	}                                                                                          \
	static void name##_puts(void *arg, unsigned cpu, unsigned n)                               \
	{                                                                                          \
		(void)cpu;                                                                         \
		ref_loop(arg, n, kind, call, false, true);                                         \
	}                                                                                          \
	static void name##_pairs(void *arg, unsigned cpu, unsigned n)                              \
	{                                                                                          \
		(void)cpu;                                                                         \
		ref_loop(arg, n, kind, call, true, true);                                          \
	}

DEFINE_REF_LOOPS(xadd, BENCH_REF_XADD, REF_LIVE)
DEFINE_REF_LOOPS(spinlock, BENCH_REF_SPINLOCK, REF_LIVE)
DEFINE_REF_LOOPS(lockref, BENCH_REF_LOCKREF, REF_LIVE)
DEFINE_REF_LOOPS(lockref16, BENCH_REF_LOCKREF16, REF_LIVE)

struct ref_loops {
	bench_ops_fn gets, puts, pairs;
};

static const struct ref_loops ref_loops[] = {
    [BENCH_REF_XADD] = {xadd_gets, xadd_puts, xadd_pairs},
    [BENCH_REF_SPINLOCK] = {spinlock_gets, spinlock_puts, spinlock_pairs},
    [BENCH_REF_LOCKREF] = {lockref_gets, lockref_puts, lockref_pairs},
    [BENCH_REF_LOCKREF16] = {lockref16_gets, lockref16_puts, lockref16_pairs},
};

/* The native program's timed lockref loops (REF_FIXED_COPIES). */
DEFINE_REF_LOOPS(lockref_fixed, BENCH_REF_LOCKREF, REF_FIXED)
DEFINE_REF_LOOPS(lockref_fixed_zero, BENCH_REF_LOCKREF, REF_FIXED_ZERO)
DEFINE_REF_LOOPS(lockref16_fixed, BENCH_REF_LOCKREF16, REF_FIXED)
static const struct ref_loops lockref_fixed_loops = {lockref_fixed_gets, lockref_fixed_puts,
						     lockref_fixed_pairs};
static const struct ref_loops lockref_fixed_zero_loops = {
    lockref_fixed_zero_gets, lockref_fixed_zero_puts, lockref_fixed_zero_pairs};
static const struct ref_loops lockref16_fixed_loops = {lockref16_fixed_gets, lockref16_fixed_puts,
						       lockref16_fixed_pairs};

/*
 * The lock rows' loops with each kind's bare pair (lib/spinlock_bare.c),
 * called directly, around the same count++ / count-- as ref_get and
 * ref_put: <prefix>_bare_gets, _puts and _pairs (ticket_bare_pairs,
 * qspin_bare_pairs, tas_bare_pairs, ...), and spin_bare_loops[kind].
 */
#define DEFINE_BARE_LOCK_LOOP(name, lock_fn, unlock_fn, get, put)                                  \
	static void name(void *arg, unsigned cpu, unsigned n)                                      \
	{                                                                                          \
		struct bench_ref_obj *o = ((struct bench_ref *)arg)->obj;                          \
                                                                                                   \
		(void)cpu;                                                                         \
		for (unsigned i = 0; i < n; i++) {                                                 \
			if (get) {                                                                 \
				lock_fn(&o->locked.lock);                                          \
				atomic_store32(&o->locked.count,                                   \
					       atomic_load32(&o->locked.count) + 1);               \
				unlock_fn(&o->locked.lock);                                        \
			}                                                                          \
			if (put) {                                                                 \
				lock_fn(&o->locked.lock);                                          \
				atomic_store32(&o->locked.count,                                   \
					       atomic_load32(&o->locked.count) - 1);               \
				unlock_fn(&o->locked.lock);                                        \
			}                                                                          \
		}                                                                                  \
	}
#define DEFINE_BARE_LOCK_LOOPS(name, ID, prefix)                                                   \
	DEFINE_BARE_LOCK_LOOP(prefix##_bare_gets, prefix##_lock_bare, prefix##_unlock_bare, 1, 0)  \
	DEFINE_BARE_LOCK_LOOP(prefix##_bare_puts, prefix##_lock_bare, prefix##_unlock_bare, 0, 1)  \
	DEFINE_BARE_LOCK_LOOP(prefix##_bare_pairs, prefix##_lock_bare, prefix##_unlock_bare, 1, 1)
SPIN_KIND_LIST(DEFINE_BARE_LOCK_LOOPS)
#undef DEFINE_BARE_LOCK_LOOPS
#undef DEFINE_BARE_LOCK_LOOP

static const struct ref_loops spin_bare_loops[SPIN_KINDS] = {
#define BARE_LOCK_LOOPS_ROW(name, ID, prefix)                                                      \
	[SPIN_KIND_##ID] = {prefix##_bare_gets, prefix##_bare_puts, prefix##_bare_pairs},
    SPIN_KIND_LIST(BARE_LOCK_LOOPS_ROW)
#undef BARE_LOCK_LOOPS_ROW
};

/* The loops @impl is timed with (REF_FIXED_COPIES above says why). */
static const struct ref_loops *ref_loops_of(const struct bench_ref_impl *impl)
{
	if (!REF_FIXED_COPIES || static_key_on(&trace_key))
		return &ref_loops[impl->kind];
	if (impl->kind == BENCH_REF_LOCKREF)
		return spin_kind_free(impl->lock_kind) == SPIN_FREE_ZERO ? &lockref_fixed_zero_loops
									 : &lockref_fixed_loops;
	if (impl->kind == BENCH_REF_LOCKREF16 &&
	    spin_kind_free(impl->lock_kind) == SPIN_FREE_TICKET && platform_facts().cx16)
		return &lockref16_fixed_loops;
	/* Every kind's lock, plain or paravirtual (its body reads the pv mode): bare. */
	if (impl->kind == BENCH_REF_SPINLOCK)
		return &spin_bare_loops[impl->lock_kind];
	return &ref_loops[impl->kind];
}

static bool ref_is_lockref(const struct bench_ref *r)
{
	return r->impl->kind == BENCH_REF_LOCKREF || r->impl->kind == BENCH_REF_LOCKREF16;
}

void bench_ref_init(struct bench_ref *r, const struct bench_ref_impl *impl,
		    struct bench_ref_obj *obj)
{
	*r = (struct bench_ref){.impl = impl,
				.name = impl->name,
				.obj = obj,
				.pv_boot = spin_pv_enabled(),
				.kind_boot = spin_kind()};
	r->policy = impl->policy ? impl->policy : lockref_get_policy();
	if (!impl->name) {
		r->other_policy = *lockref_get_policy();
		r->other_policy.cas = r->other_policy.cas == LOCKREF_CAS_CMPXCHGQ
					  ? LOCKREF_CAS_CMPXCHG8B
					  : LOCKREF_CAS_CMPXCHGQ;
		r->name = r->other_policy.cas == LOCKREF_CAS_CMPXCHGQ ? "lockref-cmpxchgq"
								      : "lockref-cmpxchg8b";
		r->policy = &r->other_policy;
	}
	r->gets = ref_loops_of(impl)->gets;
	r->puts = ref_loops_of(impl)->puts;
	r->pairs = ref_loops_of(impl)->pairs;
}

/* The convoy holder's lock: the spinlock_t of the object's kind, or the idle one of a counter. */
static spinlock_t *ref_lock_of(struct bench_ref *r)
{
	switch (r->impl->kind) {
	case BENCH_REF_SPINLOCK:
		return &r->obj->locked.lock;
	case BENCH_REF_LOCKREF:
		return &r->obj->lr.lock;
	case BENCH_REF_LOCKREF16:
		return &r->obj->lr16.lock;
	default:
		return &r->convoy.idle;
	}
}

/*
 * CPU 0, before a trial: count 1 + preload, unlocked, counters cleared, and
 * the lock of the implementation's kind (ticket or queued) and mode (plain
 * or paravirtual; both are global, and only CPU 0 runs now, so no lock is
 * contended).  The object is initialised after the kind is set: a free
 * ticket word need not be 0, the queued kind's only free word.  Only this
 * object's lock is taken during the trial.
 */
static void ref_reset(void *arg)
{
	struct bench_ref *r = arg;
	struct bench_ref_obj *o = r->obj;

	spin_kind_set(r->impl->lock_kind);
	spin_pv_set(r->impl->pv);
	switch (r->impl->kind) {
	case BENCH_REF_XADD:
		atomic_store64(&o->counter, 1);
		break;
	case BENCH_REF_SPINLOCK:
		spin_init(&o->locked.lock);
		atomic_store32(&o->locked.count, 1);
		break;
	case BENCH_REF_LOCKREF:
		lockref_init(&o->lr);
		break;
	case BENCH_REF_LOCKREF16:
		lockref16_init(&o->lr16);
		break;
	}
	if (r->preload)
		r->gets(r, 0, r->preload);
	r->errors = 0;
	r->warnings = lockref_warnings();
	r->convoy.next = 0;
	r->convoy.holds = 0;
	spin_init(&r->convoy.idle); /* free under the kind just set */
	r->pv_start = pv_stats();
}

/* CPU 0, after a trial: add the trial's paravirtual counts (every lock's, but only ours runs). */
static void ref_sum_pv(struct bench_ref *r)
{
	struct pv_stats trial = pv_stats_delta(pv_stats(), r->pv_start);

	r->pv_sum.sleeps += trial.sleeps;
	r->pv_sum.kicks += trial.kicks;
	r->pv_sum.passes += trial.passes;
	r->pv_sum.arms += trial.arms; /* at most 1: spin_pv_set began the trial */
	r->pv_trials++;
}

/*
 * CPU 0, after the last trial, whether or not a barrier failed: the boot's
 * lock mode (spinlock.pv=) and kind (spinlock.kind=) back.  The platform's
 * own locks were usable under the trial's kind all along (spin_init_global).
 */
static void ref_finish(void *arg)
{
	struct bench_ref *r = arg;

	spin_pv_set(r->pv_boot);
	spin_kind_set(r->kind_boot);
	spin_keys_settle(); /* the next benchmark times the bare path if the boot's is */
}

/* CPU 0, after a trial: every get was matched by a put, nothing was left locked. */
static bool ref_check(void *arg, char *why, size_t size)
{
	struct bench_ref *r = arg;
	struct bench_ref_obj *o = r->obj;
	int64_t count = 0, want = 1 + (int64_t)r->preload;
	bool locked = false;
	uint64_t warnings = lockref_warnings() - r->warnings;

	ref_sum_pv(r);
	switch (r->impl->kind) {
	case BENCH_REF_XADD:
		count = (int64_t)atomic_load64(&o->counter);
		break;
	case BENCH_REF_SPINLOCK:
		count = atomic_load32(&o->locked.count);
		locked = spin_is_locked(&o->locked.lock);
		break;
	case BENCH_REF_LOCKREF:
		count = lockref_count(&o->lr);
		locked = spin_is_locked(&o->lr.lock);
		break;
	case BENCH_REF_LOCKREF16:
		count = lockref16_count(&o->lr16);
		locked = spin_is_locked(&o->lr16.lock);
		break;
	}
	if (r->errors)
		ksnprintf(why, size, "%llu puts found the last reference and came back locked",
			  (unsigned long long)r->errors);
	else if (locked)
		ksnprintf(why, size, "the lock was left held");
	else if (count != want)
		ksnprintf(why, size, "count %lld after the trial, expected %lld: lost updates",
			  (long long)count, (long long)want);
	else if (warnings)
		ksnprintf(why, size, "%llu lockref misuse warnings", (unsigned long long)warnings);
	else
		return true;
	return false;
}

/* The BENCH line's extra fields: a lockref form's policy, a pv lock's counts, convoy settings. */
static void ref_extra(void *arg, char *buf, size_t size)
{
	struct bench_ref *r = arg;
	int n = 0;

	buf[0] = '\0';
	if (ref_is_lockref(r))
		n = ksnprintf(buf, size, ",\"policy\":\"%s\",\"attempts\":%u,\"wait\":%s",
			      r->policy->name, r->policy->retries,
			      r->policy->wait_unlocked ? "true" : "false");
	if (r->impl->kind == BENCH_REF_LOCKREF && n >= 0 && (size_t)n < size)
		n += ksnprintf(buf + n, size - (size_t)n, ",\"cas\":\"%s\"",
			       r->policy->cas == LOCKREF_CAS_CMPXCHGQ ? "cmpxchgq" : "cmpxchg8b");
	if (r->impl->kind == BENCH_REF_LOCKREF16 && n >= 0 && (size_t)n < size)
		n += ksnprintf(buf + n, size - (size_t)n, ",\"cx16\":%s",
			       platform_facts().cx16 ? "true" : "false");
	if (r->impl->pv && r->pv_trials && n >= 0 && (size_t)n < size)
		n += ksnprintf(buf + n, size - (size_t)n,
			       ",\"pv_sleeps\":%llu,\"pv_kicks\":%llu,\"pv_passes\":%llu,"
			       "\"pv_armed_trials\":%llu",
			       (unsigned long long)(r->pv_sum.sleeps / r->pv_trials),
			       (unsigned long long)(r->pv_sum.kicks / r->pv_trials),
			       (unsigned long long)(r->pv_sum.passes / r->pv_trials),
			       (unsigned long long)r->pv_sum.arms);
	/* The line ends this CPU count's run: the next one sums afresh. */
	r->pv_sum = (struct pv_stats){0};
	r->pv_trials = 0;
	if (r->convoy.every && n >= 0 && (size_t)n < size)
		ksnprintf(buf + n, size - (size_t)n,
			  ",\"hold_ns\":%llu,\"every_ns\":%llu,\"holds\":%llu",
			  (unsigned long long)bench_cycles_to_ns(r->convoy.hold),
			  (unsigned long long)bench_cycles_to_ns(r->convoy.every),
			  (unsigned long long)r->convoy.holds);
}

struct bench_spec bench_ref_spec(const char *bench, struct bench_ref *r)
{
	return (struct bench_spec){
	    .bench = bench,
	    .impl = r->name,
	    .op = "get+put",
	    .run = r->pairs,
	    .reset = ref_reset,
	    .check = ref_check,
	    .finish = ref_finish,
	    .extra = ref_extra,
	    .arg = r,
	    .lockref = ref_is_lockref(r),
	    /* A get and a put per operation: a pair, or one timed and one untimed. */
	    .lockref_calls = ref_is_lockref(r) ? 2 : 0,
	    /*
	     * The counter reads no switch; the bare locks and the fixed copies
	     * have theirs as constants, but a lockref policy with no lockless
	     * attempt takes the lock, whose public calls read the switch word
	     * where text is not patched.
	     */
	    .bare = r->impl->kind == BENCH_REF_XADD ||
		    (r->pairs != ref_loops[r->impl->kind].pairs &&
		     (r->impl->kind == BENCH_REF_SPINLOCK || r->policy->retries > 0)),
	};
}

/*
 * CPU 0, between its batches: hold the lock for convoy.hold cycles once
 * convoy.every cycles have passed since the last hold.  The hold sits
 * inside CPU 0's timed batch, so CPU 0's own figures include it.
 */
static void ref_convoy_hold(struct bench_ref *r)
{
	struct bench_ref_convoy *c = &r->convoy;
	spinlock_t *lock = ref_lock_of(r);
	uint64_t start = platform_cycles();

	if (start < c->next)
		return;
	spin_lock(lock);
	/* PAUSE while holding: the other CPUs meet a held lock, as behind a real critical section. */
	while (platform_cycles() - start < c->hold)
		platform_relax();
	spin_unlock(lock);
	c->holds++;
	c->next = platform_cycles() + c->every;
}

static void ref_convoy_run(void *arg, unsigned cpu, unsigned n)
{
	struct bench_ref *r = arg;

	if (cpu == 0)
		ref_convoy_hold(r);
	r->pairs(arg, cpu, n);
}

struct bench_spec bench_ref_convoy_spec(const char *bench, struct bench_ref *r)
{
	struct bench_spec spec = bench_ref_spec(bench, r);

	spec.run = ref_convoy_run;
	return spec;
}
