// SPDX-License-Identifier: MIT
/*
 * bench_plan.c - the CPUs and counts of every sweep (bench_plan.h).
 *
 * Why a plan made once, before any benchmark: every sweeping benchmark
 * must run at the same CPU counts on the same CPUs in the same order, or
 * two rows of a table would compare different machines; and a person
 * (or `bench_native --plan`) must be able to see what a run will cost
 * before it starts.  So the placement's order, the counts and the time
 * estimate are fixed here from the topology and the command line, printed
 * as `plan:` lines, and only read afterwards.
 */
#include "bench_plan.h"

#include "bench.h"
#include "bench_cases.h"
#include "platform.h"
#include "printf.h"
#include "string.h"

#define PLAN_LINE_MAX 240
#define WARMUP_DIV    4 /* bench.c's warm-up trial is a quarter of a trial */
#define MS_PER_S      1000u

struct bench_plan bench_plan;

/* Each benchmark's estimate, from the one case list (bench_cases.h), in its order. */
static const struct {
	const char *name;
	uint64_t (*estimate)(const struct bench_estimate *e);
} plan_cases[] = {
#define PLAN_CASE(fn, name, cpus, estimate) {name, estimate},
    BENCH_CASES(PLAN_CASE)
#undef PLAN_CASE
};

#define NPLAN_CASES (sizeof(plan_cases) / sizeof(plan_cases[0]))

/* Add @n to the ascending points, once. */
static void add_point(unsigned n)
{
	unsigned at = 0;

	if (n == 0 || n > bench_plan.ncpus || bench_plan.npoints == BENCH_PLAN_POINTS_MAX)
		return;
	while (at < bench_plan.npoints && bench_plan.points[at] < n)
		at++;
	if (at < bench_plan.npoints && bench_plan.points[at] == n)
		return;
	memmove(&bench_plan.points[at + 1], &bench_plan.points[at],
		(bench_plan.npoints - at) * sizeof(bench_plan.points[0]));
	bench_plan.points[at] = n;
	bench_plan.npoints++;
}

/*
 * The plan.  The CPUs are the placement's order (topology_order) cut to
 * those this run may use, so "the first n CPUs" of any sweep are the same
 * n.  The counts (bench.cpus=): geo, the default, is a geometric series
 * and the topology's bounds, which keeps a 256-CPU sweep to about twenty
 * points yet never misses the count where the line starts to cross an
 * LLC group or a package; all is every count; list is the given ones.
 * The largest count is always measured: it is the table's last row.
 */
unsigned bench_plan_make(const struct topology *t, const bool *allowed, unsigned ncpus,
			 unsigned place, unsigned kind, const uint16_t *list, unsigned nlist)
{
	static unsigned order[MAX_CPUS];
	struct bench_plan *p = &bench_plan;
	unsigned n = 0;

	*p = (struct bench_plan){.made = true, .place = place, .cpus = kind, .topo = t};
	topology_order(t, (enum topo_place)place, order);
	topology_bounds(t, (enum topo_place)place, order, &p->bounds);
	for (unsigned k = 0; k < t->ncpus; k++) {
		unsigned os = t->cpu[order[k]].os;

		if (!allowed || (os < MAX_CPUS && allowed[os]))
			p->os[n++] = os;
	}
	p->ncpus = ncpus && ncpus < n ? ncpus : n;
	if (kind == BENCH_PLAN_LIST) {
		for (unsigned i = 0; i < nlist; i++)
			add_point(list[i]);
	} else if (kind == BENCH_PLAN_ALL) {
		for (unsigned c = 1; c <= p->ncpus; c++)
			add_point(c);
	} else {
		/* 1, 2, 3, 4, 6, 8, 12, ...: powers of two and 1.5 times them. */
		for (unsigned c = 1; c <= p->ncpus; c *= 2) {
			add_point(c);
			add_point(c + c / 2);
		}
		add_point(p->bounds.llc);
		add_point(p->bounds.package);
		add_point(p->bounds.cores);
	}
	if (kind != BENCH_PLAN_LIST || p->npoints == 0) /* a list of counts above all: all */
		add_point(p->ncpus);
	bench_sweep_points = p->points;
	bench_sweep_npoints = p->npoints;
	return p->ncpus;
}

