// SPDX-License-Identifier: MIT
/*
 * lockref_form.h - both lockref forms (lib/lockref.h, lib/lockref16.h)
 * behind one table of operations, and the broken forms the negative
 * controls run.
 *
 * Why one file: the torture (kernel/test/torture_lockref.c) and the host
 * test (tests/host/test_lockref.c) drive every check through the same
 * table, so a check written once runs on both widths, and the two suites
 * cannot drift apart in how they call the library.
 *
 * Why the broken forms live here and not in lib/: a negative control must
 * prove that the checks see a lockref whose lockless path ignores the lock,
 * and the production fast path should carry no branch for that.  So the
 * busted forms replace the lockless operations with ones written here that
 * move the count with an atomic read-modify-write of the count alone,
 * never looking at the lock (torture.busted=lockref, the host busted build).
 * Everything under the lock is the real library.
 *
 * Counts are widened to 64 bits; a NULL policy means the plain call, which
 * follows the boot policy.
 *
 * The wrappers that lock, unlock or need the lock are exempt from the lock
 * rules (LOCK_RULES_EXEMPT): the suites call them through the table's
 * pointers, which the analysis cannot follow, and call the *_locked ones
 * without the lock on purpose, to see the run-time check refuse them.
 */
#ifndef KERNEL_TEST_LOCKREF_FORM_H
#define KERNEL_TEST_LOCKREF_FORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atomic.h"
#include "lockref.h"
#include "lockref16.h"
#include "spinlock.h"
#include "trace.h"

struct lockref_form {
	const char *name; /* "lockref", "lockref16", "busted-lockref", ... */
	size_t size, align;
	int64_t dead; /* the count of a dead lockref */
	void (*init)(void *ref);
	void (*get)(void *ref, const struct lockref_policy *p);
	bool (*get_not_zero)(void *ref, const struct lockref_policy *p);
	bool (*get_not_dead)(void *ref, const struct lockref_policy *p);
	bool (*put_not_zero)(void *ref, const struct lockref_policy *p);
	int64_t (*put_return)(void *ref, const struct lockref_policy *p);
	bool (*put_or_lock)(void *ref, const struct lockref_policy *p);
	int64_t (*get_locked)(void *ref);
	int64_t (*put_locked)(void *ref);
	void (*mark_dead)(void *ref);
	bool (*is_dead)(const void *ref);
	int64_t (*count)(const void *ref);
	void (*lock)(void *ref);
	void (*unlock)(void *ref);
	const spinlock_t *(*lock_of)(const void *ref);
};

/*
 * Busted: if the count is at least @min, add @delta to it without looking
 * at the lock.  Returns the count seen before (changed only if >= @min).
 */
static inline int64_t lockref_form_busted_move(void *count, size_t width, int64_t min,
					       int64_t delta)
{
	if (width == sizeof(int64_t)) {
		uint64_t *c = count, seen = atomic_load64_relaxed(c);

		while ((int64_t)seen >= min &&
		       !atomic_cmpxchg64_q(c, &seen, seen + (uint64_t)delta))
			;
		return (int64_t)seen;
	}
	uint32_t *c32 = count, seen32 = atomic_load32_relaxed(c32);

	while ((int32_t)seen32 >= min && !atomic_cmpxchg32(c32, &seen32, seen32 + (uint32_t)delta))
		;
	return (int32_t)seen32;
}

/*
 * The operations of form @fn (lockref or lockref16) on type @T: the real
 * ones as fn##_f_*, the lock-ignoring lockless ones as fn##_busted_*.
 */
