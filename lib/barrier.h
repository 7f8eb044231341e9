/*
 * barrier.h - a sense-reversing barrier for a known number of CPUs, with a
 * timeout that names the CPUs that never arrived.
 *
 * Tests and benchmarks use it to start every CPU together.  A CPU that
 * never arrives (stuck, or never started) must not hang the others
 * silently: after the timeout each waiter returns false, and the first to
 * notice logs which CPUs were missing.
 */
#ifndef LIB_BARRIER_H
#define LIB_BARRIER_H

#include "platform.h"

#include <stdbool.h>
#include <stdint.h>

struct barrier {
	unsigned total;		     /* CPUs taking part */
	volatile unsigned remaining; /* still to arrive in this round */
	volatile unsigned sense;     /* flips when a round completes */
	volatile bool broken;	     /* a round timed out: every later wait fails fast */
	/* Round each CPU last arrived at, to name the missing ones. */
	volatile unsigned arrived_round[MAX_CPUS];
	volatile unsigned round;
};

/* Prepare for @total CPUs, which must be CPUs 0 .. @total-1 (platform_cpu_id). */
void barrier_init(struct barrier *b, unsigned total);

/*
 * Wait until all @total CPUs called barrier_wait for this round, or until
 * @timeout_ns passed.  Returns true when all arrived; false on timeout or
 * if the barrier broke earlier (it stays broken).  @what names the barrier
 * in the timeout message.
 */
bool barrier_wait(struct barrier *b, uint64_t timeout_ns, const char *what);

#endif /* LIB_BARRIER_H */
