// SPDX-License-Identifier: MIT
/*
 * spinlock_wait.h - the one bounded wait of every lock kind (defined in
 * spinlock_wait.c; used by each kind's header, qspinlock.c, spinlock_pv.c).
 * Internal to lib/: users see spinlock.h.
 *
 * Why on progress, not on the total wait: with hundreds of virtual CPUs on
 * two cores a waiter far back in a queue rightly waits long, but something
 * it watches keeps moving (a ticket lock's head, a queued lock's word, a
 * paravirtual slot).  So a waiter panics only once what it watches has stood
 * still for SPIN_TIMEOUT_NS (spinlock.h), naming the lock, its word, the CPU
 * and what it waited for: a deadlock, or a lost hand-off, is reported
 * instead of hanging the machine.
 *
 * Reading the clock costs more than a PAUSE, so a waiter reads it once per
 * SPIN_CLOCK_EVERY turns of its loop (spin_wait_due), or after a sleep.
 */
#ifndef LIB_SPINLOCK_WAIT_H
#define LIB_SPINLOCK_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "spinlock.h"

/* Waiters look at the clock once per this many turns: cheap, yet a timeout is noticed soon. */
#define SPIN_CLOCK_EVERY (1u << 14)

struct spin_wait {
	const spinlock_t *lock;
	uint64_t since; /* when @seen was first read; 0: not read yet */
	uint32_t seen;	/* what the waiter watches, as last seen to change */
	unsigned turns;
};

static inline void spin_wait_start(struct spin_wait *w, const spinlock_t *lock)
{
	*w = (struct spin_wait){.lock = lock};
}

/* One turn of the loop; true on the turns that must read the clock (spin_wait_check). */
static inline bool spin_wait_due(struct spin_wait *w)
{
	return ++w->turns % SPIN_CLOCK_EVERY == 0;
}

/*
 * Note @progress (what the waiter watches: any change is progress) and the
 * time; panic (spin_deadlock) once it has not changed for SPIN_TIMEOUT_NS.
 * @what says what the CPU waits for, as "waited for <what>", and @who a
 * CPU or ticket it names (-1: none).
 */
void spin_wait_check(struct spin_wait *w, uint32_t progress, const char *what, int who);

/* The one "deadlock?" panic of both kinds: the lock and its word, the CPU, the wait. */
__attribute__((noreturn)) void spin_deadlock(const spinlock_t *lock, const char *what, int who);

#endif /* LIB_SPINLOCK_WAIT_H */
