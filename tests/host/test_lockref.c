// SPDX-License-Identifier: MIT
/*
 * test_lockref.c - both lockref forms (lib/lockref.c, lib/lockref16.c) on
 * host threads, under every policy.
 *
 * Single-threaded: every call's contract at the boundaries (count 0, 1,
 * dead, saturated, lock held), the exact warnings misuse must raise, the
 * policy API, and the statistics each policy must produce.
 *
 * Multi-threaded, at 2, 4 and 8 threads for mainline, v7 and locked:
 *   stress  random gets and puts of every kind: the final count equals the
 *           sum of every thread's net change; a lock holder never sees the
 *           count move; put_or_lock returns with the lock held exactly when
 *           it returns false, and the caller is the one who unlocks.
 *   dead    threads take and drop references until one, holding the last,
 *           marks the lockref dead: no get ever succeeds after that.
 *   gen     (lockref16) a renamer bumps the generation under the lock while
 *           threads take references with get_if_gen only; the count the
 *           renamer reads at each bump must equal the successes with older
 *           generations, so no get_if_gen succeeded across a change.
 *
 * Built with -DLOCKREF_TEST_BUSTED, the multi-threaded tests run the busted
 * forms of kernel/test/lockref_form.h (a lockless path that ignores the
 * lock) and must FAIL: the negative control that proves these checks can
 * see a broken lockref.
 */
#include "lockref.h"
#include "lockref16.h"
#include "lockref_form.h"
#include "platform.h"
#include "platform_host.h"
#include "spinlock.h"
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* How long each multi-threaded configuration runs. */
#define STRESS_MS 25
/* Every thread completes at least this many operations, however slow the flavour. */
#define MIN_OPS_PER_THREAD 5
#define MAX_THREADS	   8
/* A thread holds at most this many references in the stress. */
#define HELD_MAX 16
/* Longest pause while holding the lock or a reference, in PAUSEs. */
#define PAUSES_MAX 64
/* Dead test: operations before a worker may kill, and get attempts after the kill. */
#define DEAD_EARLY_OPS 200
#define DEAD_ATTEMPTS  1000
/* The fewest and the most generation bumps one gen test makes. */
#define GEN_BUMPS_MIN 8
#define GEN_BUMPS_MAX 1024

static uint64_t expected_warnings;

/* Deliberate misuse: it must raise exactly one more warning. */
#define CHECK_WARNS(expr)                                                                          \
	do {                                                                                       \
		expr;                                                                              \
		expected_warnings++;                                                               \
		CHECK(lockref_warnings() == expected_warnings, "%s: warnings %llu, expected %llu", \
		      #expr, (unsigned long long)lockref_warnings(),                               \
		      (unsigned long long)expected_warnings);                                      \
	} while (0)

static const struct lockref_form *const forms[] = {&lockref_form8, &lockref_form16};
static const struct lockref_policy *const policies[] = {
    &lockref_policy_mainline,
    &lockref_policy_v7,
    &lockref_policy_locked,
};
static const unsigned thread_counts[] = {2, 4, MAX_THREADS};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The forms the threads run: the busted build gives them a lockless path that ignores the lock. */
#ifdef LOCKREF_TEST_BUSTED
static const struct lockref_form *const thread_forms[] = {&lockref_form8_busted,
							  &lockref_form16_busted};
#else
#define thread_forms forms
#endif

static void *new_ref(const struct lockref_form *f)
{
	void *ref = platform_alloc(f->size, f->align);

	if (!ref) {
		printf("out of memory\n");
		exit(2);
	}
	f->init(ref);
	return ref;
}

static void pause_for(unsigned pauses)
{
	for (unsigned i = 0; i < pauses; i++)
		platform_relax();
}

/* ---- single-threaded contracts ---- */

