# SPDX-License-Identifier: MIT
# The test-and-set kind: the word's states, the lockref's free test over it,
# and stress through the lock layer (plain and ThreadSanitizer).  No busted
# build: on host threads sharing 2 cores with other work the broken variant
# (tas_lock_busted, lib/spinlock_tas.h) was caught in only 3 runs of 5; the
# kernel's boot with torture.busted= of the kind (tests/checks/checks.tab) is its negative control.
HOST_TESTS += test_tas
test_tas_SRCS := tests/host/test_tas.c $(LOCK_SRCS)
test_tas_FLAVOURS := plain tsan
