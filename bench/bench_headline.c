// SPDX-License-Identifier: MIT
/*
 * bench_headline.c - the benchmarks' result in words, last in the suite.
 *
 * Why: a run prints hundreds of `# BENCH {json}` lines for tools, and a
 * person reading the end of the log wants the three sentences the README's
 * table makes of them: each implementation's refcount rate at 1 CPU and at
 * the most CPUs, and the lockref against the ticket lock and the bare
 * `lock xadd` there.  bench_print() hands every result to
 * bench_headline_note(); the "headline" case, last in bench_cases.h, says
 * them as diagnostics just before the runner's tally, in the kernel and in
 * the native program alike.
 */
#include "bench.h"
#include "bench_cases.h"
#include "bench_impls.h"
#include "printf.h"
#include "string.h"

#define HEADLINE_BENCH "refcount"
#define HEADLINE_OP    "get+put"

/* The three the ratios read (first, in the README table's order). */
enum { HEADLINE_XADD, HEADLINE_TICKET, HEADLINE_LOCKREF };

/* The implementations the headline names, in the README table's order, with their words. */
static const struct {
	const char *impl, *words;
} headline_impls[] = {
    [HEADLINE_XADD] = {BENCH_IMPL_NAME_XADD, "xadd (the bare atomic)"},
    [HEADLINE_TICKET] = {BENCH_IMPL_NAME_SPINLOCK, "ticket lock + count"},
    [HEADLINE_LOCKREF] = {BENCH_IMPL_NAME_LOCKREF, "lockref"},
    {"qspinlock", "qspinlock + count"},
    {"lockref-qspinlock", "lockref over the qspinlock"},
};
#define HEADLINE_IMPLS (sizeof(headline_impls) / sizeof(headline_impls[0]))

/* Per implementation: the rate at 1 CPU and at the most CPUs measured (CPU 0 writes both). */
static struct {
	uint64_t one, top;
	unsigned top_cpus;
} seen[HEADLINE_IMPLS];

void bench_headline_note(const struct bench_spec *spec, const struct bench_result *r)
{
	if (strcmp(spec->bench, HEADLINE_BENCH) != 0 || strcmp(spec->op, HEADLINE_OP) != 0)
		return;
	for (unsigned i = 0; i < HEADLINE_IMPLS; i++) {
		if (strcmp(spec->impl, headline_impls[i].impl) != 0)
			continue;
		if (r->cpus == 1)
			seen[i].one = r->ops_per_sec;
		if (r->cpus >= seen[i].top_cpus) {
			seen[i].top = r->ops_per_sec;
			seen[i].top_cpus = r->cpus;
		}
	}
}

/* "42.5 M", "2.11 M", "148 k": three significant digits, as the report writes rates. */
static void rate_words(char *buf, size_t size, uint64_t v)
{
	static const char *const units[] = {"", " k", " M", " G"};
	uint64_t scale = 1, h;
	unsigned u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && v >= scale * 1000) {
		scale *= 1000;
		u++;
	}
	/* Hundredths of the unit, then as many decimals as keep three digits. */
	h = bench_muldiv(v, 100, scale);

	if (h >= 10000)
		ksnprintf(buf, size, "%llu%s", (unsigned long long)(h / 100), units[u]);
	else if (h >= 1000)
		ksnprintf(buf, size, "%llu.%llu%s", (unsigned long long)(h / 100),
			  (unsigned long long)(h / 10 % 10), units[u]);
	else
		ksnprintf(buf, size, "%llu.%02llu%s", (unsigned long long)(h / 100),
			  (unsigned long long)(h % 100), units[u]);
}

/* "14.12x" of @a / @b, or "-" without @b. */
static void ratio_words(char *buf, size_t size, uint64_t a, uint64_t b)
{
	uint64_t h = b ? bench_muldiv(a, 100, b) : 0;

	if (!b)
		ksnprintf(buf, size, "-");
	else
		ksnprintf(buf, size, "%llu.%02llux", (unsigned long long)(h / 100),
			  (unsigned long long)(h % 100));
}

void headline(struct bench_ctx *t)
{
	char one[16], top[16], ticket[16], xadd[16];
	unsigned n = seen[HEADLINE_LOCKREF].top_cpus;

	if (!n) {
		bench_diag(t, "headline: no refcount figures this run");
		return;
	}
	bench_diag(t,
		   "headline: refcount, get+put pairs per second (median of %u trial%s), "
		   "1 CPU / %u CPUs:",
		   t->trials, t->trials == 1 ? "" : "s", n);
	for (unsigned i = 0; i < HEADLINE_IMPLS; i++) {
		/* A curve measured at fewer CPUs than the lockref's did not finish: say so. */
		if (!seen[i].one || seen[i].top_cpus != n) {
			bench_fail(t, "headline: %s %s has no figure at 1 and at %u CPUs",
				   HEADLINE_BENCH, headline_impls[i].impl, n);
			continue;
		}
		rate_words(one, sizeof(one), seen[i].one);
		rate_words(top, sizeof(top), seen[i].top);
		bench_diag(t, "headline:   %-28s %8s / %s", headline_impls[i].words, one, top);
	}
	ratio_words(ticket, sizeof(ticket), seen[HEADLINE_LOCKREF].top, seen[HEADLINE_TICKET].top);
	ratio_words(xadd, sizeof(xadd), seen[HEADLINE_LOCKREF].top, seen[HEADLINE_XADD].top);
	bench_diag(t,
		   "headline: at %u CPUs the lockref does %s the ticket lock and %s the bare xadd",
		   n, ticket, xadd);
}

uint64_t headline_estimate(const struct bench_estimate *e)
{
	(void)e;
	return 0; /* it prints what the others measured */
}
