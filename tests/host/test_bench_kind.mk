# SPDX-License-Identifier: MIT
# A benchmark trial failing at its barrier under the other lock kind: the
# report goes through a console-like global lock, the boot's kind comes back.
# The harness (bench.c) plans its sweep over every benchmark, so all of them link.
HOST_TESTS += test_bench_kind
test_bench_kind_SRCS := tests/host/test_bench_kind.c bench/bench.c bench/bench_pathwalk.c \
	bench/bench_ref.c bench/bench_refcount.c bench/bench_retry.c bench/bench_stats.c \
	bench/bench_uncontended.c bench/cas_loop.c bench/bench_plan.c bench/bench_c2c.c \
	lib/lockref.c lib/lockref16.c lib/spinlock.c lib/spinlock_debug.c lib/spinlock_pv.c \
	lib/qspinlock.c lib/qspinlock_pv.c lib/pv_stats.c lib/lockdep.c lib/lockdep_graph.c lib/trace.c lib/printf.c lib/topology.c \
	fs/fs.c fs/fs_audit.c fs/fs_lookup.c fs/fs_ops.c fs/fs_read.c fs/fs_walk_rcu.c fs/rcu.c \
	fs/slots.c
