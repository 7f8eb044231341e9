# SPDX-License-Identifier: MIT
# The kernel command line parser (kernel/cmdline.c): defaults, every kind of
# bad word, repeated calls; printk is the test's own recorder.
HOST_TESTS += test_cmdline
test_cmdline_SRCS := tests/host/test_cmdline.c $(CMDLINE_PARSE_SRCS)
test_cmdline_FLAVOURS := plain asan
