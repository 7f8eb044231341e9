// SPDX-License-Identifier: MIT
/*
 * lockref.h - a spinlock and a reference count in one 8-byte word.
 *
 * The design of Linux 3.12's lockref (Waiman Long, reworked by Linus
 * Torvalds): an object such as a directory entry has a lock that guards its
 * fields and a count of references to it.  A holder of the lock must see the
 * count stand still, so the count cannot be a separate atomic counter; but
 * taking the lock just to add or drop a reference makes the lock the hottest
 * line in the system.  Packing the 4-byte ticket lock and a 32-bit count into
 * one aligned 64-bit word lets a CPU change the count with one locked
 * compare-exchange of the whole word, valid only while the lock half reads
 * "free": if anybody takes the lock meanwhile the exchange fails, so a lock
 * holder's count never moves under it.  When the lock is held (or the
 * exchange keeps losing races) the operation falls back to taking the lock.
 *
 * How hard it tries locklessly, and with which compare-exchange instruction
 * (CMPXCHG8B or REX.W CMPXCHG), is a policy (struct lockref_policy), chosen
 * once at boot; every operation also has an _p form that takes the policy
 * explicitly so one boot can benchmark them all side by side.  The first
 * lockless attempt, which succeeds whenever nobody else is at the object,
 * reads nothing of the policy but its instruction.
 *
 * Count states: >= 0 live (0 = nobody holds a reference, the object may
 * still be cached), LOCKREF_DEAD (negative) once the object is being torn
 * down, LOCKREF_COUNT_MAX = saturated.  A saturated count is pinned for good:
 * gets and puts leave it alone, so a reference leak leaks the object instead
 * of freeing it while still in use.  Misuse (a get on a dead lockref, a put
 * below zero, saturation, marking dead without the lock) never corrupts the
 * count: it is refused, counted in lockref_warnings() and logged through
 * platform_log (rate-limited).
 *
 * Concurrency: every function may be called from any CPU at any time except
 * where it says "caller holds the lock" or "at boot".  Functions that do not
 * return with the lock held never leave it held.
 */
#ifndef LIB_LOCKREF_H
#define LIB_LOCKREF_H

#include <stdbool.h>
#include <stdint.h>

#include "lock_rules.h"
#include "spinlock.h"

struct lockref {
	union {
		uint64_t lock_count; /* the word the compare-exchange works on */
		struct {
			spinlock_t lock;
			int32_t count;
		};
	};
} __attribute__((aligned(8)));

_Static_assert(sizeof(struct lockref) == 8, "lockref must be one 8-byte word");
_Static_assert(_Alignof(struct lockref) == 8, "lockref must be 8-aligned (no split lines)");

/* The count of a dead lockref (Linux uses the same value); any negative count reads as dead. */
#define LOCKREF_DEAD (-128)
/* A count that reaches this saturates and stays there. */
#define LOCKREF_COUNT_MAX INT32_MAX
/* The most lockless attempts a policy may ask for (keeps every wait bounded). */
#define LOCKREF_RETRIES_MAX 1000u
/* The most lockref locks (both forms together) one CPU may hold at once. */
#define LOCKREF_HELD_MAX 8

/* The instruction behind the 8-byte lockref's compare-exchange (lockref.cas=). */
enum lockref_cas {
	LOCKREF_CAS_CMPXCHG8B, /* the design's choice, and Linux's on 32-bit x86 */
	LOCKREF_CAS_CMPXCHGQ,  /* REX.W CMPXCHG, Linux's on x86-64 */
};

/*
 * How an operation tries to change the count without the lock.
 *
 * retries        lockless compare-exchange attempts before taking the lock;
 *                0 means always take the lock (the pre-lockref baseline).
 * wait_unlocked  false (mainline Linux): a held lock sends the caller straight
 *                to the lock, and failed attempts retry at once, no PAUSE.
 *                true (Waiman Long's v7): before an attempt, spin with PAUSE
 *                until the lock is free (bounded, then take the lock), and
 *                PAUSE after a failed attempt.
 * cas            the 8-byte form's instruction; the 16-byte form always uses
 *                CMPXCHG16B and ignores it.
 *
 * A lockless attempt that succeeds reads none of these: they steer only
 * what happens once the lock is seen held or an exchange fails.
 */
struct lockref_policy {
	const char *name;
	unsigned retries;
	bool wait_unlocked;
	enum lockref_cas cas;
};