/* The life of one lockref through every call and boundary, under policy @p. */
static void test_contracts(const struct lockref_form *f, const struct lockref_policy *p)
{
	void *ref = new_ref(f);
	const spinlock_t *lk = f->lock_of(ref);
	struct lockref_stats st;

#define COUNT_IS(n)                                                                                \
	CHECK(f->count(ref) == (n), "%s/%s: count %lld, expected %lld", f->name, p->name,          \
	      (long long)f->count(ref), (long long)(n))

	COUNT_IS(1);
	CHECK(!f->is_dead(ref) && !spin_is_locked(lk), "%s/%s: fresh", f->name, p->name);

	/* Live counts: every operation moves the count by one. */
	f->get(ref, p);
	COUNT_IS(2);
	CHECK(f->get_not_zero(ref, p), "%s/%s", f->name, p->name);
	COUNT_IS(3);
	CHECK(f->get_not_dead(ref, p), "%s/%s", f->name, p->name);
	COUNT_IS(4);
	CHECK(f->put_not_zero(ref, p), "%s/%s", f->name, p->name);
	COUNT_IS(3);
	CHECK(f->put_return(ref, p) == (p->retries ? 2 : -1), "%s/%s", f->name, p->name);
	if (!p->retries) {
		/* The locked policy cannot put without the lock: do it the way a caller would. */
		f->lock(ref);
		CHECK(f->put_locked(ref) == 2, "%s/%s", f->name, p->name);
		f->unlock(ref);
	}
	COUNT_IS(2);
	CHECK(f->put_or_lock(ref, p), "%s/%s: 2 -> 1 needs no lock", f->name, p->name);
	COUNT_IS(1);
	CHECK(!spin_is_locked(lk), "%s/%s: put_or_lock true leaves it unlocked", f->name, p->name);

	/* Count 1: the conditional put refuses; put_or_lock hands over the lock. */
	CHECK(!f->put_not_zero(ref, p), "%s/%s: put_not_zero at 1", f->name, p->name);
	COUNT_IS(1);
	CHECK(!spin_is_locked(lk), "%s/%s: put_not_zero never holds the lock", f->name, p->name);
	CHECK(!f->put_or_lock(ref, p), "%s/%s: put_or_lock at 1", f->name, p->name);
	CHECK(spin_is_locked(lk) && spin_is_held(lk), "%s/%s: false means locked", f->name,
	      p->name);
	COUNT_IS(1);
	CHECK(f->put_locked(ref) == 0, "%s/%s", f->name, p->name);
	f->unlock(ref);
	CHECK(!spin_is_locked(lk), "%s/%s", f->name, p->name);

	/* Count 0: alive but unreferenced. */
	CHECK(!f->get_not_zero(ref, p), "%s/%s: get_not_zero at 0", f->name, p->name);
	CHECK(!f->put_not_zero(ref, p), "%s/%s: put_not_zero at 0", f->name, p->name);
	CHECK(f->put_return(ref, p) == -1, "%s/%s: put_return at 0", f->name, p->name);
	COUNT_IS(0);
	CHECK(!f->put_or_lock(ref, p) && spin_is_held(lk), "%s/%s: put_or_lock at 0", f->name,
	      p->name);
	CHECK_WARNS(f->put_locked(ref));
	COUNT_IS(0);
	f->unlock(ref);
	CHECK(f->get_not_dead(ref, p), "%s/%s: get_not_dead at 0", f->name, p->name);
	COUNT_IS(1);
	if (p->retries)
		CHECK(f->put_return(ref, p) == 0, "%s/%s: put_return 1 -> 0", f->name, p->name);
	else
		CHECK(f->put_return(ref, p) == -1, "%s/%s: locked put_return", f->name, p->name);
	COUNT_IS(p->retries ? 0 : 1);
	if (!p->retries) {
		f->lock(ref);
		f->put_locked(ref);
		f->unlock(ref);
	}
	f->get(ref, p);
	COUNT_IS(1);

	/* Lock held: the count obeys the holder; put_return never waits for the lock. */
	f->lock(ref);
	CHECK(f->get_locked(ref) == 2, "%s/%s", f->name, p->name);
	CHECK(f->put_return(ref, p) == -1, "%s/%s: put_return with the lock held", f->name,
	      p->name);
	CHECK(f->put_locked(ref) == 1, "%s/%s", f->name, p->name);
	f->unlock(ref);
	COUNT_IS(1);

	/* Misuse without the lock: warned about, refused. */
	CHECK_WARNS(f->get_locked(ref));
	CHECK_WARNS(f->put_locked(ref));
	CHECK_WARNS(f->mark_dead(ref));
	COUNT_IS(1);
	CHECK(!f->is_dead(ref), "%s/%s: mark_dead without the lock must not kill", f->name,
	      p->name);

	/* Dead: every get fails or warns, nothing revives it. */
	f->lock(ref);
	f->mark_dead(ref);
	CHECK(f->is_dead(ref), "%s/%s", f->name, p->name);
	f->unlock(ref);
	COUNT_IS(LOCKREF_DEAD);
	CHECK(!f->get_not_zero(ref, p), "%s/%s: get_not_zero on dead", f->name, p->name);
	CHECK(!f->get_not_dead(ref, p), "%s/%s: get_not_dead on dead", f->name, p->name);
	CHECK(!f->put_not_zero(ref, p), "%s/%s: put_not_zero on dead", f->name, p->name);
	CHECK(f->put_return(ref, p) == -1, "%s/%s: put_return on dead", f->name, p->name);
	CHECK_WARNS(f->get(ref, p));
	CHECK(!f->put_or_lock(ref, p) && spin_is_held(lk), "%s/%s: put_or_lock on dead", f->name,
	      p->name);
	CHECK_WARNS(f->get_locked(ref));
	CHECK_WARNS(f->put_locked(ref));
	f->unlock(ref);
	COUNT_IS(LOCKREF_DEAD);
	CHECK(!spin_is_locked(lk), "%s/%s", f->name, p->name);

	/* Statistics: one uncontended get is one lockless op, or one fallback if locked. */
	f->init(ref);
	lockref_stats_reset();
	f->get(ref, p);
	lockref_stats_sum(&st);
	CHECK(st.lockless == (p->retries ? 1u : 0u) && st.fallbacks == (p->retries ? 0u : 1u) &&
		  st.retries == 0,
	      "%s/%s: stats after one get: lockless %llu fallbacks %llu retries %llu", f->name,
	      p->name, (unsigned long long)st.lockless, (unsigned long long)st.fallbacks,
	      (unsigned long long)st.retries);
	lockref_stats_cpu(platform_cpu_id(), &st);
	CHECK(st.lockless + st.fallbacks == 1, "%s/%s: counted on this cpu's slot", f->name,
	      p->name);
#undef COUNT_IS
	platform_free(ref, f->size);
}

