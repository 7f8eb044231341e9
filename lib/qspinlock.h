// SPDX-License-Identifier: MIT
/*
 * qspinlock.h - the queued spinlock, the lock under Linux's lockref since
 * 4.2, as the second kind of spinlock_t (spinlock.h, spin_kind_set).
 *
 * Why a second kind: a ticket lock makes every waiter spin on the one
 * shared word, so each unlock sends that line to every waiter; the queued
 * lock makes each waiter spin on a node of its own CPU (an MCS queue), so
 * an unlock wakes one waiter.  The lockref packs its lock into 4 bytes and
 * decides "free" from a copy of them, so the queued lock keeps that shape:
 *
 *   bits  0-7   locked byte: 1 while someone holds the lock
 *   bit   8     pending: one CPU waits on the word itself, next in line
 *   bits  9-15  zero
 *   bits 16-17  tail nesting index: which of the tail CPU's queue nodes
 *   bits 18-31  tail CPU index + 1 (0: nobody queues)
 *
 * Free iff the whole word is 0.  The second CPU to arrive sets pending and
 * spins on the word (no queue node touched: the common contended case is
 * cheap); the third and later ones queue.  The queue's head waits until
 * both the holder and the pending CPU are gone, then takes the lock.
 *
 * A CPU uses one queue node per context it queues in at once (normal code,
 * an interrupt, an NMI, an exception taken while queueing): QSPIN_NODES.
 * This kernel takes spinlocks only in normal code with interrupts that could
 * take them masked, and its NMI and panic paths take none, so one level is
 * used today; running out panics naming the CPU.  The lock itself is left
 * as it was (the node count is checked before anything is published).
 *
 * Only spinlock.c calls these: it adds the debug checks of spinlock.h and
 * picks the kind.  None of them disables interrupts.
 */
#ifndef LIB_QSPINLOCK_H
#define LIB_QSPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "platform.h"
#include "spinlock.h"

#define QSPIN_LOCKED	   1u	     /* the locked byte's value while held */
#define QSPIN_LOCKED_MASK  0xffu     /* the locked byte */
#define QSPIN_PENDING	   (1u << 8) /* the pending bit */
#define QSPIN_TAIL_SHIFT   16	     /* the tail is the word's upper half */
#define QSPIN_IDX_BITS	   2	     /* the nesting index's width */
#define QSPIN_NODES	   (1u << QSPIN_IDX_BITS)
#define QSPIN_TAIL_CPU_MAX ((1u << (16 - QSPIN_IDX_BITS)) - 1) /* largest CPU index + 1 */

_Static_assert(MAX_CPUS <= QSPIN_TAIL_CPU_MAX, "every CPU index + 1 must fit the tail");

/* The 16-bit tail naming @cpu's queue node @idx. */
static inline uint16_t qspin_tail(unsigned cpu, unsigned idx)
{
	return (uint16_t)(((cpu + 1) << QSPIN_IDX_BITS) | idx);
}

/* Take @lock; returns with it held.  Panics on a wait without progress for SPIN_TIMEOUT_NS. */
void qspin_lock(spinlock_t *lock);

/* Release @lock, which the caller holds: one byte store (x86 stores release). */
void qspin_unlock(spinlock_t *lock);

/*
 * qspin_lock and qspin_unlock for a caller that has just seen tracing off
 * (spin_lock and spin_unlock, in their switch word): the same, less the
 * test of the tracing switch.  The slow path still records its events.
 */
void qspin_lock_untraced(spinlock_t *lock);
void qspin_unlock_untraced(spinlock_t *lock);

/* Take @lock only if its word is 0 right now; true with it held, else nothing changed. */
bool qspin_trylock(spinlock_t *lock);

/* How deep the calling CPU is in the queue path now (0 outside it): for tests. */
unsigned qspin_depth(void);

#endif /* LIB_QSPINLOCK_H */
