// SPDX-License-Identifier: MIT
/*
 * test_boot.c - the `boot` suite: did the machine come up the way we think?
 *
 * Every CPU online in long mode with its own stack and GS base, IPIs
 * reaching every CPU, fence NMIs answered by every CPU (the paravirtual
 * spinlock arms its sleeping with them), the TSC monotonic on each CPU and
 * in step across them, and the exception path working.
 */
#include "atomic.h"
#include "apic.h"
#include "cmdline.h"
#include "cpu.h"
#include "fence.h"
#include "heap.h"
#include "ktest.h"
#include "percpu.h"
#include "fault_inject.h"
#include "printf.h"
#include "smp.h"
#include "spinlock.h"
#include "trap.h"
#include "tsc.h"

#define EFER_LMA	(1u << 10) /* long mode active (SDM Vol. 3A 2.2.1) */
#define IPI_WAIT_US	100000
#define TSC_SAMPLES	20000
#define TSC_MAX_SKEW_US 1000 /* vCPUs of one VM share a TSC; hardware syncs within cycles */
/*
 * Each phase of the TSC test ends after its samples or this long, whichever
 * comes first: bounded by time, so hundreds of virtual CPUs sharing two
 * host cores (and one lock) finish as fast as a few.
 */
#define TSC_PHASE_US 300000
/* A barrier gives up when no CPU arrived for this long (barrier.h). */
#define BARRIER_MS 10000

static uint64_t seen_rsp[MAX_CPUS];

static void check_cpu_state(struct ktest_ctx *t)
{
	uint64_t rsp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	struct cpu *c = this_cpu();

	if (!(rdmsr(MSR_EFER) & EFER_LMA))
		ktest_fail(t, "EFER.LMA clear: not in long mode");
	if (c != &cpus[t->cpu] || c->self != c || rdmsr(MSR_GS_BASE) != (uint64_t)(uintptr_t)c)
		ktest_fail(t, "GS base %lx is not &cpus[%u] = %p", rdmsr(MSR_GS_BASE), t->cpu,
			   (void *)&cpus[t->cpu]);
	if (c->apic_id != apic_id())
		ktest_fail(t, "struct cpu says APIC id %u, the APIC says %u", c->apic_id,
			   apic_id());
	if (t->cpu > 0 && (rsp > (uint64_t)(uintptr_t)c->stack_top ||
			   rsp < (uint64_t)(uintptr_t)c->stack_top - (64u << 10)))
		ktest_fail(t, "stack pointer %lx outside this CPU's stack (top %p)", rsp,
			   (void *)c->stack_top);
	seen_rsp[t->cpu] = rsp;
	if (!ktest_barrier(t, BARRIER_MS))
		return;
	for (unsigned i = 0; i < t->ncpus; i++)
		if (i != t->cpu && seen_rsp[i] == rsp)
			ktest_fail(t, "shares its stack (rsp %lx) with CPU %u", rsp, i);
}

static void cpus_online(struct ktest_ctx *t)
{
	unsigned want = smp_cpus_found() < opts.smp_max ? smp_cpus_found() : opts.smp_max;

	if (t->cpu == 0) {
		ktest_diag(t, "%u CPU%s found, %u online, %s", smp_cpus_found(),
			   plural(smp_cpus_found()), smp_cpus_online(),
			   apic_is_x2apic() ? "x2APIC" : "xAPIC");
		if (smp_cpus_online() != want)
			ktest_fail(t, "%u CPUs online, expected %u (found %u, smp.max=%u)",
				   smp_cpus_online(), want, smp_cpus_found(), opts.smp_max);
	}
	check_cpu_state(t);
}
KTEST(boot, "cpus_online_long_mode_own_stack_gs", cpus_online, KTEST_ALL_CPUS);

/* Fixed IPIs to every AP (sleeping in HLT), and one to ourselves. */
static void ipi_delivery(struct ktest_ctx *t)
{
	unsigned n = smp_cpus_online(), delivered = 0;

	for (unsigned i = 0; i < n; i++) {
		struct cpu *c = &cpus[i];
		uint64_t before = c->ipis_seen;
		uint64_t end = tsc_now() + tsc_from_us(IPI_WAIT_US);

		if (i == 0)
			sti(); /* the boot CPU runs with interrupts off otherwise */
		apic_send_ipi(c->apic_id, VEC_TEST);
		while (c->ipis_seen == before && tsc_now() < end)
			cpu_relax();
		if (i == 0)
			cli();
		if (c->ipis_seen == before)
			ktest_fail(t, "IPI to CPU %u (APIC id %u) not seen within %u us", i,
				   c->apic_id, IPI_WAIT_US);
		else
			delivered++;
	}
	ktest_diag(t, "IPI delivered to %u of %u CPU%s", delivered, n, plural(n));
}
KTEST(boot, "ipi_to_every_cpu", ipi_delivery, 0);

