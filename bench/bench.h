// SPDX-License-Identifier: MIT
/*
 * bench.h - the harness every kernel benchmark runs on.
 *
 * Why one harness: a figure means something only next to another figure
 * measured the same way, in the same boot, on the same CPUs.  So every
 * benchmark (uncontended, refcount, convoy, retry-table, pathwalk) hands
 * the harness a bench_spec, "do N operations as CPU c", and the harness
 * does the rest the same way for all of them:
 *
 *   - bench_run is called by every CPU of an all-CPU benchmark with the
 *     same spec.  CPUs 0 .. active-1 measure; the others wait at the end
 *     barrier, so a scaling curve is one spec run at 1, 2, ... CPUs.
 *   - Interrupts are off on every CPU for the whole run (in the kernel;
 *     a host OS keeps them, platform.h).
 *   - A sense-reversing barrier (lib/barrier.h) releases all CPUs at once.
 *     A trial lasts bench.ms=: CPU 0 raises the stop flag that long
 *     after its own start, and every CPU looks at the flag after each batch
 *     of operations (a batch that runs long halves the next ones).  Trials
 *     are fixed-duration, never fixed-count.
 *   - One short warm-up trial, then bench.trials= measured ones; the
 *     BENCH line gives the median, min and max over the measured trials.
 *   - Each batch is timed with platform_cycles_begin/end (LFENCE;RDTSC
 *     before, RDTSCP;LFENCE after; never CPUID, which exits to the
 *     hypervisor), and the cost of an empty batch, timed the same way on
 *     each CPU before the trials, is taken off.
 *   - Each CPU's counters sit in their own 128-byte line pair; the stop
 *     flag too.  The measured objects are the spec's business: give each
 *     implementation its own object, alone in its own line pair.
 *
 * Where it runs: the harness and the benchmarks are portable C on
 * lib/platform.h (and fs/ for pathwalk).  A runner calls the benchmarks of
 * bench_cases.h with a bench_ctx and provides bench_fail, bench_diag and
 * bench_barrier: in the kernel, bench_ktest.c makes each one a KTEST of
 * the bench suite; on a host, tests/bench/bench_native.c runs them on
 * threads pinned one per core.
 *
 * The BENCH line (docs/interface.md), printed by CPU 0 after the trials:
 *
 *   # BENCH {"bench":..,"impl":..,"op":..,"platform":"kernel"|"native",
 *            "cpus":N,"trials":T,"ms":M,
 *            "ops_per_sec":..,"ops_per_sec_min":..,"ops_per_sec_max":..,
 *            "ns_per_op":..,"cycles_per_op":..,"jain":..,"min_mean":..,
 *            "overlap":..,"overlap_min":..,"max_gap_us":..,"batch_us":..,
 *            "overruns":..,
 *            "clock_end":"rdtscp"|"lfence-rdtsc","place":..,"cpu_list":..,
 *            "path":"bare"|"switched",
 *            <lockref forms: "retries_per_op":..,"fallbacks":..,"lockref_ops":..,>
 *            <the spec's extra members>}
 *
 *   ops_per_sec    aggregate over the active CPUs: operations of all CPUs
 *                  divided by the span from the first start to the last
 *                  stop (median of trials; _min and _max beside it).  With
 *                  an untimed step (spec.untimed) the wall clock would
 *                  count work that is not the operation, so the rate comes
 *                  from the timed cycles instead.
 *   ns_per_op,     the time one operation takes as one CPU sees it: timed
 *   cycles_per_op  cycles less the empty-batch cost, over the operations
 *                  (median of trials).
 *   jain           Jain's fairness index over the CPUs' operation counts,
 *                  (sum x)^2 / (n sum x^2): 1 is perfectly fair, 1/n is one
 *                  CPU doing everything.  min_mean: the slowest CPU's count
 *                  over the mean.  Both medians of trials.
 *   overlap        the fraction of the run during which every active CPU
 *                  was running: how well the starts (and stops) lined up
 *                  (median of trials; overlap_min: the worst trial).
 *   max_gap_us     the longest interval between two batch starts on any
 *                  CPU in any measured trial; batch_us is the mean one.  A
 *                  max far above the mean means a CPU was stopped (a host
 *                  preempting its vCPU or descheduling a thread, an SMI).
 *   place,         bench.place= (cores, compact, spread) and the CPUs the
 *   cpu_list       active ranks ran on, as a CPU list ("0-3,8-11"): kernel
 *                  CPU indices, or the host's CPU numbers (bench_plan.h)
 *   path           the lock path the trials timed: "bare" if every one ran
 *                  each switch's default without reading a switch word (the
 *                  kernel with every static key off, or the spec's fixed
 *                  copies and bare lock pairs, whose unlock still reads the
 *                  pv mode as the kind's own algorithm does), else
 *                  "switched" (a key on, e.g. the kernel's pv rows', or a
 *                  host's public calls, which dispatch on the switch word).
 *   overruns       CPUs that did not see the stop flag in time and stopped
 *                  on their own (after BENCH_OVERRUN_FACTOR trial lengths).
 *   retries_per_op lockref forms: failed compare-exchanges per lockref
 *                  operation; fallbacks: operations that took the lock;
 *                  lockref_ops: lockref operations, all over the measured
 *                  trials (lib/lockref.h statistics).
 *   pv_sleeps,     spinlock-pv, lockref-pv and qspinlock-pv (refcount,
 *   pv_kicks,      convoy): per trial, the mean over every trial run:
 *   pv_passes      waiters that went to sleep (queued ones: halted), kicks
 *                  sent to them, and turns that went past a sleeping waiter
 *                  to a running one (lib/pv_stats.h).
 *   pv_armed_trials  the same impls: of every trial run (the warm-up too),
 *                  those in which a waiter armed sleeping, after which every
 *                  unlock fenced (lib/spinlock_pv.c).
 *
 * Fractions and per-operation figures are printed in fixed point with
 * BENCH_DECIMALS decimals (the kernel has no floating point).
 */
