// SPDX-License-Identifier: MIT
/*
 * bench_c2c.c - the cache-line hop: two CPUs bounce one line by
 * compare-exchange, for every pair of CPUs.
 *
 * Why: every contended curve is made of line transfers.  A ticket lock
 * hands its line to the next waiter, a lockref's failed compare-exchange
 * pulls it back; what one transfer costs between two given CPUs (the same
 * core, the same last-level cache, another cache group, another socket)
 * is the unit that explains where a curve bends.
 *
 * How, per pair (a, b) of ranks (bench_plan.h: rank r runs on os[r]):
 * the word starts even.  a compare-exchanges it from 2k to 2k+1, b from
 * 2k+1 to 2k+2, each spinning until its own exchange succeeds, so every
 * success of a is one round trip of the line a -> b -> a.  A sample is
 * C2C_ROUNDS round trips timed by a; a pair takes up to C2C_SAMPLES
 * samples within bench.ms milliseconds (at least C2C_MIN_SAMPLES; past
 * the budget a sample is dropped unfinished, so that a pair whose vCPUs
 * are preempted, as under an emulator on a busy host, still ends soon).  The
 * figure is the one-way latency, median round trip / 2, as the common
 * core-to-core latency tools report it.  Every other CPU waits at the
 * barrier; interrupts are off on the pair.
 *
 * Pairs: every pair up to C2C_FULL_MAX CPUs; beyond, every CPU against
 * the first CPU (lowest rank) of each LLC group and of each package.
 * One # BENCH line per pair (bench "c2c", impl "cas", op "A-B" in CPU
 * numbers, "oneway_ns", "relation": same-core, same-llc, other-llc,
 * other-package), then the matrix as diagnostics (up to C2C_FULL_MAX).
 */
#include "atomic.h"
#include "bench.h"
#include "bench_cases.h"
#include "bench_plan.h"
#include "platform.h"
#include "printf.h"
#include "topology.h"

#define C2C_FULL_MAX	64
#define C2C_ROUNDS	16
#define C2C_SAMPLES	31
#define C2C_MIN_SAMPLES 3
#define C2C_BARRIER_MS	10000u
/* A partner that has not moved the line in this long is gone: give up the pair. */
#define C2C_STALL_MS 2000u
#define NS_PER_MS    1000000ull
#define US_PER_MS    1000ull
#define ROW_MAX	     (PLATFORM_LINE_MAX - 8)
#define CELL_NONE    UINT32_MAX

static struct {
	uint64_t word;
} __attribute__((aligned(CACHE_PAIR_BYTES))) line;

/* The pair number b stops at (a writes it when done) and a failure mark; away from the line. */
static struct {
	uint32_t done, failed;
} __attribute__((aligned(CACHE_PAIR_BYTES))) ctl;

static uint64_t samples[C2C_SAMPLES];		    /* rank a's, one pair at a time */
static uint32_t oneway[C2C_FULL_MAX][C2C_FULL_MAX]; /* ns x 10, for the matrix */

static const char *const relation_names[] = {"same-core", "same-llc", "other-llc", "other-package"};

/* How ranks @a and @b relate in the plan's topology (other-package without one). */
static unsigned relation(unsigned a, unsigned b)
{
	const struct topology *t = bench_plan.topo;
	int i = t ? topology_find(t, bench_plan.os[a]) : -1;
	int j = t ? topology_find(t, bench_plan.os[b]) : -1;

	if (i < 0 || j < 0)
		return 3;
	if (t->cpu[i].core == t->cpu[j].core)
		return 0;
	if (t->cpu[i].llc == t->cpu[j].llc)
		return 1;
	return t->cpu[i].package == t->cpu[j].package ? 2 : 3;
}

/* Spin until the word goes from @from to @from + 1; false after a stall or a failure mark. */
static bool exchange(uint64_t from, uint64_t stall)
{
	uint64_t give_up = platform_cycles() + stall;

	for (;;) {
		uint64_t old = from;

		if (atomic_cmpxchg64_q(&line.word, &old, from + 1))
			return true;
		if (atomic_load32_relaxed(&ctl.failed) || platform_cycles() > give_up)
			return false;
	}
}

