# SPDX-License-Identifier: MIT
# The fs suite (fs/test/fs_suite.h): the rule cases and the torture on 2, 4
# and 8 threads, argument = ms per torture run.  The busted build switches
# on each deliberate bug of fs/busted.h in turn and must fail.
HOST_TESTS += test_fs
test_fs_SRCS := tests/host/test_fs.c $(FS_SRCS) $(FS_SUITE_SRCS) $(LOCKREF_SRCS) lib/barrier.c
test_fs_ARGS := 300
test_fs_BUSTED_CFLAGS := -DFS_BUSTED
