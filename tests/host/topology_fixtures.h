// SPDX-License-Identifier: MIT
/*
 * topology_fixtures.h - fixture sysfs trees for the topology tests.
 *
 * Names: xeon-2s (2 sockets x 8 cores x 2 threads, SMT siblings i and
 * i+16, one L3 a socket), epyc-2s (2 sockets x 4 core complexes x 4 cores
 * x 2 threads, one L3 a complex), offline (1 socket, 4 cores x 2 threads
 * with neighbouring siblings, cpu5 offline), big-256 (2 sockets x 8 LLC
 * groups x 8 cores x 2 threads), and damaged trees: two-packages (cpu1's
 * package list claims a CPU of the other package), no-topology (cpu3's
 * topology/ ids missing), offline-cache (an L3 list naming offline cpu5).
 */
#ifndef TESTS_HOST_TOPOLOGY_FIXTURES_H
#define TESTS_HOST_TOPOLOGY_FIXTURES_H

#include <stdbool.h>

/* Write fixture @name under @dir (made as needed); false for an unknown name or a write error. */
bool topology_fixture_write(const char *name, const char *dir);

#endif
