// SPDX-License-Identifier: MIT
/*
 * qspinlock_pv.h - the queued spinlock's paravirtual half: a queued CPU
 * spins a bounded while, then halts until kicked (Linux's design since
 * 4.2, qspinlock_paravirt.h, written here from its description).  Internal
 * to lib/: qspinlock.c calls in at four steps, named in qspinlock_pv.c's
 * file comment, and only while paravirtual mode is on (spinlock.pv=, the
 * same mode and the same arming as the ticket lock's, spinlock_pv.h).
 */
#ifndef LIB_QSPINLOCK_PV_H
#define LIB_QSPINLOCK_PV_H

#include <stdbool.h>
#include <stdint.h>

#include "spinlock.h"

/* The locked byte of a held lock whose halted queue head is hashed: the unlock must kick it. */
#define QSPIN_SLOW 3u

/* A queue node's paravirtual state (its own word, which a halted node waits on). */
enum qspin_pv_state { QSPIN_PV_RUNNING, QSPIN_PV_HALTED, QSPIN_PV_HASHED };

/*
 * N1-N4: a queued CPU, not the head, waits until its predecessor sets
 * *@head, halting on *@state between bounded spins.  @prev_cpu names the
 * predecessor for the deadlock panic.
 */
void qspin_pv_wait_node(spinlock_t *lock, uint32_t *head, uint32_t *state, unsigned prev_cpu);

/* K: after the hand-off's store to its head, wake the successor (@cpu, *@state) if it halted. */
void qspin_pv_kick_node(uint32_t *state, unsigned cpu);

/*
 * H1-H4: the queue head, whose tail value is @tail, waits until neither
 * the locked byte nor pending is set, hashing itself and halting between
 * bounded spins.  Returns the word it saw last.
 */
uint32_t qspin_pv_wait_head(spinlock_t *lock, uint16_t tail, uint32_t *state);

/* U with sleeping armed (U0 read ARMED): compare-exchange LOCKED -> 0, else S1-S3. */
void qspin_pv_unlock_armed(spinlock_t *lock);

/* U3 for an unlock whose plain store met ARMING or ARMED at U2: fence, then kick a hashed head. */
void qspin_pv_unlock_fence(spinlock_t *lock);

#endif /* LIB_QSPINLOCK_PV_H */
