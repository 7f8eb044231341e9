/* SPDX-License-Identifier: MIT */
/*
 * lockref_liveness.pml - CPUs take and drop references forever; every
 * operation must finish.
 *
 * Why it exists: a lockless loop that keeps losing races could spin
 * forever.  The policies bound it (ATTEMPTS exchanges, and for v7 WAITS
 * re-reads of a held word) and then queue on the FIFO ticket lock.  This
 * model checks, under weak fairness (pan -a -f: a CPU that can always move
 * eventually does), that every operation started is finished:
 *
 *   ltl ops_complete   busy[i] -> <> !busy[i], for every user i
 *
 * Its mutant -DMUTANT_UNBOUNDED drops the attempt bound and must fail it: a
 * CPU whose exchange is beaten every time by the other never finishes.
 *
 *   cpu        forever: get, put_or_lock
 *   lookup     forever: get_not_dead, put_or_lock
 *
 * Two users, not four: one rival is enough to beat a compare-exchange
 * forever, and the ticket lock's FIFO progress for three CPUs is checked in
 * ticket.pml.  A third user here means over 6 million states even without
 * fairness; with it the search had not finished after two minutes and 2 GB.
 *
 * An owner outside the model keeps one reference for good, so the count
 * stays >= 1 and no put is ever the last (the end of life is finite and is
 * covered by lockref_safety.pml, whose invalid-end-state check finds any
 * deadlock there).
 */

#define CPUS 1
#define USERS (CPUS + 1)
/* The owner's reference. */
#define INITIAL_REFS 1

#include "lockref.pml"

active [CPUS] proctype cpu()
{
    LOCKREF_LOCALS;

    do
    :: lockref_get(_pid);
       lockref_put_or_lock(_pid, ok)
    od
}

active proctype lookup()
{
    LOCKREF_LOCALS;

    do
    :: lockref_get_not_dead(_pid, ok);
       lockref_put_or_lock(_pid, ok)
    od
}

ltl ops_complete {
    [] ((busy[0] -> <> !busy[0]) && (busy[1] -> <> !busy[1]))
}
