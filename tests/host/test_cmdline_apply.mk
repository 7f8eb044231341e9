# SPDX-License-Identifier: MIT
# The lockref words handed to the library (kernel/cmdline_apply.c): every
# value a library setter can refuse is refused by the parser first, with one
# line, and what the log and opts (hence # ENV) name is what is in force.
HOST_TESTS += test_cmdline_apply
test_cmdline_apply_SRCS := tests/host/test_cmdline_apply.c kernel/cmdline.c kernel/cmdline_apply.c \
	lib/lockref.c lib/lockref16.c lib/spinlock.c lib/spinlock_debug.c lib/spinlock_pv.c \
	lib/qspinlock.c lib/qspinlock_pv.c lib/pv_stats.c lib/lockdep.c lib/lockdep_graph.c lib/trace.c lib/printf.c lib/barrier.c \
	fs/fs.c fs/fs_audit.c fs/fs_lookup.c fs/fs_ops.c fs/fs_read.c fs/fs_walk_rcu.c fs/rcu.c \
	fs/slots.c
test_cmdline_apply_FLAVOURS := plain asan
