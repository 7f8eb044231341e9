# SPDX-License-Identifier: MIT
# The barrier: progress-based timeout, sleepers kicked by the last arrival, missing CPUs named.
HOST_TESTS += test_barrier
test_barrier_SRCS := tests/host/test_barrier.c lib/barrier.c lib/printf.c lib/trace.c lib/spinlock.c lib/lockdep.c lib/lockdep_graph.c \
	lib/spinlock_debug.c lib/spinlock_pv.c lib/qspinlock.c lib/qspinlock_pv.c lib/pv_stats.c
