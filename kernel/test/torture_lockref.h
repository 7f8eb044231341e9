// SPDX-License-Identifier: MIT
/*
 * torture_lockref.h - what the files of the lockref torture share, and
 * nothing else: private to kernel/test/torture_lockref*.c.
 *
 * Why a header: the torture is one test in four files, each one concern
 * (torture_lockref.c the test and its two phases' frame,
 * torture_lockref_hot.c phase A, torture_lockref_race.c phase B,
 * torture_lockref_report.c the invariants' names, the failure lines and
 * the statistics lines).  They meet in one state, lr, which CPU 0 writes
 * between barriers and every CPU reads during a phase, and in the per-CPU
 * results that CPU 0 adds up at the end.
 */
#ifndef KERNEL_TORTURE_LOCKREF_H
#define KERNEL_TORTURE_LOCKREF_H

#include <stdbool.h>
#include <stdint.h>

#include "ktest.h"
#include "limits.h"
#include "lockref.h"
#include "lockref16.h"
#include "lockref_form.h"
#include "random.h"
#include "torture.h"

/* Phase B: slots of the lookup table, objects in the pool, references one CPU holds. */
#define LR_SLOTS    16u
#define LR_OBJS	    64u
#define LR_HELD_MAX 4u
/* Payload words checked by every reference holder. */
#define LR_OBJ_WORDS 4u

enum lr_phase { LR_HOT, LR_RACE, LR_PHASES };

/* The invariants, in the order of lr_invariant_names (torture_lockref_report.c). */
enum lr_invariant {
	LR_CONSERVATION,
	LR_HOLD_VERIFY,
	LR_COUNT_RANGE,
	LR_WRONG_REFUSAL,
	LR_DEAD_REVIVED,
	LR_GET_AFTER_KILL,
	LR_FREED_ONCE,
	LR_USE_AFTER_FREE,
	LR_ACCOUNTING,
	LR_WARNINGS,
	LR_LOCKLESS_PATH,
	LR_FALLBACK_PATH,
	LR_INVARIANTS,
};

/* Either form of lockref, so one harness drives both. */
union lr_ref {
	struct lockref r8;
	struct lockref16 r16;
};

/* Phase B's objects.  Every field but the lockref is read by CPUs that hold no lock. */
struct lr_obj {
	union lr_ref ref;
	uint32_t inc;			/* incarnation: bumped each time the object is created */
	uint32_t state;			/* LR_OBJ_LIVE or LR_OBJ_FREE */
	uint32_t slot;			/* the slot it is published in while live */
	uint32_t creates;		/* incarnations so far */
	uint32_t frees;			/* frees so far: creates, or creates - 1 while live */
	uint64_t payload[LR_OBJ_WORDS]; /* lr_pattern() while live, LR_POISON once freed */
} __attribute__((aligned(CACHE_PAIR_BYTES)));

#define LR_OBJ_FREE 0u
#define LR_OBJ_LIVE 1u

/* A reference a CPU holds in phase B: object index + 1 (0: none) and its incarnation. */
struct lr_held {
	uint32_t obj;
	uint32_t inc;
};

/* One CPU's state and results, in its own cache-line pair. */
struct lr_cpu {
	uint64_t ops[LR_PHASES];
	struct lockref_stats path[LR_PHASES]; /* what this CPU's operations did */
	uint64_t fails[LR_INVARIANTS];
	uint64_t long_holds, pauses;
	/* Phase A. */
	int64_t mine;	   /* references held on the hot object */
	uint64_t started;  /* operations started on it; others read it (lr_contended) */
	uint64_t finished; /* operations finished; others read it */
	uint64_t holds;
	uint64_t put_return_locked; /* put_return said -1: finished under the lock */
	/* Phase B. */
	uint64_t created, killed_last, killed_reaped, refused, raced, deferred;
	uint32_t hazard; /* object (index + 1) this CPU may be looking at; others read it */
	struct lr_held held[LR_HELD_MAX]; /* others read .obj */
	unsigned nheld;
	uint32_t *stack; /* free objects this CPU reuses: LR_OBJS entries of room */
	unsigned nfree;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* The test in progress: written by CPU 0 between barriers, read by all during a phase. */
struct lr_state {
	union lr_ref hot __attribute__((aligned(CACHE_PAIR_BYTES)));
	uint64_t holding;  /* hold of the hot object in progress: id * MAX_CPUS + cpu, or 0 */
	uint64_t hold_seq; /* holds so far */
	uint32_t slot[LR_SLOTS] __attribute__((aligned(CACHE_PAIR_BYTES)));
	const struct lockref_form *ops;
	const struct lockref_policy *policy;
	bool lockless_possible; /* the policy tries locklessly and the CPU can */
	struct torture_clock clock[LR_PHASES];
	struct lr_cpu *cpu; /* ncpus of them; NULL if set-up failed */
	struct lr_obj *obj; /* LR_OBJS of them */
	uint32_t *stacks;   /* ncpus * LR_OBJS */
	unsigned ncpus;
	uint64_t warnings_before;
	uint32_t printed[LR_INVARIANTS]; /* failure lines printed (torture_fail) */
	char label[48];			 /* "mainline/8" */
};

/* The one test in progress (torture_lockref.c). */
extern struct lr_state lr;

/* Object @v (index + 1) of phase B's pool. */
static inline struct lr_obj *lr_obj_of(uint32_t v)
{
	return &lr.obj[v - 1];
}

/*
 * A failure of @inv seen by the calling CPU, with the test's label in
 * front: counted in its lr_cpu, printed as torture_fail rations it.
 */
void lr_fail(struct ktest_ctx *t, enum lr_invariant inv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Phase A (torture_lockref_hot.c): this CPU's loop on the hot object until @pace ends it. */
void lr_hot_run(struct ktest_ctx *t, struct lr_cpu *me, struct torture_pace *pace);
/* CPU 0 after phase A, the others stopped: conservation of the hot count. */
void lr_hot_check(struct ktest_ctx *t);

/* Phase B (torture_lockref_race.c): CPU 0 before it, every object free and dead. */
void lr_race_setup(void);
/* This CPU's loop of lookups, puts and kills; returns holding no reference. */
void lr_race_run(struct ktest_ctx *t, struct lr_cpu *me, struct torture_pace *pace);
/* CPU 0 after phase B, the others stopped: every object accounted for once. */
void lr_race_check(struct ktest_ctx *t);

/* CPU 0 at the end (torture_lockref_report.c): the path and warning invariants, the lines. */
void lr_report(struct ktest_ctx *t);

#endif
