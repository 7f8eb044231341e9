// SPDX-License-Identifier: MIT
/*
 * barrier.h - a sense-reversing barrier for a known number of CPUs, with a
 * timeout that names the CPUs that never arrived.
 *
 * Tests and benchmarks use it to start every CPU together.  A CPU that
 * never arrives (stuck, or never started) must not hang the others
 * silently: when the CPUs stop arriving for the timeout, each waiter
 * returns false, and the first to notice logs which CPUs were missing.
 *
 * The timeout runs from the latest arrival, not from the caller's own: with
 * hundreds of virtual CPUs on two host cores the last ones to arrive may
 * rightly come long after the first, but they keep coming.  So one timeout
 * fits every CPU count.  Waiters spin a while, then sleep until the last
 * arrival kicks them (platform_cpu_wait), so that waiting CPUs leave the
 * host's cores to the ones still working.
 */
#ifndef LIB_BARRIER_H
#define LIB_BARRIER_H

#include "platform.h"

#include <stdbool.h>
#include <stdint.h>

struct barrier {
	unsigned total;		  /* CPUs taking part */
	uint32_t remaining;	  /* still to arrive in this round */
	uint32_t sense;		  /* flips when a round completes */
	uint8_t broken;		  /* a round timed out: every later wait fails fast */
	uint64_t last_arrival_ns; /* platform_now_ns() of the latest arrival */
	/* Round each CPU last arrived at, to name the missing ones. */
	uint32_t arrived_round[MAX_CPUS];
	uint8_t sleeping[MAX_CPUS]; /* CPU is (about to be) asleep: kick it */
	uint32_t round;
};

/* Prepare for @total CPUs, which must be CPUs 0 .. @total-1 (platform_cpu_id). */
void barrier_init(struct barrier *b, unsigned total);

/*
 * Wait until all @total CPUs called barrier_wait for this round, or until
 * @timeout_ns passed without any CPU arriving.  Returns true when all
 * arrived; false on timeout or if the barrier broke earlier (it stays
 * broken).  @what names the barrier in the timeout message.
 */
bool barrier_wait(struct barrier *b, uint64_t timeout_ns, const char *what);

/*
 * Fault injection (the kernel's selftest.stall=): @fn, if not NULL, runs on
 * each CPU as it comes to any barrier, before it arrives, with the
 * barrier's @what; it may hold the CPU up to make it late on purpose.
 */
void barrier_set_arrive_hook(void (*fn)(const char *what));

#endif /* LIB_BARRIER_H */
