// SPDX-License-Identifier: MIT
/*
 * bench_refcount.c - the scaling curve (refcount) and its variant with a
 * lock holder (convoy), for every implementation of bench_ref.h.
 *
 * refcount: one shared object per implementation; CPUs 0 .. N-1 take and
 * drop references on it as fast as they can, for N = 1, 2, ... every
 * online CPU.  It answers the v7 series' headline question: how much more
 * reference-count traffic a lockref carries than a lock around a count,
 * and how close it gets to a bare atomic counter.
 *
 * convoy: the same, with CPU 0 also taking the object's lock for
 * CONVOY_HOLD_US every CONVOY_EVERY_US, as other users of a dentry's lock
 * do.  A lockless user that meets the held lock falls back to queueing on
 * it; whether the CPUs then return to the lockless path, or stay stuck
 * queueing behind one another, is what separates the policies (mainline
 * goes straight to the lock, v7 waits for it to be free first).  The
 * fallbacks figure shows it.
 *
 * One case (bench_cases.h) per benchmark and implementation keeps each
 * run short and names the one that fails.
 */
#include "bench.h"
#include "bench_cases.h"
#include "bench_ref.h"

/* The convoy's lock holder: 1 us held in every 10 us, about a tenth of the time. */
#define CONVOY_EVERY_US 10
#define CONVOY_HOLD_US	1

/* How long CPUs wait for CPU 0 to set up the shared arguments. */
#define SETUP_TIMEOUT_MS 10000

static struct bench_ref_obj refcount_objs[BENCH_IMPLS];
static struct bench_ref refcount_args[BENCH_IMPLS];

/* Every CPU: the curve of @impl at 1 .. all CPUs, with the convoy holder if @convoy. */
static void refcount_sweep(struct bench_ctx *t, unsigned impl, bool convoy)
{
	struct bench_ref *r = &refcount_args[impl];
	struct bench_spec spec;

	if (t->cpu == 0) {
		bench_ref_init(r, &bench_ref_impls[impl], &refcount_objs[impl]);
		if (convoy) {
			r->convoy.every = bench_cycles_from_us(CONVOY_EVERY_US);
			r->convoy.hold = bench_cycles_from_us(CONVOY_HOLD_US);
		}
	}
	/* The spec is built from *r: no CPU reads it before CPU 0 has filled it. */
	if (!bench_barrier(t, SETUP_TIMEOUT_MS))
		return;
	spec = convoy ? bench_ref_convoy_spec("convoy", r) : bench_ref_spec("refcount", r);
	for (unsigned n = bench_sweep_next(0, t->ncpus); n; n = bench_sweep_next(n, t->ncpus))
		if (!bench_run(t, &spec, n, NULL))
			return;
}

void refcount_xadd(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_XADD, false);
}

void refcount_spinlock(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_SPINLOCK, false);
}

void refcount_lockref(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF, false);
}

void refcount_lockref_v7(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF_V7, false);
}

void refcount_lockref_locked(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF_LOCKED, false);
}

void refcount_lockref16(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF16, false);
}

void refcount_lockref_other_cas(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF_OTHER_CAS, false);
}

void refcount_spinlock_pv(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_SPINLOCK_PV, false);
}

void refcount_lockref_pv(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF_PV, false);
}

void convoy_xadd(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_XADD, true);
}

void convoy_spinlock(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_SPINLOCK, true);
}

void convoy_lockref(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF, true);
}

void convoy_lockref_v7(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF_V7, true);
}

void convoy_lockref_locked(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF_LOCKED, true);
}

void convoy_lockref16(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF16, true);
}

void convoy_spinlock_pv(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_SPINLOCK_PV, true);
}

void convoy_lockref_pv(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_LOCKREF_PV, true);
}

/*
 * Each kind after the default: its refcount and convoy rows, written out
 * in bench_cases.h (BENCH_KIND_REFCOUNT, BENCH_KIND_CONVOY), whose
 * declarations each function here must match: a row missing there fails
 * this build naming the function ("'refcount_<kind>' undeclared").
 */
#define BENCH_SWEEP_FN(fn, impl, convoy)                                                           \
	extern __typeof__(fn) fn;                                                                  \
	void fn(struct bench_ctx *t)                                                               \
	{                                                                                          \
		refcount_sweep(t, impl, convoy);                                                   \
	}
#define BENCH_KIND_SWEEPS(arg, name, ID, prefix)                                                   \
	BENCH_SWEEP_FN(refcount_##name, BENCH_IMPL_##ID, false)                                    \
	BENCH_SWEEP_FN(refcount_lockref_##name, BENCH_IMPL_LOCKREF_##ID, false)                    \
	BENCH_SWEEP_FN(convoy_##name, BENCH_IMPL_##ID, true)                                       \
	BENCH_SWEEP_FN(convoy_lockref_##name, BENCH_IMPL_LOCKREF_##ID, true)
SPIN_KINDS_SWITCHED(BENCH_KIND_SWEEPS, _)
#undef BENCH_KIND_SWEEPS
#undef BENCH_SWEEP_FN

void refcount_qspinlock_pv(struct bench_ctx *t)
{
	refcount_sweep(t, BENCH_IMPL_QSPINLOCK_PV, false);
}
