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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/*
 * The counters, declared once: X(field, group, before, after, noun's
 * plural?).  The struct, the snapshot, the difference, the printed line
 * ("before N after", groups apart by "; ", the BAD ones after "bad input: ")
 * and pv_stats_bad() all derive from it, so a new counter is one line.
 * group: WORK is what waiting did; BAD is bad input, a failure where
 * judged (the spinlock torture's pv-bad-input); LOST is lost wake-ups:
 * halts that lasted to their time bound although the kick that should have
 * ended them was due PV_LOST_KICK_NS or more before they ended (pv_halt),
 * 0 in a working lock, a failure where judged (the spinlock torture,
 * tools/trace/trace_check.py).
 *
 * sleeps: waiters that gave the CPU up until kicked: ticket waiters (W4),
 * queued nodes and heads; kicks: sent to them, at unlock or queue
 * hand-off; passes: ticket, turns that went by a sleeping waiter to a
 * running one; arms: waiters that armed sleeping, at most once per
 * spin_pv_set; hash_full: queued, heads that found no free hash slot and
 * spun on; no_head: queued, unlocks that found SLOW but no head hashed.
 */
#define PV_STAT_LIST(X)                                                                            \
	X(sleeps, WORK, "", " sleeps", false)                                                      \
	X(kicks, WORK, "", " kicks", false)                                                        \
	X(passes, WORK, "", " turns passed over", false)                                           \
	X(arms, WORK, "armed ", " time", true)                                                     \
	X(hash_full, BAD, "", " hash full", false)                                                 \
	X(no_head, BAD, "", " SLOW without a hashed head", false)                                  \
	X(lost_kicks, LOST, "", " lost wake-up", true)

enum pv_stat_group { PV_STAT_WORK, PV_STAT_BAD, PV_STAT_LOST };

/* Counts since boot, summed over every lock. */
#define PV_STAT_X_FIELD(field, group, before, after, plural) uint64_t field;
struct pv_stats {
	PV_STAT_LIST(PV_STAT_X_FIELD)
};
#undef PV_STAT_X_FIELD

#define PV_STAT_X_ONE(field, group, before, after, plural) +1
enum { PV_STATS_COUNT = 0 PV_STAT_LIST(PV_STAT_X_ONE) };
#undef PV_STAT_X_ONE

/*
 * A halt that ends on its time bound (PLATFORM_WAIT_MAX_NS, to 90%), with
 * no kick received (platform_kicks_received), this long after the kick
 * that should have ended it was sent (or, for a lost kick, should have
 * been) is a lost wake-up (pv_stats.c says why it cannot accuse wrongly).
 */
#define PV_LOST_KICK_NS (PLATFORM_WAIT_MAX_NS / 2)

/*
 * The paravirtual locks' one kick: counted, traced (TR_PV_KICK), sent with
 * platform_cpu_kick, and then recorded as due for @cpu, so that a halt of
 * @cpu that lasts on past it is judged a lost wake-up.
 */
void pv_kick(unsigned cpu);

/*
 * The paravirtual locks' one halt: platform_cpu_wait(@addr, @expected),
 * judged on return: if it lasted to its time bound, no kick reached this
 * CPU meanwhile, and a kick to it (pv_kick, after the halt began) was sent
 * PV_LOST_KICK_NS or more before it ended, lost_kicks counts it and the
 * first one is said on one line naming @lock.
 */
void pv_halt(const uint32_t *addr, uint32_t expected, const void *lock);

/*
 * NEGATIVE CONTROLS ONLY (torture.busted=*-lost-kick): when set, a kick
 * for which it returns true is not sent, as if the interrupt were lost;
 * it is still counted, traced and recorded as due, so the judgement sees
 * exactly what a lost interrupt leaves.  NULL in every other run.
 */
extern bool (*pv_kick_drop)(unsigned cpu);

/* The counts now, each read relaxed: other CPUs may be adding to them. */
struct pv_stats pv_stats(void);

/* @after - @before, counter by counter: what happened between two snapshots. */
struct pv_stats pv_stats_delta(struct pv_stats after, struct pv_stats before);

/* The sum of @s's BAD counters: bad input the locks met, a failure where judged. */
uint64_t pv_stats_bad(const struct pv_stats *s);

/* Room for pv_stats_format's line: its words and PV_STATS_COUNT counts of up to 20 digits. */
#define PV_STATS_LINE 256

/*
 * @s as one line in @buf (@size bytes, NUL-terminated, cut to fit), every
 * counter of PV_STAT_LIST named, today: "N sleeps, N kicks, N turns passed over, armed N times;
 * bad input: N hash full, N SLOW without a hashed head; N lost wake-ups" (with
 * "1 time" and "1 lost wake-up").  Returns @buf, to be a %s argument.
 */
const char *pv_stats_format(char *buf, size_t size, const struct pv_stats *s);

#endif /* LIB_PV_STATS_H */
