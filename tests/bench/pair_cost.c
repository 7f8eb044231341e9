// SPDX-License-Identifier: MIT
/*
 * pair_cost.c - the cost of one uncontended get+put of each lockref form and
 * lock, as the low percentiles of many short batches.
 *
 * Why beside bench_native: the harness times trials of 100 ms and more and
 * reports medians, which a shared machine (other builds and emulators on
 * the same cores) scatters by factors.  A batch of 256 pairs takes about
 * 3 us; the batches nobody interrupted are the fast ones, so the 10th
 * percentile of 4000 of them is the cost itself, and agrees from run to
 * run within 1-2%.  Every variant's batches interleave, round by round,
 * so a drift of the machine weighs on all alike.  docs/benchmarks.md ("What
 * the lockless path costs, piece by piece") reads it; linked against
 * another tree's library objects (the public calls only, without
 * -DPAIR_COST_FIXED) it gives the figures of that tree, by turns.
 *
 * Usage: pair_cost [queued|tas|pv] [blocked]: the lock layer's kind or pv
 * mode switched first, as spinlock.kind=qspinlock, =tas or spinlock.pv=on
 * would (the fixed copies other than lockref_fixed and spinlock_bare assume
 * the ticket kind: read them without an argument, or with pv).  `blocked`
 * times each variant's rounds in one block, one variant after the other, as
 * bench_native times its rows: the control that shows what the interleaving
 * buys (docs/benchmarks.md, "The 16-byte row: what moves it").  Prints one
 * line per variant: TSC cycles per get+put, minimum, 10th percentile,
 * median and mean.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "cas_loop.h"
#include "lockref.h"
#include "lockref16.h"
#include "platform.h"
#include "platform_host.h"
#include "spinlock.h"
#ifdef PAIR_COST_FIXED
#include "lockref_fixed.h"
/* The kinds' headers, for their bare pairs (lib/spinlock_bare.c). */
#define SPIN_KIND_BODIES
#include "spinlock_kinds.h"
#endif

#define PAIR_BATCH  256	 /* pairs per timed batch: a few microseconds */
#define PAIR_ROUNDS 4000 /* batches per variant */

/* Each variant's object alone in its line pair. */
struct pair_obj {
	union {
		uint64_t word;
		struct lockref lr;
		struct lockref16 lr16;
		struct {
			spinlock_t lock;
			uint32_t count;
		} locked;
	};
} __attribute__((aligned(CACHE_PAIR_BYTES)));

enum {
	V_CAS8B,
	V_CASQ,
	V_LOCKREF,
	V_LOCKREF_Q,
	V_LOCKREF16,
	V_LOCKREF_V7,
	V_LOCKREF_LOCKED,
	V_SPINLOCK,
#ifdef PAIR_COST_FIXED
	V_FIXED,
	V_FIXED_Q,
	V_FIXED16,
	V_FIXED_V7,
	V_FIXED_LOCKED,
	V_SPINLOCK_BARE,
#endif
	VARIANTS
};

static struct pair_obj objs[VARIANTS];
static struct lockref_policy mainline_q;
static double samples[VARIANTS][PAIR_ROUNDS];

static void die_locked(const char *what)
{
	fprintf(stderr, "pair_cost: %s came back with the lock held, uncontended\n", what);
	exit(1);
}

/* @body PAIR_BATCH times: each variant's loop of its own, no switch inside. */
#define PAIRS(body)                                                                                \
	do {                                                                                       \
		for (unsigned i = 0; i < PAIR_BATCH; i++) {                                        \
			body;                                                                      \
		}                                                                                  \
	} while (0)

/* A lockref get and put_or_lock pair by @get and @put under @p. */
#define LOCKREF_PAIRS(get, put, ref, p) PAIRS(get(ref, p); if (!put(ref, p)) die_locked(#put))

/* One spinlock_t-guarded update of the count by @delta. */
static inline void locked_add(struct pair_obj *o, uint32_t delta)
{
	spin_lock(&o->locked.lock);
	atomic_store32(&o->locked.count, atomic_load32(&o->locked.count) + delta);
	spin_unlock(&o->locked.lock);
}

