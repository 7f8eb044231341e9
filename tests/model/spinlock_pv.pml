/* SPDX-License-Identifier: MIT */
/*
 * spinlock_pv.pml - the paravirtual mode of lib/spinlock_pv.c: spin, announce,
 * sleep, the unlocker's kick, and passing a sleeper over.
 *
 * Why it exists: a sleeping waiter is only woken by a kick, so one kick
 * lost is a CPU asleep forever and, behind it in the queue, every other
 * waiter; and a turn passed over must still have exactly one owner.
 * spinlock_pv.c argues both in prose; this model checks the argument for
 * CPUS CPUs taking and releasing one lock forever.
 *
 *   mutual_exclusion      at most one holder; only the holder releases
 *   free_means_no_waiter  while a CPU holds or waits, the word does not
 *                         read as free (head == tail with no sleepers
 *                         flag): what the lockref's lockless path relies on
 *   no_lost_wakeup        when every CPU is stuck (Spin's timeout), no
 *                         sleeper is owed a kick it has not got: neither
 *                         one whose ticket is being served nor one that
 *                         was passed over
 *   ltl progress          every CPU that wants the lock gets it, under
 *                         weak fairness (pan -a -f)
 *
 * The steps, as named in spinlock_pv.c's comment (one atomic step per access
 * to shared state, as in C):
 *   W1  slot := (ticket, ASLEEP), or ASLEEP_AGAIN once passed over
 *   W2  CMPXCHG: flag := 1 unless the head is already our ticket
 *   W3+W4  re-check the head, then sleep unless it moved or a kick is
 *       pending
 *   W5  CMPXCHG: slot := empty; wait while an unlocker holds it PASSING;
 *       found empty already: passed over, queue again (a separate XADD)
 *   U1  head := head + 1             U3  load the flag
 *   (U2, W0: sleeping is armed from the start here; spinlock_pv_tso.pml
 *   checks the arming)
 *   U4  find the slot of the new head; if ASLEEP with a ticket behind it
 *       (and fewer than CPUS - 1 passed over in this unlock):
 *       CMPXCHG it to PASSING, CMPXCHG head from the turn to the next
 *       (fails only for a stale unlocker: then the slot goes back, with a
 *       kick), empty the slot, kick, and on to the next turn; otherwise
 *       kick
 *   U5  clear the flag if the lock is now free
 * W3 and W4 are one step because platform_cpu_wait compares the word and
 * halts with kicks held pending (interrupts off, then STI;HLT; on the host
 * the kick counter read before the comparison): a kick after the comparison
 * ends the sleep, which `kicked` (a pending kick, consumed by the wake-up)
 * models.  The sleep's time bound (PLATFORM_WAIT_MAX_NS) is NOT modelled:
 * with it a lost kick would only be late, and the point is that none is lost.
 *
 * Mutants (run.sh):
 *   -DMUTANT_SKIP_RECHECK  the waiter sets the flag blindly and sleeps
 *                          without looking at the head again;
 *   -DMUTANT_KICK_BEFORE_RELEASE  the unlocker looks and kicks before it
 *                          advances the head;
 *       both break no_lost_wakeup and progress;
 *   -DMUTANT_PASS_BLIND    the unlocker takes the slot with a plain store,
 *                          not a compare-exchange: a turn the sleeper took
 *                          back is spent by the unlocker too, so the head
 *                          moves on while the sleeper holds the lock, which
 *                          breaks free_means_no_waiter;
 *   -DMUTANT_PASS_STALE    the unlocker spends the turn with a plain
 *                          increment of the head, not a compare-exchange:
 *                          an unlocker held up after U1, meeting a sleeper
 *                          whose ticket has the same value a round later,
 *                          spends a turn that is somebody else's, whose
 *                          owner then waits forever (a deadlock);
 *   -DMUTANT_PASS_ALWAYS   a CPU may be passed over at every turn, not once
 *                          per acquisition: one that keeps falling asleep
 *                          is passed over forever, which breaks progress.
 * -DSTRAY_KICKS adds a CPU that kicks anybody at any time: kicks to CPUs not
 * asleep, or asleep for a ticket not yet served, must be harmless.
 *
 * Memory order: this model is sequentially consistent, and U1 one step.
 * In C, U1 is a plain store, and an x86 load may pass an earlier store;
 * what keeps the flag's load from passing U1 (a fence once sleeping is
 * armed, and the arming's fence round) is checked on x86's own memory
 * model in spinlock_pv_tso.pml.
 */

