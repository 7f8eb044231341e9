/* SPDX-License-Identifier: MIT */
/*
 * lockref.pml - the 8-byte lockref of lib/lockref.c as Promela inlines.
 *
 * Why it exists: the lockref's safety rests on one claim, "a whole-word
 * compare-exchange that saw the lock free cannot change the count under a
 * lock holder", and on a handful of operations deciding the right thing
 * from a snapshot.  Stress tests sample interleavings; this model, driven by
 * lockref_safety.pml and lockref_liveness.pml, tries them all for a few CPUs.
 *
 * The word is head, tail (spinlock.pml) and count.  The lockless path
 * (lockref_lockless) reads all three in one step and installs a new count
 * with one step that compares all three; the locked path changes the count
 * only between spin_lock and spin_unlock.  The operations modelled are
 * lockref_get, lockref_get_not_dead and lockref_put_or_lock, under the
 * policy chosen at compile time:
 *
 *   default      mainline: a held lock sends the caller to the lock at once;
 *                up to ATTEMPTS compare-exchanges
 *   -DPOLICY_V7  v7: a held lock is first waited out, up to WAITS re-reads,
 *                then up to ATTEMPTS exchanges
 *
 * The "locked" policy (no lockless attempt at all) is the bare ticket lock
 * and needs no model of its own.  The purely local work between two
 * accesses to the word (lockref_decide, the loop tests) is folded into the
 * atomic step of the access before it: other CPUs cannot see local work, so
 * this removes states but no behaviour.  Ghost variables (holder, refs,
 * freed, busy) are the model's bookkeeping and do not exist in C.
 */

#if !defined(USERS) || !defined(INITIAL_REFS)
#error "the including model defines USERS (lockref users) and INITIAL_REFS (the starting count)"
#endif

/* At least one ticket more than lock users, so head == tail means "nobody queued". */
#define TICKETS (USERS + 1)

#include "spinlock.pml"

/* The count of a dead lockref (C: LOCKREF_DEAD); any negative count reads as dead. */
#define LOCKREF_DEAD (-128)

/*
 * Lockless compare-exchange attempts before taking the lock (C: the
 * policy's retries, 100 mainline and 4 v7), and how many times a held word
 * is re-read before taking the lock (C: LOCKREF_WAIT_SPINS for v7, none
 * for mainline).  Smaller bounds only add fallbacks, so for safety they
 * cover every larger one (README.md): the safety runs use 2 attempts, which
 * still exercise the retry, and 1 re-read.  The liveness runs pass the C
 * attempt counts with -DATTEMPTS=.
 */
#ifndef ATTEMPTS
#define ATTEMPTS 2
#endif
#ifdef POLICY_V7
#define WAITS 1
#else
#define WAITS 0
#endif

/* The operations (C: enum lockref_op) and how much each adds to the count. */
#define GET 1
#define GET_NOT_DEAD 2
#define PUT_OR_LOCK 3
#define DELTA(op) (1 - 2 * (op == PUT_OR_LOCK))

/* Where an operation stands: its next step. */
#define FINISHED 0 /* returned (also the value between operations) */
#define TRY 1      /* compare-exchange the snapshot h, t, c */
#define WAIT 2     /* v7: the snapshot is held; re-read the word */
#define LOCKED 3   /* take the lock and finish there */

/* A lock word is free when head == tail (C: spin_value_unlocked). */
#ifdef MUTANT_IGNORE_LOCK
/* Mutant: the lockless path never sees the lock, so it runs under a holder's feet. */
#define HELD(h, t) false
#else
#define HELD(h, t) (h != t)
#endif

/* A negative count is dead: get_not_dead refuses it (C: lockref_decide). */
#ifdef MUTANT_GET_DEAD
/* Mutant: get_not_dead takes a reference on a dead count. */
#define DEAD(c) false
#else
#define DEAD(c) (c < 0)
#endif

/* put_or_lock drops a reference without the lock only above this count (C: count <= 1 => lock). */
#ifdef MUTANT_PUT_LAST_LOCKLESS
/* Mutant: the last reference, too, is dropped without the lock. */
#define PUT_FLOOR 0
#else
#define PUT_FLOOR 1
#endif

hidden byte count_frozen_while_locked = 1;
hidden byte no_lost_update = 1;
hidden byte put_or_lock_contract = 1;
hidden byte no_get_after_free = 1;
hidden byte dead_never_revived = 1;
hidden byte last_put_under_lock = 1;

short count = INITIAL_REFS; /* C: the count half of the word */

/* Ghosts: references the users believe they hold, the object freed, an operation in progress. */
byte refs = INITIAL_REFS;
bool freed;
bit busy[USERS];

/* The locals every lockref user declares (Promela inlines cannot have their own). */
#define LOCKREF_LOCALS                                                                             \
    byte ticket = SERVED;                                                                          \
    byte h;                                                                                        \
    byte t;                                                                                        \
    short c;                                                                                       \
    byte tries;                                                                                    \
    byte waits;                                                                                    \
    byte next = FINISHED;                                                                          \
    bool ok

/*
 * Every change of the count goes through here, inside the caller's atomic
 * step, with the properties that must hold at that instant.  @lockless says
 * whether the change comes from a compare-exchange rather than a lock holder.
 */