/* The 8-byte form saturates at LOCKREF_COUNT_MAX and stays pinned there. */
static void test_saturation(const struct lockref_policy *p)
{
	struct lockref ref;

	lockref_init(&ref);
	ref.count = LOCKREF_COUNT_MAX - 1;
	lockref_get_p(&ref, p);
	CHECK(lockref_count(&ref) == LOCKREF_COUNT_MAX, "%s: reaches the maximum", p->name);
	CHECK(lockref_warnings() == expected_warnings, "%s: reaching it is no misuse", p->name);
	CHECK_WARNS(lockref_get_p(&ref, p));
	CHECK_WARNS(CHECK(lockref_get_not_zero_p(&ref, p), "%s", p->name));
	CHECK_WARNS(CHECK(lockref_get_not_dead_p(&ref, p), "%s", p->name));
	CHECK(lockref_put_not_zero_p(&ref, p), "%s: a pinned count accepts puts", p->name);
	CHECK(lockref_put_or_lock_p(&ref, p), "%s", p->name);
	CHECK(lockref_put_return_p(&ref, p) == (p->retries ? LOCKREF_COUNT_MAX : -1), "%s",
	      p->name);
	lockref_lock(&ref);
	CHECK_WARNS(lockref_get_locked(&ref));
	CHECK(lockref_put_locked(&ref) == LOCKREF_COUNT_MAX, "%s: pinned under the lock too",
	      p->name);
	lockref_unlock(&ref);
	CHECK(lockref_count(&ref) == LOCKREF_COUNT_MAX && !lockref_is_dead(&ref),
	      "%s: still saturated: %d", p->name, lockref_count(&ref));
}

/* The 16-byte form's generation and its 64-bit count. */
static void test_generation(const struct lockref_policy *p)
{
	struct lockref16 ref;

	lockref16_init(&ref);
	CHECK(lockref16_gen(&ref) == 0, "%s: generation starts at 0", p->name);
	CHECK_WARNS(lockref16_bump_gen(&ref));
	CHECK(lockref16_gen(&ref) == 0, "%s: no bump without the lock", p->name);
	lockref16_lock(&ref);
	CHECK(lockref16_bump_gen(&ref) == 1, "%s", p->name);
	lockref16_unlock(&ref);
	CHECK(!lockref16_get_if_gen_p(&ref, 0, p), "%s: old generation refused", p->name);
	CHECK(lockref16_count(&ref) == 1, "%s: a refusal changes nothing", p->name);
	CHECK(lockref16_get_if_gen_p(&ref, 1, p), "%s: current generation accepted", p->name);
	CHECK(lockref16_count(&ref) == 2, "%s", p->name);

	/* Past 32 bits: the count does not saturate. */
	ref.count = (int64_t)UINT32_MAX;
	lockref16_get_p(&ref, p);
	CHECK(lockref16_count(&ref) == (int64_t)UINT32_MAX + 1, "%s: 64-bit count", p->name);

	/*
	 * Saturated (unreachable by counting, set here): the generation still
	 * decides, on the locked path too (which once accepted any generation).
	 */
	ref.count = INT64_MAX;
	CHECK(!lockref16_get_if_gen_p(&ref, 0, p), "%s: saturated, old generation refused",
	      p->name);
	CHECK_WARNS(CHECK(lockref16_get_if_gen_p(&ref, 1, p),
			  "%s: saturated, current generation accepted", p->name));
	CHECK(lockref16_count(&ref) == INT64_MAX, "%s: stays saturated", p->name);
	ref.count = 1;

	lockref16_lock(&ref);
	lockref16_mark_dead(&ref);
	lockref16_unlock(&ref);
	CHECK(!lockref16_get_if_gen_p(&ref, 1, p), "%s: dead refuses any generation", p->name);
	CHECK(lockref16_count(&ref) == LOCKREF16_DEAD, "%s", p->name);
}

/*
 * put_return never takes the lock, so when it gives up it is counted as
 * abandoned, never as a fallback; a refusal decided from the snapshot
 * (count 0) finished without the lock: lockless.
 */