#define LOCKREF_FORM_FNS(T, fn)                                                                    \
	static inline void fn##_f_init(void *r)                                                    \
	{                                                                                          \
		fn##_init(r);                                                                      \
	}                                                                                          \
	static inline void fn##_f_get(void *r, const struct lockref_policy *p)                     \
	{                                                                                          \
		if (p)                                                                             \
			fn##_get_p(r, p);                                                          \
		else                                                                               \
			fn##_get(r);                                                               \
	}                                                                                          \
	static inline bool fn##_f_get_not_zero(void *r, const struct lockref_policy *p)            \
	{                                                                                          \
		return p ? fn##_get_not_zero_p(r, p) : fn##_get_not_zero(r);                       \
	}                                                                                          \
	static inline bool fn##_f_get_not_dead(void *r, const struct lockref_policy *p)            \
	{                                                                                          \
		return p ? fn##_get_not_dead_p(r, p) : fn##_get_not_dead(r);                       \
	}                                                                                          \
	static inline bool fn##_f_put_not_zero(void *r, const struct lockref_policy *p)            \
	{                                                                                          \
		return p ? fn##_put_not_zero_p(r, p) : fn##_put_not_zero(r);                       \
	}                                                                                          \
	static inline int64_t fn##_f_put_return(void *r, const struct lockref_policy *p)           \
	{                                                                                          \
		return p ? fn##_put_return_p(r, p) : fn##_put_return(r);                           \
	}                                                                                          \
	static inline LOCK_RULES_EXEMPT("called through pointers") bool fn##_f_put_or_lock(        \
	    void *r, const struct lockref_policy *p)                                               \
	{                                                                                          \
		return p ? fn##_put_or_lock_p(r, p) : fn##_put_or_lock(r);                         \
	}                                                                                          \
	static inline LOCK_RULES_EXEMPT("called through pointers")                                 \
	    int64_t fn##_f_get_locked(void *r)                                                     \
	{                                                                                          \
		return fn##_get_locked(r);                                                         \
	}                                                                                          \
	static inline LOCK_RULES_EXEMPT("called through pointers")                                 \
	    int64_t fn##_f_put_locked(void *r)                                                     \
	{                                                                                          \
		return fn##_put_locked(r);                                                         \
	}                                                                                          \
	static inline LOCK_RULES_EXEMPT("called through pointers") void fn##_f_mark_dead(void *r)  \
	{                                                                                          \
		fn##_mark_dead(r);                                                                 \
	}                                                                                          \
	static inline bool fn##_f_is_dead(const void *r)                                           \
	{                                                                                          \
		return fn##_is_dead(r);                                                            \
	}                                                                                          \
	static inline int64_t fn##_f_count(const void *r)                                          \
	{                                                                                          \
		return fn##_count(r);                                                              \
	}                                                                                          \
	static inline LOCK_RULES_EXEMPT("called through pointers") void fn##_f_lock(void *r)       \
	{                                                                                          \
		fn##_lock(r);                                                                      \
	}                                                                                          \
	static inline LOCK_RULES_EXEMPT("called through pointers") void fn##_f_unlock(void *r)     \
	{                                                                                          \
		fn##_unlock(r);                                                                    \
	}                                                                                          \
	static inline const spinlock_t *fn##_f_lock_of(const void *r)                              \
	{                                                                                          \
		return &((const T *)r)->lock;                                                      \
	}                                                                                          \
	static inline int64_t fn##_busted_move(void *r, int64_t min, int64_t delta)                \
	{                                                                                          \
		int64_t seen;                                                                      \
                                                                                                   \
		trace_ev(TR_LR_START, &((T *)r)->lock, 0);                                         \
		seen = lockref_form_busted_move(&((T *)r)->count, sizeof(((T *)r)->count), min,    \
						delta);                                            \
		trace_ev(TR_LR_OK, &((T *)r)->lock, 0);                                            \
		return seen;                                                                       \
	}                                                                                          \
	static inline void fn##_busted_get(void *r, const struct lockref_policy *p)                \
	{                                                                                          \
		(void)p;                                                                           \
		fn##_busted_move(r, 0, 1);                                                         \
	}                                                                                          \
	static inline bool fn##_busted_get_not_zero(void *r, const struct lockref_policy *p)       \
	{                                                                                          \
		(void)p;                                                                           \
		return fn##_busted_move(r, 1, 1) >= 1;                                             \
	}                                                                                          \
	static inline bool fn##_busted_get_not_dead(void *r, const struct lockref_policy *p)       \
	{                                                                                          \
		(void)p;                                                                           \
		return fn##_busted_move(r, 0, 1) >= 0;                                             \
	}                                                                                          \
	static inline bool fn##_busted_put_not_zero(void *r, const struct lockref_policy *p)       \
	{                                                                                          \
		(void)p;                                                                           \
		return fn##_busted_move(r, 2, -1) >= 2;                                            \
	}                                                                                          \
	static inline int64_t fn##_busted_put_return(void *r, const struct lockref_policy *p)      \
	{                                                                                          \
		int64_t seen = fn##_busted_move(r, 1, -1);                                         \
                                                                                                   \
		(void)p;                                                                           \
		return seen >= 1 ? seen - 1 : -1;                                                  \
	}                                                                                          \
	static inline LOCK_RULES_EXEMPT("a negative control: ignores the lock") bool               \
	    fn##_busted_put_or_lock(void *r, const struct lockref_policy *p)                       \
	{                                                                                          \
		(void)p;                                                                           \
		if (fn##_busted_move(r, 2, -1) >= 2)                                               \
			return true;                                                               \
		fn##_lock(r);                                                                      \
		return false;                                                                      \
	}

/* The table of form @fn, named @label, whose lockless operations are @lockless##_*. */
#define LOCKREF_FORM_TABLE(T, fn, label, dead_count, lockless)                                     \
	{                                                                                          \
		.name = label, .size = sizeof(T), .align = _Alignof(T), .dead = dead_count,        \
		.init = fn##_f_init, .get = lockless##_get,                                        \
		.get_not_zero = lockless##_get_not_zero, .get_not_dead = lockless##_get_not_dead,  \
		.put_not_zero = lockless##_put_not_zero, .put_return = lockless##_put_return,      \
		.put_or_lock = lockless##_put_or_lock, .get_locked = fn##_f_get_locked,            \
		.put_locked = fn##_f_put_locked, .mark_dead = fn##_f_mark_dead,                    \
		.is_dead = fn##_f_is_dead, .count = fn##_f_count, .lock = fn##_f_lock,             \
		.unlock = fn##_f_unlock, .lock_of = fn##_f_lock_of,                                \
	}

LOCKREF_FORM_FNS(struct lockref, lockref)
LOCKREF_FORM_FNS(struct lockref16, lockref16)

static const struct lockref_form lockref_form8 =
    LOCKREF_FORM_TABLE(struct lockref, lockref, "lockref", LOCKREF_DEAD, lockref_f);
static const struct lockref_form lockref_form16 =
    LOCKREF_FORM_TABLE(struct lockref16, lockref16, "lockref16", LOCKREF16_DEAD, lockref16_f);
static const struct lockref_form lockref_form8_busted =
    LOCKREF_FORM_TABLE(struct lockref, lockref, "busted-lockref", LOCKREF_DEAD, lockref_busted);
static const struct lockref_form lockref_form16_busted = LOCKREF_FORM_TABLE(
    struct lockref16, lockref16, "busted-lockref16", LOCKREF16_DEAD, lockref16_busted);

#endif /* KERNEL_TEST_LOCKREF_FORM_H */
