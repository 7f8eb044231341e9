// SPDX-License-Identifier: MIT
/*
 * spinlock.c - the lock layer's switches and its one dispatch over the
 * kinds of spinlock_kinds.h's SPIN_KIND_LIST, with the debug build's owner
 * checks (spinlock_debug.h), lockdep's hooks and the trace events of
 * docs/tracing.md.  The kinds are peers, a header each (spinlock_ticket.h,
 * the default; qspinlock.h; spinlock_tas.h); what the list adds beside the
 * dispatch (checks, traced copies, kind switches) is spinlock_kinds.c.
 *
 * The switch word of spinlock.h is written here, and each entry point
 * dispatches on it over every kind (SPIN_LOCK_CASES, SPIN_UNLOCK_CASES,
 * SPIN_TRYLOCK_CASE): the kind's body inline with @traced false, without a
 * trace hook, or its traced copy out of line.  Each entry point has one
 * hook point for checks common to every kind (spinlock_debug.h, lockdep):
 * before the lock is taken, once it is held, and before it is released.
 */
#include "spinlock.h"

#include "atomic.h"
#include "lockdep.h"
#include "platform.h"
#include "spinlock_debug.h"
#include "spinlock_wait.h"
#include "trace.h"

/* The kinds' functions: spinlock_kinds.h names them and includes their headers. */
#define SPIN_KIND_BODIES
#include "spinlock_kinds.h"

struct spin_switches spin_switches;
struct static_key spin_switched_key = STATIC_KEY_INIT("spinlock.switched");
struct static_key spin_kinds_key = STATIC_KEY_INIT("spinlock.kinds");

/* A compare-exchange, as the tracer may set its bit at any time. */
bool spin_mode_write(uint8_t mask, uint8_t value)
{
	uint8_t old = atomic_load8(&spin_switches.mode);

	if (value && !static_key_enable(&spin_switched_key))
		return false;

	while (!atomic_cmpxchg8(&spin_switches.mode, &old, (uint8_t)((old & ~mask) | value)))
		;
	return true;
}

static bool spin_mode_update(uint8_t bits, bool on)
{
	return spin_mode_write(bits, on ? bits : 0);
}

unsigned spin_keys_at_default(struct static_key *out[])
{
	uint8_t mode = atomic_load8(&spin_switches.mode);
	unsigned n = 0;

	if (mode == 0 && atomic_load8(&spin_switches.pv) == SPIN_PV_OFF)
		out[n++] = &spin_switched_key;
	if ((mode & SPIN_MODE_KIND) == SPIN_KIND_TICKET)
		out[n++] = &spin_kinds_key;
	return n;
}

void spin_keys_settle(void)
{
	struct static_key *keys[2];
	unsigned n = spin_keys_at_default(keys), todo = 0;

	for (unsigned i = 0; i < n; i++)
		if (keys[i]->enabled)
			keys[todo++] = keys[i];
	if (todo)
		(void)static_keys_set(keys, todo, false, ""); /* refused: its line said why */
}

void spin_trace_set(bool traced)
{
	(void)spin_mode_update(SPIN_MODE_TRACED, traced); /* refused: the key's line said why */
}

void spin_check_set(bool on)
{
	(void)spin_mode_update(SPIN_MODE_CHECKED, on); /* refused: the key's line said why */
}

void spin_init_key(spinlock_t *lock, struct lock_class_key *key)
{
	atomic_store32(&lock->val, 0);
	trace_ev(TR_SPIN_INIT, lock, 0);
	if (spin_mode() & SPIN_MODE_CHECKED)
		lockdep_init_lock(lock, key);
}

unsigned spin_value_waiters(spinlock_t copy)
{
	switch (spin_kind()) {
#define SPIN_KIND_WAITERS(name, ID, prefix)                                                        \
	case SPIN_KIND_##ID:                                                                       \
		return prefix##_value_waiters(copy);
		SPIN_KIND_LIST(SPIN_KIND_WAITERS)
#undef SPIN_KIND_WAITERS
	default:
		return 0;
	}
}

static void spin_lock_checked(spinlock_t *lock, unsigned mode, unsigned subclass, uintptr_t site);
static void spin_unlock_checked(spinlock_t *lock, unsigned mode, uintptr_t site);

/*
 * The one dispatch of lock and unlock: two cases per kind, the body inline
 * without a trace hook (mode = the kind) and its traced copy (the kind |
 * SPIN_MODE_TRACED), so the common case makes no call.  The default kind
 * untraced (mode 0) is the expected case, so it costs one test of the
 * mode byte; any mode with SPIN_MODE_CHECKED set is the default case
 * (lock orders checked, then this dispatch again without the bit).
 */
#define SPIN_OP_CASES(op, ID, prefix)                                                              \
	case SPIN_KIND_##ID:                                                                       \
		prefix##_##op##_body(l, false);                                                    \
		break;                                                                             \
	case SPIN_KIND_##ID | SPIN_MODE_TRACED:                                                    \
		prefix##_##op##_traced(l);                                                         \
		break;
