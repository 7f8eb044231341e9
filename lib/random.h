// SPDX-License-Identifier: MIT
/*
 * random.h - a small, seedable pseudo-random generator (xorshift64*).
 *
 * Every random choice in tests and benchmarks comes from here, seeded from
 * the boot's seed= and the CPU number, so a failing run can be replayed.
 * Quality needs are modest: good mixing, a long period, no shared state.
 */
#ifndef LIB_RANDOM_H
#define LIB_RANDOM_H

#include <stdint.h>

struct rng {
	uint64_t state;
};

/* Seed for stream @stream (e.g. a CPU number) of run @seed; never yields a zero state. */
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	/* splitmix64 step: spreads nearby seeds and streams far apart. */
	uint64_t z = seed + (stream + 1) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	r->state = z ? z : 1;
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t x = r->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Uniform-enough value in [0, @n); @n > 0. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (rng_next(r) >> 11) % n;
}

#endif /* LIB_RANDOM_H */
