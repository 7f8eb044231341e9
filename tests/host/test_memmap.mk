# SPDX-License-Identifier: MIT
HOST_TESTS += test_memmap
test_memmap_SRCS := tests/host/test_memmap.c kernel/memmap.c kernel/multiboot2.c
test_memmap_FLAVOURS := plain asan