#ifdef PAIR_COST_FIXED
/* locked_add with the kind in force's bare pair (lib/spinlock_bare.c), @kind a constant. */
static inline __attribute__((always_inline)) void bare_add(struct pair_obj *o, uint32_t delta,
							   enum spin_kind kind)
{
	if (kind == SPIN_KIND_QSPINLOCK)
		qspin_lock_bare(&o->locked.lock);
	else if (kind == SPIN_KIND_TAS)
		tas_lock_bare(&o->locked.lock);
	else
		ticket_lock_bare(&o->locked.lock);
	atomic_store32(&o->locked.count, atomic_load32(&o->locked.count) + delta);
	if (kind == SPIN_KIND_QSPINLOCK)
		qspin_unlock_bare(&o->locked.lock);
	else if (kind == SPIN_KIND_TAS)
		tas_unlock_bare(&o->locked.lock);
	else
		ticket_unlock_bare(&o->locked.lock);
}
#endif

/* The policy of each lockref variant (main's: the policy's pointer, read once per call). */
static const struct lockref_policy *policy_of(unsigned v)
{
	switch (v) {
	case V_LOCKREF_Q:
#ifdef PAIR_COST_FIXED
	case V_FIXED_Q:
#endif
		return &mainline_q;
	case V_LOCKREF_V7:
#ifdef PAIR_COST_FIXED
	case V_FIXED_V7:
#endif
		return &lockref_policy_v7;
	case V_LOCKREF_LOCKED:
#ifdef PAIR_COST_FIXED
	case V_FIXED_LOCKED:
#endif
		return &lockref_policy_locked;
	default:
		return &lockref_policy_mainline;
	}
}

/* One batch of variant @v. */
static void batch(unsigned v)
{
	struct pair_obj *o = &objs[v];
	const struct lockref_policy *p = policy_of(v);

	switch (v) {
	case V_CAS8B:
		PAIRS(cas_loop_inc_8b(&o->word); cas_loop_dec_8b(&o->word));
		break;
	case V_CASQ:
		PAIRS(cas_loop_inc_q(&o->word); cas_loop_dec_q(&o->word));
		break;
	case V_LOCKREF16:
		LOCKREF_PAIRS(lockref16_get_p, lockref16_put_or_lock_p, &o->lr16, p);
		break;
	case V_SPINLOCK:
		PAIRS(locked_add(o, 1); locked_add(o, (uint32_t)-1));
		break;
#ifdef PAIR_COST_FIXED
	case V_SPINLOCK_BARE:
		if (spin_kind() == SPIN_KIND_QSPINLOCK)
			PAIRS(bare_add(o, 1, SPIN_KIND_QSPINLOCK);
			      bare_add(o, (uint32_t)-1, SPIN_KIND_QSPINLOCK));
		else if (spin_kind() == SPIN_KIND_TAS)
			PAIRS(bare_add(o, 1, SPIN_KIND_TAS);
			      bare_add(o, (uint32_t)-1, SPIN_KIND_TAS));
		else
			PAIRS(bare_add(o, 1, SPIN_KIND_TICKET);
			      bare_add(o, (uint32_t)-1, SPIN_KIND_TICKET));
		break;
	case V_FIXED16:
		LOCKREF_PAIRS(lockref16_get_fixed, lockref16_put_or_lock_fixed, &o->lr16, p);
		break;
	case V_FIXED:
	case V_FIXED_Q:
	case V_FIXED_V7:
	case V_FIXED_LOCKED:
		if (v == V_FIXED && spin_kind_free(spin_kind()) == SPIN_FREE_ZERO)
			LOCKREF_PAIRS(lockref_get_fixed_zero, lockref_put_or_lock_fixed_zero,
				      &o->lr, p);
		else
			LOCKREF_PAIRS(lockref_get_fixed, lockref_put_or_lock_fixed, &o->lr, p);
		break;
#endif
	default: /* the public 8-byte calls: V_LOCKREF, _Q, _V7, _LOCKED */
		LOCKREF_PAIRS(lockref_get_p, lockref_put_or_lock_p, &o->lr, p);
		break;
	}
}