#ifndef KERNEL_BENCH_H
#define KERNEL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/* One CPU's view of a running benchmark, made by the runner. */
struct bench_ctx {
	unsigned cpu;	 /* this CPU's index, 0 .. ncpus-1 */
	unsigned ncpus;	 /* CPUs running this benchmark: 1, or every CPU of the runner */
	unsigned ms;	 /* one trial, bench.ms= */
	unsigned trials; /* measured trials, bench.trials= */
	const void *id;	 /* the same for every CPU of one benchmark, new for the next */
	void *runner;	 /* the runner's own state */
	bool emulated;	 /* the CPUs are an emulator's (CPUID: TCG): figures describe it */
};

/*
 * Provided by the runner.  bench_fail: report a failed check (one
 * diagnostic line) and mark the benchmark failed.  bench_diag: one
 * diagnostic line.  Both from any CPU.  bench_barrier: wait for every CPU
 * of the benchmark (true at once when ncpus is 1); false, with the
 * benchmark failed, if some CPU did not come within @timeout_ms: give up
 * promptly then.
 */
void bench_fail(struct bench_ctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bench_diag(struct bench_ctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool bench_barrier(struct bench_ctx *t, unsigned timeout_ms);

/*
 * Operations per batch unless the spec says otherwise; the stop flag is
 * read between batches.  Small, because a contended operation can take
 * milliseconds when vCPUs outnumber host cores (a lock handed to a
 * preempted vCPU), and a CPU only stops at the end of its batch.
 */
#define BENCH_BATCH_OPS 16

/* Measured trials at most (bench.trials= is clamped to this, with a line saying so). */
#define BENCH_TRIALS_MAX 101

/* A CPU that has run this many trial lengths without seeing the stop flag stops by itself. */
#define BENCH_OVERRUN_FACTOR 4

/* Fixed point: BENCH_ONE is 1.0, i.e. BENCH_DECIMALS decimals. */
#define BENCH_DECIMALS 4
#define BENCH_ONE      10000u

/* Do @n operations as CPU @cpu (0 .. active-1) of the run. */
typedef void (*bench_ops_fn)(void *arg, unsigned cpu, unsigned n);

struct bench_spec {
	const char *bench; /* docs/interface.md name: "refcount", "convoy", "pathwalk", ... */
	const char *impl;  /* docs/interface.md name: "lockref", "spinlock", "xadd", ... */
	const char *op;	   /* what one operation is, e.g. "get+put" */
	bench_ops_fn run;  /* the measured operations */
	/* Optional, run untimed after every timed batch with the same @n (e.g. undo the gets). */
	bench_ops_fn untimed;
	/* Optional: CPU 0, before every trial, while no other CPU runs the spec. */
	void (*reset)(void *arg);
	/*
	 * Optional: CPU 0, after every trial.  Returns false, with a reason in
	 * @why, if the object is not as the operations must have left it; the
	 * test then fails.
	 */
	bool (*check)(void *arg, char *why, size_t size);
	/*
	 * Optional: CPU 0, once after the last trial, also when a barrier failed
	 * (check then never ran): undo what reset changed beyond the spec's own
	 * object, e.g. the lock kind.
	 */
	void (*finish)(void *arg);
	/* Optional: CPU 0 writes more members (",\"name\":value" ...) for the BENCH line. */
	void (*extra)(void *arg, char *buf, size_t size);
	void *arg;
	unsigned batch; /* operations per batch; 0 means BENCH_BATCH_OPS */
	bool lockref;	/* add the lockref statistics to the line */
	/*
	 * Lockref calls per operation, run and untimed together: the lockless
	 * ones are then derived (calls - fallbacks - abandoned), as the fast
	 * path does not count them (lockref.h).  0: the library's own lockless
	 * count, which needs lockref_stats_count_all().
	 */
	unsigned lockref_calls;
	/*
	 * The loops run copies built with every switch constant (the host's
	 * lib/lockref_fixed.h ones): the line's "path" is "bare" whatever the
	 * static keys say.  Otherwise "bare" only while static_keys_bare().
	 */
	bool bare;
};

/* What CPU 0 measured, in the units of the BENCH line. */
struct bench_result {
	unsigned cpus, trials;
	uint64_t ops_per_sec, ops_per_sec_min, ops_per_sec_max;
	uint64_t ns_per_op, cycles_per_op;	       /* fixed point, BENCH_ONE = 1 */
	uint64_t jain, min_mean, overlap, overlap_min; /* fixed point */
	uint64_t max_gap_ns, batch_ns;
	unsigned overruns;
	bool switched; /* the "path" member: a measured trial ran a static key on */
	uint64_t lockref_ops, retries, fallbacks;
};

/*
 * Every CPU of @t calls this with the same @spec and @active (1 ..
 * t->ncpus); a single-CPU benchmark calls it with @active = 1.  Measures
 * as the file comment says, prints the BENCH line and fills *@out (if not
 * NULL) on CPU 0 only.  Interrupts are off inside and restored on return.
 * Returns false on every CPU that found a barrier broken (a CPU did not
 * arrive in time; the benchmark is then failed): stop benchmarking and
 * return.  A failed spec check fails the benchmark but returns true.
 */
bool bench_run(struct bench_ctx *t, const struct bench_spec *spec, unsigned active,
	       struct bench_result *out);

/* Cycles of platform_cycles() in nanoseconds, and microseconds in cycles. */
uint64_t bench_cycles_to_ns(uint64_t cycles);
uint64_t bench_cycles_from_us(uint64_t us);

/*
 * The CPU counts of a scaling curve: the runner's plan (bench_plan.h:
 * bench.cpus=, ascending, installed in bench_sweep_points), else 1, 2, ...
 * @ncpus, or above BENCH_SWEEP_EVERY_MAX CPUs the powers of two and
 * @ncpus.  Returns the count after @n, or 0 after the last (none above
 * @ncpus):
 *     for (unsigned n = bench_sweep_next(0, t->ncpus); n; n = bench_sweep_next(n, t->ncpus))
 */
#define BENCH_SWEEP_EVERY_MAX 16
extern const unsigned *bench_sweep_points;
extern unsigned bench_sweep_npoints;
unsigned bench_sweep_next(unsigned n, unsigned ncpus);

/*
 * Integer statistics (bench_stats.c: plain C, also built into a host test).
 */

/* Sort @v[0 .. @n-1] in place and return the median (mean of the middle two when @n is even). */
uint64_t bench_median(uint64_t *v, unsigned n);

/* Jain's index of @v[0 .. @n-1] in fixed point; BENCH_ONE when all are zero or @n is 0. */
uint64_t bench_jain(const uint64_t *v, unsigned n);

/* @a * @b / @c without overflowing the product; UINT64_MAX if the quotient does not fit or @c is 0. */
uint64_t bench_muldiv(uint64_t a, uint64_t b, uint64_t c);

/* CPU 0, for every result printed: the refcount figures the "headline" case says in words. */
void bench_headline_note(const struct bench_spec *spec, const struct bench_result *r);

/* Print fixed-point @v (BENCH_ONE = 1) as "12.3456" into @buf; returns what ksnprintf does. */
int bench_fixed(char *buf, size_t size, uint64_t v);

#endif /* KERNEL_BENCH_H */
