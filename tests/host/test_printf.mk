# SPDX-License-Identifier: MIT
HOST_TESTS += test_printf
test_printf_SRCS := tests/host/test_printf.c lib/printf.c
test_printf_CFLAGS := -Wno-format
test_printf_FLAVOURS := plain asan
