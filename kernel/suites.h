// SPDX-License-Identifier: MIT
/*
 * suites.h - the boot-time test suites, one table (SUITE_LIST): the run=
 * words, the order a boot runs them, and what the runner (kernel/ktest.c)
 * does around each.
 */
#ifndef KERNEL_SUITES_H
#define KERNEL_SUITES_H

/*
 * The suites, declared once: X(name, ID, group, switches, length, lockdep),
 * in the order they run.  run= takes the names, bit i of opts.run is the
 * i-th suite, and the runner (ktest.c) walks them in this order;
 * KTEST(name, ...) files a test under one.  The runner reads no suite's
 * name: what it does around a suite is in the columns.
 *
 * group: which run= words include it.  TESTS are in run=tests and run=all,
 *   BENCH only in run=all, NAMED only when run= names it (lockdep: planted
 *   lock-order mistakes the checker must report, kernel/test/test_lockdep.c;
 *   keys: the static keys' patching torture and refusals,
 *   kernel/test/test_static_key.c).
 * switches: what the runner sets before the suite's first test, in one
 *   patching round (kernel/suite_switches.c): CHECKED, the checkers as the
 *   command line asks (lockdep=, spinlock.pv=); BARE, every checker off and
 *   every static key whose switch is at its default off, so the lock paths
 *   read no switch.  The benchmarks come last, after every checking suite.
 * length: how long a test should take, for the screen's status line.
 *   TORTURE, an all-CPU test runs for torture.secs (a single-CPU one is
 *   not known); TOLD, the suite's ktest_expect hook says; UNKNOWN, not known.
 * lockdep: a lockdep report during a test.  FAILS it (a checker's report is
 *   a bug); PLANTED, the suite plants its reports and judges them itself.
 *
 * A new suite is one line here plus its tests; the bits, names, order,
 * groups and the runner's policy follow, a row with an empty column does
 * not build (SUITE_X_CHECK below), and tools/house/cmdline_doc_check.py
 * holds docs/interface.md's run= row to it.
 */
#define SUITE_LIST(X)                                                                              \
	X(boot, BOOT, TESTS, CHECKED, UNKNOWN, FAILS)                                              \
	X(spinlock, SPINLOCK, TESTS, CHECKED, TORTURE, FAILS)                                      \
	X(lockref, LOCKREF, TESTS, CHECKED, TORTURE, FAILS)                                        \
	X(fs, FS, TESTS, CHECKED, TORTURE, FAILS)                                                  \
	X(lockdep, LOCKDEP, NAMED, CHECKED, UNKNOWN, PLANTED)                                      \
	X(keys, KEYS, NAMED, BARE, TORTURE, FAILS)                                                 \
	X(bench, BENCH, BENCH, BARE, TOLD, FAILS)

/* A row with an empty column: a build error naming the suite and the column. */
#define SUITE_REQUIRE(name, column, value)                                                         \
	_Static_assert(sizeof(#value) > 1, "suite '" #name "': " column                            \
					   " missing from its SUITE_LIST line (kernel/suites.h)");
#define SUITE_X_CHECK(name, id, group, switches, length, lockdep)                                  \
	SUITE_REQUIRE(name, "the name", name)                                                      \
	SUITE_REQUIRE(name, "the ID", id)                                                          \
	SUITE_REQUIRE(name, "the group (TESTS, BENCH or NAMED)", group)                            \
	SUITE_REQUIRE(name, "the switches (CHECKED or BARE)", switches)                            \
	SUITE_REQUIRE(name, "the length (TORTURE, TOLD or UNKNOWN)", length)                       \
	SUITE_REQUIRE(name, "the lockdep column (FAILS or PLANTED)", lockdep)
SUITE_LIST(SUITE_X_CHECK)
#undef SUITE_X_CHECK
#undef SUITE_REQUIRE

enum suite_group { SUITE_GROUP_TESTS, SUITE_GROUP_BENCH, SUITE_GROUP_NAMED };
enum suite_switches { SUITE_SWITCHES_CHECKED, SUITE_SWITCHES_BARE };
enum suite_length { SUITE_LENGTH_TORTURE, SUITE_LENGTH_TOLD, SUITE_LENGTH_UNKNOWN };
enum suite_lockdep { SUITE_LOCKDEP_FAILS, SUITE_LOCKDEP_PLANTED };

#define SUITE_X_INDEX(name, id, ...) SUITE_INDEX_##id,
enum suite_index { SUITE_LIST(SUITE_X_INDEX) SUITE_COUNT };
#undef SUITE_X_INDEX

#define SUITE_X_BIT(name, id, ...) SUITE_##id = 1u << SUITE_INDEX_##id,
#define SUITE_X_TESTS(name, id, group, ...)                                                        \
	| (SUITE_GROUP_##group == SUITE_GROUP_TESTS ? SUITE_##id : 0)
#define SUITE_X_ALL(name, id, group, ...)                                                          \
	| (SUITE_GROUP_##group != SUITE_GROUP_NAMED ? SUITE_##id : 0)
enum suite_bits {
	SUITE_LIST(SUITE_X_BIT) SUITES_TESTS = 0 SUITE_LIST(SUITE_X_TESTS),
	SUITES_ALL = 0 SUITE_LIST(SUITE_X_ALL),
	SUITES_NAMED = (1u << SUITE_COUNT) - 1, /* every suite run= can name */
};
#undef SUITE_X_BIT
#undef SUITE_X_TESTS
#undef SUITE_X_ALL

/* Suite i's name (run=, KTAP's "# Subtest:"), NULL after the last. */
extern const char *const suite_names[SUITE_COUNT + 1];
/* Suite i's switches column. */
extern const enum suite_switches suite_switches[SUITE_COUNT];

#endif /* KERNEL_SUITES_H */