/*
 * Reading the plan: a CPU's rank in the order (a benchmark's thread k runs
 * on the CPU of rank k), and the CPUs of the first @active as a list for
 * the BENCH line.  Before a plan is made (a host test), ranks are numbers.
 */
unsigned bench_plan_rank(unsigned os)
{
	for (unsigned r = 0; bench_plan.made && r < bench_plan.ncpus; r++)
		if (bench_plan.os[r] == os)
			return r;
	return os;
}

size_t bench_plan_cpu_list(char *buf, size_t size, unsigned active)
{
	unsigned v[MAX_CPUS];

	active = active > MAX_CPUS ? MAX_CPUS : active;
	for (unsigned r = 0; r < active; r++)
		v[r] = bench_plan.made && r < bench_plan.ncpus ? bench_plan.os[r] : r;
	/* Ascending, for the list's ranges. */
	for (unsigned i = 1; i < active; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			unsigned x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return topology_format_list(buf, size, v, active);
}

/*
 * The estimate: the trials' time alone (trials x ms and the warm-up, per
 * point), which is what the command line controls; set-up and an
 * emulator's slowness are said to come on top rather than guessed.
 */
uint64_t bench_estimate_sweep(const struct bench_estimate *e)
{
	return e->npoints * e->run_ms;
}

uint64_t bench_plan_case_ms(unsigned idx, unsigned ms, unsigned trials)
{
	struct bench_estimate e = {
	    .ncpus = bench_plan.ncpus,
	    .npoints = bench_plan.npoints,
	    .ms = ms,
	    .run_ms = (uint64_t)trials * ms + ms / WARMUP_DIV,
	};

	return idx < NPLAN_CASES ? plan_cases[idx].estimate(&e) : 0;
}

/*
 * The `plan:` lines, through @line so that the kernel's log and
 * bench_native's stdout print the same text, which tools/bench/bench_curve.py
 * reads the boundaries from.
 */
void bench_plan_print(unsigned ms, unsigned trials, void (*line)(const char *text))
{
	static const char *const kinds[] = {"geo", "all", "list"};
	const struct bench_plan *p = &bench_plan;
	char text[PLAN_LINE_MAX], cpus[PLAN_LINE_MAX / 2];
	size_t len;
	uint64_t total = 0;

	bench_plan_cpu_list(cpus, sizeof(cpus), p->ncpus);
	ksnprintf(text, sizeof(text), "plan: bench.place=%s bench.cpus=%s: %u CPU%s (%s)",
		  topo_place_names[p->place], kinds[p->cpus < 3 ? p->cpus : 0], p->ncpus,
		  plural(p->ncpus), cpus);
	line(text);
	len = (size_t)ksnprintf(text, sizeof(text),
				"plan: %u points per sweeping benchmark:", p->npoints);
	for (unsigned i = 0; i < p->npoints && len < sizeof(text); i++)
		len += (size_t)ksnprintf(text + len, sizeof(text) - len, " %u", p->points[i]);
	line(text);
	ksnprintf(text, sizeof(text),
		  "plan: boundaries (bench.place=%s, bench_plan.h): LLC group at %u, package at "
		  "%u, every core at %u (0: none)",
		  topo_place_names[p->place], p->bounds.llc, p->bounds.package, p->bounds.cores);
	line(text);
	for (unsigned i = 0; i < NPLAN_CASES; i++)
		total += bench_plan_case_ms(i, ms, trials);
	ksnprintf(text, sizeof(text),
		  "plan: %u benchmarks, estimated %llu s at bench.ms=%u bench.trials=%u (trials "
		  "only: set-up and an emulator's slowness come on top)",
		  (unsigned)NPLAN_CASES, (unsigned long long)(total / MS_PER_S), ms, trials);
	line(text);
}
