// SPDX-License-Identifier: MIT
/*
 * lockdep_tables.h - every size of the lock-order checker (lockdep.c), in
 * one place.
 *
 * Why fixed tables: the checker runs inside spin_lock, where nothing may
 * allocate (the heap has a lock of its own) and nothing may fail halfway.
 * When one fills, the checker prints one line naming the table and its
 * size and switches itself off; that line is a report, so the test that
 * was running fails (a run that stops being checked is not green).  A boot
 * of every suite uses a few dozen classes and edges (docs/lockdep.md).
 */
#ifndef LIB_LOCKDEP_TABLES_H
#define LIB_LOCKDEP_TABLES_H

/* Lock classes, subclasses counted apart; class 0 means "none". */
#define LOCKDEP_CLASSES 512

/*
 * The fewest classes lockdep.classes= may limit the table to: a boot takes
 * a few before its first test, so a smaller table would fill before there
 * is a test to fail.
 */
#define LOCKDEP_CLASSES_MIN 4

/* Subclasses one class may be taken with (spin_lock_nested): 0 .. this - 1. */
#define LOCKDEP_SUBCLASSES 8

/*
 * Dependency edges "A held while B taken", each recorded once.  The tables
 * live in the kernel's .bss, which must stay under 4 MiB with the rest of
 * the image (make test's image-under-4mib): a whole make test run records
 * a few dozen orders, so 1024 edges and 8192 locks leave ample room.
 */
#define LOCKDEP_EDGES 1024

/* Lock instances whose class is known (the address -> class map); a power of two. */
#define LOCKDEP_LOCKS 8192

/* Locks one CPU may hold at once, nested. */
#define LOCKDEP_DEPTH 16

/* The last report's text, kept for tests (lockdep_last_report). */
#define LOCKDEP_REPORT_MAX 1024

#endif /* LIB_LOCKDEP_TABLES_H */
