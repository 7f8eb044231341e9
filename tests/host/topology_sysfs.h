// SPDX-License-Identifier: MIT
/*
 * topology_sysfs.h - the host's CPU topology from a Linux sysfs tree.
 *
 * The root is a parameter ("/sys/devices/system/cpu" on a live system) so
 * the host tests and `bench_native --sysfs=DIR` read fixture trees.
 */
#ifndef TESTS_HOST_TOPOLOGY_SYSFS_H
#define TESTS_HOST_TOPOLOGY_SYSFS_H

#include <stdbool.h>

#include "topology.h"

#define TOPOLOGY_SYSFS_ROOT "/sys/devices/system/cpu"

/*
 * Fill @t from the tree at @root: the online CPUs (root/online, else every
 * cpuN folder), each one's topology/physical_package_id, die_id (if
 * present) and core_id, checked against thread_siblings_list and
 * package_cpus_list (or core_siblings_list), and its highest data or
 * unified cache's shared_cpu_list.  Without cache/ folders a package is
 * one LLC group (t->source says so).  Missing or contradictory files give
 * a flat topology, t->why naming the file and what was expected, and
 * false.
 */
bool topology_from_sysfs(struct topology *t, const char *root);

#endif