static void test_put_return_stats(const struct lockref_form *f, const struct lockref_policy *p)
{
	void *ref = new_ref(f);
	struct lockref_stats st;

#define STATS_ARE(ll, fb, ab)                                                                      \
	do {                                                                                       \
		lockref_stats_sum(&st);                                                            \
		CHECK(st.lockless == (ll) && st.fallbacks == (fb) && st.abandoned == (ab),         \
		      "%s/%s: lockless %llu fallbacks %llu abandoned %llu", f->name, p->name,      \
		      (unsigned long long)st.lockless, (unsigned long long)st.fallbacks,           \
		      (unsigned long long)st.abandoned);                                           \
	} while (0)

	f->get(ref, p);
	f->lock(ref);
	lockref_stats_reset();
	CHECK(f->put_return(ref, p) == -1, "%s/%s: put_return with the lock held", f->name,
	      p->name);
	STATS_ARE(0, 0, 1);
	f->put_locked(ref);
	f->put_locked(ref);
	f->unlock(ref);
	lockref_stats_reset();
	CHECK(f->put_return(ref, p) == -1, "%s/%s: put_return at 0", f->name, p->name);
	if (p->retries)
		STATS_ARE(1, 0, 0);
	else
		STATS_ARE(0, 0, 1);
#undef STATS_ARE
	platform_free(ref, f->size);
}

/* The holder of the holder test: takes the lock, says so, waits to be told to let go. */
struct holder {
	const struct lockref_form *f;
	void *ref;
	int state; /* 1: holding; 2: may unlock */
};

static void *holder_thread(void *arg)
{
	struct holder *h = arg;

	host_set_cpu_id(1);
	h->f->lock(h->ref);
	__atomic_store_n(&h->state, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != 2)
		platform_relax();
	h->f->unlock(h->ref);
	return NULL;
}

/*
 * While another thread holds the lock, this one (which does not) must be
 * refused every "caller holds the lock" call: a kill, a generation bump, a
 * locked get or put.  Each warns and changes nothing.
 */
static void test_non_holder_refused(const struct lockref_form *f)
{
	struct holder h = {.f = f, .ref = new_ref(f)};
	pthread_t tid;

	pthread_create(&tid, NULL, holder_thread, &h);
	while (__atomic_load_n(&h.state, __ATOMIC_ACQUIRE) != 1)
		platform_relax();
	CHECK(spin_is_locked(f->lock_of(h.ref)), "%s: the holder holds it", f->name);
	CHECK_WARNS(f->mark_dead(h.ref));
	CHECK_WARNS(f->get_locked(h.ref));
	CHECK_WARNS(f->put_locked(h.ref));
	CHECK(f->count(h.ref) == 1 && !f->is_dead(h.ref),
	      "%s: a non-holder changed the count under the holder: %lld", f->name,
	      (long long)f->count(h.ref));
	if (f->size == sizeof(struct lockref16)) {
		CHECK_WARNS(lockref16_bump_gen(h.ref));
		CHECK(lockref16_gen(h.ref) == 0, "%s: a non-holder bumped the generation", f->name);
	}
	__atomic_store_n(&h.state, 2, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);
	platform_free(h.ref, f->size);
}

/* Without CMPXCHG16B every lockref16 operation takes the lock. */
static void test_no_cx16(void)
{
	struct lockref16 ref;
	struct lockref_stats st;

	lockref16_set_cx16(false);
	lockref16_init(&ref);
	lockref_stats_reset();
	lockref16_get(&ref);
	CHECK(lockref16_get_if_gen(&ref, 0), "no cx16: get_if_gen still works");
	CHECK(lockref16_put_or_lock(&ref), "no cx16: put_or_lock 3 -> 2");
	CHECK(lockref16_put_return(&ref) == -1, "no cx16: put_return is lockless only");
	lockref_stats_sum(&st);
	CHECK(st.lockless == 0 && st.fallbacks == 3 && st.abandoned == 1,
	      "no cx16: lockless %llu fallbacks %llu abandoned %llu",
	      (unsigned long long)st.lockless, (unsigned long long)st.fallbacks,
	      (unsigned long long)st.abandoned);
	CHECK(lockref16_count(&ref) == 2, "no cx16: count %lld", (long long)lockref16_count(&ref));
	lockref16_set_cx16(true);
}

static void test_policy_api(void)
{
	struct lockref_policy p = {.name = "untouched"};
	struct lockref_policy greedy = lockref_policy_mainline;

	CHECK(lockref_get_policy()->retries == 100 && !lockref_get_policy()->wait_unlocked,
	      "the default policy is mainline");
	CHECK(lockref_policy_by_name("v7", &p) && p.retries == 4 && p.wait_unlocked &&
		  p.cas == LOCKREF_CAS_CMPXCHG8B,
	      "v7 preset");
	CHECK(lockref_policy_by_name("locked", &p) && p.retries == 0, "locked preset");
	CHECK(lockref_policy_by_name("mainline", &p) && p.retries == 100 && !p.wait_unlocked,
	      "mainline preset");
	p.name = "untouched";
	CHECK(!lockref_policy_by_name("busted", &p), "no broken policy is reachable by name");
	CHECK(!lockref_policy_by_name("mainlinex", &p) && !lockref_policy_by_name("", &p) &&
		  !lockref_policy_by_name("main", &p),
	      "unknown names are refused");
	CHECK(p.name[0] == 'u', "a refused name leaves *out alone");

	greedy.retries = LOCKREF_RETRIES_MAX + 1;
	CHECK(!lockref_set_policy(&greedy), "more than LOCKREF_RETRIES_MAX attempts is refused");
	CHECK(lockref_get_policy()->retries == 100, "the old policy stays");
	CHECK(lockref_set_policy(&lockref_policy_v7), "v7 accepted");
	CHECK(lockref_get_policy()->wait_unlocked, "now v7");
	CHECK(lockref_set_policy(&lockref_policy_mainline), "back to mainline");
}