/* Mainline Linux (the default): up to 100 attempts, no PAUSE, held lock => take the lock. */
extern const struct lockref_policy lockref_policy_mainline;
/* Waiman Long's v7: wait (PAUSE) until the lock is free, then up to 4 attempts. */
extern const struct lockref_policy lockref_policy_v7;
/* Always take the lock: the pre-lockref baseline. */
extern const struct lockref_policy lockref_policy_locked;

/*
 * Copy the preset named @name ("mainline", "v7" or "locked") into *@out.
 * Returns false, leaving *@out alone, for any other name.  The caller may
 * then override retries, wait_unlocked and cas (lockref.retries=,
 * lockref.wait=, lockref.cas=).
 */
bool lockref_policy_by_name(const char *name, struct lockref_policy *out);

/*
 * At boot, before any other CPU uses a lockref: make *@policy the one the
 * plain (non-_p) operations use.  Returns false and keeps the old policy,
 * with a log line saying why, if retries > LOCKREF_RETRIES_MAX.
 * The default, before any call, is lockref_policy_mainline.
 */
bool lockref_set_policy(const struct lockref_policy *policy);

/* The policy the plain operations use. */
const struct lockref_policy *lockref_get_policy(void);

/*
 * Count 1, unlocked, its lock of @key's class (lib/lockdep.h).  Only for a
 * lockref nobody else can see yet.  lockref_init names the class after the
 * argument's text at the call site, lockref_init_named after @name.
 */
void lockref_init_key(struct lockref *ref, struct lock_class_key *key);
#define lockref_init(ref)	      lockref_init_key((ref), LOCKDEP_KEY(#ref))
#define lockref_init_named(ref, name) lockref_init_key((ref), LOCKDEP_KEY(name))

/*
 * Take a reference unconditionally.  On a dead lockref: warns, no change.
 * On a saturated count: stays saturated, warns (once).
 */
void lockref_get(struct lockref *ref);

/* Take a reference if the count is > 0; returns true if it did (or the count is saturated). */
MUST_CHECK bool lockref_get_not_zero(struct lockref *ref);

/* Take a reference if the lockref is not dead (count >= 0); returns true if it did. */
MUST_CHECK bool lockref_get_not_dead(struct lockref *ref);

/*
 * Drop a reference only if the count stays > 0, i.e. it is > 1 now.  Returns
 * true if it dropped one (or the count is saturated); false, with nothing
 * changed and the lock not held, when the count is <= 1 or dead.
 */
MUST_CHECK bool lockref_put_not_zero(struct lockref *ref);

/*
 * Lockless only: drop a reference and return the new count (>= 0), or
 * return -1 with nothing changed when that cannot be done without the lock
 * (lock held, too many lost races, the policy is "locked") or the count is
 * <= 0.  Never takes the lock, so the statistics count a -1 of the first
 * kind as abandoned, never as a fallback.  After -1 the caller takes the
 * lock and decides (lockref_put_locked warns about a put below zero).
 */
MUST_CHECK int lockref_put_return(struct lockref *ref);

/*
 * Drop a reference unless it is the last one.  Returns true if it
 * decremented a count > 1 (lock not held).  Returns false WITH THE LOCK HELD,
 * count unchanged, when the count is <= 1 (or dead): the caller decides
 * under the lock what the last reference means, then unlocks.
 */
MUST_CHECK bool lockref_put_or_lock(struct lockref *ref) TRY_ACQUIRES(false, ref->lock);

/*
 * "Caller holds the lock" below is checked exactly, in every build: each
 * CPU keeps a short list of the lockrefs whose lock it took through this
 * interface (lockref_lock, a put_or_lock that returned false, and the same
 * calls of lockref16.h), so a CPU that does not hold the lock is refused
 * even while another CPU holds it.  The list is written only on those
 * locked paths, never on the lockless ones.  A lock taken any other way
 * (spin_lock on ref->lock) does not count as held.
 */

/*
 * Caller holds the lock: add one to the count.  Returns the new count.
 * Dead: warns, no change.  Saturated: stays, warns (once).  Without the
 * lock: warns, no change, returns the count.
 */
int lockref_get_locked(struct lockref *ref) REQUIRES(ref->lock);

/*
 * Caller holds the lock: drop one reference.  Returns the new count.  A put
 * below zero (count <= 0, including dead) warns and changes nothing, and so
 * does a call without the lock.
 */
int lockref_put_locked(struct lockref *ref) REQUIRES(ref->lock);

