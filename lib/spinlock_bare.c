// SPDX-License-Identifier: MIT
/*
 * spinlock_bare.c - each lock kind's spin_lock and spin_unlock as a build
 * with that kind alone would have them: the kind's body with @traced
 * false, called directly, with no dispatch on the switch word and no
 * lock-order check, only the debug build's owner checks every entry point
 * has.  <prefix>_lock_bare and <prefix>_unlock_bare: each kind's header
 * declares its pair by name (ticket_lock_bare in spinlock_ticket.h,
 * qspin_lock_bare in qspinlock.h, tas_lock_bare in spinlock_tas.h), so
 * grep finds them, and a declaration missing fails this build naming it.
 *
 * Why: in the kernel every switch sits behind a static key, patched text
 * that costs nothing while the switch is at its default; the native
 * benchmark cannot patch its text, so there spin_lock reads the switch
 * word and dispatches.  The lockref rows time copies built with their
 * switches constant (lockref_fixed.h); the lock rows a ratio divides by
 * (spinlock, qspinlock, tas and their pv forms) time these, so that no
 * ratio leans either way (bench/bench_ref.c).  A kind with paravirtual
 * waiting still reads the pv mode inside its body: that is its algorithm
 * (arming changes it while the lock runs), not a dispatch.
 */
#include "spinlock.h"

#include "spinlock_debug.h"

/* The kinds' functions: spinlock_kinds.h names them and includes their headers. */
#define SPIN_KIND_BODIES
#include "spinlock_kinds.h"

/* Exempt from the lock rules as spin_lock is: the lock itself. */
#define SPIN_KIND_BARE(name, ID, prefix)                                                           \
	extern __typeof__(prefix##_lock_bare) prefix##_lock_bare;                                  \
	extern __typeof__(prefix##_unlock_bare) prefix##_unlock_bare;                              \
	LOCK_RULES_EXEMPT("the lock itself") void prefix##_lock_bare(spinlock_t *lock)             \
	{                                                                                          \
		spin_debug_before_lock(lock);                                                      \
		prefix##_lock_body(lock, false);                                                   \
		spin_debug_acquired(lock);                                                         \
	}                                                                                          \
	LOCK_RULES_EXEMPT("the lock itself") void prefix##_unlock_bare(spinlock_t *lock)           \
	{                                                                                          \
		spin_debug_release(lock);                                                          \
		prefix##_unlock_body(lock, false);                                                 \
	}
SPIN_KIND_LIST(SPIN_KIND_BARE)
#undef SPIN_KIND_BARE
