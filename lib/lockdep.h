// SPDX-License-Identifier: MIT
/*
 * lockdep.h - the lock-order checker: lock classes, and a report the first
 * time an order of two classes closes a cycle (docs/lockdep.md).
 *
 * Why: two paths that take the same two locks in opposite orders deadlock
 * only when they interleave badly, which a torture may never hit.  Linux's
 * lockdep (2006) records the order in which lock *classes* are taken and
 * reports a possible deadlock the first time a new order closes a cycle,
 * whether or not the deadlock happens.  This is a small one:
 *
 *   - a class is named where a lock is initialised (a static key at the
 *     init site, LOCKDEP_KEY); a lock never initialised so (zeroed memory)
 *     is reported once per site that takes one, and gets that site's class;
 *   - every CPU keeps a stack of the locks it holds with the code address
 *     of each acquisition (its caller's return address);
 *   - taking B while A is held records the edge A -> B once, with both
 *     addresses and the CPU; a new edge triggers a search for B -> ... -> A,
 *     and finding one is the report;
 *   - also reported: a lock taken again by its holder, a class nested in
 *     itself without a declared subclass (subclasses are classes of their
 *     own, so declared nesting is checked as an order), a release of a
 *     lock not held, memory freed while it holds a lock its CPU holds, a
 *     lock still held when a test ends;
 *   - a trylock cannot wait, so it adds no edge; it goes on the stack, and
 *     what is taken under it is ordered after it.
 *
 * The lock word stays as it is (the lockref needs its 4 bytes): a lock's
 * class is found by its address in a map filled at initialisation.
 * Tables are fixed (lockdep_tables.h); a full one switches the checker off
 * and is itself a report (one line naming the table and its size), so a
 * run that stops being checked fails.  Reports are printed after the
 * checker's graph lock is released, and while the CPU holds the lock
 * printing takes (lockdep_set_print_lock) they wait for its release.
 * Portable: the kernel and the host tests run it.
 */
#ifndef LIB_LOCKDEP_H
#define LIB_LOCKDEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lockdep_tables.h"

/*
 * A class key: one static object per place a kind of lock is initialised.
 * @base is the checker's own (the class of subclass 0, assigned on first use).
 */
struct lock_class_key {
	const char *name;
	uint16_t base;
};

/* A static key named @name at the site that expands it (Linux's spin_lock_init does this). */
#define LOCKDEP_KEY(name_)                                                                         \
	({                                                                                         \
		static struct lock_class_key lockdep_key_ = {.name = (name_)};                     \
		&lockdep_key_;                                                                     \
	})

/* The code address of the caller of the function that expands this: the acquisition site. */
#define LOCKDEP_SITE() ((uintptr_t)__builtin_return_address(0))

/* Switch checking on or off.  Only while no CPU holds a lock (boot, or a test's start). */
void lockdep_set(bool on);
bool lockdep_enabled(void);

/* After a report: panic (true) or go on (false, the default). */
void lockdep_set_panic(bool panic);

/*
 * Use at most @n classes of the table (lockdep.classes=, to fill it on
 * purpose): @n from LOCKDEP_CLASSES_MIN to LOCKDEP_CLASSES, else false and
 * the limit stays as it was.  Kept across lockdep_reset.
 */
bool lockdep_set_class_limit(unsigned n);

/*
 * @lock is the one platform_log takes (the kernel's console lock): a report
 * made while this CPU holds its word is printed once the word is free
 * again (lockdep_released), not while it is held (which would wait for
 * itself).  Kept across lockdep_reset.
 */
void lockdep_set_print_lock(const void *lock);

/* @lock belongs to @key's class from now on (a lock at a reused address changes class). */
void lockdep_init_lock(const void *lock, struct lock_class_key *key);

/*
 * @lock is being taken at code address @site with @subclass (0 unless
 * declared nested).  A blocking lock calls this before it waits, so the
 * report comes before a deadlock; a trylock calls it once it has the lock,
 * with @trylock true (no edge, onto the stack only).
 */
void lockdep_acquire(const void *lock, unsigned subclass, bool trylock, uintptr_t site);

/*
 * @lock, held by this CPU, is being released at @site: called before the
 * lock's word is written, so it prints nothing while the CPU still holds
 * the print lock; lockdep_released follows the write.
 */
void lockdep_release(const void *lock, uintptr_t site);

/*
 * @lock's word was just made free by this CPU (after lockdep_release and the
 * real unlock): if it is the print lock, the reports kept while this CPU
 * held it are printed now, when printing can take it.
 */
void lockdep_released(const void *lock);

/*
 * [@mem, @mem + @size) is being freed at @site: a report for each lock in
 * it that this CPU holds (with where it was taken), which is then dropped
 * from the CPU's held stack: the memory, and the lock with it, is gone.
 */
void lockdep_check_free(const void *mem, size_t size, uintptr_t site);

/*
 * @what (a test) has ended on this CPU: one report listing every lock the
 * CPU still holds, with where each was taken; the held stack is emptied.
 * Returns how many it held.
 */
unsigned lockdep_check_none_held(const char *what);

/* Reports since boot (or lockdep_reset), and the last one's lines, '\n'-separated. */
uint64_t lockdep_reports(void);
const char *lockdep_last_report(void);

/* What the tables hold now, for the docs' cost table and tests. */
struct lockdep_stats {
	unsigned classes, edges, locks, max_depth;
	unsigned class_limit; /* classes usable (lockdep.classes=) */
	uint64_t searches;    /* cycle searches (one per new edge) */
	const char *stopped;  /* the table whose filling stopped the checker; NULL: none */
	unsigned stopped_size;
};
struct lockdep_stats lockdep_stats(void);

/*
 * Tests only, while no CPU holds or takes a lock: forget every class,
 * edge, lock and held stack, and the reports; the switch stays as it is.
 */
void lockdep_reset(void);

#endif /* LIB_LOCKDEP_H */
