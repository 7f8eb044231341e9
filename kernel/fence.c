// SPDX-License-Identifier: MIT
/*
 * fence.c - a memory barrier on every other CPU, delivered by NMI.
 *
 * The paravirtual spinlock arms its sleeping with it (lib/spinlock_pv.c): the
 * CPUs to fence may be running a benchmark or the torture with interrupts
 * off, and the arming CPU cannot wait until they turn them on.  An NMI is
 * taken between two instructions whatever RFLAGS.IF says, and the handler
 * answers with XCHG, a locked instruction: it drains that CPU's store
 * buffer, so everything the CPU stored before the interrupted instruction
 * is visible, and no later load of that CPU passes it (SDM Vol. 3A 8.2.2).
 *
 * Telling our NMI from others: the asker bumps the CPU's fence_asked, then
 * sends the NMI; the handler copies fence_asked into fence_answered.  One
 * round runs at a time (fence_busy) and the asker waits for every answer,
 * so a CPU has at most one fence NMI outstanding: an NMI is ours iff
 * asked != answered when it arrives.  Any other NMI keeps its meaning
 * (panic or machine stop, or an unexpected NMI, reported as an exception).
 * A hardware NMI that lands while a fence is asked is taken for the
 * answer (rightly: its XCHG comes after the asker's stores), and the
 * fence's own NMI then reports as unexpected: the panic a hardware NMI
 * gets anyway, one NMI later.
 */
#include "fence.h"

#include "atomic.h"
#include "apic.h"
#include "cpu.h"
#include "kcsan.h"
#include "percpu.h"
#include "platform.h"
#include "panic.h"
#include "tsc.h"

static uint8_t fence_busy;

/* True once a wait that began at TSC @start has outlasted PLATFORM_FENCE_MAX_NS. */
static bool fence_overdue(uint64_t start)
{
	return tsc_to_ns(tsc_now() - start) > PLATFORM_FENCE_MAX_NS;
}

/* Wait for the round in progress, if any; panic if it does not end in time. */
static void fence_claim(void)
{
	uint64_t start = tsc_now();

	while (atomic_xchg8(&fence_busy, 1)) {
		cpu_relax();
		if (fence_overdue(start))
			panic("fence: CPU %u waited over %llu s for another CPU's round "
			      "of fence NMIs to end",
			      this_cpu_index(),
			      (unsigned long long)(PLATFORM_FENCE_MAX_NS / 1000000000u));
	}
}

/*
 * Wait until @c has answered every fence NMI asked of it.  Under fence_busy
 * only this round asks, so a CPU not asked (offline, or online only since
 * the NMIs went out) has nothing outstanding and is not waited for.
 */
static void fence_wait_answer(const struct cpu *c, uint64_t start)
{
	uint64_t asked = atomic_load64_relaxed(&c->fence_asked);

	while (atomic_load64(&c->fence_answered) != asked) {
		cpu_relax();
		if (fence_overdue(start))
			panic("fence: CPU %u (APIC id %u) did not answer a fence NMI "
			      "within %llu s",
			      c->index, c->apic_id,
			      (unsigned long long)(PLATFORM_FENCE_MAX_NS / 1000000000u));
	}
}

void fence_others(void)
{
	unsigned self = this_cpu_index();
	uint64_t start;

	fence_claim();
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		if (i == self || !atomic_load8(&cpus[i].online))
			continue;
		atomic_xadd64(&cpus[i].fence_asked, 1);
		apic_send_nmi(cpus[i].apic_id);
	}
	start = tsc_now();
	for (unsigned i = 0; i < MAX_CPUS; i++)
		if (i != self)
			fence_wait_answer(&cpus[i], start);
	atomic_store8(&fence_busy, 0);
}

/* From the NMI handler, which may interrupt the race detector's own runtime. */
KCSAN_EXEMPT bool fence_answer_nmi(void)
{
	struct cpu *c = this_cpu();
	uint64_t asked = atomic_load64(&c->fence_asked);

	if (asked == atomic_load64_relaxed(&c->fence_answered))
		return false;
	/* XCHG: the locked instruction that is the fence. */
	atomic_xchg64(&c->fence_answered, asked);
	return true;
}
