# SPDX-License-Identifier: MIT
# fs/slots.c's pointer-to-slot mapping on pointers from elsewhere (the stack,
# the C heap, NULL), under ASan's invalid-pointer-pair check: the mapping
# once subtracted and ordered pointers into different objects (undefined in
# ISO C) before its range check.
HOST_TESTS += test_slots
test_slots_SRCS := tests/host/test_slots.c fs/slots.c $(LOCK_SRCS)
test_slots_CFLAGS := -fsanitize=address,pointer-compare,pointer-subtract
test_slots_FLAVOURS := asan
