# SPDX-License-Identifier: MIT
# The lockref words handed to the library (kernel/cmdline_apply.c): every
# value a library setter can refuse is refused by the parser first, with one
# line, and what the log and opts (hence # ENV) name is what is in force.
HOST_TESTS += test_cmdline_apply
test_cmdline_apply_SRCS := tests/host/test_cmdline_apply.c kernel/cmdline.c kernel/cmdline_apply.c \
	lib/lockref.c lib/lockref16.c lib/spinlock.c lib/spinlock_pv.c lib/qspinlock.c lib/trace.c \
	lib/printf.c
test_cmdline_apply_FLAVOURS := plain asan
