// SPDX-License-Identifier: MIT
/*
 * lockref16.h - the lockref in 16 bytes: a count that cannot overflow and a
 * generation, updated together by CMPXCHG16B.
 *
 * Why a second form: the 8-byte lockref has only 32 bits of count (so it
 * must saturate), and a lockless lookup cannot tell whether the object it
 * found still names what it looked for: a rename or unlink between the
 * lookup and the get goes unnoticed.  Sixteen bytes hold a 64-bit count, the
 * same 4-byte ticket lock, and a 32-bit generation that a lock holder bumps
 * whenever it changes what the object names.  lockref16_get_if_gen takes a
 * reference only if the generation is still the one the lookup saw, in the
 * same compare-exchange, so "still valid" and "referenced" are one atomic
 * step.  (The generation wraps after 2^32 bumps; a lookup would have to sleep
 * through all of them to be fooled.)
 *
 * CMPXCHG16B is not on every x86-64 CPU (CPUID.01H:ECX.CX16[bit 13]): the
 * kernel reports it with lockref16_set_cx16 at boot; without it, or before
 * that call, every operation takes the lock and CMPXCHG16B never executes.
 *
 * Contracts are those of lockref.h (same policies, statistics and warning
 * counter), with the differences said below.
 */
#ifndef LIB_LOCKREF16_H
#define LIB_LOCKREF16_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "lockref.h"
#include "lock_rules.h"
#include "spinlock.h"

struct lockref16 {
	union {
		atomic_u128 whole; /* the word the compare-exchange works on */
		struct {
			int64_t count;
			spinlock_t lock;
			uint32_t gen;
		};
	};
} __attribute__((aligned(16)));

_Static_assert(sizeof(struct lockref16) == 16, "lockref16 must be one 16-byte word");
_Static_assert(_Alignof(struct lockref16) == 16, "CMPXCHG16B faults on a misaligned operand");

/* The count of a dead lockref16; any negative count reads as dead. */
#define LOCKREF16_DEAD (-128)

/*
 * At boot: whether the CPU has CMPXCHG16B.  Without it every operation takes
 * the lock; the first such call logs that once.  Default: false.
 */
void lockref16_set_cx16(bool have_cx16);

/*
 * Count 1, generation 0, unlocked, its lock of @key's class (lib/lockdep.h).
 * Only for a lockref16 nobody else can see yet.  As lockref_init(_named).
 */
void lockref16_init_key(struct lockref16 *ref, struct lock_class_key *key);
#define lockref16_init(ref)		lockref16_init_key((ref), LOCKDEP_KEY(#ref))
#define lockref16_init_named(ref, name) lockref16_init_key((ref), LOCKDEP_KEY(name))

/* Take a reference unconditionally.  Dead: warns, no change. */
void lockref16_get(struct lockref16 *ref);

/* Take a reference if the count is > 0; returns true if it did. */
MUST_CHECK bool lockref16_get_not_zero(struct lockref16 *ref);

/* Take a reference if not dead (count >= 0); returns true if it did. */
MUST_CHECK bool lockref16_get_not_dead(struct lockref16 *ref);

/*
 * Take a reference only if the generation still equals @gen and the
 * lockref16 is not dead, as one atomic step.  Returns true if it did; false,
 * with nothing changed, if the generation moved on or it is dead.
 */
MUST_CHECK bool lockref16_get_if_gen(struct lockref16 *ref, uint32_t gen);

/* Drop a reference only if the count is > 1; returns true if it did.  Never holds the lock. */
MUST_CHECK bool lockref16_put_not_zero(struct lockref16 *ref);

/*
 * Lockless only: drop a reference and return the new count (>= 0), or -1
 * with nothing changed when it cannot without the lock or the count is <= 0.
 */
MUST_CHECK int64_t lockref16_put_return(struct lockref16 *ref);

/*
 * Drop a reference unless it is the last one: true if it decremented a count
 * > 1; false WITH THE LOCK HELD, count unchanged, when the count is <= 1.
 */
MUST_CHECK bool lockref16_put_or_lock(struct lockref16 *ref) TRY_ACQUIRES(false, ref->lock);

/*
 * "Caller holds the lock" is checked exactly, as in lockref.h: a CPU that
 * did not take the lock through this interface is refused (warns, no
 * change) even while another CPU holds it.
 */

/* Caller holds the lock: add one to the count; returns the new count.  Dead: warns, no change. */
int64_t lockref16_get_locked(struct lockref16 *ref) REQUIRES(ref->lock);

/* Caller holds the lock: drop one; returns the new count.  Count <= 0: warns, no change. */
int64_t lockref16_put_locked(struct lockref16 *ref) REQUIRES(ref->lock);

/*
 * Caller holds the lock: mark dead for good.  Without the lock (nobody holds
 * it, or another CPU does): warns, no change.
 */
void lockref16_mark_dead(struct lockref16 *ref) REQUIRES(ref->lock);

/*
 * Caller holds the lock: the object now names something else (rename,
 * unlink); every get_if_gen with an older generation fails from now on.
 * Returns the new generation.  Without the lock (nobody holds it, or another
 * CPU does): warns, no change, returns the current generation.
 */
uint32_t lockref16_bump_gen(struct lockref16 *ref) REQUIRES(ref->lock);

/* The current generation (a snapshot unless the caller holds the lock). */
uint32_t lockref16_gen(const struct lockref16 *ref);

/* True if dead; the count (negative if dead).  Snapshots unless the caller holds the lock. */
bool lockref16_is_dead(const struct lockref16 *ref);
int64_t lockref16_count(const struct lockref16 *ref);

/* Take the lock (returns with it held) / release the lock the caller holds. */
void lockref16_lock(struct lockref16 *ref) ACQUIRES(ref->lock);
void lockref16_unlock(struct lockref16 *ref) RELEASES(ref->lock);
/* lockref16_lock under lock subclass @subclass (lockref_lock_nested). */
void lockref16_lock_nested(struct lockref16 *ref, unsigned subclass) ACQUIRES(ref->lock);

/* Explicit-policy forms, as in lockref.h. */
void lockref16_get_p(struct lockref16 *ref, const struct lockref_policy *policy);
MUST_CHECK bool lockref16_get_not_zero_p(struct lockref16 *ref,
					 const struct lockref_policy *policy);
MUST_CHECK bool lockref16_get_not_dead_p(struct lockref16 *ref,
					 const struct lockref_policy *policy);
MUST_CHECK bool lockref16_get_if_gen_p(struct lockref16 *ref, uint32_t gen,
				       const struct lockref_policy *policy);
MUST_CHECK bool lockref16_put_not_zero_p(struct lockref16 *ref,
					 const struct lockref_policy *policy);
MUST_CHECK int64_t lockref16_put_return_p(struct lockref16 *ref,
					  const struct lockref_policy *policy);
MUST_CHECK bool lockref16_put_or_lock_p(struct lockref16 *ref, const struct lockref_policy *policy)
    TRY_ACQUIRES(false, ref->lock);

#endif /* LIB_LOCKREF16_H */
