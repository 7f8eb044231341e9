// SPDX-License-Identifier: MIT
/*
 * cas_loop.h - the textbook compare-exchange increment and decrement of a
 * 64-bit word: the limit a lockref get or put is measured against.
 *
 * Why these exist: a lockref operation is a load, a check, a computed new
 * word and one `lock cmpxchg`, retried if it lost a race.  Nothing that
 * changes a word with a compare-exchange can do less, so the same loop with
 * nothing to check (load; add; lock cmpxchg; retry) is the honest floor.
 * Each is out of line, in its own file, so a caller pays one call per
 * operation exactly as it does for lockref_get and lockref_put_return.
 * Lock-free: a retry means another CPU's exchange succeeded, nobody is
 * waited for.
 */
#ifndef BENCH_CAS_LOOP_H
#define BENCH_CAS_LOOP_H

#include <stdint.h>

/* Add one to / take one from *@word atomically, with LOCK CMPXCHG8B. */
void cas_loop_inc_8b(uint64_t *word);
void cas_loop_dec_8b(uint64_t *word);

/* The same with the REX.W LOCK CMPXCHG (8 bytes in one register). */
void cas_loop_inc_q(uint64_t *word);
void cas_loop_dec_q(uint64_t *word);

#endif /* BENCH_CAS_LOOP_H */
