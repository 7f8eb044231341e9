# SPDX-License-Identifier: MIT
# The lock-order checker: planted ABBA, 3-class cycle, self-deadlock, same-class nesting, child before parent; full tables.
HOST_TESTS += test_lockdep
test_lockdep_SRCS := tests/host/test_lockdep.c lib/lockdep.c lib/lockdep_graph.c lib/printf.c lib/trace.c \
	lib/spinlock.c lib/spinlock_debug.c lib/spinlock_pv.c lib/qspinlock.c lib/qspinlock_pv.c lib/pv_stats.c

# The same through the real locks (both kinds, lockref, trylock, a lock taken twice), and the cost.
HOST_TESTS += test_lockdep_hooks
test_lockdep_hooks_SRCS := tests/host/test_lockdep_hooks.c $(filter-out tests/%,$(test_lockdep_SRCS)) lib/lockref.c \
	lib/lockref16.c
