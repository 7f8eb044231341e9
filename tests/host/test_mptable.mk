# SPDX-License-Identifier: MIT
# test_mptable: kernel/mptable.c (Intel MP floating pointer and configuration
# table) on crafted tables, good and bad; single-threaded.
HOST_TESTS += test_mptable
test_mptable_SRCS := tests/host/test_mptable.c kernel/mptable.c
test_mptable_FLAVOURS := plain asan