/* The plain calls use the boot policy: with "locked" nothing is lockless. */
static void test_plain_calls_follow_policy(void)
{
	struct lockref ref;
	struct lockref16 ref16;
	struct lockref_stats st;

	/* Overrides that match no preset: the plain calls follow the general body. */
	static const struct lockref_policy few = {.name = "retries=8", .retries = 8};
	static const struct lockref_policy none = {.name = "retries=0,wait", .wait_unlocked = true};
	static const struct lockref_policy *const boot[] = {
	    &lockref_policy_mainline, &lockref_policy_v7, &lockref_policy_locked, &few, &none,
	};

	lockref_init(&ref);
	lockref16_init(&ref16);
	for (unsigned i = 0; i < ARRAY_LEN(boot); i++) {
		lockref_set_policy(boot[i]);
		lockref_stats_reset();
		lockref_get(&ref);
		CHECK(lockref_get_not_zero(&ref) && lockref_get_not_dead(&ref) &&
			  lockref_put_not_zero(&ref) && lockref_put_or_lock(&ref),
		      "%s: plain calls", boot[i]->name);
		lockref16_get(&ref16);
		CHECK(lockref16_get_not_zero(&ref16) && lockref16_get_not_dead(&ref16) &&
			  lockref16_put_not_zero(&ref16) && lockref16_put_or_lock(&ref16),
		      "%s: plain calls (16)", boot[i]->name);
		lockref_stats_sum(&st);
		CHECK(boot[i]->retries ? st.lockless == 10 : st.fallbacks == 10,
		      "%s: plain calls did not use the boot policy", boot[i]->name);
		if (boot[i]->retries) {
			CHECK(lockref_put_return(&ref) == 1 && lockref16_put_return(&ref16) == 1,
			      "%s: plain put_return", boot[i]->name);
		} else {
			CHECK(lockref_put_return(&ref) == -1 && lockref16_put_return(&ref16) == -1,
			      "%s: plain put_return", boot[i]->name);
			ref.count = 1;
			ref16.count = 1;
		}
	}
	lockref_set_policy(&lockref_policy_mainline);
}

/* ---- multi-threaded ---- */

struct run {
	const struct lockref_form *f;
	const struct lockref_policy *p;
	void *ref;
	unsigned threads;
	int stop;
	int dead;		  /* dead test: set once the lockref was marked dead */
	unsigned drained;	  /* dead test: workers that stopped taking references */
	unsigned long violations; /* atomically incremented */
	pthread_barrier_t start;
	/* gen test: successes per thread and generation, and the count at each bump */
	uint64_t (*gen_successes)[GEN_BUMPS_MAX + 1];
	int64_t count_at_bump[GEN_BUMPS_MAX + 1];
	unsigned bumps;
};

struct worker {
	struct run *r;
	unsigned id;
	unsigned seed;
	unsigned long ops;
	int64_t held; /* references this thread holds: its net change */
};

static void violation(struct worker *w, const char *what, long long a, long long b)
{
	unsigned long n = __atomic_fetch_add(&w->r->violations, 1, __ATOMIC_RELAXED);

	if (n < 5)
		printf("# %s/%s/%u threads, thread %u: %s (%lld, %lld)\n", w->r->f->name,
		       w->r->p->name, w->r->threads, w->id, what, a, b);
}

/*
 * The policy argument for one call: the run's policy, or NULL for the plain
 * call, which follows the same policy because the run made it the boot one.
 */
static const struct lockref_policy *policy_arg(const struct run *r, unsigned pick)
{
	return (pick >> 8) & 1 ? r->p : NULL;
}

static bool should_stop(struct worker *w)
{
	return __atomic_load_n(&w->r->stop, __ATOMIC_RELAXED) && w->ops >= MIN_OPS_PER_THREAD;
}

/* Take a reference some way; the count is never dead here. */
static void stress_get(struct worker *w, unsigned pick)
{
	const struct lockref_form *f = w->r->f;
	void *ref = w->r->ref;

	switch (pick % 3) {
	case 0:
		f->get(ref, policy_arg(w->r, pick));
		w->held++;
		break;
	case 1:
		if (f->get_not_zero(ref, policy_arg(w->r, pick)))
			w->held++;
		else if (w->held > 0)
			violation(w, "get_not_zero failed while we hold references", w->held, 0);
		break;
	case 2:
		if (f->get_not_dead(ref, policy_arg(w->r, pick)))
			w->held++;
		else
			violation(w, "get_not_dead failed on a live lockref", 0, 0);
		break;
	}
}

