// SPDX-License-Identifier: MIT
/*
 * lock_rules.h - the lock rules, written where the compiler checks them.
 *
 * "Returns with the lock held", "caller holds the lock", "false WITH THE
 * LOCK HELD": each contract in spinlock.h, lockref.h, lockref16.h and fs/
 * is also an attribute of Clang's thread-safety ("capability") analysis,
 * so a change that forgets an unlock on one error path, calls a function
 * that needs a lock without it, or takes a lock twice does not compile
 * (`make lock-rules`, run by `make test`, builds every source with
 * `clang -Wthread-safety -Werror`).  GCC, which builds the kernel that
 * boots, knows none of these attributes: there they expand to nothing.
 * Linux checks the same rules since 2025 with the same analysis
 * ("context analysis"), and with sparse's __acquires/__releases before.
 *
 * The analysis follows lock operations through calls by their
 * declarations alone; what it never sees is how a lock is built.  C also
 * gives it no way to say which struct member a lock guards, so the guarded
 * data are checked through the functions that require the lock (the
 * lockref's *_locked calls).
 */
#ifndef LIB_LOCK_RULES_H
#define LIB_LOCK_RULES_H

#if defined(__clang__)
#define LOCK_RULE(x) __attribute__((x))
#else
#define LOCK_RULE(x)
#endif

/* On a lock type: values of it are locks ("capabilities") the analysis tracks. */
#define LOCK_TYPE(name) LOCK_RULE(capability(name))

/* The function returns with these locks held; it takes them. */
#define ACQUIRES(...) LOCK_RULE(acquire_capability(__VA_ARGS__))

/* The caller holds these locks; the function returns with them released. */
#define RELEASES(...) LOCK_RULE(release_capability(__VA_ARGS__))

/* The caller must hold these locks, and still holds them on return. */
#define REQUIRES(...) LOCK_RULE(requires_capability(__VA_ARGS__))

/* Returns @ret with these locks held; with anything else, without them. */
#define TRY_ACQUIRES(ret, ...) LOCK_RULE(try_acquire_capability(ret, __VA_ARGS__))

/*
 * Ignoring the result leaves the state wrong (a lock held that nobody will
 * release, a reference taken or not): every compiler warns, and -Werror
 * makes it an error.
 */
#define MUST_CHECK __attribute__((warn_unused_result))

/*
 * The one exemption.  Put on a function whose locking the analysis cannot
 * follow, with its reason as the argument, a string (as Linux's
 * __context_unsafe(comment)), and a comment where the reason needs more
 * words; these are the only kinds:
 *   - a lock's own implementation (spin_lock takes the lock with an
 *     atomic exchange, which the analysis cannot see as a lock);
 *   - a path that takes the lock on one branch and hands it on on another
 *     as its contract says (the lockref's locked path, whose put_or_lock
 *     returns with it held);
 *   - a test or negative control that breaks a rule on purpose, to see the
 *     run-time check catch it.
 */
#define LOCK_RULES_EXEMPT(why)                                                                     \
	LOCK_RULE(no_thread_safety_analysis) LOCK_RULE(annotate("lock rules exempt: " why))

#endif /* LIB_LOCK_RULES_H */
