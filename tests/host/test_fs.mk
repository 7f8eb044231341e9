# SPDX-License-Identifier: MIT
# The fs suite (fs/test/fs_suite.h): the rule cases and the torture on 2, 4
# and 8 threads, argument = ms per torture run.  The busted build switches
# on each deliberate bug of fs/busted.h in turn and must fail.
TEST_FS_SRCS := $(sort $(wildcard $(ROOT)/fs/*.c $(ROOT)/fs/test/*.c))

HOST_TESTS += test_fs
test_fs_SRCS := tests/host/test_fs.c $(patsubst $(ROOT)/%,%,$(TEST_FS_SRCS)) lib/lockref.c \
	lib/lockref16.c lib/spinlock.c lib/spinlock_debug.c lib/lockdep.c lib/lockdep_graph.c lib/spinlock_pv.c lib/qspinlock.c lib/qspinlock_pv.c lib/pv_stats.c lib/trace.c lib/barrier.c lib/printf.c
test_fs_ARGS := 300
test_fs_BUSTED_CFLAGS := -DFS_BUSTED