/*
 * One round of fence NMIs (fence.c) from the boot CPU: every other online
 * CPU must answer exactly once, and return from the NMI to what it was
 * doing (the tests after this one run on every CPU).  fence_others itself
 * panics, naming the CPU, if one never answers.
 */
static void fence_round(struct ktest_ctx *t)
{
	static uint64_t before[MAX_CPUS];
	unsigned n = smp_cpus_online();
	uint64_t start;

	for (unsigned i = 1; i < n; i++)
		before[i] = atomic_load64(&cpus[i].fence_answered);
	start = tsc_now();
	fence_others();
	ktest_diag(t, "fence NMIs: a round to %u other CPU%s took %llu us", n - 1, plural(n - 1),
		   (unsigned long long)(tsc_to_ns(tsc_now() - start) / 1000));
	for (unsigned i = 1; i < n; i++) {
		uint64_t now = atomic_load64(&cpus[i].fence_answered);

		if (now != before[i] + 1)
			ktest_fail(t,
				   "CPU %u (APIC id %u) answered %llu fence NMIs in one round, "
				   "expected 1",
				   i, cpus[i].apic_id, (unsigned long long)(now - before[i]));
	}
}
KTEST(boot, "fence_nmi_to_every_cpu", fence_round, 0);

static spinlock_t tsc_lock = SPINLOCK_INIT;
static uint64_t tsc_last;
static uint64_t tsc_max_back;

/*
 * Each CPU checks its own TSC never goes back, then all take turns under a
 * lock comparing their TSC with the last one read by any CPU: the lock
 * orders the reads, so a later read showing a smaller value means the
 * TSCs are out of step by at least that much.
 */
static void tsc_in_step(struct ktest_ctx *t)
{
	uint64_t prev = rdtsc_ordered(), end = prev + tsc_from_us(TSC_PHASE_US);

	for (int i = 0; i < TSC_SAMPLES && prev < end; i++) {
		uint64_t now = rdtsc_ordered();

		if (now < prev) {
			ktest_fail(t, "TSC went back on this CPU: %lu after %lu", now, prev);
			return;
		}
		prev = now;
	}
	if (!ktest_barrier(t, BARRIER_MS))
		return;
	end = rdtsc_ordered() + tsc_from_us(TSC_PHASE_US);
	for (int i = 0; i < TSC_SAMPLES / 100 && rdtsc_ordered() < end; i++) {
		spin_lock(&tsc_lock);
		uint64_t now = rdtsc_ordered();
		if (now < tsc_last && tsc_last - now > tsc_max_back)
			tsc_max_back = tsc_last - now;
		tsc_last = now;
		spin_unlock(&tsc_lock);
	}
	if (!ktest_barrier(t, BARRIER_MS) || t->cpu != 0)
		return;
	uint64_t skew_ns = tsc_to_ns(tsc_max_back);
	ktest_diag(t, "largest backward step between CPUs: %lu ns", skew_ns);
	if (skew_ns > TSC_MAX_SKEW_US * 1000ull)
		ktest_fail(t, "TSCs out of step by %lu ns (limit %u us)", skew_ns, TSC_MAX_SKEW_US);
}
KTEST(boot, "tsc_monotonic_and_in_step", tsc_in_step, KTEST_ALL_CPUS);

static void exception_recovery(struct ktest_ctx *t)
{
	int v = fault_inject_recoverable_ud();

	if (v != 6)
		ktest_fail(t, "ud2 raised vector %d, expected 6 (#UD)", v);
}
KTEST(boot, "exception_path_recoverable_ud", exception_recovery, 0);

/*
 * Sizes whose rounding up to whole pages wraps past SIZE_MAX: refused.  The
 * rounding once wrapped to 0, and heap_alloc handed out a live pointer and
 * cleared SIZE_MAX bytes from it.
 */
static void heap_refuses_wrapping_sizes(struct ktest_ctx *t)
{
	const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 100, SIZE_MAX - 4094};
	void *p;

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p = heap_alloc(sizes[i], 8);
		if (p)
			ktest_fail(t, "heap_alloc(%#zx) gave %p, expected NULL", sizes[i], p);
	}
	p = heap_alloc(3 * 4096 + 1, 8); /* the large path still works */
	if (!p)
		ktest_fail(t, "heap_alloc(%u) failed", 3 * 4096 + 1);
	heap_free(p, 3 * 4096 + 1);
}
KTEST(boot, "heap_refuses_wrapping_sizes", heap_refuses_wrapping_sizes, 0);
