# SPDX-License-Identifier: MIT
# A benchmark trial failing at its barrier under the other lock kind: the
# report goes through a console-like global lock, the boot's kind comes back.
# The harness (bench.c) plans its sweep over every benchmark, so all of them link.
HOST_TESTS += test_bench_kind
test_bench_kind_SRCS := tests/host/test_bench_kind.c $(BENCH_SRCS) $(LOCKREF_SRCS) lib/topology.c $(FS_SRCS)
