# SPDX-License-Identifier: MIT
# Both lockref forms: contracts, multi-threaded stress, death and generation
# checks under every policy; the busted build runs the threads on the
# lock-ignoring policy and must fail.
HOST_TESTS += test_lockref
test_lockref_SRCS := tests/host/test_lockref.c $(LOCKREF_SRCS)
test_lockref_BUSTED_CFLAGS := -DLOCKREF_TEST_BUSTED

# The same over the debug spinlock, which knows who holds each lock.
HOST_TESTS += test_lockref_debug
test_lockref_debug_SRCS := $(test_lockref_SRCS)
test_lockref_debug_CFLAGS := -DSPINLOCK_DEBUG