/* Rank a: samples until C2C_SAMPLES or the budget; returns how many, 0 on a stall. */
static unsigned ping(uint64_t base, uint64_t budget, uint64_t stall)
{
	uint64_t end = platform_cycles() + budget, v = base;
	unsigned n = 0;

	while (n < C2C_SAMPLES && (n < C2C_MIN_SAMPLES || platform_cycles() < end)) {
		uint64_t t0, t1;

		if (!exchange(v, stall))
			return 0;
		t0 = platform_cycles_begin();
		v += 2;
		for (unsigned r = 0; r < C2C_ROUNDS; r++, v += 2) {
			if (!exchange(v, stall))
				return 0;
			/* Over budget with a sample in hand: this one is dropped, not waited for. */
			if (n >= C2C_MIN_SAMPLES && platform_cycles() > end)
				return n;
		}
		t1 = platform_cycles_end();
		samples[n++] = (t1 - t0) * BENCH_ONE / C2C_ROUNDS;
	}
	return n;
}

/* Rank b: answer every exchange of a until a says pair @p is done; false on a stall. */
static bool pong(uint64_t base, uint32_t p, uint64_t stall)
{
	uint64_t v = base + 1, give_up = platform_cycles() + stall;

	for (;;) {
		uint64_t old = v;

		if (atomic_cmpxchg64_q(&line.word, &old, v + 1)) {
			v += 2;
			give_up = platform_cycles() + stall;
			continue;
		}
		if (atomic_load32(&ctl.done) == p)
			return true;
		if (atomic_load32_relaxed(&ctl.failed) || platform_cycles() > give_up)
			return false;
	}
}

/* Rank a after its samples: the BENCH line of the pair and its matrix cell. */
static void report(struct bench_ctx *t, unsigned a, unsigned b, unsigned n)
{
	char mid[32], lo[32], hi[32];
	uint64_t median = bench_median(samples, n);   /* cycles x BENCH_ONE a round trip */
	uint64_t ns = bench_cycles_to_ns(median / 2); /* one way, ns x BENCH_ONE */
	uint64_t rate =
	    median ? bench_muldiv(platform_facts().cycles_khz * 1000, BENCH_ONE, median) : 0;

	bench_fixed(mid, sizeof(mid), ns);
	bench_fixed(lo, sizeof(lo), bench_cycles_to_ns(samples[0] / 2));
	bench_fixed(hi, sizeof(hi), bench_cycles_to_ns(samples[n - 1] / 2));
	platform_print("# BENCH {\"bench\":\"c2c\",\"impl\":\"cas\",\"op\":\"%u-%u\",\"platform\":"
		       "\"%s\",\"cpus\":2,\"trials\":%u,\"ms\":%u,\"ops_per_sec\":%llu,"
		       "\"oneway_ns\":%s,\"oneway_ns_min\":%s,\"oneway_ns_max\":%s,\"cpu_a\":%u,"
		       "\"cpu_b\":%u,\"relation\":\"%s\",\"cpu_list\":\"%u,%u\"}",
		       bench_plan.os[a], bench_plan.os[b], platform_facts().name, n, t->ms,
		       (unsigned long long)rate, mid, lo, hi, bench_plan.os[a], bench_plan.os[b],
		       relation_names[relation(a, b)], bench_plan.os[a], bench_plan.os[b]);
	if (a < C2C_FULL_MAX && b < C2C_FULL_MAX)
		oneway[a][b] = oneway[b][a] = (uint32_t)(ns / (BENCH_ONE / 10));
}

/*
 * Into @lead: whether each rank partners every other.  Up to C2C_FULL_MAX
 * CPUs every rank does; beyond, the first rank (lowest) of each LLC group
 * and of each package.
 */
static void leaders(unsigned ncpus, bool *lead)
{
	for (unsigned r = 0; r < ncpus; r++) {
		bool new_llc = true, new_pkg = true;

		for (unsigned q = 0; ncpus > C2C_FULL_MAX && q < r; q++) {
			unsigned rel = relation(q, r);

			new_llc = new_llc && rel > 1;
			new_pkg = new_pkg && rel > 2;
		}
		lead[r] = new_llc || new_pkg;
	}
}

