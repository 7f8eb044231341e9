// SPDX-License-Identifier: MIT
/*
 * pv_stats.h - what paravirtual waiting did: one record of counts for both
 * paravirtual locks, the ticket lock's (spinlock_pv.c) and the queued
 * lock's (qspinlock_pv.c), one snapshot, one difference and one printer.
 *
 * Why one record for two locks: both wait the same way (spin a while, give
 * the CPU up until kicked, under the one mode and arming of spinlock_pv.h),
 * and only one kind is in force at a time (spin_kind_set), so each count
 * says what the kind in force did.  A counter the kind does not move stays
 * 0: the queued lock passes no turn over, the ticket lock has no hash.
 * Readers take pv_stats() before and after, and print or check the
 * difference: the host tests, the spinlock torture, the BENCH lines.
 */
#ifndef LIB_PV_STATS_H
#define LIB_PV_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Counts since boot, summed over every lock. */
struct pv_stats {
	/* Waiters that gave the CPU up until kicked: ticket waiters (W4), queued nodes and heads. */
	uint64_t sleeps;
	uint64_t kicks;	    /* kicks sent to them, at unlock or queue hand-off */
	uint64_t passes;    /* ticket: turns that went by a sleeping waiter to a running one */
	uint64_t arms;	    /* waiters that armed sleeping, at most once per spin_pv_set */
	uint64_t hash_full; /* queued, bad input: heads that found no free hash slot and spun on */
	uint64_t no_head;   /* queued, bad input: unlocks that found SLOW but no head hashed */
};

/* The counts now, each read relaxed: other CPUs may be adding to them. */
struct pv_stats pv_stats(void);

/* @after - @before, counter by counter: what happened between two snapshots. */
struct pv_stats pv_stats_delta(struct pv_stats after, struct pv_stats before);

/* Room for pv_stats_format's line: its words and six counts of up to 20 digits. */
#define PV_STATS_LINE 256

/*
 * @s as one line in @buf (@size bytes, NUL-terminated, cut to fit), every
 * counter named: "N sleeps, N kicks, N turns passed over, armed N time(s);
 * bad input: N hash full, N SLOW without a hashed head".  Returns @buf, to
 * be a %s argument.
 */
const char *pv_stats_format(char *buf, size_t size, const struct pv_stats *s);

#endif /* LIB_PV_STATS_H */
