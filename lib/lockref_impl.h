// SPDX-License-Identifier: MIT
/*
 * lockref_impl.h - internals shared by lockref.c and lockref16.c.
 *
 * Not a public interface: the per-CPU record both forms keep (statistics
 * and the locks the CPU holds), the boot-time choices, the operations and
 * the one decision table both widths follow, and the warning hooks.  The
 * policy loop and the locked path that use them are lockref_template.h.
 */
#ifndef LIB_LOCKREF_IMPL_H
#define LIB_LOCKREF_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "lockref.h"
#include "platform.h"
#include "static_key.h"

/*
 * How many times a waiting_unlocked policy PAUSEs for a held lock before it
 * gives up and queues for the lock itself (which has its own bound).
 */
#define LOCKREF_WAIT_SPINS (1u << 16)

/*
 * One CPU's record, alone in a cache-line pair: only that CPU writes it,
 * with plain (relaxed) read-add-store, which is why it is cheap.  held[]
 * lists the lockrefs whose lock this CPU took through the interface.
 */
struct lockref_cpu {
	uint64_t lockless;
	uint64_t retries;
	uint64_t fallbacks;
	uint64_t abandoned;
	const void *held[LOCKREF_HELD_MAX];
	unsigned nheld;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

_Static_assert(sizeof(struct lockref_cpu) == CACHE_PAIR_BYTES,
	       "one CPU's record fills exactly one line pair");

extern struct lockref_cpu lockref_cpu[MAX_CPUS];

/*
 * What a plain call tries first: which compare-exchange, or none (take the
 * lock).  Fixed at boot, so the one branch on it is always predicted.
 */
enum lockref_mode {
	LOCKREF_MODE_CMPXCHG8B,
	LOCKREF_MODE_CMPXCHGQ,
	LOCKREF_MODE_CMPXCHG16B,
	LOCKREF_MODE_LOCKED,
};

/*
 * Which switches a copy of the inline first attempt reads (form_do).  LIVE
 * is every public call: the lock kind, tracing and the statistics each
 * behind its static key (patched text in the kernel, so free while off).
 * The fixed copies have them as constants (the kind named, untraced, no
 * lockless count): the native benchmark, whose text is not patched, times
 * them as what the kernel's patched default runs (lockref_fixed.h).
 */
enum lockref_copy {
	LOCKREF_COPY_LIVE,
	LOCKREF_COPY_TICKET, /* a kind whose free column is TICKET (spinlock.h) */
	LOCKREF_COPY_ZERO,   /* a kind whose free column is ZERO */
};

/*
 * On once a policy whose 8-byte first step is not CMPXCHG8B was set
 * (lockref_set_policy turns it on, and nothing turns it off): only then do
 * the plain 8-byte calls read lockref_boot.mode8.  The 16-byte calls read
 * lockref_boot.mode16 on every call, keyed or not (lib/lockref16.c).
 */
extern struct static_key lockref_mode_key;

/*
 * On while the lockless count includes the first attempt's successes
 * (lockref.h, struct lockref_stats); off by default, so the fast path
 * stores nothing.  The slow path counts whatever it does either way.
 */
extern struct static_key lockref_stats_key;

/*
 * The boot-time choices: written before other CPUs use lockrefs, only read
 * afterwards, so alone in a line pair that never bounces.
 */
struct lockref_boot {
	struct lockref_policy policy; /* what the plain calls follow */
	enum lockref_mode mode8;      /* the 8-byte form's first step under it */
	enum lockref_mode mode16;     /* the 16-byte form's: LOCKED without CMPXCHG16B */
	bool cx16;		      /* CMPXCHG16B may run (lockref16_set_cx16) */
} __attribute__((aligned(CACHE_PAIR_BYTES)));

extern struct lockref_boot lockref_boot;

/* Recompute lockref_boot's modes after its policy or cx16 changed. */
void lockref_boot_update(void);

/* The operations, as the lockless step and the locked path see them (both forms). */
enum lockref_op {
	LOCKREF_GET,
	LOCKREF_GET_NOT_ZERO,
	LOCKREF_GET_NOT_DEAD,
	LOCKREF_GET_IF_GEN,
	LOCKREF_PUT_NOT_ZERO,
	LOCKREF_PUT_RETURN,
	LOCKREF_PUT_OR_LOCK,
};

/*
 * What a step decided from a snapshot of the count: install a new count,
 * finish without changing it (a refusal, or a pinned saturated count), or
 * leave the decision to the locked path (the rare cases that warn, and
 * put_or_lock's last reference).
 */
enum lockref_step {
	LOCKREF_STEP_CHANGE,
	LOCKREF_STEP_FINISH,
	LOCKREF_STEP_LOCK,
};

/*
 * Decide @op from @count (and, for get_if_gen, whether the generation still
 * matches: @gen_ok) for a form whose count saturates at @max: either *@next
 * is the count to install and *@result what the operation returns once it
 * is, or *@result is final with nothing to install, or the locked path
 * decides.  Dead and saturated counts go to the locked path, which warns.
 */
static inline __attribute__((always_inline)) enum lockref_step
lockref_decide(enum lockref_op op, int64_t count, bool gen_ok, int64_t max, int64_t *next,
	       int64_t *result)
{
	switch (op) {
	case LOCKREF_GET:
		if (count < 0 || count == max)
			return LOCKREF_STEP_LOCK;
		*next = count + 1;
		return LOCKREF_STEP_CHANGE;
	case LOCKREF_GET_NOT_ZERO:
	case LOCKREF_GET_NOT_DEAD:
	case LOCKREF_GET_IF_GEN:
		*result = false;
		if (count < 0 || (op == LOCKREF_GET_NOT_ZERO && count == 0) || !gen_ok)
			return LOCKREF_STEP_FINISH;
		if (count == max)
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
		if (count == max)
			return LOCKREF_STEP_FINISH;
		*next = count - 1;
		return LOCKREF_STEP_CHANGE;
	case LOCKREF_PUT_RETURN:
		if (count <= 0) {
			*result = -1;
			return LOCKREF_STEP_FINISH;
		}
		if (count == max) {
			*result = count;
			return LOCKREF_STEP_FINISH;
		}
		*next = *result = count - 1;
		return LOCKREF_STEP_CHANGE;
	}
	return LOCKREF_STEP_LOCK;
}

/*
 * On every public lockless call (plain and _p, both forms): its successful
 * lockless path is straight-line, no call and no frame.  The
 * kernel keeps frame pointers for panic backtraces; a function that sets
 * up no frame and never writes %rbp only drops out of a backtrace (its
 * callees' frames link to its caller's), and tools/house/fastpath_check.py
 * checks that these functions never touch %rbp and make no call before
 * their success ret.
 */
#if defined(__clang__)
/* Clang has no per-function optimize attribute; it builds only the fuzz harnesses. */
#define LOCKREF_FAST_PATH
#else
#define LOCKREF_FAST_PATH __attribute__((optimize("omit-frame-pointer")))
#endif

/* How one operation ended, for the statistics. */
enum lockref_outcome {
	LOCKREF_DONE_LOCKLESS,
	LOCKREF_DONE_LOCKED,
	LOCKREF_DONE_ABANDONED,
};

/* The calling CPU's record: inline, as platform_cpu_id is. */
static inline struct lockref_cpu *lockref_this_cpu(void)
{
	return &lockref_cpu[platform_cpu_id()];
}

/* Account one operation on the calling CPU: how it ended, after @failed lost races. */
static inline void lockref_account(enum lockref_outcome how, unsigned failed)
{
	struct lockref_cpu *c = lockref_this_cpu();
	uint64_t *slot = how == LOCKREF_DONE_LOCKLESS ? &c->lockless
			 : how == LOCKREF_DONE_LOCKED ? &c->fallbacks
						      : &c->abandoned;

	atomic_store64_relaxed(slot, atomic_load64_relaxed(slot) + 1);
	if (failed)
		atomic_store64_relaxed(&c->retries, atomic_load64_relaxed(&c->retries) + failed);
}

/* This CPU took @ref's lock through the interface / is about to release it. */
void lockref_held_add(const void *ref);
void lockref_held_remove(const void *ref);

/* True if this CPU took @ref's lock (@lock) through the interface and still holds it. */
bool lockref_holds(const void *ref, const spinlock_t *lock);

/* Count a misuse warning about @ref of form @form ("lockref", "lockref16") and log it. */
void lockref_warn(const void *ref, const char *form, const char *what);

/* Count a saturation of @ref; only the first one since boot is logged. */
void lockref_warn_saturated(const void *ref);

#endif /* LIB_LOCKREF_IMPL_H */