/* Rank 0: the matrix, one diagnostic line per row, "-" where no pair was measured. */
static void print_matrix(struct bench_ctx *t)
{
	unsigned n = t->ncpus < C2C_FULL_MAX ? t->ncpus : C2C_FULL_MAX;
	char row[ROW_MAX];
	size_t len;

	bench_diag(t, "c2c: one-way latency in ns (median round trip / 2), row CPU to column CPU:");
	len = (size_t)ksnprintf(row, sizeof(row), "c2c %4s", "");
	for (unsigned j = 0; j < n && len < sizeof(row); j++)
		len += (size_t)ksnprintf(row + len, sizeof(row) - len, " %5u", bench_plan.os[j]);
	bench_diag(t, "%s", row);
	for (unsigned i = 0; i < n; i++) {
		len = (size_t)ksnprintf(row, sizeof(row), "c2c %4u", bench_plan.os[i]);
		for (unsigned j = 0; j < n && len < sizeof(row); j++)
			len += oneway[i][j] == CELL_NONE
				   ? (size_t)ksnprintf(row + len, sizeof(row) - len, " %5s", "-")
				   : (size_t)ksnprintf(row + len, sizeof(row) - len, " %3u.%u",
						       oneway[i][j] / 10, oneway[i][j] % 10);
		bench_diag(t, "%s", row);
	}
	if (t->emulated)
		bench_diag(t, "c2c: under an emulator: these figures describe the emulator's "
			      "threads and locks, not the CPU's caches");
}

/* One pair: ranks @a and @b bounce the line, the others wait; false: stop the benchmark. */
static bool c2c_pair(struct bench_ctx *t, unsigned a, unsigned b, uint32_t k, uint64_t budget,
		     uint64_t stall)
{
	if (!bench_barrier(t, C2C_BARRIER_MS))
		return false;
	/*
	 * Even between pairs (b answers a's last exchange before it stops);
	 * b may read it after a's first exchange made it odd: round down.
	 */
	uint64_t base = atomic_load64(&line.word) & ~1ull;

	if (t->cpu == a || t->cpu == b) {
		unsigned long irq = platform_irq_save();
		unsigned n = 0;
		bool ok;

		if (t->cpu == a) {
			n = ping(base, budget, stall);
			atomic_store32(&ctl.done, k);
			ok = n > 0;
		} else {
			ok = pong(base, k, stall);
		}
		platform_irq_restore(irq);
		if (!ok) {
			atomic_store32(&ctl.failed, 1);
			bench_fail(t, "c2c: CPUs %u and %u: the line stopped moving for %u ms",
				   bench_plan.os[a], bench_plan.os[b], C2C_STALL_MS);
		} else if (t->cpu == a) {
			report(t, a, b, n);
		}
	}
	return bench_barrier(t, C2C_BARRIER_MS) && !atomic_load32(&ctl.failed);
}

void c2c(struct bench_ctx *t)
{
	static bool lead[MAX_CPUS];
	uint64_t budget = bench_cycles_from_us((uint64_t)t->ms * US_PER_MS);
	uint64_t stall = bench_cycles_from_us((uint64_t)C2C_STALL_MS * US_PER_MS);
	uint32_t k = 0;

	if (t->ncpus < 2) {
		bench_diag(t, "c2c: one CPU: no pair to measure");
		return;
	}
	if (t->cpu == 0) {
		for (unsigned i = 0; i < C2C_FULL_MAX; i++)
			for (unsigned j = 0; j < C2C_FULL_MAX; j++)
				oneway[i][j] = i == j ? 0 : CELL_NONE;
		ctl.done = 0;
		ctl.failed = 0;
		leaders(t->ncpus, lead);
	}
	/* Publishes rank 0's set-up. */
	if (!bench_barrier(t, C2C_BARRIER_MS))
		return;
	for (unsigned a = 0; a < t->ncpus; a++)
		for (unsigned b = a + 1; b < t->ncpus; b++)
			if ((lead[a] || lead[b]) && !c2c_pair(t, a, b, ++k, budget, stall))
				return;
	if (t->cpu == 0)
		print_matrix(t);
}

uint64_t c2c_estimate(const struct bench_estimate *e)
{
	unsigned ncpus = e->ncpus;
	static bool lead[MAX_CPUS];
	uint64_t pairs = 0;

	leaders(ncpus, lead);
	for (unsigned a = 0; a < ncpus; a++)
		for (unsigned b = a + 1; b < ncpus; b++)
			pairs += lead[a] || lead[b];
	return pairs * e->ms; /* the budget: a pair on hardware is done well before */
}
