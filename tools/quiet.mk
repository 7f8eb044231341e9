# SPDX-License-Identifier: MIT
# quiet.mk - kbuild-style output for every Makefile of the project: one short
# line per step ("  CC      kernel/smp.c"), full commands with V=1.
#
#   $(quiet) CC $<        prints the short line (nothing with V=1)
#   $(Q)$(CC) ...         runs the command, echoing it only with V=1
ifeq ($(V),1)
Q :=
quiet = @:
else
Q := @
quiet = @printf '  %-7s %s\n'
endif