/* Drop one of our references some way. */
static void stress_put(struct worker *w, unsigned pick)
{
	const struct lockref_form *f = w->r->f;
	void *ref = w->r->ref;
	int64_t v;

	switch (pick % 3) {
	case 0:
		if (f->put_not_zero(ref, policy_arg(w->r, pick)))
			w->held--;
		else if (w->held > 1)
			violation(w, "put_not_zero refused though we hold several", w->held, 0);
		break;
	case 1:
		v = f->put_return(ref, policy_arg(w->r, pick));
		if (v >= 0) {
			w->held--;
			if (v < w->held)
				violation(w, "put_return below our own references", v, w->held);
			break;
		}
		f->lock(ref);
		f->put_locked(ref);
		f->unlock(ref);
		w->held--;
		break;
	case 2:
		if (f->put_or_lock(ref, policy_arg(w->r, pick))) {
			w->held--;
#ifdef SPINLOCK_DEBUG
			/* Only the debug build knows who holds a lock. */
			if (spin_is_held(f->lock_of(ref)))
				violation(w, "put_or_lock true but we hold the lock", 0, 0);
#endif
			break;
		}
		/* false: we must hold the lock, and the count is our last reference. */
		if (!spin_is_locked(f->lock_of(ref)) || !spin_is_held(f->lock_of(ref)))
			violation(w, "put_or_lock false without the lock held", 0, 0);
		v = f->count(ref);
		if (v != 1 || w->held != 1)
			violation(w, "put_or_lock false but not the last reference", v, w->held);
		f->put_locked(ref);
		f->unlock(ref);
		w->held--;
		break;
	}
}

/* Hold the lock a random while: the count must stand still, and locked updates must stick. */
static void stress_hold(struct worker *w, unsigned pick)
{
	const struct lockref_form *f = w->r->f;
	void *ref = w->r->ref;
	int64_t before, after;

	f->lock(ref);
	before = f->count(ref);
	pause_for(pick % PAUSES_MAX);
	after = f->count(ref);
	if (after != before)
		violation(w, "count changed under the lock", before, after);
	if (f->get_locked(ref) != before + 1 || f->put_locked(ref) != before)
		violation(w, "locked get/put did not stick", before, f->count(ref));
	if (f->size == sizeof(struct lockref16))
		lockref16_bump_gen(ref);
	f->unlock(ref);
}

static void *stress_worker(void *arg)
{
	struct worker *w = arg;

	host_set_cpu_id(w->id);
	pthread_barrier_wait(&w->r->start);
	while (!should_stop(w)) {
		unsigned r = (unsigned)rand_r(&w->seed);
		unsigned kind = r % 100, pick = r / 100;

		if (w->held == 0 || (w->held < HELD_MAX && kind < 45))
			stress_get(w, pick);
		else if (kind < 90)
			stress_put(w, pick);
		else
			stress_hold(w, pick);
		w->ops++;
	}
	return NULL;
}

/*
 * Dead test: take a reference, hold it a moment, drop it.  Whoever drops the
 * last reference after its first few hundred operations kills the lockref;
 * if nobody did by the deadline, every thread stops taking references and
 * the main thread kills it once they all have dropped theirs.  After the
 * kill is announced, every get must fail.
 */
static void *dead_worker(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	const struct lockref_form *f = r->f;
	unsigned pick;

	host_set_cpu_id(w->id);
	pthread_barrier_wait(&r->start);
	while (!should_stop(w) && !__atomic_load_n(&r->dead, __ATOMIC_ACQUIRE)) {
		bool announced = __atomic_load_n(&r->dead, __ATOMIC_ACQUIRE);
		bool got;

		pick = (unsigned)rand_r(&w->seed);
		got = pick % 2 ? f->get_not_dead(r->ref, policy_arg(r, pick))
			       : f->get_not_zero(r->ref, policy_arg(r, pick));
		w->ops++;
		if (announced && got)
			violation(w, "a dead lockref was revived", f->count(r->ref), 0);
		if (!got) {
			if (!f->is_dead(r->ref) && pick % 2)
				violation(w, "get_not_dead failed on a live lockref", 0, 0);
			continue;
		}
		pause_for(pick % PAUSES_MAX);
		if (f->put_or_lock(r->ref, policy_arg(r, pick)))
			continue;
		if (f->count(r->ref) != 1)
			violation(w, "last reference but count is", f->count(r->ref), 1);
		f->put_locked(r->ref);
		if (w->ops > DEAD_EARLY_OPS) {
			f->mark_dead(r->ref);
			__atomic_store_n(&r->dead, 1, __ATOMIC_RELEASE);
		}
		f->unlock(r->ref);
	}
	__atomic_fetch_add(&r->drained, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->dead, __ATOMIC_ACQUIRE))
		platform_relax();
	for (unsigned i = 0; i < DEAD_ATTEMPTS; i++) {
		pick = (unsigned)rand_r(&w->seed);
		if (pick % 2 ? f->get_not_dead(r->ref, policy_arg(r, pick))
			     : f->get_not_zero(r->ref, policy_arg(r, pick)))
			violation(w, "a dead lockref was revived", f->count(r->ref), 0);
	}
	return NULL;
}

