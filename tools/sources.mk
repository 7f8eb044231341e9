# SPDX-License-Identifier: MIT
# sources.mk - every list of the project's C sources, declared once.
#
# The kernel (Makefile), the native benchmark, the host tests
# (tests/host/*.mk), the fs-against-Linux comparison (tests/diff) and the
# fuzz harnesses (tests/fuzz) all build from these lists, so a new file is
# one line here and every build that needs it gets it.  Paths are from the
# repository root; a Makefile in a subfolder prefixes its $(ROOT).
#
# Layered as the code is: each list holds what its layer calls, so a
# program names the highest layer it needs and nothing else.

# The lock layer: both spinlock kinds, their paravirtual waits, lockdep,
# the trace hooks and printf (lockdep's and the trace's reports).
LOCK_SRCS := lib/spinlock.c lib/spinlock_bare.c lib/spinlock_debug.c lib/spinlock_kinds.c \
	lib/spinlock_pv.c lib/spinlock_wait.c lib/qspinlock.c lib/qspinlock_pv.c lib/pv_stats.c \
	lib/lockdep.c lib/lockdep_graph.c lib/trace.c lib/printf.c

# The lockref, both forms, over the lock layer.
LOCKREF_SRCS := lib/lockref.c lib/lockref16.c $(LOCK_SRCS)

# All of lib/: the lockref, the barrier and the CPU topology readers.
LIB_SRCS := $(LOCKREF_SRCS) lib/barrier.c lib/string.c lib/topology.c lib/topology_cpuid.c

# The in-memory filesystem (it calls the lockref and the barrier).
FS_SRCS := fs/fs.c fs/fs_audit.c fs/fs_lookup.c fs/fs_ops.c fs/fs_read.c fs/fs_walk_rcu.c \
	fs/rcu.c fs/slots.c

# The fs suite's cases and torture, run by the kernel and by the host's test_fs.
FS_SUITE_SRCS := fs/test/fs_cases_paths.c fs/test/fs_cases_tree.c fs/test/fs_suite.c \
	fs/test/fs_torture.c

# The benchmarks and their harness, run by the kernel and by bench_native.
BENCH_SRCS := bench/bench.c bench/bench_pathwalk.c bench/bench_ref.c bench/bench_refcount.c \
	bench/bench_retry.c bench/bench_stats.c bench/bench_uncontended.c bench/cas_loop.c \
	bench/bench_plan.c bench/bench_c2c.c bench/bench_headline.c

# The kernel's suites: boot tests, tortures, lockdep's planted cases, the fs
# suite and the benchmarks.
SUITE_SRCS := kernel/test/fault_inject.c kernel/test/test_boot.c kernel/test/test_fs.c \
	kernel/test/test_lockdep.c kernel/test/test_race.c kernel/test/test_static_key.c \
	kernel/test/torture_lockref.c kernel/test/torture_lockref_hot.c \
	kernel/test/torture_lockref_race.c kernel/test/torture_lockref_report.c \
	kernel/test/torture_spinlock.c kernel/test/torture_spinlock_report.c \
	kernel/test/torture_spinlock_setup.c kernel/test/bench_ktest.c $(FS_SUITE_SRCS) $(BENCH_SRCS)

# The command-line parser alone (pure C, no library behind it: the host test
# and the fuzzer take it so), then with what applies its words.
CMDLINE_PARSE_SRCS := kernel/busted_list.c kernel/cmdline.c kernel/cmdline_options.c \
	kernel/cmdline_verdict.c lib/cmdline_words.c
CMDLINE_SRCS := $(CMDLINE_PARSE_SRCS) kernel/cmdline_apply.c

# The results: the reader of the kernel's lines (portable) and the screen's drawing of them.
RESULTS_SRCS := lib/results_read.c kernel/results.c

# The x86-64 platform.
PLATFORM_SRCS := kernel/acpi.c kernel/acpi_sleep.c kernel/acpi_tables.c kernel/apic.c \
	$(CMDLINE_SRCS) kernel/console.c kernel/cpuinfo.c kernel/fence.c \
	kernel/font8x16.c kernel/heap.c kernel/idt.c kernel/kcsan.c kernel/ksyms.c kernel/ktest.c \
	kernel/ktest_stall.c kernel/main.c kernel/memmap.c kernel/mp.c kernel/mptable.c \
	kernel/multiboot2.c kernel/panic.c kernel/percpu.c kernel/platform.c kernel/power.c \
	kernel/progress.c $(RESULTS_SRCS) kernel/screen.c kernel/serial.c kernel/smp.c \
	kernel/static_key.c kernel/suite_switches.c kernel/topology_read.c kernel/trap.c kernel/tsc.c \
	kernel/vm.c

