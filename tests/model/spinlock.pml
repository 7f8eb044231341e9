/* SPDX-License-Identifier: MIT */
/*
 * spinlock.pml - the ticket lock of lib/spinlock.c as Promela inlines.
 *
 * Why it exists: both models use this one lock.  ticket.pml checks it alone
 * (mutual exclusion, wrap-around, FIFO progress); lockref.pml packs it next
 * to a count, which is only sound if "head == tail" really means "nobody
 * holds or waits for the lock".  Keeping the lock in one file keeps the two
 * models honest with each other.
 *
 * The C lock word holds two 16-bit halves that wrap at 2^16; here they wrap
 * at TICKETS, which the including model sets just above its number of lock
 * users so that wrap-around happens within a few rounds.  The C code relies
 * on MAX_CPUS < 2^16 (a static assertion in spinlock.h); the model relies on
 * users < TICKETS, and the narrow_tickets mutant shows what breaks without it.
 *
 * Each atomic step below is one access to the lock word in the C code: the
 * grab is spin_lock()'s XADD, the wait is the load in spin_wait_for()'s loop
 * that finds the head at our ticket (the loads before it change nothing, so
 * the model blocks instead), the release is spin_unlock()'s store of head + one ticket
 * (only the holder writes the head, so its load and store may be one step).  Spin is
 * sequentially consistent; README.md says why that is faithful to x86.
 * The wait has no timeout here: the model shows that, under weak fairness,
 * the C timeout (SPIN_TIMEOUT_NS) never has to fire.
 */

#ifndef TICKETS
#error "the including model defines TICKETS (ticket modulus) before including spinlock.pml"
#endif

/* Ghost value of "holder" when nobody holds the lock. */
#define NOBODY 255

/* A caller's ticket once it has been served: no real ticket has this value. */
#define SERVED 255

/*
 * Assertion names.  Spin's preprocessor erases a #define before pan sees an
 * assertion, so each property is a hidden constant that is always 1: it
 * costs no state, and pan's "assertion violated (name&&...)" line and the
 * trail replay both say which property broke.
 */
hidden byte mutual_exclusion = 1;
hidden byte held_lock_looks_locked = 1;

byte head; /* ticket being served (C: tickets.head) */
byte tail; /* next ticket to hand out (C: tickets.tail) */

/* Ghost: the user holding the lock, or NOBODY.  Not part of the C lock word. */
byte holder = NOBODY;

/* Inside the step that finds the head at our ticket: the lock is ours. */
inline spin_acquired(me, ticket)
{
    assert(mutual_exclusion && holder == NOBODY);
    holder = me;
    ticket = SERVED
}

/*
 * spin_lock(): take a ticket, wait until the head reaches it.  Returns with
 * the lock held (holder == me) and @ticket, the caller's local, set to
 * SERVED: the number is dead once served, and one value for it lets the
 * states of holders merge.
 */
inline spin_lock(me, ticket)
{
#if defined(MUTANT_TEST_AND_SET)
    /* Mutant: a test-and-set lock (the ghost is the flag): no queue, so a waiter can be passed over forever. */
    d_step {
        holder == NOBODY;
        holder = me;
        ticket = SERVED
    }
#else
#if defined(MUTANT_NONATOMIC_GRAB)
    /* Mutant: a plain load and a plain store instead of XADD, so two users can draw one ticket. */
    ticket = tail;
    tail = (ticket + 1) % TICKETS;
    assert(held_lock_looks_locked && head != tail);
#else
    /*
     * XADD on the tail half.  From here on the caller is queued, so the word
     * must read as locked: that is what lets the lockref judge "free" from a
     * copy of the word (spin_value_unlocked).  The old head comes back with
     * the old tail: if it is our ticket the lock is ours at once.
     */
    d_step {
        ticket = tail;
        tail = (tail + 1) % TICKETS;
        assert(held_lock_looks_locked && head != tail);
        if
        :: head == ticket -> spin_acquired(me, ticket)
        :: else -> skip
        fi
    }
#endif
    /* spin_wait_for(): loads of the head until it reaches our ticket. */
    if
    :: ticket == SERVED -> skip
    :: else ->
        d_step {
            head == ticket;
            spin_acquired(me, ticket)
        }
    fi
#endif
}

/*
 * The body of spin_unlock(), for a caller that ends its own atomic step with
 * the release.  The caller must hold the lock.
 */
inline spin_release(me)
{
    assert(mutual_exclusion && holder == me);
    holder = NOBODY;
    head = (head + 1) % TICKETS
}

/* spin_unlock(): serve the next ticket.  The caller must hold the lock. */
inline spin_unlock(me)
{
    d_step {
        spin_release(me)
    }
}
