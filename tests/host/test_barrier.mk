# SPDX-License-Identifier: MIT
# The barrier: progress-based timeout, sleepers kicked by the last arrival, missing CPUs named.
HOST_TESTS += test_barrier
test_barrier_SRCS := tests/host/test_barrier.c lib/barrier.c $(LOCK_SRCS)
