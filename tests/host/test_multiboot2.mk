# SPDX-License-Identifier: MIT
HOST_TESTS += test_multiboot2
test_multiboot2_SRCS := tests/host/test_multiboot2.c kernel/multiboot2.c
test_multiboot2_FLAVOURS := plain asan
