# SPDX-License-Identifier: MIT
# test_results: lib/results_read.c and kernel/results.c (the status line and the results page) fed
# KTAP and "# BENCH" lines as the kernel prints them; single-threaded.
HOST_TESTS += test_results
test_results_SRCS := tests/host/test_results.c $(RESULTS_SRCS) lib/printf.c lib/string.c
test_results_FLAVOURS := plain asan
