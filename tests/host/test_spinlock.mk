# SPDX-License-Identifier: MIT
# The ticket spinlock: semantics and mutual-exclusion stress; the busted
# build swaps in the do-nothing lock and must fail.
HOST_TESTS += test_spinlock
test_spinlock_SRCS := tests/host/test_spinlock.c $(LOCK_SRCS)
test_spinlock_BUSTED_CFLAGS := -DSPINLOCK_TEST_BUSTED

# The same with the debug build's owner checks (recursion, non-owner unlock).
HOST_TESTS += test_spinlock_debug
test_spinlock_debug_SRCS := tests/host/test_spinlock.c $(LOCK_SRCS)
test_spinlock_debug_CFLAGS := -DSPINLOCK_DEBUG
