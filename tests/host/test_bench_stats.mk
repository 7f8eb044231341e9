# SPDX-License-Identifier: MIT
# The benchmark harness's integer statistics (bench/bench_stats.c): pure C, no hardware.
HOST_TESTS += test_bench_stats
test_bench_stats_SRCS := tests/host/test_bench_stats.c bench/bench_stats.c lib/printf.c
