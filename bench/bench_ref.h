// SPDX-License-Identifier: MIT
/*
 * bench_ref.h - the reference counts the benchmarks compare, behind one
 * interface: a plain atomic counter, a ticket lock guarding a count, the
 * 8-byte lockref under any policy, and the 16-byte lockref; the locked
 * ones on any kind of spinlock (spinlock_kinds.h's SPIN_KIND_LIST, spin_kind_set).
 *
 * Why one file for all of them: the uncontended, refcount, convoy and
 * retry-table benchmarks must run the very same get and put code, or their
 * figures could not be set side by side.  Each implementation gets its own
 * object in its own 128-byte line pair, so one never slows another.
 *
 * A get+put pair is one operation of the refcount-style benchmarks: take a
 * reference, drop it, as a path walk does for every component.  The put is
 * lockref_put_or_lock (dput's fast path in Linux 3.12): the count never
 * drops to its last reference here, so it must never come back with the
 * lock held; if it does, that is counted as an error and the trial's check
 * fails.
 */
#ifndef KERNEL_BENCH_REF_H
#define KERNEL_BENCH_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "lockref.h"
#include "lockref16.h"
#include "limits.h"
#include "pv_stats.h"
#include "spinlock.h"

enum bench_ref_kind {
	BENCH_REF_XADD,	    /* LOCK XADD on a 64-bit counter: the hardware limit */
	BENCH_REF_SPINLOCK, /* ticket lock, count++, unlock: the pre-lockref way */
	BENCH_REF_LOCKREF,  /* lockref.h with the implementation's policy */
	BENCH_REF_LOCKREF16 /* lockref16.h with the implementation's policy */
};

struct bench_ref_impl {
	/* The impl name, e.g. "lockref-v7"; NULL: the boot policy on the other lockref.cas= */
	const char *name;
	enum bench_ref_kind kind;
	/* Lockref forms: the policy; NULL means the boot policy (lockref.policy=). */
	const struct lockref_policy *policy;
	/* The ticket lock inside: paravirtual (spin, then halt) if true, else plain. */
	bool pv;
	/* The kind of the lock inside (and the lockref's): spinlock.h's; 0 the default kind. */
	enum spin_kind lock_kind;
};

/* The docs/interface.md implementations, in the order tables list them. */
enum {
	BENCH_IMPL_XADD,
	BENCH_IMPL_SPINLOCK,
	BENCH_IMPL_LOCKREF,
	BENCH_IMPL_LOCKREF_V7,
	BENCH_IMPL_LOCKREF_LOCKED,
	BENCH_IMPL_LOCKREF16,
	BENCH_IMPL_LOCKREF_OTHER_CAS, /* "lockref-cmpxchgq", or "lockref-cmpxchg8b" */
	BENCH_IMPL_SPINLOCK_PV,
	BENCH_IMPL_LOCKREF_PV,
	/*
	 * Two per kind after the default (SPIN_KINDS_SWITCHED): "<kind>", the lock
	 * and a count (BENCH_REF_SPINLOCK), and "lockref-<kind>", the boot policy
	 * over it; BENCH_IMPL_<ID> and BENCH_IMPL_LOCKREF_<ID> (bench_impl_of_kind).
	 */
	BENCH_IMPL_KINDS,
	BENCH_IMPL_KINDS_END = BENCH_IMPL_KINDS + 2 * (SPIN_KINDS - 1) - 1,
	BENCH_IMPL_QSPINLOCK_PV, /* "qspinlock-pv": the queued kind, paravirtual (qspinlock_pv.c) */
	BENCH_IMPLS
};

/* The impls of a kind other than the default: its lock and a count, or (@lockref) its lockref. */
static inline unsigned bench_impl_of_kind(enum spin_kind kind, bool lockref)
{
	return BENCH_IMPL_KINDS + 2 * ((unsigned)kind - 1) + lockref;
}
#define BENCH_IMPL_OF_KIND(arg, name, ID, prefix)                                                  \
	BENCH_IMPL_##ID = BENCH_IMPL_KINDS + 2 * (SPIN_KIND_##ID - 1),                             \
	BENCH_IMPL_LOCKREF_##ID = BENCH_IMPL_##ID + 1,
enum { SPIN_KINDS_SWITCHED(BENCH_IMPL_OF_KIND, _) };
#undef BENCH_IMPL_OF_KIND
extern const struct bench_ref_impl bench_ref_impls[BENCH_IMPLS];

/* One implementation's shared object, alone in its line pair. */
struct bench_ref_obj {
	union {
		uint64_t counter;
		struct {
			spinlock_t lock;
			uint32_t count;
		} locked;
		struct lockref lr;
		struct lockref16 lr16;
	};
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* What CPU 0 does to the object between batches in the convoy benchmark. */
struct bench_ref_convoy {
	uint64_t every; /* cycles from the end of one hold to the next; 0: never */
	uint64_t hold;	/* cycles the lock is held */
	uint64_t next;	/* TSC of the next hold */
	uint64_t holds; /* holds in the current trial */
	spinlock_t
	    idle; /* a plain counter's "lock": nobody else takes it, so its holder only idles */
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/*
 * A bench_spec's arg for these benchmarks.  Read by every CPU in every
 * batch, written only by CPU 0 between trials (and `errors`, which a
 * correct lock never writes), so it shares no line with anything hot.
 */
struct bench_ref {
	const struct bench_ref_impl *impl;
	const char *name;		     /* the impl name in BENCH lines */
	struct lockref_policy other_policy;  /* impl->name NULL: the policy it runs */
	const struct lockref_policy *policy; /* resolved: never NULL for lockref forms */
	struct bench_ref_obj *obj;
	bench_ops_fn gets, puts, pairs; /* the loops for this kind, direct calls inside */
	unsigned preload;		/* references taken at reset, beyond the first */
	uint64_t warnings;		/* lockref_warnings() at reset */
	volatile uint64_t errors;	/* put_or_lock came back with the lock held */
	struct bench_ref_convoy convoy;
	bool pv_boot;		  /* spin_pv_enabled() at init: restored by ref_finish */
	enum spin_kind kind_boot; /* spin_kind() at init: restored by ref_finish */
	struct pv_stats pv_start; /* pv_stats() at reset */
	struct pv_stats pv_sum;	  /* paravirtual counts, summed over the trials */
	unsigned pv_trials;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* Make *@r drive @impl on @obj (count 1 after each reset, no preload, no convoy). */
void bench_ref_init(struct bench_ref *r, const struct bench_ref_impl *impl,
		    struct bench_ref_obj *obj);

/*
 * A spec of @bench that runs get+put pairs on *@r, with reset (count back
 * to 1 + preload, unlocked), check (count and lock as reset left them, no
 * error, no new lockref warning), the lockref statistics for lockref
 * forms, and the policy (and convoy settings) in the BENCH line.
 */
struct bench_spec bench_ref_spec(const char *bench, struct bench_ref *r);

/* The convoy spec: as bench_ref_spec, but CPU 0 also holds the lock as r->convoy says. */
struct bench_spec bench_ref_convoy_spec(const char *bench, struct bench_ref *r);

#endif /* KERNEL_BENCH_REF_H */
