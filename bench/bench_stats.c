// SPDX-License-Identifier: MIT
/*
 * bench_stats.c - the integer statistics of the benchmark harness.
 *
 * Kept apart from bench.c because it touches no hardware: the host test
 * (tests/host/test_bench_stats.c) builds it as it is and checks medians,
 * Jain's index, the overflow-free multiply-divide, the fixed-point printing
 * and the CPU counts of a scaling sweep against independent answers.  No floating point: the kernel is built
 * without SSE, so fractions are integers scaled by BENCH_ONE.
 */
#include "bench.h"

#include "printf.h"

typedef unsigned __int128 u128;

uint64_t bench_median(uint64_t *v, unsigned n)
{
	if (n == 0)
		return 0;
	/* Insertion sort: at most BENCH_TRIALS_MAX or MAX_CPUS values. */
	for (unsigned i = 1; i < n; i++) {
		uint64_t x = v[i];
		unsigned j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	if (n % 2)
		return v[n / 2];
	/* Mean of the middle two, without overflowing their sum. */
	return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

uint64_t bench_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	u128 p = (u128)a * b;

	/* The quotient fits 64 bits exactly when the product's high half is below @c. */
	if (c == 0 || (uint64_t)(p >> 64) >= c)
		return UINT64_MAX;
	return (uint64_t)(p / c);
}

/* Counts are cut to this many significant bits so that (sum x)^2 fits 128 bits. */
#define JAIN_BITS 32

uint64_t bench_jain(const uint64_t *v, unsigned n)
{
	u128 sum = 0, sumsq = 0, num, den;
	uint64_t max = 0;
	unsigned shift = 0;

	for (unsigned i = 0; i < n; i++)
		max = v[i] > max ? v[i] : max;
	while ((max >> shift) >> JAIN_BITS)
		shift++;
	for (unsigned i = 0; i < n; i++) {
		uint64_t x = v[i] >> shift;

		sum += x;
		sumsq += (u128)x * x;
	}
	if (sum == 0)
		return BENCH_ONE;
	num = sum * sum;
	den = sumsq * n;
	/*
	 * num <= den (Cauchy-Schwarz), so shifting both until den fits 50 bits
	 * keeps num * BENCH_ONE inside 64 bits; the relative error stays
	 * below 2^-49.
	 */
	while (den >> 50) {
		num >>= 1;
		den >>= 1;
	}
	return (uint64_t)num * BENCH_ONE / (uint64_t)den;
}

int bench_fixed(char *buf, size_t size, uint64_t v)
{
	return ksnprintf(buf, size, "%llu.%0*llu", (unsigned long long)(v / BENCH_ONE),
			 BENCH_DECIMALS, (unsigned long long)(v % BENCH_ONE));
}

const unsigned *bench_sweep_points;
unsigned bench_sweep_npoints;

unsigned bench_sweep_next(unsigned n, unsigned ncpus)
{
	for (unsigned i = 0; i < bench_sweep_npoints; i++)
		if (bench_sweep_points[i] > n)
			return bench_sweep_points[i] <= ncpus ? bench_sweep_points[i] : 0;
	if (bench_sweep_npoints || n >= ncpus)
		return 0;
	if (n == 0)
		return 1;
	if (ncpus <= BENCH_SWEEP_EVERY_MAX)
		return n + 1;
	return 2 * n < ncpus ? 2 * n : ncpus;
}
