# SPDX-License-Identifier: MIT
# Cycles per uncontended get+put pair: plain lockref calls (cmpxchg8b and
# cmpxchgq) against a compile-time specialised core, the textbook load+cmpxchg
# loop (bench/cas_loop.c), the raw instructions,
# the ticket lock, XADD and the 16-byte form, with the lean-path ratios.
# Timings mean nothing under sanitizers, so plain only.
HOST_TESTS += test_lockref_bench
test_lockref_bench_SRCS := tests/host/test_lockref_bench.c lib/lockref16.c $(LOCK_SRCS) bench/cas_loop.c
test_lockref_bench_FLAVOURS := plain