inline count_changes(n, delta, lockless)
{
    /* A dead count is final: nothing may change it (lockref_mark_dead's promise). */
    assert(dead_never_revived && count >= 0);
    /* Nobody but the holder changes the count while the lock is held. */
    assert(count_frozen_while_locked && (!lockless || holder == NOBODY));
    /* The last reference is dropped only under the lock, where the caller can tear down. */
    assert(last_put_under_lock && (!lockless || delta > 0 || n > 0));
    /* Once freed, the object is gone: no get (nor anything else) may touch it. */
    assert(no_get_after_free && !freed);
    count = n;
    refs = refs + delta;
    /* Every operation's change is in the count: none was overwritten by a stale one. */
    assert(no_lost_update && count == refs)
}

/*
 * The return of an operation, at the end of its last atomic step: checks
 * the put_or_lock contract (false exactly when the caller now holds the
 * lock, with a count of at most 1; every other return leaves the lock free)
 * and clears the locals, so that finished operations leave no trace and
 * their states merge.
 */
inline op_returns(me, op, ok)
{
    assert(put_or_lock_contract &&
           ((op == PUT_OR_LOCK && !ok) -> (holder == me && count <= 1) : holder != me));
    busy[me] = 0;
    h = 0;
    t = 0;
    c = 0;
    tries = 0;
    waits = 0;
    next = FINISHED
}

/* From here on the snapshot and the counters are dead: forget them, and go to the lock. */
inline go_locked()
{
    h = 0;
    t = 0;
    c = 0;
    tries = 0;
    waits = 0;
    next = LOCKED
}

/*
 * Judge the snapshot h, t, c just read, as the top of lockref_lockless's
 * loop and lockref_decide do: wait (v7) or take the lock if it is held,
 * refuse a dead count, send put_or_lock's last reference to the lock, or
 * else try the exchange.
 */
inline judge(me, op, ok)
{
    if
    :: HELD(h, t) && waits < WAITS ->
        waits++;
        next = WAIT
    :: HELD(h, t) && waits == WAITS -> go_locked()
    :: else ->
        waits = 0;
        if
        :: op == GET_NOT_DEAD && DEAD(c) ->
            ok = false;
            op_returns(me, op, ok)
        :: op == PUT_OR_LOCK && c <= PUT_FLOOR -> go_locked()
        :: else -> next = TRY
        fi
    fi
}

/*
 * lockref_lockless(): try @op without the lock.  Leaves next FINISHED (the
 * operation has returned, ok is its answer) or LOCKED (the caller must take
 * the lock).
 */
inline lockless(me, op, ok)
{
    /* One 64-bit load of the word; the operation starts here. */
    d_step {
        busy[me] = 1;
        h = head;
        t = tail;
        c = count;
        judge(me, op, ok)
    }
    do
    :: d_step {
            /* lockref_wait_unlocked(): another load of a word that was held. */
            next == WAIT;
            h = head;
            t = tail;
            c = count;
            judge(me, op, ok)
        }
    :: d_step {
            /* The compare-exchange of the whole word: it fails if anyone took the lock. */
            next == TRY;
#ifdef MUTANT_PLAIN_STORE
            /* Mutant: a plain store of the new count instead of a compare-exchange. */
            if
            :: true ->
#else
            if
            :: head == h && tail == t && count == c ->
#endif
                count_changes(c + DELTA(op), DELTA(op), true);
                ok = true;
                op_returns(me, op, ok)
            :: else ->
                /*
                 * A failed exchange hands back the current word: the retry
                 * needs no load.  (Mutant MUTANT_UNBOUNDED: failures are not
                 * counted, so a CPU that keeps losing keeps trying.)
                 */
                h = head;
                t = tail;
                c = count;
#ifndef MUTANT_UNBOUNDED
                tries++;
#endif
                if
                :: tries == ATTEMPTS -> go_locked()
                :: else -> judge(me, op, ok)
                fi
            fi
        }
    :: next == FINISHED || next == LOCKED -> break
    od
}

/*
 * The locked path: lockref_do_get, lockref_locked_cond (get_not_dead) and
 * the tail of lockref_do_put_or_lock.  Under the lock the count stands
 * still, so the holder's load, decision, store and release are one step
 * (nobody else may write the word meanwhile, and readers of a held word
 * ignore its count).  put_or_lock on a count <= 1 returns false WITH the
 * lock held.
 */
inline locked(me, op, ok)
{
    spin_lock(me, ticket);
    d_step {
        if
        :: op == GET_NOT_DEAD && DEAD(count) -> ok = false
        :: op == PUT_OR_LOCK && count <= 1 -> ok = false
        :: else ->
            count_changes(count + DELTA(op), DELTA(op), false);
            ok = true
        fi;
#ifdef MUTANT_PUT_OR_LOCK_UNLOCKS
        /* Mutant: put_or_lock lets go of the lock even when it reports the last reference. */
        spin_release(me);
#else
        if
        :: op == PUT_OR_LOCK && !ok -> skip
        :: else -> spin_release(me)
        fi;
#endif
        op_returns(me, op, ok)
    }
}

/* One whole operation; ok is its answer. */
inline lockref_op(me, op, ok)
{
    lockless(me, op, ok);
    if
    :: next == LOCKED -> locked(me, op, ok)
    :: else -> skip
    fi
}

/* lockref_get(): take a reference; the caller already holds one, so the count is live. */
inline lockref_get(me)
{
    lockref_op(me, GET, ok)
}

/* lockref_get_not_dead(): take a reference unless the count is dead; ok says whether it did. */
inline lockref_get_not_dead(me, ok)
{
    lockref_op(me, GET_NOT_DEAD, ok)
}

/*
 * lockref_put_or_lock(): drop a reference unless it is the last; ok true if
 * it did (lock free), false if the count is <= 1, with the lock held.
 */
inline lockref_put_or_lock(me, ok)
{
    lockref_op(me, PUT_OR_LOCK, ok)
}
