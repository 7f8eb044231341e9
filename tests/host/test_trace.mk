# SPDX-License-Identifier: MIT
# The trace rings: trace.test= gating, a full ring keeps its newest and counts the rest, names, the dump.
HOST_TESTS += test_trace
test_trace_SRCS := tests/host/test_trace.c $(LOCK_SRCS)
