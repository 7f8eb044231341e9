// SPDX-License-Identifier: MIT
/*
 * test_bench_stats.c - the benchmark harness's integer statistics
 * (bench/bench_stats.c) against answers worked out another way.
 *
 * The kernel has no floating point, so medians, Jain's index and rates are
 * integer code with overflow traps of its own (products of 64-bit counts,
 * fixed-point scaling).  Here the host computes the same figures in long
 * double, or from hand-checked values, and every mismatch is one "not ok"
 * line and a non-zero exit.
 */
#include "bench.h"
#include "check.h"
#include "platform.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Random cases per property; seeded, so a failure replays. */
#define RANDOM_CASES 2000
#define RANDOM_SEED  12345

static uint64_t rng_state = RANDOM_SEED;

/* xorshift64: a reproducible stream of test values independent of lib/random.h. */
static uint64_t next_random(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_median(void)
{
	uint64_t odd[] = {5, 1, 4, 2, 3};
	uint64_t even[] = {40, 10, 30, 20};
	uint64_t one[] = {7};
	uint64_t dup[] = {3, 3, 1, 3, 9, 3};
	uint64_t huge[] = {UINT64_MAX, UINT64_MAX - 2};

	CHECK_EQ(bench_median(odd, 5), 3, "median of 5 unsorted");
	CHECK_EQ(odd[0], 1, "median sorts: first");
	CHECK_EQ(odd[4], 5, "median sorts: last");
	CHECK_EQ(bench_median(even, 4), 25, "median of 4 (mean of middle two)");
	CHECK_EQ(bench_median(one, 1), 7, "median of 1");
	CHECK_EQ(bench_median(dup, 6), 3, "median with duplicates");
	CHECK_EQ(bench_median(huge, 2), UINT64_MAX - 1, "median near UINT64_MAX does not overflow");
	CHECK_EQ(bench_median(NULL, 0), 0, "median of nothing");

	/* Random arrays: the result must split them in halves, and be sorted. */
	for (int c = 0; c < RANDOM_CASES; c++) {
		uint64_t v[BENCH_TRIALS_MAX];
		unsigned n = 1 + next_random() % BENCH_TRIALS_MAX;
		uint64_t m;
		unsigned sorted;

		for (unsigned i = 0; i < n; i++)
			v[i] = next_random() % 1000;
		m = bench_median(v, n);
		for (sorted = 1; sorted < n && v[sorted - 1] <= v[sorted]; sorted++)
			;
		CHECK(sorted == n, "median left %u values unsorted (at %u)", n, sorted);
		CHECK_EQ(m, n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2,
			 "random median");
	}
}

/* Jain's index in long double, scaled and truncated as the kernel's is. */
static uint64_t jain_reference(const uint64_t *v, unsigned n)
{
	long double sum = 0, sumsq = 0;

	for (unsigned i = 0; i < n; i++) {
		sum += v[i];
		sumsq += (long double)v[i] * v[i];
	}
	if (n == 0 || sum == 0)
		return BENCH_ONE;
	return (uint64_t)(sum * sum / (sumsq * n) * BENCH_ONE);
}

static void test_jain(void)
{
	uint64_t equal[] = {500, 500, 500, 500};
	uint64_t alone[] = {0, 0, 1000, 0};
	uint64_t ramp[] = {1, 2, 3, 4};
	uint64_t zeros[] = {0, 0};
	uint64_t big[] = {UINT64_MAX / 4, UINT64_MAX / 4, UINT64_MAX / 8};

	CHECK_EQ(bench_jain(equal, 4), BENCH_ONE, "jain, all equal");
	CHECK_EQ(bench_jain(alone, 4), BENCH_ONE / 4, "jain, one CPU does all of 4");
	CHECK_EQ(bench_jain(ramp, 4), 8333, "jain 1,2,3,4 = 100/120");
	CHECK_EQ(bench_jain(zeros, 2), BENCH_ONE, "jain, all zero");
	CHECK_EQ(bench_jain(NULL, 0), BENCH_ONE, "jain, no CPUs");

	/* Counts whose squares overflow 64 bits: within one unit of the long-double answer. */
	for (int c = 0; c <= RANDOM_CASES; c++) {
		uint64_t v[MAX_CPUS];
		unsigned n = 1 + next_random() % MAX_CPUS;
		uint64_t got, want;

		if (c == RANDOM_CASES) {
			memcpy(v, big, sizeof(big));
			n = 3;
		} else {
			unsigned shift = (unsigned)(next_random() % 50);

			for (unsigned i = 0; i < n; i++)
				v[i] = next_random() >> shift;
		}
		got = bench_jain(v, n);
		want = jain_reference(v, n);
		CHECK(got + 1 >= want && got <= want + 1, "jain of %u counts: got %llu, want %llu",
		      n, (unsigned long long)got, (unsigned long long)want);
	}
}

static void test_muldiv(void)
{
	CHECK_EQ(bench_muldiv(6, 7, 3), 14, "muldiv small");
	CHECK_EQ(bench_muldiv(10, 1, 3), 3, "muldiv truncates");
	CHECK_EQ(bench_muldiv(1ull << 40, 1ull << 40, 1ull << 30), 1ull << 50,
		 "muldiv product past 2^64");
	CHECK_EQ(bench_muldiv(1000000000ull, 3000000000ull, 1000000000ull), 3000000000ull,
		 "muldiv rate: 1e9 ops, 3 GHz, 1e9 cycles");
	CHECK_EQ(bench_muldiv(UINT64_MAX, 2, 1), UINT64_MAX, "muldiv quotient too big");
	CHECK_EQ(bench_muldiv(1, 1, 0), UINT64_MAX, "muldiv by zero");
	CHECK_EQ(bench_muldiv(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX,
		 "muldiv largest that fits");

	/* a * b / b == a whatever the size of the product. */
	for (int c = 0; c < RANDOM_CASES; c++) {
		uint64_t a = next_random(), b = next_random() | 1;

		CHECK_EQ(bench_muldiv(a, b, b), a, "muldiv a*b/b");
	}
}

static void test_fixed(void)
{
	static const struct {
		uint64_t v;
		const char *want;
	} cases[] = {
	    {0, "0.0000"},
	    {5, "0.0005"},
	    {12345, "1.2345"},
	    {BENCH_ONE, "1.0000"},
	    {1234567890, "123456.7890"},
	    {UINT64_MAX, "1844674407370955.1615"},
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = bench_fixed(buf, sizeof(buf), cases[i].v);

		CHECK(strcmp(buf, cases[i].want) == 0 && n == (int)strlen(cases[i].want),
		      "fixed %llu: got \"%s\" (%d), want \"%s\"", (unsigned long long)cases[i].v,
		      buf, n, cases[i].want);
	}
}

/* The sweep as a string "1 2 3 ...", to compare with the expected curve. */
static void sweep_string(unsigned ncpus, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned n = 1; n && len < size; n = bench_sweep_next(n, ncpus))
		len += (size_t)snprintf(buf + len, size - len, len ? " %u" : "%u", n);
}

static void test_sweep(void)
{
	static const struct {
		unsigned ncpus;
		const char *want;
	} cases[] = {
	    {1, "1"},
	    {2, "1 2"},
	    {4, "1 2 3 4"},
	    {BENCH_SWEEP_EVERY_MAX, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"},
	    {80, "1 2 4 8 16 32 64 80"},
	    {64, "1 2 4 8 16 32 64"},
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sweep_string(cases[i].ncpus, buf, sizeof(buf));
		CHECK(strcmp(buf, cases[i].want) == 0, "sweep of %u CPUs: got \"%s\", want \"%s\"",
		      cases[i].ncpus, buf, cases[i].want);
	}
}

int main(void)
{
	test_median();
	test_jain();
	test_muldiv();
	test_fixed();
	test_sweep();
	return check_exit("test_bench_stats");
}
