// SPDX-License-Identifier: MIT
/*
 * cas_loop.c - cas_loop.h: load, compute, one locked compare-exchange,
 * retry from the value the failed exchange returned.  Kept apart from its
 * callers so the compiler cannot inline or specialise the call away.
 */
#include "cas_loop.h"

#include "atomic.h"

/* One function per instruction and direction, with @delta a constant in each. */
#define DEFINE_CAS_LOOP(name, cas, delta)                                                          \
	void name(uint64_t *word)                                                                  \
	{                                                                                          \
		uint64_t old = atomic_load64(word);                                                \
                                                                                                   \
		while (!cas(word, &old, old + (delta)))                                            \
			;                                                                          \
	}

DEFINE_CAS_LOOP(cas_loop_inc_8b, atomic_cmpxchg64_8b, 1)
DEFINE_CAS_LOOP(cas_loop_dec_8b, atomic_cmpxchg64_8b, (uint64_t)-1)
DEFINE_CAS_LOOP(cas_loop_inc_q, atomic_cmpxchg64_q, 1)
DEFINE_CAS_LOOP(cas_loop_dec_q, atomic_cmpxchg64_q, (uint64_t)-1)
