// SPDX-License-Identifier: MIT
/*
 * bench_plan.h - which CPUs a benchmark runs on, in which order, and at
 * which thread counts its curve is measured (bench.place=, bench.cpus=).
 *
 * Why: thread i on CPU i puts "2 threads" on two hyperthreads of one core
 * on some machines and on two sockets on others, and a sweep over every
 * count from 1 to N takes hours at 128 CPUs.  The plan orders the CPUs by
 * the topology (lib/topology.h: cores first, then SMT siblings, by
 * default) and keeps a geometric series of counts plus the boundaries
 * where a curve changes regime (the first LLC group filled, the first
 * package, every physical core, all CPUs), so a run grows with log N.
 *
 * Both runners make the plan once before the benchmarks: the kernel from
 * its CPUID topology (rank r runs on kernel CPU os[r]), bench_native from
 * sysfs (thread r is pinned to host CPU os[r]).  Every BENCH line names
 * the CPUs of its ranks 0 .. active-1 ("cpu_list").
 */
#ifndef BENCH_PLAN_H
#define BENCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology.h"

/* A sweep's counts at most: a 256-CPU machine needs 24 at most (geo plus boundaries). */
#define BENCH_PLAN_POINTS_MAX 64

struct bench_plan {
	bool made;
	unsigned place;	       /* enum topo_place */
	unsigned ncpus;	       /* threads of an all-CPU benchmark */
	unsigned cpus;	       /* the bench.cpus= kind (BENCH_CPUS_* of kernel/cmdline.h) */
	unsigned os[MAX_CPUS]; /* rank -> the CPU's number in the topology */
	unsigned points[BENCH_PLAN_POINTS_MAX];
	unsigned npoints;
	struct topo_bounds bounds;
	const struct topology *topo; /* the one the plan was made from */
};

extern struct bench_plan bench_plan;

/* The bench.cpus= kinds (the same values as kernel/cmdline.h's). */
#define BENCH_PLAN_GEO	0
#define BENCH_PLAN_ALL	1
#define BENCH_PLAN_LIST 2

/*
 * Make the plan and install its points for bench_sweep_next: @t's CPUs in
 * @place order, only those @allowed (indexed by CPU number; NULL: all),
 * the first @ncpus of them (0: all), the counts of @kind (@list[0 ..
 * @nlist-1] ascending for BENCH_PLAN_LIST, those above ncpus dropped,
 * @ncpus alone if none is left; geo and all end with @ncpus itself).
 * Returns the threads.
 */
unsigned bench_plan_make(const struct topology *t, const bool *allowed, unsigned ncpus,
			 unsigned place, unsigned kind, const uint16_t *list, unsigned nlist);

/* The rank of CPU @os in the plan, or @os itself if it has none. */
unsigned bench_plan_rank(unsigned os);

/* The CPUs of ranks 0 .. @active-1, as a CPU list ("0-3,8"), into @buf. */
size_t bench_plan_cpu_list(char *buf, size_t size, unsigned active);

/*
 * Estimated milliseconds of benchmark @idx of bench_cases.h (@all_cpus: it
 * sweeps) at @ms per trial and @trials: its runs times one run's length
 * (the trials and the warm-up).  An estimate: barriers, calibration and
 * set-up are left out, and an emulator runs slower.
 */
uint64_t bench_plan_case_ms(unsigned idx, unsigned ms, unsigned trials);

/* The plan in lines (bench.plan=1, bench_native --plan): points, CPUs, estimate. */
void bench_plan_print(unsigned ms, unsigned trials, void (*line)(const char *text));

#endif /* BENCH_PLAN_H */
