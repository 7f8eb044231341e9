# SPDX-License-Identifier: MIT
# The ticket spinlock: semantics and mutual-exclusion stress; the busted
# build swaps in the do-nothing lock and must fail.
HOST_TESTS += test_spinlock
test_spinlock_SRCS := tests/host/test_spinlock.c lib/spinlock.c lib/spinlock_debug.c lib/lockdep.c lib/lockdep_graph.c lib/spinlock_pv.c lib/qspinlock.c lib/qspinlock_pv.c lib/pv_stats.c lib/trace.c lib/printf.c
test_spinlock_BUSTED_CFLAGS := -DSPINLOCK_TEST_BUSTED

# The same with the debug build's owner checks (recursion, non-owner unlock).
HOST_TESTS += test_spinlock_debug
test_spinlock_debug_SRCS := tests/host/test_spinlock.c lib/spinlock.c lib/spinlock_debug.c lib/lockdep.c lib/lockdep_graph.c lib/spinlock_pv.c lib/qspinlock.c lib/qspinlock_pv.c lib/pv_stats.c lib/trace.c lib/printf.c
test_spinlock_debug_CFLAGS := -DSPINLOCK_DEBUG
