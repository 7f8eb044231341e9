# SPDX-License-Identifier: MIT
# The boot-time torture tests (kernel/test/torture_*.c) on host threads.  Each
# busted build runs its suite on the broken lock and must fail: every test
# of the suite has to catch it.
TORTURE_SRCS := kernel/test/torture_spinlock.c kernel/test/torture_spinlock_report.c \
	kernel/test/torture_spinlock_setup.c kernel/test/torture_lockref.c \
	kernel/test/torture_lockref_hot.c kernel/test/torture_lockref_race.c \
	kernel/test/torture_lockref_report.c $(LOCKREF_SRCS) lib/barrier.c kernel/busted_list.c

HOST_TESTS += test_torture_spinlock
test_torture_spinlock_SRCS := tests/host/test_torture.c $(TORTURE_SRCS)
test_torture_spinlock_ARGS := spinlock 4 300
test_torture_spinlock_BUSTED_CFLAGS := -DTEST_TORTURE_BUSTED

HOST_TESTS += test_torture_lockref
test_torture_lockref_SRCS := tests/host/test_torture.c $(TORTURE_SRCS)
test_torture_lockref_ARGS := lockref 4 400
test_torture_lockref_BUSTED_CFLAGS := -DTEST_TORTURE_BUSTED
