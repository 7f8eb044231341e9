// SPDX-License-Identifier: MIT
/*
 * test_lockref_bench.c - what one uncontended lockref operation costs on the
 * host, next to the alternatives, in TSC cycles per get+put pair, and the
 * ratios the lean fast path is judged by, all from one run.
 *
 * The questions it answers:
 *   - do the plain calls (which follow the boot policy, lockref.cas= among
 *     it) pay for that choice?  To compare, it includes lib/lockref.c
 *     itself, to reach the static inline core, and builds the same
 *     operations with the policy and instruction fixed at compile time
 *     ("hard-coded");
 *   - how close is a plain get+put to its limit, the textbook
 *     load+compare-exchange increment and decrement (bench/cas_loop.c, one
 *     call each), for CMPXCHG8B and for CMPXCHGQ; to the two raw chained
 *     compare-exchanges (no load, no call: shown, not a goal); to the
 *     ticket lock's lock+inc+unlock twice; and the 16-byte form to the
 *     8-byte one?
 * Every variant is called through a non-inlined function so each pays the
 * same call cost.  Trials of all variants interleave, so a burst of load
 * from other processes hits them all alike, and each figure is the median
 * over the trials (the minimum beside it).
 *
 * Timing is reported, never judged (a loaded host makes any threshold
 * flaky); what is checked is that every variant did its job: the counts
 * come back to where they started and the lockless paths were taken.
 */
#include "lockref.c"

#include "cas_loop.h"
#include "check.h"
#include "lockref16.h"
#include "platform_host.h"

#include <stdio.h>
#include <stdlib.h>

/* Pairs per trial, and trials per variant. */
#define PAIRS  4000
#define TRIALS 301

/* The goals of the lean fast path (ratios of medians within this run), as bench_report.py's. */
#define GOAL_VS_CAS_LOOP 1.10
#define GOAL_VS_TICKET	 1.10
#define GOAL_16_VS_8	 1.15

static const struct lockref_policy mainline_q = {
    .name = "mainline-q", .retries = 100, .cas = LOCKREF_CAS_CMPXCHGQ};

static struct lockref ref;
static struct lockref16 ref16;
static spinlock_t lock = SPINLOCK_INIT;
static int32_t locked_count;
static uint64_t counter;
static uint64_t word;
/* put_return calls that said -1 (the put needed the lock): none may, uncontended. */
static uint64_t puts_refused;
static uint64_t loop_word;

static __attribute__((noinline)) void pair_plain(void)
{
	lockref_get(&ref);
	if (lockref_put_return(&ref) < 0)
		puts_refused++;
}

/* The hard-coded operations, out of line like the plain ones so both pay one call each. */
static __attribute__((noipa)) void fixed_get_8b(struct lockref *r)
{
	form_do(r, LOCKREF_GET, 0, &lockref_policy_mainline, LOCKREF_MODE_CMPXCHG8B,
		LOCKREF_COPY_LIVE);
}

static __attribute__((noipa)) int fixed_put_return_8b(struct lockref *r)
{
	return (int)form_do(r, LOCKREF_PUT_RETURN, 0, &lockref_policy_mainline,
			    LOCKREF_MODE_CMPXCHG8B, LOCKREF_COPY_LIVE);
}

static __attribute__((noipa)) void fixed_get_q(struct lockref *r)
{
	form_do(r, LOCKREF_GET, 0, &mainline_q, LOCKREF_MODE_CMPXCHGQ, LOCKREF_COPY_LIVE);
}

static __attribute__((noipa)) int fixed_put_return_q(struct lockref *r)
{
	return (int)form_do(r, LOCKREF_PUT_RETURN, 0, &mainline_q, LOCKREF_MODE_CMPXCHGQ,
			    LOCKREF_COPY_LIVE);
}

/* A timed pair: @get then @put on @obj, out of line like every other variant. */
#define DEFINE_PAIR(name, get, put, obj)                                                           \
	static __attribute__((noinline)) void name(void)                                           \
	{                                                                                          \
		get(&obj);                                                                         \
		put(&obj);                                                                         \
	}

