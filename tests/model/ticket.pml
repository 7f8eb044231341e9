/* SPDX-License-Identifier: MIT */
/*
 * ticket.pml - the ticket lock alone: CPUS CPUs take and release it forever.
 *
 * Why it exists: the lockref is only as good as its lock.  This model checks
 * the lock's own promises with the tickets wrapping every TICKETS grabs:
 *
 *   mutual_exclusion        at most one CPU holds the lock (spinlock.pml)
 *   held_lock_looks_locked  a queued or holding CPU leaves head != tail
 *   ltl progress            every CPU that wants the lock gets it, under
 *                           weak fairness (run with pan -a -f)
 *
 * Mutants (run.sh): -DMUTANT_NONATOMIC_GRAB (load + store instead of XADD)
 * breaks mutual_exclusion, -DTICKETS=3 (no more tickets than CPUs) breaks
 * held_lock_looks_locked, and -DMUTANT_TEST_AND_SET (no queue) breaks
 * progress even under weak fairness.
 */

#define CPUS 3

/* Ticket modulus: one more than the CPUs, so head == tail only when nobody is queued. */
#ifndef TICKETS
#define TICKETS 4
#endif

#include "spinlock.pml"

/* Ghost: CPU i has asked for the lock and not yet released it. */
bit wants[CPUS];

active [CPUS] proctype cpu()
{
    byte ticket = SERVED;

    do
    :: wants[_pid] = 1;
       spin_lock(_pid, ticket);
       /* The critical section is the step between acquire and release. */
       spin_unlock(_pid);
       wants[_pid] = 0
    od
}

ltl progress {
    [] ((wants[0] -> <> (holder == 0)) &&
        (wants[1] -> <> (holder == 1)) &&
        (wants[2] -> <> (holder == 2)))
}
