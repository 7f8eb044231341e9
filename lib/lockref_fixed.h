// SPDX-License-Identifier: MIT
/*
 * lockref_fixed.h - copies of the lockref's get and put_or_lock with the
 * lock layer's switches as constants, for the native benchmark.
 *
 * Why: in the kernel every switch on the lockless path (tracing, the lock
 * kind, the statistics) sits behind a static key, patched text that costs
 * nothing while the switch is at its default (lib/static_key.h).  A host
 * program cannot patch its text, so there each key is a load; the native
 * benchmark therefore times these copies, built from the same template
 * with the kind named here, no trace hook and no lockless count, which is
 * exactly what the kernel's patched default runs.  Their slow paths are
 * the live ones (they read the switches, count the retries, fallbacks and
 * slow-path successes), so the caller must have the lock layer switched
 * to the kind it calls (spin_kind_set) and tracing off.  The first
 * attempt's successes are not counted: a caller that reports lockless
 * counts derives them (its calls less the fallbacks and abandoned ones).
 */
#ifndef LIB_LOCKREF_FIXED_H
#define LIB_LOCKREF_FIXED_H

#include <stdbool.h>

#include "lockref.h"
#include "lockref16.h"

/* lockref_get_p and lockref_put_or_lock_p for the kinds whose free column is TICKET. */
void lockref_get_fixed(struct lockref *ref, const struct lockref_policy *policy);
MUST_CHECK bool lockref_put_or_lock_fixed(struct lockref *ref, const struct lockref_policy *policy)
    TRY_ACQUIRES(false, ref->lock);

/* The copies of the kinds whose free word is 0 (spinlock.h's free column ZERO). */
void lockref_get_fixed_zero(struct lockref *ref, const struct lockref_policy *policy);
MUST_CHECK bool lockref_put_or_lock_fixed_zero(struct lockref *ref,
					       const struct lockref_policy *policy)
    TRY_ACQUIRES(false, ref->lock);

/* The 16-byte form's, ticket kind, CMPXCHG16B (the caller checked the CPU has it). */
void lockref16_get_fixed(struct lockref16 *ref, const struct lockref_policy *policy);
MUST_CHECK bool lockref16_put_or_lock_fixed(struct lockref16 *ref,
					    const struct lockref_policy *policy)
    TRY_ACQUIRES(false, ref->lock);

#endif /* LIB_LOCKREF_FIXED_H */