DEFINE_PAIR(pair_fixed_8b, fixed_get_8b, fixed_put_return_8b, ref)
DEFINE_PAIR(pair_fixed_q, fixed_get_q, fixed_put_return_q, ref)

static __attribute__((noinline)) void pair_locked_policy(void)
{
	lockref_get_p(&ref, &lockref_policy_locked);
	lockref_lock(&ref);
	lockref_put_locked(&ref);
	lockref_unlock(&ref);
}

static __attribute__((noinline)) void pair_spinlock(void)
{
	spin_lock(&lock);
	locked_count++;
	spin_unlock(&lock);
	spin_lock(&lock);
	locked_count--;
	spin_unlock(&lock);
}

static __attribute__((noinline)) void pair_xadd(void)
{
	atomic_xadd64(&counter, 1);
	atomic_xadd64(&counter, (uint64_t)-1);
}

static __attribute__((noinline)) void pair_lockref16(void)
{
	lockref16_get(&ref16);
	if (lockref16_put_return(&ref16) < 0)
		puts_refused++;
}

static __attribute__((noinline)) void pair_cmpxchg8b(void)
{
	uint64_t old = atomic_load64(&word), up = old + 1;

	atomic_cmpxchg64_8b(&word, &old, up);
	atomic_cmpxchg64_8b(&word, &up, old);
}

static __attribute__((noinline)) void pair_cmpxchgq(void)
{
	uint64_t old = atomic_load64(&word), up = old + 1;

	atomic_cmpxchg64_q(&word, &old, up);
	atomic_cmpxchg64_q(&word, &up, old);
}

DEFINE_PAIR(pair_cas_loop_8b, cas_loop_inc_8b, cas_loop_dec_8b, loop_word)
DEFINE_PAIR(pair_cas_loop_q, cas_loop_inc_q, cas_loop_dec_q, loop_word)

/* The variants; a lockref variant names the boot policy its trials run under. */
enum {
	V_XADD,
	V_PLAIN_8B,
	V_PLAIN_Q,
	V_FIXED_8B,
	V_FIXED_Q,
	V_LOCKREF16,
	V_LOCKED_POLICY,
	V_SPINLOCK,
	V_RAW_8B,
	V_RAW_Q,
	V_CAS_LOOP_8B,
	V_CAS_LOOP_Q,
	NVARIANTS
};

static const struct {
	const char *name;
	void (*pair)(void);
	const struct lockref_policy *boot;
} variants[NVARIANTS] = {
    [V_XADD] = {"xadd (counter only)", pair_xadd, NULL},
    [V_PLAIN_8B] = {"lockref plain, cas=cmpxchg8b", pair_plain, &lockref_policy_mainline},
    [V_PLAIN_Q] = {"lockref plain, cas=cmpxchgq", pair_plain, &mainline_q},
    [V_FIXED_8B] = {"lockref hard-coded cmpxchg8b", pair_fixed_8b, NULL},
    [V_FIXED_Q] = {"lockref hard-coded cmpxchgq", pair_fixed_q, NULL},
    [V_LOCKREF16] = {"lockref16 plain", pair_lockref16, &lockref_policy_mainline},
    [V_LOCKED_POLICY] = {"lockref locked policy", pair_locked_policy, NULL},
    [V_SPINLOCK] = {"spin_lock+inc+unlock", pair_spinlock, NULL},
    [V_RAW_8B] = {"raw cmpxchg8b x2", pair_cmpxchg8b, NULL},
    [V_RAW_Q] = {"raw cmpxchgq x2", pair_cmpxchgq, NULL},
    [V_CAS_LOOP_8B] = {"cas-loop-cmpxchg8b inc+dec", pair_cas_loop_8b, NULL},
    [V_CAS_LOOP_Q] = {"cas-loop-cmpxchgq inc+dec", pair_cas_loop_q, NULL},
};

/* Lockless operations per pair of each variant that runs the lockless path. */
static const unsigned lockless_variants = 5;

