# SPDX-License-Identifier: MIT
# The lock-order checker: planted ABBA, 3-class cycle, self-deadlock, same-class nesting, child before parent; full tables.
HOST_TESTS += test_lockdep
test_lockdep_SRCS := tests/host/test_lockdep.c $(LOCK_SRCS)

# The same through the real locks (both kinds, lockref, trylock, a lock taken twice), and the cost.
HOST_TESTS += test_lockdep_hooks
test_lockdep_hooks_SRCS := tests/host/test_lockdep_hooks.c $(LOCKREF_SRCS)
