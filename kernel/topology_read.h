// SPDX-License-Identifier: MIT
/*
 * topology_read.h - the machine's topology from CPUID on every CPU
 * (lib/topology_cpuid.h decodes), read once after the APs are up.
 */
#ifndef KERNEL_TOPOLOGY_READ_H
#define KERNEL_TOPOLOGY_READ_H

#include "topology.h"

/* Every online CPU reads its own leaves; then two boot-log lines (how, and what). */
void topology_init(void);

/* The topology of the online CPUs (os = the kernel's CPU index); no CPUs before topology_init. */
const struct topology *kernel_topology(void);

#endif
