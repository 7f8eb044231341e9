// SPDX-License-Identifier: MIT
/*
 * torture_lockref.c - the lockref under fire on every CPU (suite lockref):
 * the test, its set-up and the frame of its two phases.
 *
 * Why: a lockref that loses an update, moves a count under its lock or
 * hands out a reference to a dead object works in every single-CPU test
 * and fails only when CPUs race; this suite makes them race, on both
 * forms and every policy, and proves itself on a broken lockref.
 *
 * One test per policy (mainline, v7, locked) and form (8 and 16 bytes),
 * each in two phases that share torture.secs=, with a barrier on every
 * CPU between them:
 *
 *   phase A, the hot object (torture_lockref_hot.c): every CPU hammers
 *     one count, and lock holders check that it stands still;
 *   phase B, the dead-object race (torture_lockref_race.c): lookups race
 *     with the last puts and the kills of a pool of objects.
 *
 * CPU 0 judges each phase's end state after its barrier and, after
 * phase B, the paths the operations took; torture_lockref_report.c names
 * the invariants and prints the lines.  torture_lockref.h is the state
 * they share.
 *
 * torture.busted=lockref runs each test on the busted form of lockref_form.h
 * (lockless operations that ignore the lock): hold-verify and conservation
 * must catch it.
 */
#include "cpuinfo.h"
#include "platform.h"
#include "torture_lockref.h"
#include "trace.h"

/* Phase A gets this share (percent) of the run; phase B the rest. */
#define LR_HOT_SHARE_PCT 60u

struct lr_state lr;

/* CPU 0, before the others look: results, pool and hot object for one run. */
static bool lr_setup(struct ktest_ctx *t, enum torture_form form,
		     const struct lockref_policy *policy, bool have_cx16)
{
	bool busted = opts.busted == BUSTED_LOCKREF;
	bool r8 = form == TORTURE_LOCKREF8;

	if (busted)
		lr.ops = r8 ? &lockref_form8_busted : &lockref_form16_busted;
	else
		lr.ops = r8 ? &lockref_form8 : &lockref_form16;
	lr.policy = policy;
	/*
	 * The lockless lines count every operation: the count of the first
	 * attempt's successes on (lockref.h).  A boot that runs this suite turned
	 * it on before the other CPUs started (cmdline_apply_keys); the host's
	 * key may go on now.  Refused, the counts would be short: fail, not lie.
	 */
	if (!lockref_stats_count_all()) {
		ktest_fail(t,
			   "lockref %s: the count of lockless operations is off and cannot be "
			   "turned on now",
			   policy->name);
		return false;
	}
	lr.lockless_possible = policy->retries > 0 && (r8 || have_cx16);
	lr.ncpus = t->ncpus;
	ksnprintf(lr.label, sizeof(lr.label), "%s%s/%s", busted ? "busted-for-" : "", policy->name,
		  r8 ? "8" : "16");
	lr.cpu = platform_alloc(sizeof(struct lr_cpu) * t->ncpus, CACHE_PAIR_BYTES);
	lr.obj = platform_alloc(sizeof(struct lr_obj) * LR_OBJS, CACHE_PAIR_BYTES);
	lr.stacks = platform_alloc(sizeof(uint32_t) * LR_OBJS * t->ncpus, sizeof(uint32_t));
	if (!lr.cpu || !lr.obj || !lr.stacks) {
		ktest_fail(t, "out of memory for %u CPUs and %u objects", t->ncpus, LR_OBJS);
		return false;
	}
	for (unsigned i = 0; i < t->ncpus; i++)
		lr.cpu[i].stack = &lr.stacks[i * LR_OBJS];
	if (busted)
		ktest_diag(t,
			   "torture.busted=lockref: running %s in place of the library's "
			   "lockless path; this test must fail",
			   lr.ops->name);
	if (form == TORTURE_LOCKREF16 && !have_cx16)
		ktest_diag(t, "lockref %s: no CMPXCHG16B, so no lockless path to exercise",
			   lr.label);
	lr.ops->init(&lr.hot);
	trace_name(lr.ops->lock_of(&lr.hot), "torture:lockref-hot");
	lr.holding = 0;
	lr.hold_seq = 0;
	for (unsigned i = 0; i < LR_INVARIANTS; i++)
		lr.printed[i] = 0;
	lr.warnings_before = lockref_warnings();
	torture_clock_init(&lr.clock[LR_HOT], torture_duration_ns() * LR_HOT_SHARE_PCT / 100,
			   lr.ncpus);
	return true;
}

