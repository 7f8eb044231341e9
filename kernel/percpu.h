// SPDX-License-Identifier: MIT
/*
 * percpu.h - one struct cpu per processor, reached through the GS base.
 *
 * Each CPU points its GS base at its own struct cpu (kernel_main for the
 * boot CPU, ap_entry for the others) before anything reads it, so
 * this_cpu_index() is one load: the "CPU id" of lib/platform.h, inline
 * in platform_cpu.h.
 */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "platform.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

typedef void (*cpu_work_fn)(void *arg);

struct cpu {
	struct cpu *self; /* offset 0: %gs:0 */
	uint32_t index;	  /* offset 8: dense CPU number, boot CPU = 0 */
	uint32_t apic_id; /* local APIC id (x2APIC ids may exceed 255) */
	uint8_t online;	  /* 1 once the CPU runs: atomic_load8/store8 */
	uint8_t *stack_top;
	/* Work handed over by smp_run_on_all(); see smp.c. */
	volatile cpu_work_fn work;
	void *volatile work_arg;
	uint64_t work_seq;	     /* bumped by the sender for each job (lib/atomic.h) */
	uint64_t done_seq;	     /* set to work_seq by the CPU when finished */
	volatile uint64_t ipis_seen; /* test IPIs received (boot suite) */
	/* Fence NMIs asked of this CPU by another, and answered by it; see fence.c. */
	uint64_t fence_asked;
	uint64_t fence_answered;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

_Static_assert(__builtin_offsetof(struct cpu, index) == PLATFORM_CPU_INDEX_GS_OFFSET,
	       "platform_cpu_id reads the index at this offset");

extern struct cpu cpus[MAX_CPUS];

/* Index of the calling CPU (platform_cpu.h reads it). */
static inline unsigned this_cpu_index(void)
{
	return platform_cpu_id();
}

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;

	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/* Point this CPU's GS base at @c (done once, first thing, on every CPU). */
void percpu_install(struct cpu *c, unsigned index);

#endif /* KERNEL_PERCPU_H */
