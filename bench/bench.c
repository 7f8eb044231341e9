// SPDX-License-Identifier: MIT
/*
 * bench.c - the benchmark harness of bench.h: start together, run for a
 * fixed time, stop together, and turn per-CPU counters into one BENCH line.
 *
 * One run (bench_run) on every CPU of the test:
 *
 *   CPU 0 prepares the shared state; a runner barrier publishes it.
 *   Each active CPU times an empty batch (the harness overhead to subtract).
 *   Trial 0 is a short warm-up, trials 1 .. T are measured.  Per trial:
 *     CPU 0: spec reset, lockref statistics zeroed, stop flag lowered
 *     barrier "start"   every CPU; the release is the start signal
 *     active CPUs run batches until the stop flag (CPU 0 raises it)
 *     barrier "stop"    every CPU
 *     CPU 0: spec check, figures of this trial kept
 *   CPU 0 takes medians over the measured trials and prints the line.
 *
 * Benchmarks run one at a time (both runners run one benchmark at a
 * time), so the shared state is a single static instance.
 */
#include "bench.h"

#include "atomic.h"
#include "barrier.h"
#include "bench_plan.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "static_key.h"

/* Empty batches timed per CPU before the trials; the median is the overhead. */
#define BENCH_EMPTY_RUNS 33

/*
 * A batch longer than this fraction of the trial halves the next one (down
 * to one operation; quick batches grow back): a CPU whose operations take
 * milliseconds, as when a lock is handed to a preempted vCPU, still sees
 * the stop flag in time.
 */
#define BENCH_SLOW_BATCH_DIV 64

/* The warm-up trial only has to warm caches and predictors: this fraction of a trial. */
#define BENCH_WARMUP_DIV 4

/*
 * How long a barrier waits beyond what the trial itself needs: CPU 0
 * prints and checks between trials, and under TCG a vCPU can be held up.
 */
#define BENCH_BARRIER_SLACK_MS 10000u

#define NS_PER_MS  1000000ull
#define US_PER_MS  1000ull
#define KHZ_PER_HZ 1000ull

/* The longest "cpu_list" kept whole (256 CPUs in two ranges fit many times over). */
#define BENCH_CPU_LIST_MAX 200

/* The BENCH line's prefix; the JSON after it gets the rest of a platform line. */
#define BENCH_PREFIX   "# BENCH "
#define BENCH_LINE_MAX (PLATFORM_LINE_MAX - (sizeof(BENCH_PREFIX) - 1))