/* The main thread's part of the dead test, once every worker has drained. */
static void dead_kill(struct run *r)
{
	const struct lockref_form *f = r->f;

	while (__atomic_load_n(&r->drained, __ATOMIC_ACQUIRE) < r->threads)
		platform_relax();
	if (__atomic_load_n(&r->dead, __ATOMIC_ACQUIRE))
		return;
	f->lock(r->ref);
	CHECK(f->count(r->ref) == 0,
	      "%s/%s/%u: count %lld after every thread dropped its "
	      "references",
	      f->name, r->p->name, r->threads, (long long)f->count(r->ref));
	f->mark_dead(r->ref);
	__atomic_store_n(&r->dead, 1, __ATOMIC_RELEASE);
	f->unlock(r->ref);
}

/* Gen test: references only through get_if_gen, with the current or a stale generation. */
static void *gen_worker(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;

	host_set_cpu_id(w->id);
	pthread_barrier_wait(&r->start);
	while (!should_stop(w)) {
		unsigned pick = (unsigned)rand_r(&w->seed);
		uint32_t gen = lockref16_gen(r->ref);

		if (pick % 4 == 0 && gen > 0)
			gen--;
		pause_for(pick % 8);
		if (policy_arg(r, pick) ? lockref16_get_if_gen_p(r->ref, gen, r->p)
					: lockref16_get_if_gen(r->ref, gen)) {
			if (gen > GEN_BUMPS_MAX)
				violation(w, "generation out of range", gen, GEN_BUMPS_MAX);
			else
				r->gen_successes[w->id - 1][gen]++;
		}
		w->ops++;
	}
	return NULL;
}

/* The renamer of the gen test (the main thread): bump under the lock, noting the count. */
static void gen_renamer(struct run *r, uint64_t deadline)
{
	struct lockref16 *ref = r->ref;

	while (r->bumps < GEN_BUMPS_MIN ||
	       (r->bumps < GEN_BUMPS_MAX && platform_now_ns() < deadline)) {
		lockref16_lock(ref);
		r->count_at_bump[r->bumps + 1] = lockref16_count(ref);
		lockref16_bump_gen(ref);
		lockref16_unlock(ref);
		r->bumps++;
		pause_for(PAUSES_MAX);
	}
}

enum test_kind { TEST_STRESS, TEST_DEAD, TEST_GEN };

/*
 * One threaded run of @kind on @f under @p; returns how many operations went
 * lockless.  Whether any did is judged over all of a policy's runs (main):
 * under the mainline policy a contended lock forms a convoy (every lockless
 * try sees the lock held and takes it too), and with more threads than
 * cores, under TSan, one 25 ms run can be convoy from start to end.
 */
