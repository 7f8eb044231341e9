// SPDX-License-Identifier: MIT
/*
 * torture_lockref_report.c - the lockref torture's judgement and its
 * lines: the invariants' names, the failure lines, and CPU 0's statistics
 * at the end.
 *
 * Why one file: people and checks read these lines (the must-fail controls
 * in tests/checks/checks.tab match "invariant NAME broken"; docs/output.md
 * explains the summary line field by field), so what a line says and the
 * names it uses live in one place, apart from the phases that count.
 *
 * Invariants (the names the failure lines use):
 *   conservation   phase A: the final count is 1 + every CPU's net change;
 *                  phase B: every object ends with count 0 once all
 *                  references are dropped.
 *   hold-verify    a lock holder's count does not move.
 *   count-range    no count below the references known to be held, or
 *                  above all that could be; none below zero unless dead.
 *   wrong-refusal  a conditional operation refused though the count allows it.
 *   dead-revived   a dead count only ever reads exactly dead.
 *   get-after-kill a successful get_not_dead/get_not_zero never lands on a
 *                  killed object.
 *   freed-once     every incarnation of an object is freed exactly once.
 *   use-after-free a reference holder never sees the free poison.
 *   object-accounting  each object is in exactly one slot or free list.
 *   zero-warnings  the lockref's misuse warnings stay at zero.
 *   lockless-path, fallback-path  under contention both paths ran (the
 *                  locked policy, or the 16-byte form without CMPXCHG16B,
 *                  must never go lockless).
 *
 * The last two and zero-warnings are judged here, from every CPU's counts
 * added up; the others where they are seen.
 */
#include "torture_lockref.h"

#define LR_LINE_MAX 400u

static const char *const lr_invariant_names[LR_INVARIANTS] = {
    "conservation",	 "hold-verify",	   "count-range",   "wrong-refusal",
    "dead-revived",	 "get-after-kill", "freed-once",    "use-after-free",
    "object-accounting", "zero-warnings",  "lockless-path", "fallback-path",
};

void lr_fail(struct ktest_ctx *t, enum lr_invariant inv, const char *fmt, ...)
{
	char msg[TORTURE_MSG_MAX];

	KSNPRINTF_ARGS(msg, fmt);
	torture_fail(t, &lr.cpu[t->cpu].fails[inv], &lr.printed[inv], lr_invariant_names[inv],
		     "%s: %s", lr.label, msg);
}

/* Every CPU's counts of the run added up, for CPU 0's judgement and lines at the end. */
struct lr_totals {
	struct lockref_stats path[LR_PHASES], all;
	uint64_t fails[LR_INVARIANTS], ops[LR_PHASES], min, max;
	uint64_t holds, long_holds, pauses, locked_puts;
	uint64_t created, killed_last, killed_reaped, refused, raced, deferred;
	uint64_t per_cpu_ops[MAX_CPUS];
};

/* Add up every CPU's operations and paths (not its failures: judging adds some). */
static void lr_sum(struct lr_totals *s)
{
	s->min = UINT64_MAX;
	for (unsigned i = 0; i < lr.ncpus; i++) {
		const struct lr_cpu *c = &lr.cpu[i];

		s->per_cpu_ops[i] = c->ops[LR_HOT] + c->ops[LR_RACE];
		s->min = s->per_cpu_ops[i] < s->min ? s->per_cpu_ops[i] : s->min;
		s->max = s->per_cpu_ops[i] > s->max ? s->per_cpu_ops[i] : s->max;
		for (unsigned ph = 0; ph < LR_PHASES; ph++) {
			s->ops[ph] += c->ops[ph];
			s->path[ph].lockless += c->path[ph].lockless;
			s->path[ph].retries += c->path[ph].retries;
			s->path[ph].fallbacks += c->path[ph].fallbacks;
			s->path[ph].abandoned += c->path[ph].abandoned;
		}
		s->holds += c->holds;
		s->long_holds += c->long_holds;
		s->pauses += c->pauses;
		s->locked_puts += c->put_return_locked;
		s->created += c->created;
		s->killed_last += c->killed_last;
		s->killed_reaped += c->killed_reaped;
		s->refused += c->refused;
		s->raced += c->raced;
		s->deferred += c->deferred;
	}
	for (unsigned ph = 0; ph < LR_PHASES; ph++) {
		s->all.lockless += s->path[ph].lockless;
		s->all.retries += s->path[ph].retries;
		s->all.fallbacks += s->path[ph].fallbacks;
	}
}

