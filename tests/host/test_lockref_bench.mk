# Cycles per uncontended get+put pair: plain lockref calls against a
# compile-time specialised core, the ticket lock, XADD, CMPXCHG8B vs CMPXCHGQ.
# Timings mean nothing under sanitizers, so plain only.
HOST_TESTS += test_lockref_bench
test_lockref_bench_SRCS := tests/host/test_lockref_bench.c lib/lockref16.c lib/spinlock.c
test_lockref_bench_FLAVOURS := plain
