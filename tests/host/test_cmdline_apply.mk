# SPDX-License-Identifier: MIT
# The lockref words handed to the library (kernel/cmdline_apply.c): every
# value a library setter can refuse is refused by the parser first, with one
# line, and what the log and opts (hence # ENV) name is what is in force.
HOST_TESTS += test_cmdline_apply
test_cmdline_apply_SRCS := tests/host/test_cmdline_apply.c $(CMDLINE_SRCS) $(LOCKREF_SRCS) lib/barrier.c $(FS_SRCS)
test_cmdline_apply_FLAVOURS := plain asan