#define CPUS 3
/*
 * One more than the CPUs, as in ticket.pml.  Passing over needs no more: the
 * unlocker spends the sleeper's ticket (the head moves past it) before it
 * empties the slot, and only then can the sleeper queue again.
 */
#define TICKETS 4
#define NOBODY 255
#define NONE 255

/* The slot's state bits (SPIN_PV_*); its ticket is slot[]. */
#define ASLEEP 1
#define ASLEEP_AGAIN 2
#define PASSING 3

hidden byte mutual_exclusion = 1;
hidden byte free_means_no_waiter = 1;
hidden byte no_lost_wakeup = 1;

byte head;	/* C: tickets.head */
byte tail;	/* C: tickets.tail less the flag */
bit sleepers;	/* C: SPIN_TAIL_SLEEPERS */
byte slot[CPUS] = NONE; /* C: spin_pv_slots[cpu] for this lock: the ticket, or NONE */
byte state[CPUS];	/* C: the slot's state bits while slot[] is not NONE */
bit kicked[CPUS];	/* a kick pending for the CPU (an IPI held while IF=0) */
bit asleep[CPUS];	/* halted in platform_cpu_wait */

/* Ghosts. */
byte holder = NOBODY;
bit wants[CPUS];

/* The word reads as free: head == tail and no sleepers flag (spin_value_unlocked). */
#define WORD_FREE (head == tail && !sleepers)

inline acquired(me)
{
    assert(mutual_exclusion && holder == NOBODY);
    holder = me
}

/*
 * spin_pv_sleep() and the requeue of spin_wait_for(): W2..W5 (W1, the
 * slot, was written in the step that chose to sleep).  Returns with the
 * slot empty; if an unlocker passed the CPU over, with @passed set and a
 * new @ticket.
 */
inline pv_sleep(me, ticket, passed)
{
#ifdef MUTANT_SKIP_RECHECK
    sleepers = 1; /* W2, blind */
    d_step {
        if
        :: kicked[me] -> kicked[me] = 0
        :: else -> asleep[me] = 1
        fi
    }
#else
    d_step {
        if
        :: head == ticket -> skip /* W2's compare-exchange gives up: no sleep */
        :: else ->
            sleepers = 1; /* W2 */
            assert(free_means_no_waiter && !WORD_FREE)
        fi
    }
    /* W3+W4: re-check the head, then sleep unless a kick is pending. */
    d_step {
        if
        :: head == ticket -> skip
        :: else ->
            if
            :: kicked[me] -> kicked[me] = 0
            :: else -> asleep[me] = 1
            fi
        fi
    }
#endif
    /*
     * The wake-up and W5 as one step: a pending kick ends the halt; then,
     * once no unlocker holds the slot (SPIN_PV_PASSING), take the turn
     * back, or, finding the slot emptied, queue again (the XADD).  One step
     * is enough: the moments between are the CPU being slow, which the
     * step happening later covers.
     */
    d_step {
        (!asleep[me] || kicked[me]) && state[me] != PASSING;
        if
        :: asleep[me] -> kicked[me] = 0; asleep[me] = 0
        :: else -> skip
        fi;
        if
        :: slot[me] == NONE ->
            /* Passed over: a new ticket, and never passed over again in this acquisition. */
            passed = 1;
            ticket = tail;
            tail = (tail + 1) % TICKETS;
            assert(free_means_no_waiter && !WORD_FREE)
        :: else -> slot[me] = NONE; state[me] = 0
        fi
    }
}

/*
 * U4-U5 for the turn @served that U1 began: pass its sleeper over (once per
 * acquisition, only with a ticket behind it, and at most CPUS - 1 times
 * per unlock) and spend the turn, or kick it and leave it the lock.  @c,
 * @found, @pass, @npass: the caller's scratch.
 */