static const char *const names[VARIANTS] = {
    [V_CAS8B] = "cas-loop-cmpxchg8b",
    [V_CASQ] = "cas-loop-cmpxchgq",
    [V_LOCKREF] = "lockref_p",
    [V_LOCKREF_Q] = "lockref-cmpxchgq_p",
    [V_LOCKREF16] = "lockref16_p",
    [V_LOCKREF_V7] = "lockref-v7_p",
    [V_LOCKREF_LOCKED] = "lockref-locked_p",
    [V_SPINLOCK] = "spinlock",
#ifdef PAIR_COST_FIXED
    [V_FIXED] = "lockref_fixed",
    [V_FIXED_Q] = "lockref-cmpxchgq_fixed",
    [V_FIXED16] = "lockref16_fixed",
    [V_FIXED_V7] = "lockref-v7_fixed",
    [V_FIXED_LOCKED] = "lockref-locked_fixed",
    [V_SPINLOCK_BARE] = "spinlock_bare",
#endif
};

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Batch @r of variant @v, timed into samples[v][r]. */
static void time_batch(unsigned v, unsigned r)
{
	uint64_t start = platform_cycles_begin();

	batch(v);
	samples[v][r] = (double)(platform_cycles_end() - start) / PAIR_BATCH;
}

int main(int argc, char **argv)
{
	bool blocked = false;

	host_set_cpu_id(0);
	lockref16_set_cx16(platform_facts().cx16);
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "queued") == 0) {
			spin_kind_set(SPIN_KIND_QSPINLOCK);
		} else if (strcmp(argv[a], "tas") == 0) {
			spin_kind_set(SPIN_KIND_TAS);
		} else if (strcmp(argv[a], "pv") == 0) {
			spin_pv_set(true);
		} else if (strcmp(argv[a], "blocked") == 0) {
			blocked = true;
		} else {
			fprintf(stderr,
				"pair_cost: '%s': expected queued, tas, pv, blocked or nothing\n",
				argv[a]);
			return 2;
		}
	}
	mainline_q = lockref_policy_mainline;
	mainline_q.cas = LOCKREF_CAS_CMPXCHGQ;
	for (unsigned v = 0; v < VARIANTS; v++) {
		if (v == V_CAS8B || v == V_CASQ)
			objs[v].word = 1ull << 32; /* a high half to carry into, as a lockref's */
		else if (strstr(names[v], "spinlock"))
			spin_init(&objs[v].locked.lock);
		else if (v == V_LOCKREF16 || strstr(names[v], "lockref16"))
			lockref16_init(&objs[v].lr16);
		else
			lockref_init(&objs[v].lr);
	}
	if (blocked) {
		for (unsigned v = 0; v < VARIANTS; v++)
			for (unsigned r = 0; r < PAIR_ROUNDS; r++)
				time_batch(v, r);
	} else {
		for (unsigned r = 0; r < PAIR_ROUNDS; r++)
			for (unsigned k = 0; k < VARIANTS; k++)
				time_batch((k + r) % VARIANTS, r); /* each round starts one later */
	}
	for (unsigned v = 0; v < VARIANTS; v++) {
		double sum = 0;

		for (unsigned r = 0; r < PAIR_ROUNDS; r++)
			sum += samples[v][r];
		qsort(samples[v], PAIR_ROUNDS, sizeof(double), by_value);
		printf("%-24s min %6.2f p10 %6.2f p50 %6.2f mean %6.2f TSC cycles per get+put\n",
		       names[v], samples[v][0], samples[v][PAIR_ROUNDS / 10],
		       samples[v][PAIR_ROUNDS / 2], sum / PAIR_ROUNDS);
	}
	return 0;
}
