# SPDX-License-Identifier: MIT
# The trace rings: trace.test= gating, a full ring keeps its newest and counts the rest, names, the dump.
HOST_TESTS += test_trace
test_trace_SRCS := tests/host/test_trace.c lib/trace.c lib/printf.c lib/spinlock.c lib/spinlock_debug.c lib/lockdep.c lib/lockdep_graph.c \
	lib/spinlock_pv.c lib/qspinlock.c lib/qspinlock_pv.c lib/pv_stats.c