/*
 * Caller holds the lock: mark the lockref dead (count = LOCKREF_DEAD), after
 * which no get succeeds and nothing revives it.  Without the lock (nobody
 * holds it, or another CPU does) it warns and changes nothing: a plain
 * store could lose a racing update.
 */
void lockref_mark_dead(struct lockref *ref) REQUIRES(ref->lock);

/* True if the lockref is dead.  A snapshot unless the caller holds the lock. */
bool lockref_is_dead(const struct lockref *ref);

/* The count (negative if dead).  A snapshot unless the caller holds the lock. */
int lockref_count(const struct lockref *ref);

/*
 * Take the lock; returns with it held.  The count stands still until
 * lockref_unlock.  Panics if this CPU already holds LOCKREF_HELD_MAX
 * lockref locks (of either form).
 */
void lockref_lock(struct lockref *ref) ACQUIRES(ref->lock);

/* Release the lock the caller holds. */
void lockref_unlock(struct lockref *ref) RELEASES(ref->lock);

/* lockref_lock under lock subclass @subclass: a lock of a class the caller holds (spin_lock_nested). */
void lockref_lock_nested(struct lockref *ref, unsigned subclass) ACQUIRES(ref->lock);

/*
 * The same operations with an explicit policy instead of the boot one, for
 * benchmarks and the torture test.  @policy must satisfy the same limits as
 * for lockref_set_policy.
 */
void lockref_get_p(struct lockref *ref, const struct lockref_policy *policy);
MUST_CHECK bool lockref_get_not_zero_p(struct lockref *ref, const struct lockref_policy *policy);
MUST_CHECK bool lockref_get_not_dead_p(struct lockref *ref, const struct lockref_policy *policy);
MUST_CHECK bool lockref_put_not_zero_p(struct lockref *ref, const struct lockref_policy *policy);
MUST_CHECK int lockref_put_return_p(struct lockref *ref, const struct lockref_policy *policy);
MUST_CHECK bool lockref_put_or_lock_p(struct lockref *ref, const struct lockref_policy *policy)
    TRY_ACQUIRES(false, ref->lock);

/*
 * Telemetry, per CPU (each CPU writes only its own cache-line pair, so no
 * line bounces), for both the 8- and the 16-byte forms:
 *   lockless   operations finished without the lock (including refusals
 *              decided from an unlocked snapshot)
 *   retries    compare-exchanges that failed (lost a race)
 *   fallbacks  operations that took the lock (the "locked" policy: all)
 *   abandoned  put_return calls that gave up (-1) without taking the lock
 * While lockref_stats_count_all() is in force every operation counts once
 * in lockless, fallbacks or abandoned.  Before it (the default) the
 * lockless path stores nothing: an operation whose first attempt succeeds
 * is not counted, the rest are (retries, fallbacks, abandoned, and the
 * lockless successes of the slow path), so a report of all lockless
 * operations either calls it first or derives them from its own count of
 * calls (calls - fallbacks - abandoned).
 */
struct lockref_stats {
	uint64_t lockless;
	uint64_t retries;
	uint64_t fallbacks;
	uint64_t abandoned;
};

/* Sum of every CPU's counters into *@out (a snapshot while CPUs run). */
void lockref_stats_sum(struct lockref_stats *out);

/* CPU @cpu's counters into *@out; zeros for cpu >= MAX_CPUS. */
void lockref_stats_cpu(unsigned cpu, struct lockref_stats *out);

/*
 * Count the first attempt's successes in lockless too, from now on (a
 * static key, lib/static_key.h): returns false, with a line saying why, if
 * the platform refused.  lockref_stats_count_first() goes back to the
 * default, where the lockless path stores nothing; both may race with
 * running operations, which are then counted or not.
 */
bool lockref_stats_count_all(void);
bool lockref_stats_count_first(void);

/*
 * Append to @out the lockref's keys a bare lock path turns off: the
 * policy's while the boot policy's first step is the default's, and the
 * lockless count's (lockref_stats_count_all is undone by turning it off;
 * the lockref torture and the pathwalk benchmark turn it on again
 * themselves).  Returns how many; at most 2.
 */
unsigned lockref_keys_bare(struct static_key *out[]);

/* Zero every CPU's counters.  Call while no lockref operation runs, or counts may be lost. */
void lockref_stats_reset(void);

/* Number of misuse warnings (both forms) since boot; tests require 0. */
uint64_t lockref_warnings(void);

#endif /* LIB_LOCKREF_H */