/* One CPU's figures for the current trial: written by that CPU only, read by CPU 0 after "stop". */
struct bench_cpu {
	uint64_t ops;
	uint64_t timed; /* cycles inside the timed batches */
	uint64_t batches;
	uint64_t start;	  /* TSC when the start barrier released this CPU */
	uint64_t end;	  /* TSC when it stopped */
	uint64_t max_gap; /* longest interval between two batch starts, cycles */
	uint64_t empty;	  /* cycles of an empty batch (the run's calibration) */
	bool overran;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* The stop flag, alone in its line pair: every CPU reads it after every batch. */
struct bench_flag {
	volatile uint32_t raised;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* What CPU 0 keeps of each measured trial. */
struct bench_trials {
	uint64_t rate[BENCH_TRIALS_MAX];
	uint64_t cycles[BENCH_TRIALS_MAX]; /* per operation, fixed point */
	uint64_t jain[BENCH_TRIALS_MAX];
	uint64_t min_mean[BENCH_TRIALS_MAX];
	uint64_t overlap[BENCH_TRIALS_MAX];
	uint64_t max_gap, span, batches;
	unsigned overruns;
	bool switched; /* a measured trial ran with a static key on (bench_spec.bare) */
	struct lockref_stats lockref;
};

/*
 * The shared state.  The barrier is initialised once per benchmark (owner):
 * a CPU can still be on its way out of the last barrier of one run when
 * CPU 0 starts the next, so re-initialising it then could strand that CPU.
 */
static struct {
	struct barrier barrier;
	const void *owner;
	struct bench_flag stop;
	struct bench_cpu cpu[MAX_CPUS];
	struct bench_trials trials;	/* CPU 0 only */
	uint64_t per_cpu_ops[MAX_CPUS]; /* CPU 0 only */
} bench;

uint64_t bench_cycles_to_ns(uint64_t cycles)
{
	return bench_muldiv(cycles, NS_PER_MS, platform_facts().cycles_khz);
}

uint64_t bench_cycles_from_us(uint64_t us)
{
	return bench_muldiv(us, platform_facts().cycles_khz, US_PER_MS);
}

/* The empty batch: the loop a spec's batch runs, with nothing in it. */
static void bench_empty(void *arg, unsigned cpu, unsigned n)
{
	(void)arg;
	(void)cpu;
	for (unsigned i = 0; i < n; i++)
		atomic_compiler_barrier();
}

static unsigned bench_batch(const struct bench_spec *spec)
{
	return spec->batch ? spec->batch : BENCH_BATCH_OPS;
}

/* Median cycles of an empty batch on this CPU, timed exactly as the real ones are. */
static uint64_t bench_calibrate(const struct bench_spec *spec, unsigned cpu)
{
	uint64_t runs[BENCH_EMPTY_RUNS];
	bench_ops_fn volatile empty = bench_empty; /* called through a pointer, as spec->run is */

	for (unsigned i = 0; i < BENCH_EMPTY_RUNS; i++) {
		uint64_t t0 = platform_cycles_begin();

		empty(spec->arg, cpu, bench_batch(spec));
		runs[i] = platform_cycles_end() - t0;
	}
	return bench_median(runs, BENCH_EMPTY_RUNS);
}

/*
 * One trial on an active CPU: batches until the stop flag, which CPU 0
 * raises @trial_cycles after its own start.
 */
static void bench_work(const struct bench_spec *spec, unsigned cpu, uint64_t trial_cycles)
{
	struct bench_cpu *me = &bench.cpu[cpu];
	unsigned full = bench_batch(spec), n = full;
	uint64_t ops = 0, timed = 0, batches = 0, max_gap = 0;
	uint64_t start = platform_cycles_begin(), prev = start;
	uint64_t deadline = start + trial_cycles;
	uint64_t give_up = start + trial_cycles * BENCH_OVERRUN_FACTOR;
	uint64_t slow = trial_cycles / BENCH_SLOW_BATCH_DIV;
	bool overran = false;

	for (;;) {
		uint64_t t0 = platform_cycles_begin(), t1;

		spec->run(spec->arg, cpu, n);
		t1 = platform_cycles_end();
		if (spec->untimed)
			spec->untimed(spec->arg, cpu, n);
		ops += n;
		timed += t1 - t0;
		batches++;
		if (t0 - prev > max_gap)
			max_gap = t0 - prev;
		prev = t0;
		/*
		 * Halve a batch that ran long, grow it back once they are quick
		 * again (one preempted batch must not shrink the rest).  The
		 * empty cost stays that of a full batch: the gap is a few cycles
		 * per operation, only ever next to batches that ran long.
		 */
		if (t1 - t0 > slow)
			n = n > 1 ? n / 2 : 1;
		else if (n < full)
			n = 2 * n < full ? 2 * n : full;
		if (cpu == 0 && t1 >= deadline)
			bench.stop.raised = 1;
		if (bench.stop.raised)
			break;
		if (t1 >= give_up) {
			overran = true;
			break;
		}
	}
	me->end = platform_cycles_end();
	me->start = start;
	me->ops = ops;
	me->timed = timed;
	me->batches = batches;
	me->max_gap = max_gap;
	me->overran = overran;
}

/* CPU 0, after "stop": this trial's figures into slot @k of bench.trials. */
static void bench_collect(const struct bench_spec *spec, unsigned active, unsigned k)
{
	struct bench_trials *tr = &bench.trials;
	uint64_t ops = 0, net = 0, batches = 0;
	uint64_t first_start = UINT64_MAX, last_start = 0, first_end = UINT64_MAX, last_end = 0;
	uint64_t min_ops = UINT64_MAX, span, together;
	struct lockref_stats ls;

	for (unsigned c = 0; c < active; c++) {
		const struct bench_cpu *p = &bench.cpu[c];
		uint64_t overhead = p->batches * p->empty;

		ops += p->ops;
		net += p->timed > overhead ? p->timed - overhead : 0;
		batches += p->batches;
		bench.per_cpu_ops[c] = p->ops;
		min_ops = p->ops < min_ops ? p->ops : min_ops;
		first_start = p->start < first_start ? p->start : first_start;
		last_start = p->start > last_start ? p->start : last_start;
		first_end = p->end < first_end ? p->end : first_end;
		last_end = p->end > last_end ? p->end : last_end;
		tr->max_gap = p->max_gap > tr->max_gap ? p->max_gap : tr->max_gap;
		tr->overruns += p->overran;
	}
	span = last_end > first_start ? last_end - first_start : 1;
	together = first_end > last_start ? first_end - last_start : 0;
	tr->span += span;
	tr->batches += batches;
	/* A rate over zero cycles (an empty-batch cost above the real one) reads as 0, not huge. */
	tr->rate[k] = (spec->untimed ? net : span) == 0
			  ? 0
			  : bench_muldiv(ops, platform_facts().cycles_khz * KHZ_PER_HZ,
					 spec->untimed ? net : span);
	tr->cycles[k] = bench_muldiv(net, BENCH_ONE, ops);
	tr->jain[k] = bench_jain(bench.per_cpu_ops, active);
	tr->min_mean[k] = bench_muldiv(min_ops, (uint64_t)active * BENCH_ONE, ops);
	tr->overlap[k] = bench_muldiv(together, BENCH_ONE, span);
	if (spec->lockref) {
		lockref_stats_sum(&ls);
		tr->lockref.lockless +=
		    spec->lockref_calls ? ops * spec->lockref_calls - ls.fallbacks - ls.abandoned
					: ls.lockless;
		tr->lockref.retries += ls.retries;
		tr->lockref.fallbacks += ls.fallbacks;
	}
}

/* CPU 0: medians over the @n measured trials into *@r. */
static void bench_summarise(unsigned active, unsigned n, struct bench_result *r)
{
	struct bench_trials *tr = &bench.trials;

	*r = (struct bench_result){.cpus = active, .trials = n};
	r->ops_per_sec = bench_median(tr->rate, n); /* sorts: min and max at the ends */
	r->ops_per_sec_min = tr->rate[0];
	r->ops_per_sec_max = tr->rate[n - 1];
	r->cycles_per_op = bench_median(tr->cycles, n);
	r->ns_per_op = bench_cycles_to_ns(r->cycles_per_op);
	r->jain = bench_median(tr->jain, n);
	r->min_mean = bench_median(tr->min_mean, n);
	r->overlap = bench_median(tr->overlap, n); /* sorts: the worst trial first */
	r->overlap_min = tr->overlap[0];
	r->max_gap_ns = bench_cycles_to_ns(tr->max_gap);
	r->batch_ns = tr->batches ? bench_cycles_to_ns(tr->span * active / tr->batches) : 0;
	r->overruns = tr->overruns;
	r->switched = tr->switched;
	r->lockref_ops = tr->lockref.lockless + tr->lockref.fallbacks;
	r->retries = tr->lockref.retries;
	r->fallbacks = tr->lockref.fallbacks;
}

/* Append to @line at *@len, never past its end. */
static void bench_append(char *line, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void bench_append(char *line, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= BENCH_LINE_MAX)
		return;
	va_start(ap, fmt);
	n = kvsnprintf(line + *len, BENCH_LINE_MAX - *len, fmt, ap);
	va_end(ap);
	*len += n > 0 ? (size_t)n : 0;
}

/* Append ,"@name":<fixed point @v>. */
static void bench_append_fixed(char *line, size_t *len, const char *name, uint64_t v)
{
	char num[32];

	bench_fixed(num, sizeof(num), v);
	bench_append(line, len, ",\"%s\":%s", name, num);
}

/* CPU 0: the BENCH line of docs/interface.md. */
static void bench_print(struct bench_ctx *t, const struct bench_spec *spec,
			const struct bench_result *r)
{
	struct platform_facts facts = platform_facts();
	char line[BENCH_LINE_MAX], cpus[BENCH_CPU_LIST_MAX];
	size_t len = 0;

	bench_append(line, &len,
		     "{\"bench\":\"%s\",\"impl\":\"%s\",\"op\":\"%s\",\"platform\":\"%s\","
		     "\"cpus\":%u,\"trials\":%u,\"ms\":%u,\"ops_per_sec\":%llu,"
		     "\"ops_per_sec_min\":%llu,\"ops_per_sec_max\":%llu",
		     spec->bench, spec->impl, spec->op, facts.name, r->cpus, r->trials, t->ms,
		     (unsigned long long)r->ops_per_sec, (unsigned long long)r->ops_per_sec_min,
		     (unsigned long long)r->ops_per_sec_max);
	bench_append_fixed(line, &len, "ns_per_op", r->ns_per_op);
	bench_append_fixed(line, &len, "cycles_per_op", r->cycles_per_op);
	bench_append_fixed(line, &len, "jain", r->jain);
	bench_append_fixed(line, &len, "min_mean", r->min_mean);
	bench_append_fixed(line, &len, "overlap", r->overlap);
	bench_append_fixed(line, &len, "overlap_min", r->overlap_min);
	bench_append(line, &len, ",\"max_gap_us\":%llu",
		     (unsigned long long)(r->max_gap_ns / 1000));
	bench_append_fixed(line, &len, "batch_us", r->batch_ns * BENCH_ONE / 1000);
	bench_append(line, &len, ",\"overruns\":%u,\"clock_end\":\"%s\"", r->overruns,
		     facts.rdtscp ? "rdtscp" : "lfence-rdtsc");
	bench_plan_cpu_list(cpus, sizeof(cpus), r->cpus);
	bench_append(line, &len, ",\"place\":\"%s\",\"cpu_list\":\"%s\",\"path\":\"%s\"",
		     topo_place_names[bench_plan.place < TOPO_PLACE_COUNT ? bench_plan.place : 0],
		     cpus, r->switched ? "switched" : "bare");
	if (spec->lockref) {
		bench_append_fixed(line, &len, "retries_per_op",
				   bench_muldiv(r->retries, BENCH_ONE, r->lockref_ops));
		bench_append(line, &len, ",\"fallbacks\":%llu,\"lockref_ops\":%llu",
			     (unsigned long long)r->fallbacks, (unsigned long long)r->lockref_ops);
	}
	if (spec->extra && len < BENCH_LINE_MAX) {
		spec->extra(spec->arg, line + len, BENCH_LINE_MAX - len);
		while (len < BENCH_LINE_MAX - 1 && line[len])
			len++;
	}
	bench_append(line, &len, "}");
	if (len >= BENCH_LINE_MAX)
		bench_diag(t, "bench: the %s/%s line is longer than %u bytes and was cut",
			   spec->bench, spec->impl, (unsigned)BENCH_LINE_MAX);
	platform_print(BENCH_PREFIX "%s", line);
}

/*
 * Measured trials: bench.trials=, at most BENCH_TRIALS_MAX.  Every CPU
 * works this out for itself, so that none reads state CPU 0 may already
 * be changing for the next run.
 */
static unsigned bench_trial_count(const struct bench_ctx *t)
{
	if (t->trials == 0)
		return 1;
	return t->trials < BENCH_TRIALS_MAX ? t->trials : BENCH_TRIALS_MAX;
}

/* CPU 0, before the run: fresh figures, and the barrier for a benchmark it has not served yet. */
static void bench_prepare(struct bench_ctx *t)
{
	if (t->trials > BENCH_TRIALS_MAX && bench.owner != t->id)
		bench_diag(t, "bench: bench.trials=%u is more than %u; using %u", t->trials,
			   BENCH_TRIALS_MAX, BENCH_TRIALS_MAX);
	bench.trials = (struct bench_trials){0};
	if (bench.owner != t->id) {
		barrier_init(&bench.barrier, t->ncpus);
		bench.owner = t->id;
	}
}

/* Every CPU: one barrier wait of the run, bounded by the longest trial plus slack. */
static bool bench_wait(const struct bench_ctx *t, const char *what)
{
	uint64_t ms = (uint64_t)t->ms * (BENCH_OVERRUN_FACTOR + 1) + BENCH_BARRIER_SLACK_MS;

	return barrier_wait(&bench.barrier, ms * NS_PER_MS, what);
}

/* CPU 0, between "stop" and the next "start": check, and keep a measured trial's figures. */
static void bench_after_trial(struct bench_ctx *t, const struct bench_spec *spec, unsigned active,
			      unsigned trial)
{
	char why[160];

	if (spec->check && !spec->check(spec->arg, why, sizeof(why)))
		bench_fail(t, "bench %s/%s at %u CPUs, trial %u: %s", spec->bench, spec->impl,
			   active, trial, why);
	if (trial > 0) {
		bench_collect(spec, active, trial - 1);
		bench.trials.switched |= !spec->bare && !static_keys_bare();
	}
}

bool bench_run(struct bench_ctx *t, const struct bench_spec *spec, unsigned active,
	       struct bench_result *out)
{
	unsigned cpu = t->cpu, trials = bench_trial_count(t);
	uint64_t trial_cycles = bench_cycles_from_us((uint64_t)t->ms * US_PER_MS);
	unsigned long irq;
	bool ok = true;
	struct bench_result r;