/* TSC cycles one trial of @pair takes. */
static uint64_t trial(void (*pair)(void))
{
	uint64_t start = platform_cycles();

	for (unsigned i = 0; i < PAIRS; i++)
		pair();
	return platform_cycles() - start;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t cycles[NVARIANTS][TRIALS];

/* Cycles per pair: the median trial of variant @v (sorts its trials). */
static double median_of(unsigned v)
{
	qsort(cycles[v], TRIALS, sizeof(cycles[v][0]), cmp_u64);
	return (double)cycles[v][TRIALS / 2] / PAIRS;
}

static void ratio(const char *what, double a, double b, double goal, bool at_most)
{
	double r = a / b;

	printf("# ratio %-44s %5.2f (goal %s %.2f: %s)\n", what, r, at_most ? "<=" : ">=", goal,
	       (at_most ? r <= goal : r >= goal) ? "met" : "missed");
}

int main(void)
{
	double med[NVARIANTS];
	struct lockref_stats st;

	host_set_cpu_id(0);
	lockref16_set_cx16(true);
	/* The checks below count every operation, the first attempt's successes too. */
	lockref_stats_count_all();
	lockref_init(&ref);
	lockref16_init(&ref16);
	lockref_stats_reset();
	for (unsigned t = 0; t < TRIALS; t++) {
		for (unsigned v = 0; v < NVARIANTS; v++) {
			/* "At boot": no other thread uses a lockref here. */
			if (variants[v].boot)
				lockref_set_policy(variants[v].boot);
			cycles[v][t] = trial(variants[v].pair);
		}
	}
	lockref_set_policy(&lockref_policy_mainline);
	for (unsigned v = 0; v < NVARIANTS; v++) {
		med[v] = median_of(v);
		printf("# %-30s %6.1f TSC cycles per get+put pair (median; min %.1f)\n",
		       variants[v].name, med[v], (double)cycles[v][0] / PAIRS);
	}
	ratio("plain/cas-loop, cmpxchg8b", med[V_PLAIN_8B], med[V_CAS_LOOP_8B], GOAL_VS_CAS_LOOP,
	      true);
	ratio("plain/cas-loop, cmpxchgq", med[V_PLAIN_Q], med[V_CAS_LOOP_Q], GOAL_VS_CAS_LOOP,
	      true);
	printf("# chained (no goal): plain/raw %.2f (cmpxchg8b), %.2f (cmpxchgq)\n",
	       med[V_PLAIN_8B] / med[V_RAW_8B], med[V_PLAIN_Q] / med[V_RAW_Q]);
	ratio("plain cmpxchg8b / ticket lock+inc+unlock", med[V_PLAIN_8B], med[V_SPINLOCK],
	      GOAL_VS_TICKET, true);
	ratio("plain cmpxchgq / ticket lock+inc+unlock", med[V_PLAIN_Q], med[V_SPINLOCK],
	      GOAL_VS_TICKET, true);
	ratio("lockref16 / lockref (both plain, cmpxchg8b)", med[V_LOCKREF16], med[V_PLAIN_8B],
	      GOAL_16_VS_8, true);
	printf("# boot-policy cost: plain/hard-coded %.3f (cmpxchg8b), %.3f (cmpxchgq)\n",
	       med[V_PLAIN_8B] / med[V_FIXED_8B], med[V_PLAIN_Q] / med[V_FIXED_Q]);

	lockref_stats_sum(&st);
	CHECK(lockref_count(&ref) == 1 && lockref16_count(&ref16) == 1 && locked_count == 0 &&
		  counter == 0 && word == 0 && loop_word == 0,
	      "a variant did not restore its count");
	/* The lockless variants' pairs are 2 lockless ops each; the locked policy's get falls back. */
	CHECK_EQ(st.lockless, lockless_variants * 2ull * PAIRS * TRIALS);
	CHECK_EQ(st.fallbacks, 1ull * PAIRS * TRIALS);
	CHECK_EQ(st.retries, 0);
	CHECK_EQ(st.abandoned, 0);
	CHECK_EQ(puts_refused, 0);
	return check_exit("test_lockref_bench");
}
