// SPDX-License-Identifier: MIT
/*
 * percpu.c - the struct cpu array and the GS-base hookup.
 */
#include "percpu.h"

#include "cpu.h"

struct cpu cpus[MAX_CPUS];

void percpu_install(struct cpu *c, unsigned index)
{
	c->self = c;
	c->index = index;
	wrmsr(MSR_GS_BASE, (uint64_t)(uintptr_t)c);
}