static uint64_t run_threads(const struct lockref_form *f, const struct lockref_policy *p,
			    unsigned threads, enum test_kind kind)
{
	static const char *const kind_names[] = {"stress", "dead", "gen"};
	void *(*const bodies[])(void *) = {stress_worker, dead_worker, gen_worker};
	struct run *r = calloc(1, sizeof(*r));
	struct worker w[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	unsigned long ops = 0;
	int64_t held = 0;
	uint64_t warnings_before = lockref_warnings();
	struct lockref_stats st;
	bool stats_ok = true;
	uint64_t t0 = platform_now_ns();

	r->f = f;
	r->p = p;
	r->threads = threads;
	r->ref = new_ref(f);
	r->gen_successes = calloc(threads, sizeof(*r->gen_successes));
	/* Start from count 0, so the last-reference paths run too. */
	f->lock(r->ref);
	f->put_locked(r->ref);
	f->unlock(r->ref);

	pthread_barrier_init(&r->start, NULL, threads + 1);
	host_set_cpu_count(threads + 1);
	/* "At boot", before the threads start: the plain calls follow the run's policy. */
	CHECK(lockref_set_policy(p), "%s: refused as boot policy", p->name);
	lockref_stats_reset();
	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct worker){.r = r, .id = i + 1, .seed = i * 7919u + threads};
		pthread_create(&tid[i], NULL, bodies[kind], &w[i]);
	}
	pthread_barrier_wait(&r->start);
	if (kind == TEST_GEN) {
		gen_renamer(r, platform_now_ns() + STRESS_MS * 1000000ull);
	} else {
		struct timespec d = {0, STRESS_MS * 1000000L};

		nanosleep(&d, NULL);
	}
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
	if (kind == TEST_DEAD)
		dead_kill(r);
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		ops += w[i].ops;
		held += w[i].held;
		lockref_stats_cpu(w[i].id, &st);
		if (st.lockless + st.fallbacks == 0)
			stats_ok = false;
	}
	pthread_barrier_destroy(&r->start);
	lockref_stats_sum(&st);

	printf("# %-9s %-8s %-6s %u threads: %4llu ms %7lu ops, lockless %llu, retries %llu, "
	       "fallbacks %llu\n",
	       f->name, p->name, kind_names[kind], threads,
	       (unsigned long long)((platform_now_ns() - t0) / 1000000), ops,
	       (unsigned long long)st.lockless, (unsigned long long)st.retries,
	       (unsigned long long)st.fallbacks);
	CHECK(r->violations == 0, "%s/%s/%s/%u: %lu violations", f->name, p->name, kind_names[kind],
	      threads, r->violations);
	CHECK(!spin_is_locked(f->lock_of(r->ref)), "%s/%s/%s/%u: lock left held", f->name, p->name,
	      kind_names[kind], threads);
	CHECK(lockref_warnings() == warnings_before, "%s/%s/%s/%u: %llu warnings", f->name, p->name,
	      kind_names[kind], threads,
	      (unsigned long long)(lockref_warnings() - warnings_before));
	CHECK(stats_ok, "%s/%s/%s/%u: a thread's cpu slot counted nothing", f->name, p->name,
	      kind_names[kind], threads);
	CHECK(p->retries || st.lockless == 0, "%s/%s/%s/%u: locked policy went lockless", f->name,
	      p->name, kind_names[kind], threads);

	if (kind == TEST_STRESS) {
		CHECK(f->count(r->ref) == held,
		      "%s/%s/%u: final count %lld, threads hold %lld (not conserved)", f->name,
		      p->name, threads, (long long)f->count(r->ref), (long long)held);
	} else if (kind == TEST_DEAD) {
		CHECK(f->count(r->ref) == LOCKREF_DEAD, "%s/%s/%u: final count %lld, not dead",
		      f->name, p->name, threads, (long long)f->count(r->ref));
	} else {
		uint64_t before = 0;

		/* Bump k happened under the lock: the count then is every success with gen < k. */
		for (unsigned k = 1; k <= r->bumps; k++) {
			for (unsigned t = 0; t < threads; t++)
				before += r->gen_successes[t][k - 1];
			if ((uint64_t)r->count_at_bump[k] != before) {
				CHECK(0,
				      "%s/%u: at bump %u the count was %lld, but %llu gets "
				      "succeeded with older generations",
				      p->name, threads, k, (long long)r->count_at_bump[k],
				      (unsigned long long)before);
				break;
			}
		}
		for (unsigned t = 0; t < threads; t++)
			before += r->gen_successes[t][r->bumps];
		CHECK((uint64_t)f->count(r->ref) == before,
		      "%s/%u: final count %lld, successes %llu", p->name, threads,
		      (long long)f->count(r->ref), (unsigned long long)before);
		CHECK(r->bumps >= GEN_BUMPS_MIN, "%s/%u: only %u bumps", p->name, threads,
		      r->bumps);
	}
	lockref_set_policy(&lockref_policy_mainline);
	free(r->gen_successes);
	platform_free(r->ref, f->size);
	free(r);
	return st.lockless;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	host_set_cpu_id(0);
	lockref16_set_cx16(true);
	/* The checks below count every operation, the first attempt's successes too. */
	lockref_stats_count_all();

	test_policy_api();
	for (unsigned fi = 0; fi < ARRAY_LEN(forms); fi++)
		for (unsigned pi = 0; pi < ARRAY_LEN(policies); pi++)
			test_contracts(forms[fi], policies[pi]);
	for (unsigned pi = 0; pi < ARRAY_LEN(policies); pi++) {
		test_saturation(policies[pi]);
		test_generation(policies[pi]);
	}
	test_no_cx16();
	test_plain_calls_follow_policy();
	for (unsigned fi = 0; fi < ARRAY_LEN(forms); fi++) {
		for (unsigned pi = 0; pi < ARRAY_LEN(policies); pi++)
			test_put_return_stats(forms[fi], policies[pi]);
		test_non_holder_refused(forms[fi]);
	}
	CHECK(lockref_warnings() == expected_warnings, "warnings %llu, expected %llu",
	      (unsigned long long)lockref_warnings(), (unsigned long long)expected_warnings);

	for (unsigned pi = 0; pi < ARRAY_LEN(policies); pi++) {
		uint64_t lockless = 0;

		for (unsigned ti = 0; ti < ARRAY_LEN(thread_counts); ti++) {
			for (unsigned fi = 0; fi < ARRAY_LEN(forms); fi++) {
				lockless += run_threads(thread_forms[fi], policies[pi],
							thread_counts[ti], TEST_STRESS);
				lockless += run_threads(thread_forms[fi], policies[pi],
							thread_counts[ti], TEST_DEAD);
			}
			lockless +=
			    run_threads(&lockref_form16, policies[pi], thread_counts[ti], TEST_GEN);
		}
		CHECK(!policies[pi]->retries || lockless > 0, "%s: nothing lockless in any run",
		      policies[pi]->name);
	}
	return check_exit("test_lockref");
}
