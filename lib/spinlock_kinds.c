// SPDX-License-Identifier: MIT
/*
 * spinlock_kinds.c - what the kind list of spinlock_kinds.h makes, apart
 * from the dispatch (spinlock.c): each line's checks, each kind's traced
 * copies, and the switch of every lock from one kind to another.
 *
 * Why apart: a kind is a peer of the others, its header beside theirs
 * (spinlock_ticket.h, qspinlock.h, spinlock_tas.h); spinlock.c holds only
 * the switches and the one dispatch over every kind, and this file what
 * each line of the list adds to the build.
 */
#include "spinlock.h"

#include "atomic.h"
#include "platform.h"

/* The kinds' functions: spinlock_kinds.h names them and includes their headers. */
#define SPIN_KIND_BODIES
#include "spinlock_kinds.h"

/*
 * Each line of SPIN_KIND_LIST checked whole, naming the kind, instead of a
 * lock that does nothing at boot: an empty prefix and a kind number the
 * mode byte cannot hold by static assertions; a kind with no row of
 * spin_kind_props, or a property left out of it (its enum's 0), by a call
 * the optimiser removes unless the row lacks it, to a function declared
 * with __attribute__((error)) (Linux's compiletime_assert does the same):
 * the table is a const object, not a constant expression.  Those calls
 * sit in spin_kind_<ID>_checked, which each kind's traced lock copy below
 * calls (no code is left of it).  Every build of this file optimises;
 * without it (-O0) only the static assertions run.
 */
#define SPIN_KIND_REQUIRE(kind, column, value)                                                     \
	_Static_assert(sizeof(#value) > 1,                                                         \
		       "spinlock kind '" #kind "': " column                                        \
		       " missing from its SPIN_KIND_LIST line (lib/spinlock_kinds.h)")
#ifdef __OPTIMIZE__
#define SPIN_KIND_PROP_REQUIRE(kind, ID, property)                                                 \
	do {                                                                                       \
		extern void spin_kind_##kind##_lacks_##property(void) __attribute__((              \
		    error("spinlock kind '" #kind "': ." #property                                 \
			  " missing from its row of spin_kind_props (lib/spinlock_kinds.h)")));    \
		if (spin_kind_props[SPIN_KIND_##ID].property == 0)                                 \
			spin_kind_##kind##_lacks_##property();                                     \
	} while (0)
#else
#define SPIN_KIND_PROP_REQUIRE(kind, ID, property) (void)0
#endif
#define SPIN_KIND_CHECK(kind, ID, prefix)                                                          \
	SPIN_KIND_REQUIRE(kind, "the function prefix", prefix);                                    \
	_Static_assert(SPIN_KIND_##ID <= SPIN_MODE_KIND,                                           \
		       "spinlock kind '" #kind "': its number does not fit SPIN_MODE_KIND, the "   \
		       "kind field of spin_switches.mode (lib/spinlock.h)");                       \
	static inline __attribute__((always_inline, unused)) void spin_kind_##ID##_checked(void)   \
	{                                                                                          \
		SPIN_KIND_PROP_REQUIRE(kind, ID, free);                                            \
		SPIN_KIND_PROP_REQUIRE(kind, ID, fifo);                                            \
		SPIN_KIND_PROP_REQUIRE(kind, ID, fairness);                                        \
		SPIN_KIND_PROP_REQUIRE(kind, ID, pv);                                              \
	}

SPIN_KIND_LIST(SPIN_KIND_CHECK)
#undef SPIN_KIND_CHECK

/*
 * Each kind's traced copies, out of line: <prefix>_lock_traced and
 * <prefix>_unlock_traced run its bodies with @traced true.  The kind's
 * header declares them by name (ticket_lock_traced in spinlock_ticket.h,
 * qspin_lock_traced in qspinlock.h, tas_lock_traced in spinlock_tas.h), so
 * grep finds them; a declaration missing fails the build here naming it.
 */
#define SPIN_KIND_TRACED(name, ID, prefix)                                                         \
	extern __typeof__(prefix##_lock_traced) prefix##_lock_traced;                              \
	extern __typeof__(prefix##_unlock_traced) prefix##_unlock_traced;                          \
	__attribute__((noinline)) void prefix##_lock_traced(spinlock_t *l)                         \
	{                                                                                          \
		spin_kind_##ID##_checked(); /* no code: the row's checks above */                  \
		prefix##_lock_body(l, true);                                                       \
	}                                                                                          \
	__attribute__((noinline)) void prefix##_unlock_traced(spinlock_t *l)                       \
	{                                                                                          \
		prefix##_unlock_body(l, true);                                                     \
	}
SPIN_KIND_LIST(SPIN_KIND_TRACED)
#undef SPIN_KIND_TRACED

/* The locks that outlive a kind switch (spin_init_global); written by CPU 0 at boot. */
static spinlock_t *spin_globals[SPIN_GLOBALS_MAX];
static unsigned spin_nglobals;

void spin_init_global_key(spinlock_t *lock, struct lock_class_key *key)
{
	spin_init_key(lock, key);
	for (unsigned i = 0; i < spin_nglobals; i++)
		if (spin_globals[i] == lock)
			return;
	if (spin_nglobals == SPIN_GLOBALS_MAX)
		platform_panic("spinlock %p: more than %u locks outlive kind switches "
			       "(SPIN_GLOBALS_MAX)",
			       (void *)lock, SPIN_GLOBALS_MAX);
	spin_globals[spin_nglobals++] = lock;
}

void spin_kind_set(enum spin_kind kind)
{
	if (kind == spin_kind() || kind >= SPIN_KINDS)
		return;
	for (unsigned i = 0; i < spin_nglobals; i++)
		if (spin_is_locked(spin_globals[i]))
			platform_panic("spinlock %p: held (word %#x) while cpu %u makes every lock "
				       "%s: switch kinds only while no lock is held",
				       (void *)spin_globals[i],
				       atomic_load32(&spin_globals[i]->val), platform_cpu_id(),
				       spin_kind_names[kind]);
	if (kind != SPIN_KIND_TICKET && !static_key_enable(&spin_kinds_key))
		return; /* the key's line said why; every lock stays of the default kind */
	if (!spin_mode_write(SPIN_MODE_KIND, (uint8_t)kind))
		return;
	for (unsigned i = 0; i < spin_nglobals; i++)
		atomic_store32(&spin_globals[i]->val, 0); /* free under every kind; class kept */
}
