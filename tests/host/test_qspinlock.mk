# SPDX-License-Identifier: MIT
# The queued spinlock: word states, the pending and queue paths (with a
# nested context), the nesting-overflow and bad-tail panics, and stress.
HOST_TESTS += test_qspinlock
test_qspinlock_SRCS := tests/host/test_qspinlock.c $(LOCK_SRCS)

# The same with the debug build's owner checks, on the queued kind.
HOST_TESTS += test_qspinlock_debug
test_qspinlock_debug_SRCS := $(test_qspinlock_SRCS)
test_qspinlock_debug_CFLAGS := -DSPINLOCK_DEBUG