/*
 * The run's own invariants: no lockref misuse warning, and the paths the
 * policy and CPU allow were taken (lockless and fallback both, under
 * contention; never lockless where there is no lockless path).  Returns
 * the warnings.
 */
static uint64_t lr_judge_paths(struct ktest_ctx *t, const struct lr_totals *s)
{
	uint64_t warnings = lockref_warnings() - lr.warnings_before;
	uint64_t ops = s->ops[LR_HOT] + s->ops[LR_RACE];

	if (warnings)
		lr_fail(t, LR_WARNINGS, "%lu lockref misuse warnings during the run", warnings);
	if (lr.ncpus == 1) {
		ktest_diag(t,
			   "lockref %s: 1 CPU: no contention, so the lockless/fallback split "
			   "is not judged",
			   lr.label);
	} else if (lr.lockless_possible) {
		if (s->all.lockless == 0)
			lr_fail(t, LR_LOCKLESS_PATH, "no operation finished locklessly in %lu",
				ops);
		if (s->all.fallbacks == 0)
			lr_fail(t, LR_FALLBACK_PATH,
				"no operation fell back to the lock in %lu under contention", ops);
	} else {
		if (s->all.lockless != 0)
			lr_fail(t, LR_LOCKLESS_PATH,
				"%lu operations finished locklessly, but this policy/CPU has no "
				"lockless path",
				s->all.lockless);
		if (s->all.fallbacks == 0)
			lr_fail(t, LR_FALLBACK_PATH, "no operation took the lock in %lu", ops);
	}
	return warnings;
}

/* The statistics lines: per CPU, each phase, then the summary with every invariant's failures. */
static void lr_print(struct ktest_ctx *t, struct lr_totals *s, uint64_t warnings)
{
	char line[LR_LINE_MAX];
	uint64_t nfail;

	for (unsigned i = 0; i < lr.ncpus; i++)
		for (unsigned k = 0; k < LR_INVARIANTS; k++)
			s->fails[k] += lr.cpu[i].fails[k];
	torture_per_cpu(line, sizeof(line), s->per_cpu_ops, sizeof(s->per_cpu_ops[0]), lr.ncpus);
	ktest_diag(t, "lockref %s: ops per cpu:%s", lr.label, line);
	ktest_diag(
	    t,
	    "lockref %s: hot object: ops %lu lockless %lu fallback %lu retries %lu holds %lu "
	    "put_return_abandoned %lu put_return_locked %lu",
	    lr.label, s->ops[LR_HOT], s->path[LR_HOT].lockless, s->path[LR_HOT].fallbacks,
	    s->path[LR_HOT].retries, s->holds, s->path[LR_HOT].abandoned, s->locked_puts);
	ktest_diag(
	    t,
	    "lockref %s: dead race: ops %lu lockless %lu fallback %lu retries %lu objects %u "
	    "slots %u created %lu killed %lu (last put %lu, reaper %lu) refused %lu "
	    "lookup_races %lu reuse_deferred %lu",
	    lr.label, s->ops[LR_RACE], s->path[LR_RACE].lockless, s->path[LR_RACE].fallbacks,
	    s->path[LR_RACE].retries, LR_OBJS, LR_SLOTS, s->created,
	    s->killed_last + s->killed_reaped, s->killed_last, s->killed_reaped, s->refused,
	    s->raced, s->deferred);
	nfail =
	    torture_fail_summary(line, sizeof(line), s->fails, lr_invariant_names, LR_INVARIANTS);
	ktest_diag(
	    t,
	    "lockref %s: cpus %u ops/cpu min %lu max %lu total %lu lockless %lu fallback %lu "
	    "retries %lu long_holds %lu stutter_pauses %lu warnings %lu failures %lu:%s "
	    "seed=%lu",
	    lr.label, lr.ncpus, s->min, s->max, s->ops[LR_HOT] + s->ops[LR_RACE], s->all.lockless,
	    s->all.fallbacks, s->all.retries, s->long_holds, s->pauses, warnings, nfail, line,
	    opts.seed);
}

/* CPU 0 at the end: path and warning invariants, then the statistics lines. */
void lr_report(struct ktest_ctx *t)
{
	struct lr_totals s = {0};
	uint64_t warnings;

	lr_sum(&s);
	warnings = lr_judge_paths(t, &s);
	lr_print(t, &s, warnings);
}