static void lr_release_memory(void)
{
	if (lr.cpu)
		platform_free(lr.cpu, sizeof(struct lr_cpu) * lr.ncpus);
	if (lr.obj)
		platform_free(lr.obj, sizeof(struct lr_obj) * LR_OBJS);
	if (lr.stacks)
		platform_free(lr.stacks, sizeof(uint32_t) * LR_OBJS * lr.ncpus);
	lr.cpu = NULL;
	lr.obj = NULL;
	lr.stacks = NULL;
}

/* Run phase @ph's loop on this CPU, recording what its operations did. */
static void lr_phase(struct ktest_ctx *t, struct lr_cpu *me, struct rng *rng, enum lr_phase ph)
{
	struct lockref_stats before, after;
	struct torture_pace pace;

	torture_pace_init(&pace, &lr.clock[ph], rng);
	lockref_stats_cpu(platform_cpu_id(), &before);
	if (ph == LR_HOT)
		lr_hot_run(t, me, &pace);
	else
		lr_race_run(t, me, &pace);
	lockref_stats_cpu(platform_cpu_id(), &after);
	me->path[ph].lockless = after.lockless - before.lockless;
	me->path[ph].retries = after.retries - before.retries;
	me->path[ph].fallbacks = after.fallbacks - before.fallbacks;
	me->path[ph].abandoned = after.abandoned - before.abandoned;
	me->long_holds += pace.long_holds;
	me->pauses += pace.pauses;
}

void torture_lockref_run(struct ktest_ctx *t, enum torture_form form,
			 const struct lockref_policy *policy, bool have_cx16)
{
	unsigned end_ms = opts.torture_ms + TORTURE_END_SLACK_MS;
	struct lr_cpu *me;
	struct rng rng;

	if (t->cpu == 0 && !lr_setup(t, form, policy, have_cx16))
		lr_release_memory();
	if (!ktest_barrier(t, TORTURE_START_TIMEOUT_MS) || !lr.cpu)
		return;
	if (opts.busted == BUSTED_LOCKREF && t->ncpus == 1 && t->cpu == 0)
		ktest_fail(t, "torture.busted=lockref needs 2 or more CPUs: one CPU alone cannot "
			      "race with a lock holder");
	me = &lr.cpu[t->cpu];
	torture_rng_init(&rng, t);
	lr_phase(t, me, &rng, LR_HOT);
	/* If some CPU never finishes, keep the memory: a straggler may still use it. */
	if (!ktest_barrier(t, end_ms))
		return;
	if (t->cpu == 0) {
		lr_hot_check(t);
		lr_race_setup();
		torture_clock_init(&lr.clock[LR_RACE],
				   torture_duration_ns() * (100 - LR_HOT_SHARE_PCT) / 100,
				   lr.ncpus);
	}
	if (!ktest_barrier(t, TORTURE_START_TIMEOUT_MS))
		return;
	lr_phase(t, me, &rng, LR_RACE);
	if (!ktest_barrier(t, end_ms) || t->cpu != 0)
		return;
	lr_race_check(t);
	lr_report(t);
	lr_release_memory();
}

/* One test per policy and form, in the order the runner runs them. */
#define LR_TEST(fn, policy, form)                                                                  \
	static void fn(struct ktest_ctx *t)                                                        \
	{                                                                                          \
		torture_lockref_run(t, form, &policy, cpuinfo.cx16);                               \
	}                                                                                          \
	KTEST(lockref, #fn, fn, KTEST_ALL_CPUS)

LR_TEST(torture_mainline_8, lockref_policy_mainline, TORTURE_LOCKREF8);
LR_TEST(torture_v7_8, lockref_policy_v7, TORTURE_LOCKREF8);
LR_TEST(torture_locked_8, lockref_policy_locked, TORTURE_LOCKREF8);
LR_TEST(torture_mainline_16, lockref_policy_mainline, TORTURE_LOCKREF16);
LR_TEST(torture_v7_16, lockref_policy_v7, TORTURE_LOCKREF16);
LR_TEST(torture_locked_16, lockref_policy_locked, TORTURE_LOCKREF16);