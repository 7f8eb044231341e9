// SPDX-License-Identifier: MIT
/*
 * spinlock_pv.h - what the ticket lock (spinlock_ticket.h) and its paravirtual
 * half (spinlock_pv.c) share.  Internal to lib/: users see spinlock.h.
 *
 * The ticket lock calls in at three places only: a waiter that has spun a
 * while asks to sleep (W0-W5), and an unlock that finds sleeping armed, or
 * arming, hands over to U3-U5.  Everything else about sleeping, waking and
 * passing over lives in spinlock_pv.c, whose file comment names the steps.
 */
#ifndef LIB_SPINLOCK_PV_H
#define LIB_SPINLOCK_PV_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "pv_stats.h"
#include "spinlock.h"

/*
 * A waiter sleeps once it has made SPIN_PV_SPINS PAUSEs and waited
 * SPIN_PV_MIN_NS, whichever comes later.  Under QEMU TCG, where PAUSE
 * leaves the vCPU loop, the count decides: with 4 vCPUs on 2 idle host
 * cores, refcount at 4 CPUs kept 0.39x-0.64x of its 2-CPU throughput with
 * 2^6 PAUSEs (16 runs), 0.20x-0.57x with 2^8 (10 runs), 0.24x-0.39x with
 * 2^4 and 0.13x-0.25x with 2^10 (spinning longer burns the time slices the
 * holder and the next waiter need; shorter sends waiters to sleep, and
 * kicks, when their turn was near).  On hardware 2^6 PAUSEs take well
 * under a microsecond, less than a plain queue of lock holders may: there
 * the time decides, so a waiter whose turn is near does not pay a sleep
 * and a kick.
 */
#define SPIN_PV_SPINS  (1u << 6)
#define SPIN_PV_MIN_NS (50u * 1000)

/*
 * The mode, read by every unlock (U0, U2): OFF, the plain lock; ON,
 * paravirtual but no waiter has slept since spin_pv_set, so unlocks skip
 * U3; ARMING, a waiter is having every other CPU fence; ARMED, waiters may
 * sleep and unlocks fence and look for them.  Moves only forward, except in
 * spin_pv_set, which runs only while no lock is contended.  It is
 * spin_switches.pv (spinlock.h), beside the kind every lock call reads.
 */
enum spin_pv_mode { SPIN_PV_OFF, SPIN_PV_ON, SPIN_PV_ARMING, SPIN_PV_ARMED };

/* U0 and U2: a hint, ordered by the compiler barrier and fences around it (spinlock_pv.c). */
static inline enum spin_pv_mode spin_pv_mode(void)
{
	if (!static_key_guard(&spin_switched_key)) /* spinlock.h: pv never turned on */
		return SPIN_PV_OFF;
	return (enum spin_pv_mode)atomic_load8_relaxed(&spin_switches.pv);
}

/*
 * W0: true once sleeping is armed, arming it if nobody has; false while
 * another CPU arms it (spin on and ask again later), or for good if the
 * platform cannot fence other CPUs.
 */
bool spin_pv_arm(void);

/*
 * W1-W5: announce, re-check, sleep, take the turn back.  @again is true for
 * a CPU passed over before in this acquisition (its turn then waits for
 * it).  Returns true if it was passed over: @ticket is spent, and the
 * caller queues again.
 */
bool spin_pv_sleep(spinlock_t *lock, uint16_t ticket, bool again);

/*
 * The counts pv_stats() reads (pv_stats.c): this file's steps and
 * qspinlock_pv.c's add to them with atomic_xadd64, nobody else writes them.
 */
extern struct pv_stats pv_counters;

/* U1-U5 for an unlock that read ARMED at U0: the head advanced by a locked XADD. */
void spin_pv_unlock_armed(spinlock_t *lock);

/* U3-U5 for an unlock whose plain U1 stored @head and then read ARMING or ARMED at U2. */
void spin_pv_unlock_fence(spinlock_t *lock, uint16_t head);

#endif /* LIB_SPINLOCK_PV_H */