inline pv_wake(served, c, found, pass, npass)
{
    do
    :: /* Find the sleeper of @served, decide, and kick it if its turn waits for it. */
       d_step {
           found = NOBODY;
           c = 0;
           do
           :: c < CPUS && slot[c] == served && state[c] != PASSING -> found = c; break
           :: c < CPUS && !(slot[c] == served && state[c] != PASSING) -> c++
           :: c == CPUS -> break
           od;
           c = 0;
           if
           :: found != NOBODY ->
#if defined(MUTANT_PASS_ALWAYS)
               pass = (tail != (served + 1) % TICKETS && npass < CPUS - 1);
#elif defined(MUTANT_KICK_BEFORE_RELEASE)
               pass = 0; /* the head has not moved yet: this mutant only kicks */
#else
               pass = (state[found] == ASLEEP && tail != (served + 1) % TICKETS &&
                       npass < CPUS - 1);
#endif
               if
               :: !pass -> kicked[found] = 1
               :: else -> skip
               fi
           :: else -> pass = 0
           fi
       }
       if
       :: !pass -> break
       :: else -> skip
       fi;
       /* spin_pv_pass(): reserve the slot, then spend the turn. */
#ifdef MUTANT_PASS_BLIND
       state[found] = PASSING;
#else
       d_step {
           if
           :: slot[found] == served && state[found] == ASLEEP -> state[found] = PASSING
           :: else -> pass = 0 /* it took its turn back */
           fi
       }
       if
       :: !pass -> break
       :: else -> skip
       fi;
#endif
       /*
        * Spend the turn with a compare-exchange on the head, then empty the
        * slot ("you were passed over") and kick: one step, as nothing but
        * the blocked sleeper looks at the slot in between.  A stale
        * unlocker (the head went on without it) gives the slot back and
        * kicks: the turn may have come meanwhile.
        */
       d_step {
#ifdef MUTANT_PASS_STALE
           if
           :: 1 -> head = (head + 1) % TICKETS;
#else
           if
           :: head == served -> head = (head + 1) % TICKETS;
#endif
               served = head;
               slot[found] = NONE;
               state[found] = 0;
               npass++
           :: else -> pass = 0; state[found] = ASLEEP
           fi;
           kicked[found] = 1
       }
       if
       :: !pass -> break
       :: else -> skip
       fi
    od;
    atomic { /* not d_step: the loop's breaks jump here */
        if
        :: head == tail -> sleepers = 0
        :: else -> skip
        fi;
        found = 0;
        pass = 0;
        npass = 0;
        served = 0
    }
}

active [CPUS] proctype cpu()
{
    byte ticket, served, c, found, npass;
    bit passed, pass;

    do
    :: /* spin_lock(): XADD on the tail. */
       d_step {
           wants[_pid] = 1;
           ticket = tail;
           tail = (tail + 1) % TICKETS;
           assert(free_means_no_waiter && !WORD_FREE)
       }
       /* spin_wait_for(): spin (its loads change nothing), or sleep, until served. */
       do
       :: atomic { head == ticket -> acquired(_pid); ticket = 0 }; break
       :: atomic {
              head != ticket -> slot[_pid] = ticket; /* W1 */
              if
              :: passed -> state[_pid] = ASLEEP_AGAIN
              :: else -> state[_pid] = ASLEEP
              fi
          };
          pv_sleep(_pid, ticket, passed)
       od;
       passed = 0;
       /* spin_unlock(). */
#ifdef MUTANT_KICK_BEFORE_RELEASE
       served = (head + 1) % TICKETS;
       if
       :: sleepers -> pv_wake(served, c, found, pass, npass) /* U3, U4 */
       :: else -> skip
       fi;
       d_step {
           assert(mutual_exclusion && holder == _pid);
           holder = NOBODY;
           wants[_pid] = 0;
           head = (head + 1) % TICKETS /* U1 */
       }
#else
       atomic {
           assert(mutual_exclusion && holder == _pid);
           holder = NOBODY;
           wants[_pid] = 0;
           head = (head + 1) % TICKETS; /* U1 */
           served = head
       }
       if
       :: sleepers -> pv_wake(served, c, found, pass, npass) /* U3, U4 */
       :: else -> served = 0
       fi
#endif
    od
}

#ifdef STRAY_KICKS
/* Kicks from nowhere (stale slots, other users of VEC_KICK): harmless. */
active proctype stray()
{
    do
    :: kicked[0] = 1
    :: kicked[1] = 1
    :: kicked[2] = 1
    od
}
#endif

/*
 * Everyone stuck: is it because a sleeper is owed a kick (its turn came, or
 * it was passed over: its slot emptied) and none is on its way?  (Left out of the mutants'
 * liveness runs, which must fail on progress.)
 */
#ifndef NO_WATCHDOG
#define OWED_A_KICK(c) \
    (asleep[c] && !kicked[c] && (slot[c] == NONE || slot[c] == head))

active proctype watchdog()
{
    timeout ->
    assert(no_lost_wakeup && !(OWED_A_KICK(0) || OWED_A_KICK(1) || OWED_A_KICK(2)))
}
#endif

ltl progress {
    [] ((wants[0] -> <> (holder == 0)) &&
        (wants[1] -> <> (holder == 1)) &&
        (wants[2] -> <> (holder == 2)))
}
