/* SPDX-License-Identifier: MIT */
/*
 * lockref_safety.pml - one object's whole life: three CPUs drop their
 * references while a lookup that holds none tries to take one, until the
 * last put marks the object dead and frees it.
 *
 * Why it exists: the races that matter are at the end of life, where a
 * lockless get_not_dead meets the put that takes the count from 1 to dead.
 * Every assertion of lockref.pml and spinlock.pml is checked on every
 * interleaving; at the end the count must be dead with no reference left.
 *
 *   cpu 0      holds one reference: get, put_or_lock, put_or_lock
 *   cpu 1, 2   each holds one reference: put_or_lock
 *   lookup     holds none: get_not_dead, and if that worked, put_or_lock
 *
 * (Giving cpu 1 the same get and extra put as cpu 0 takes the mainline
 * search from 0.6 to 7.2 million states (21 s, 750 MB) and v7 past 10
 * million and 1 GB.  One CPU with a get is enough to race an unconditional
 * get against the puts and the lookup.)
 *
 * Whoever's put_or_lock returns false does what dput() does with the last
 * reference: marks the count dead, frees the object and unlocks.
 *
 * Run: spin -a [-DPOLICY_V7] lockref_safety.pml; cc -O1 -DSAFETY -o pan pan.c; ./pan
 * (run.sh does this, and the mutants).
 */

#define CPUS 3
#define USERS (CPUS + 1)
#define LOOKUP CPUS
/* One reference per CPU. */
#define INITIAL_REFS CPUS

#include "lockref.pml"

/*
 * The caller's side of a false put_or_lock: it holds the lock and the last
 * reference.  lockref_mark_dead, free, unlock, in one step under the lock.
 */
inline teardown(me)
{
#ifdef MUTANT_DEAD_AFTER_UNLOCK
    /* Mutant: frees and unlocks first, marks the count dead only afterwards. */
    d_step {
        refs--;
        freed = true;
        spin_release(me)
    }
    count = LOCKREF_DEAD
#else
    d_step {
        count = LOCKREF_DEAD;
        refs--;
        freed = true;
        spin_release(me)
    }
#endif
}

proctype cpu(byte me)
{
    LOCKREF_LOCALS;

    if
    :: me == 0 ->
        lockref_get(me);
        lockref_put_or_lock(me, ok)
    :: else -> skip
    fi;
    lockref_put_or_lock(me, ok);
    if
    :: !ok -> teardown(me)
    :: else -> skip
    fi
}

proctype lookup(byte me)
{
    LOCKREF_LOCALS;

    lockref_get_not_dead(me, ok);
    if
    :: ok ->
        lockref_put_or_lock(me, ok);
        if
        :: !ok -> teardown(me)
        :: else -> skip
        fi
    :: else -> skip
    fi
}

init
{
    atomic {
        run cpu(0);
        run cpu(1);
        run cpu(2);
        run lookup(LOOKUP)
    }
    /* Everybody finished: the object must be dead, freed, with no reference left over. */
    _nr_pr == 1;
    assert(no_lost_update && refs == 0 && count == LOCKREF_DEAD && freed)
}
