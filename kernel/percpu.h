// SPDX-License-Identifier: MIT
/*
 * percpu.h - one struct cpu per processor, reached through the GS base.
 *
 * Each CPU points its GS base at its own struct cpu (kernel_main for the
 * boot CPU, ap_entry for the others) before anything reads it, so
 * this_cpu_index() is one load, and platform_cpu.h forwards the "CPU id"
 * of lib/platform.h to it.
 */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "limits.h"

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
	uint64_t work_seq;	      /* bumped by the sender for each job (lib/atomic.h) */
	uint64_t done_seq;	      /* set to work_seq by the CPU when finished */
	volatile uint64_t ipis_seen;  /* test IPIs received (boot suite) */
	volatile uint64_t kicks_seen; /* kick IPIs received (platform_kicks_received) */
	/* Fence NMIs asked of this CPU by another, and answered by it; see fence.c. */
	uint64_t fence_asked;
	uint64_t fence_answered;
	/* Static-key patching rounds that asked this CPU to park, and the last it answered (static_key.c). */
	uint64_t key_park_asked;
	uint64_t key_park_answered;
	/* Interrupt and exception handlers this CPU is inside (trap.c), and the last one's vector. */
	uint32_t trap_depth;
	uint32_t trap_vector;
	/* NMIs this CPU answered ahead: both requests served by one NMI (trap.c). */
	uint32_t nmis_answered_ahead;
} __attribute__((aligned(CACHE_PAIR_BYTES)));
_Static_assert(sizeof(struct cpu) == CACHE_PAIR_BYTES,
	       "struct cpu fills one cache-line pair, no more");

/* Where struct cpu keeps the dense index, from the GS base. */
#define PERCPU_INDEX_GS_OFFSET 8
_Static_assert(__builtin_offsetof(struct cpu, index) == PERCPU_INDEX_GS_OFFSET,
	       "this_cpu_index reads the index at this offset");

extern struct cpu cpus[MAX_CPUS];

/*
 * Index of the calling CPU: one GS-relative load (platform_cpu_id forwards
 * here).  volatile: the index never changes on a CPU, but the read goes
 * through the GS base, which percpu_install sets; the compiler must not
 * move or merge the read across that.
 */
static inline unsigned this_cpu_index(void)
{
	unsigned v;

	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(v) : "i"(PERCPU_INDEX_GS_OFFSET));
	return v;
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
