# SPDX-License-Identifier: MIT
# test_topology: lib/topology.c and the sysfs reader on written fixture trees; single-threaded.
HOST_TESTS += test_topology
test_topology_SRCS := tests/host/test_topology.c tests/host/topology_fixtures.c \
	tests/host/topology_sysfs.c lib/topology.c lib/printf.c
test_topology_FLAVOURS := plain asan
