# SPDX-License-Identifier: MIT
# test_topology_cpuid: lib/topology_cpuid.c on the CPUID leaves of made-up machines; single-threaded.
HOST_TESTS += test_topology_cpuid
test_topology_cpuid_SRCS := tests/host/test_topology_cpuid.c lib/topology_cpuid.c lib/topology.c \
	lib/printf.c
test_topology_cpuid_FLAVOURS := plain asan
