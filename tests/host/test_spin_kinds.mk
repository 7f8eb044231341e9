# SPDX-License-Identifier: MIT
# Every kind of lib/spinlock_kinds.h by its columns alone: the word's states and the stress,
# so a new kind is tested with no line of its own (plain and ThreadSanitizer).
HOST_TESTS += test_spin_kinds
test_spin_kinds_SRCS := tests/host/test_spin_kinds.c $(LOCK_SRCS)
test_spin_kinds_FLAVOURS := plain tsan
