// SPDX-License-Identifier: MIT
/*
 * torture_spinlock.h - what the files of the spinlock torture share, and
 * nothing else: private to kernel/test/torture_spinlock*.c.
 *
 * Why a header: the torture is two tests in three files, each one concern
 * (torture_spinlock.c the tests and each CPU's loop,
 * torture_spinlock_setup.c CPU 0's set-up and the broken locks,
 * torture_spinlock_report.c the invariants' names, the failure lines, the
 * judgement at the end and the statistics lines).  They meet in one state,
 * spin_torture, which CPU 0 writes before the start barrier and every CPU
 * reads during the run, and in the per-CPU results that CPU 0 adds up at
 * the end.
 */
#ifndef KERNEL_TORTURE_SPINLOCK_H
#define KERNEL_TORTURE_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "ktest.h"
#include "pv_stats.h"
#include "spinlock.h"
#include "torture.h"

/* One acquisition in this many is timed: the clock may trap (torture.h). */
#define SPIN_TIME_EVERY 16u
/* torture.busted=*-lost-kick: one paravirtual kick in this many is dropped (pv_kick_drop). */
#define BUSTED_KICK_DROP_EVERY 4u

/*
 * What the torture checks, each with the name its failure lines and the
 * summary give it: one list, so a name cannot drift from its check.
 */
#define SPIN_INVARIANT_LIST(X)                                                                     \
	X(SPIN_HELD_ON_ENTRY, "held-on-entry")                                                     \
	X(SPIN_EXCLUSIVE_HOLD, "exclusive-hold")                                                   \
	X(SPIN_LOST_UPDATE, "lost-update")                                                         \
	X(SPIN_FIFO, "fifo")                                                                       \
	X(SPIN_QUEUE_DEPTH, "queue-depth")                                                         \
	X(SPIN_STARVATION, "starvation")                                                           \
	X(SPIN_LOST_WAITER, "lost-waiter")                                                         \
	X(SPIN_LOST_WAKEUP, "lost-wakeup")                                                         \
	X(SPIN_PV_BAD_INPUT, "pv-bad-input")

#define SPIN_INVARIANT_ENUM(id, name) id,
enum spin_invariant { SPIN_INVARIANT_LIST(SPIN_INVARIANT_ENUM) SPIN_INVARIANTS };
#undef SPIN_INVARIANT_ENUM

/* One CPU's results, in its own cache-line pair: only that CPU writes them during the run. */
struct spin_cpu {
	uint64_t acquisitions;
	uint64_t counted;     /* those once every CPU ran (torture_pace): starvation judges them */
	uint64_t max_latency; /* cycles */
	uint64_t long_holds;
	uint64_t pauses;
	uint64_t overtaken; /* acquisitions with 2 * ncpus or more others first */
	uint64_t max_ahead; /* most acquisitions between asking and getting the lock */
	uint64_t deepest;   /* most CPUs seen waiting at once, at the end of a long hold */
	uint32_t waiting;   /* 1 while inside the acquire: read by the holder of a long hold */
	uint64_t fails[SPIN_INVARIANTS];
	uint64_t hist[TORTURE_HIST_BUCKETS];
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/*
 * The one lock and what it protects.  The counter and the holder mark are
 * plain (volatile only so the compiler keeps every access where the source
 * puts it): the lock alone must keep them consistent.
 */
struct spin_state {
	spinlock_t lock;
	volatile uint32_t holder;  /* CPU + 1 while inside, 0 when free */
	volatile uint64_t counter; /* acquisitions, as counted inside the critical section */
	uint64_t served;	   /* the same, for reading outside the lock (atomic accesses) */
	void (*acquire)(spinlock_t *lock);
	void (*release)(spinlock_t *lock);
	struct torture_clock clock;
	struct spin_cpu *cpu;		   /* ncpus of them; NULL if set-up failed */
	uint32_t printed[SPIN_INVARIANTS]; /* failure lines printed (torture_fail) */
	unsigned ncpus;
	struct pv_stats pv; /* pv_stats() at the start */
	const char *label;  /* "spinlock" or "qspinlock", in every line */
	bool busted;
	bool fifo;	/* the lock tortured is the ticket lock: FIFO is an invariant */
	bool fair;	/* its kind's fairness column is FAIR: judged by SPIN_FAIR_MAX_RATIO */
	bool lost_kick; /* torture.busted=*-lost-kick: kicks dropped (busted_kicks counts) */
};

/* The one torture in progress (torture_spinlock.c). */
extern struct spin_state spin_torture;

/* Kicks seen while torture.busted=*-lost-kick drops some (torture_spinlock_setup.c). */
extern uint64_t busted_kicks;

/*
 * CPU 0 before the others look (torture_spinlock_setup.c): a fresh lock
 * and zeroed results for the test on spin_lock (@queued false) or on
 * qspin_lock, with the calls torture.busted= swaps in; on failure it fails
 * @t and leaves spin_torture.cpu NULL.
 */
void spin_setup(struct ktest_ctx *t, bool queued);

/* What the broken queues (qspinlock_busted.h) lost during the run: how many, and the first. */
struct spin_lost_waiters {
	uint64_t lost;
	uint32_t cpu, prev, word; /* the first: its CPU, its predecessor's and the word it read */
};
/* Read from the set-up's file, whose copy of qspinlock_busted.h counts them. */
struct spin_lost_waiters spin_lost_waiters(void);

/*
 * A failure of @inv seen by the calling CPU, counted in @c (its results),
 * printed as torture_fail rations it (torture_spinlock_report.c).
 */
void spin_fail(struct ktest_ctx *t, struct spin_cpu *c, enum spin_invariant inv, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));

/* CPU 0, after every CPU stopped: the end-of-run invariants and the statistics lines. */
void spin_report(struct ktest_ctx *t);

#endif
