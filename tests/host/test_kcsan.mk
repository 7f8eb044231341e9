# SPDX-License-Identifier: MIT
# The race detector's watchpoint word and skip counter (kernel/kcsan_watch.h):
# the portable part of make kcsan's runtime, compiled as the kernel compiles it.
HOST_TESTS += test_kcsan
test_kcsan_SRCS := tests/host/test_kcsan.c
test_kcsan_FLAVOURS := plain asan