#define SPIN_LOCK_CASES(name, ID, prefix)   SPIN_OP_CASES(lock, ID, prefix)
#define SPIN_UNLOCK_CASES(name, ID, prefix) SPIN_OP_CASES(unlock, ID, prefix)

static inline __attribute__((always_inline)) void spin_lock_kinds(spinlock_t *l, unsigned mode,
								  unsigned subclass, uintptr_t site)
{
	switch (__builtin_expect(mode, 0)) {
		SPIN_KIND_LIST(SPIN_LOCK_CASES)
	default:
		spin_lock_checked(l, mode, subclass, site);
	}
}

static inline __attribute__((always_inline)) void spin_unlock_kinds(spinlock_t *l, unsigned mode,
								    uintptr_t site)
{
	switch (__builtin_expect(mode, 0)) {
		SPIN_KIND_LIST(SPIN_UNLOCK_CASES)
	default:
		spin_unlock_checked(l, mode, site);
	}
}

/*
 * The dispatch's default case: SPIN_MODE_CHECKED is set in @mode (every
 * mode without it has a case of its own).  Out of line: the checker
 * first, before any wait, so that it reports a deadlock before it happens;
 * then the kind's body as the entry point would run it.  @site is the
 * acquisition's code address.
 */
static __attribute__((noinline)) void spin_lock_checked(spinlock_t *lock, unsigned mode,
							unsigned subclass, uintptr_t site)
{
	lockdep_acquire(lock, subclass, false, site);
	spin_lock_kinds(lock, mode & ~SPIN_MODE_CHECKED, subclass, site);
}

static __attribute__((noinline)) void spin_unlock_checked(spinlock_t *lock, unsigned mode,
							  uintptr_t site)
{
	lockdep_release(lock, site);
	spin_unlock_kinds(lock, mode & ~SPIN_MODE_CHECKED, site);
	/* Only now may a report kept under the print lock take it (lockdep_released). */
	lockdep_released(lock);
}

/*
 * Exempt from the lock rules: this is the lock itself, taken by a locked
 * instruction the analysis cannot see.  The mode is read before that
 * instruction: after it, the load waited for the locked instruction and
 * made every uncontended acquisition slower (tools/trace/trace_cost.py measured
 * it).  The spin_debug_* calls are the hook points common to both kinds.
 */
LOCK_RULES_EXEMPT("the lock itself") void spin_lock(spinlock_t *lock)
{
	unsigned mode = spin_mode();

	spin_debug_before_lock(lock);
	spin_lock_kinds(lock, mode, 0, LOCKDEP_SITE());
	spin_debug_acquired(lock);
}

/* spin_lock with a declared subclass, from @site (lockref passes its own caller's). */
LOCK_RULES_EXEMPT("the lock itself")
void spin_lock_at(spinlock_t *lock, unsigned subclass, uintptr_t site)
{
	unsigned mode = spin_mode();

	spin_debug_before_lock(lock);
	spin_lock_kinds(lock, mode, subclass, site);
	spin_debug_acquired(lock);
}

LOCK_RULES_EXEMPT("the lock itself") void spin_lock_nested(spinlock_t *lock, unsigned subclass)
{
	spin_lock_at(lock, subclass, LOCKDEP_SITE());
}

LOCK_RULES_EXEMPT("the lock itself") void spin_unlock_at(spinlock_t *lock, uintptr_t site)
{
	unsigned mode = spin_mode();

	spin_debug_release(lock);
	spin_unlock_kinds(lock, mode, site);
}

LOCK_RULES_EXEMPT("the lock itself") void spin_unlock(spinlock_t *lock)
{
	unsigned mode = spin_mode();

	spin_debug_release(lock);
	spin_unlock_kinds(lock, mode, LOCKDEP_SITE());
}

/* Not on a hot path: the bodies inline with @traced read at run time. */
LOCK_RULES_EXEMPT("the lock itself") bool spin_trylock(spinlock_t *lock)
{
	unsigned mode = spin_mode();
	bool traced = mode & SPIN_MODE_TRACED, taken;

	switch (mode & SPIN_MODE_KIND) {
#define SPIN_TRYLOCK_CASE(name, ID, prefix)                                                        \
	case SPIN_KIND_##ID:                                                                       \
		taken = prefix##_trylock_body(lock, traced);                                       \
		break;
		SPIN_KIND_LIST(SPIN_TRYLOCK_CASE)
#undef SPIN_TRYLOCK_CASE
	default:
		taken = false; /* no such kind: spin_kind_set stores only the list's */
	}
	if (!taken)
		return false;
	/* A trylock never waits: onto the checker's stack, with no order. */
	if (mode & SPIN_MODE_CHECKED)
		lockdep_acquire(lock, 0, true, LOCKDEP_SITE());
	spin_debug_acquired(lock);
	return true;
}

bool spin_is_locked(const spinlock_t *lock)
{
	spinlock_t copy = {.val = atomic_load32(&lock->val)};

	return !spin_value_unlocked(copy);
}
