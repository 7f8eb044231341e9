# SPDX-License-Identifier: MIT
# A benchmark trial failing at its barrier under the other lock kind: the
# report goes through a console-like global lock, the boot's kind comes back.
HOST_TESTS += test_bench_kind
test_bench_kind_SRCS := tests/host/test_bench_kind.c bench/bench.c bench/bench_ref.c bench/bench_stats.c \
	lib/lockref.c lib/lockref16.c lib/spinlock.c lib/spinlock_debug.c lib/spinlock_pv.c \
	lib/qspinlock.c lib/lockdep.c lib/lockdep_graph.c lib/trace.c lib/printf.c
