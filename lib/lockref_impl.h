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

/*
 * The presets' values, defined once.  lockref.c makes the public objects of
 * them; the static copies below let each file's compiler see the values and
 * specialise an inline body to them.
 */
#define LOCKREF_POLICY_MAINLINE_INIT                                                               \
	{                                                                                          \
		.name = "mainline", .retries = 100, .wait_unlocked = false                         \
	}
#define LOCKREF_POLICY_V7_INIT                                                                     \
	{                                                                                          \
		.name = "v7", .retries = 4, .wait_unlocked = true                                  \
	}
#define LOCKREF_POLICY_LOCKED_INIT                                                                 \
	{                                                                                          \
		.name = "locked", .retries = 0, .wait_unlocked = false                             \
	}

static const struct lockref_policy lockref_preset_mainline = LOCKREF_POLICY_MAINLINE_INIT;
static const struct lockref_policy lockref_preset_v7 = LOCKREF_POLICY_V7_INIT;
static const struct lockref_policy lockref_preset_locked = LOCKREF_POLICY_LOCKED_INIT;

/* Which preset the boot policy behaves as (OTHER: none, e.g. after a retries override). */
enum lockref_preset {
	LOCKREF_PRESET_MAINLINE,
	LOCKREF_PRESET_V7,
	LOCKREF_PRESET_LOCKED,
	LOCKREF_PRESET_OTHER,
};

/*
 * The boot-time choices: written before other CPUs use lockrefs, only read
 * afterwards, so alone in a line pair that never bounces.
 */
struct lockref_boot {
	struct lockref_policy policy; /* what the plain calls follow */
	enum lockref_preset preset;   /* the preset that policy is, if any */
	enum lockref_preset preset16; /* the same for lockref16: LOCKED without CMPXCHG16B */
	bool cx16;		      /* CMPXCHG16B may run (lockref16_set_cx16) */
} __attribute__((aligned(CACHE_PAIR_BYTES)));

extern struct lockref_boot lockref_boot;

/* Recompute lockref_boot's presets after its policy or cx16 changed. */
void lockref_boot_update(void);

/*
 * Call fn(args..., policy) with the boot policy.  When it is a preset, the
 * preset's constant is passed instead, so the compiler specialises the
 * inline body to it: a plain call costs what a hard-coded policy would, plus
 * one well-predicted branch on @preset.
 */
#define LOCKREF_BOOT_CALL(preset, fn, ...)                                                         \
	((preset) == LOCKREF_PRESET_MAINLINE ? fn(__VA_ARGS__, &lockref_preset_mainline)           \
	 : (preset) == LOCKREF_PRESET_V7     ? fn(__VA_ARGS__, &lockref_preset_v7)                 \
	 : (preset) == LOCKREF_PRESET_LOCKED ? fn(__VA_ARGS__, &lockref_preset_locked)             \
					     : fn(__VA_ARGS__, &lockref_boot.policy))

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
