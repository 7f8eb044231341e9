/*
 * lockref_impl.h - internals shared by lockref.c and lockref16.c.
 *
 * Not a public interface: the per-CPU statistics both forms update on every
 * operation, the warning hooks, and the lockless step outcome.  Kept in a
 * header so both forms count and warn the same way.
 */
#ifndef LIB_LOCKREF_IMPL_H
#define LIB_LOCKREF_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "lockref.h"
#include "platform.h"

/*
 * How many times a waiting_unlocked policy PAUSEs for a held lock before it
 * gives up and queues for the lock itself (which has its own bound).
 */
#define LOCKREF_WAIT_SPINS (1u << 16)

/*
 * One CPU's counters, alone in a cache-line pair: only that CPU writes them,
 * with plain (relaxed) read-add-store, which is why they are cheap.
 */
struct lockref_cpu_stats {
	uint64_t lockless;
	uint64_t retries;
	uint64_t fallbacks;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

_Static_assert(sizeof(struct lockref_cpu_stats) == CACHE_PAIR_BYTES,
	       "one CPU's counters fill exactly one line pair");

extern struct lockref_cpu_stats lockref_cpu_stats[MAX_CPUS];

/* The policy of the plain operations (lockref_set_policy), read directly by both forms. */
extern struct lockref_policy lockref_boot_policy;

/*
 * What a lockless step decided from an unlocked snapshot of the count:
 * install a new count, finish without changing it (a refusal, or a pinned
 * saturated count), or leave the decision to the locked path (the rare
 * cases that warn, and put_or_lock's last reference).
 */
enum lockref_step {
	LOCKREF_STEP_CHANGE,
	LOCKREF_STEP_FINISH,
	LOCKREF_STEP_LOCK,
};

/* Account one operation on the calling CPU: done @lockless or not, after @failed lost races. */
static inline void lockref_account(bool lockless, unsigned failed)
{
	struct lockref_cpu_stats *s = &lockref_cpu_stats[platform_cpu_id()];
	uint64_t *slot = lockless ? &s->lockless : &s->fallbacks;

	atomic_store64_relaxed(slot, atomic_load64_relaxed(slot) + 1);
	if (failed)
		atomic_store64_relaxed(&s->retries, atomic_load64_relaxed(&s->retries) + failed);
}

/* Count a misuse warning about @ref and log it (rate-limited). */
void lockref_warn(const void *ref, const char *what);

/* Count a saturation of @ref; only the first one since boot is logged. */
void lockref_warn_saturated(const void *ref);

#endif /* LIB_LOCKREF_IMPL_H */
