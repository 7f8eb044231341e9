// SPDX-License-Identifier: MIT
/*
 * pv_stats.c - the paravirtual locks' one record of counts (pv_stats.h):
 * spinlock_pv.c and qspinlock_pv.c add to pv_counters, everyone else reads
 * it through pv_stats().
 */
#include "pv_stats.h"

#include "atomic.h"
#include "limits.h"
#include "printf.h"
#include "spinlock_pv.h"

/* A line pair of its own: written only on slow paths, it must not share one with a fast path's word. */
struct pv_stats pv_counters __attribute__((aligned(CACHE_PAIR_BYTES)));

struct pv_stats pv_stats(void)
{
	return (struct pv_stats){
	    .sleeps = atomic_load64_relaxed(&pv_counters.sleeps),
	    .kicks = atomic_load64_relaxed(&pv_counters.kicks),
	    .passes = atomic_load64_relaxed(&pv_counters.passes),
	    .arms = atomic_load64_relaxed(&pv_counters.arms),
	    .hash_full = atomic_load64_relaxed(&pv_counters.hash_full),
	    .no_head = atomic_load64_relaxed(&pv_counters.no_head),
	};
}

struct pv_stats pv_stats_delta(struct pv_stats after, struct pv_stats before)
{
	return (struct pv_stats){
	    .sleeps = after.sleeps - before.sleeps,
	    .kicks = after.kicks - before.kicks,
	    .passes = after.passes - before.passes,
	    .arms = after.arms - before.arms,
	    .hash_full = after.hash_full - before.hash_full,
	    .no_head = after.no_head - before.no_head,
	};
}

const char *pv_stats_format(char *buf, size_t size, const struct pv_stats *s)
{
	ksnprintf(buf, size,
		  "%llu sleeps, %llu kicks, %llu turns passed over, armed %llu time%s; bad input: "
		  "%llu hash full, %llu SLOW without a hashed head",
		  (unsigned long long)s->sleeps, (unsigned long long)s->kicks,
		  (unsigned long long)s->passes, (unsigned long long)s->arms, plural(s->arms),
		  (unsigned long long)s->hash_full, (unsigned long long)s->no_head);
	return buf;
}