	if (active == 0 || active > t->ncpus) {
		if (cpu == 0)
			bench_fail(t, "bench %s/%s: %u active CPUs asked of a benchmark on %u CPUs",
				   spec->bench, spec->impl, active, t->ncpus);
		return false;
	}
	if (cpu == 0)
		bench_prepare(t);
	/* Publishes bench_prepare's work: no CPU uses the harness barrier before this. */
	if (!bench_barrier(t, BENCH_BARRIER_SLACK_MS))
		return false;
	irq = platform_irq_save();
	if (cpu < active)
		bench.cpu[cpu].empty = bench_calibrate(spec, cpu);
	for (unsigned trial = 0; ok && trial <= trials; trial++) {
		if (cpu == 0) {
			if (spec->reset)
				spec->reset(spec->arg);
			if (spec->lockref)
				lockref_stats_reset();
			bench.stop.raised = 0;
		}
		ok = bench_wait(t, "bench start");
		if (ok && cpu < active)
			bench_work(spec, cpu,
				   trial ? trial_cycles : trial_cycles / BENCH_WARMUP_DIV);
		ok = ok && bench_wait(t, "bench stop");
		if (ok && cpu == 0)
			bench_after_trial(t, spec, active, trial);
	}
	platform_irq_restore(irq);
	if (cpu == 0 && spec->finish)
		spec->finish(spec->arg);
	if (!ok) {
		bench_fail(t, "bench %s/%s at %u CPUs: a CPU did not reach the barrier in time",
			   spec->bench, spec->impl, active);
		return false;
	}
	if (cpu == 0) {
		bench_summarise(active, trials, &r);
		if (r.overruns)
			bench_diag(t, "bench %s/%s at %u CPUs: %u CPU-trials missed the stop flag",
				   spec->bench, spec->impl, active, r.overruns);
		bench_print(t, spec, &r);
		bench_headline_note(spec, &r);
		if (out)
			*out = r;
	}
	return true;
}
