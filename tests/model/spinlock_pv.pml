/* SPDX-License-Identifier: MIT */
/*
 * spinlock_pv.pml - the paravirtual mode of lib/spinlock.c: spin, announce,
 * sleep, and the unlocker's kick.
 *
 * Why it exists: a sleeping waiter is only woken by a kick, so one kick
 * lost is a CPU asleep forever and, behind it in the queue, every other
 * waiter.  spinlock.c argues in prose that none is lost; this model checks
 * the argument for CPUS CPUs taking and releasing one lock forever.
 *
 *   mutual_exclusion      at most one holder; only the holder releases
 *   free_means_no_waiter  while a CPU holds or waits, the word does not
 *                         read as free (head == tail with no sleepers
 *                         flag): what the lockref's lockless path relies on
 *   no_lost_wakeup        when every CPU is stuck (Spin's timeout), no
 *                         sleeper is the one whose ticket is being served
 *                         with no kick pending for it
 *   ltl progress          every CPU that wants the lock gets it, under
 *                         weak fairness (pan -a -f)
 *
 * The steps, as named in spinlock.c's comment (one atomic step per access
 * to shared state, as in C):
 *   W1  slot := (ticket)              W2  CMPXCHG: flag := 1 unless head
 *   W3+W4  re-check the head, then        is already our ticket
 *       sleep unless it moved or a    U1  XADD head
 *       kick is pending               U2  load the flag
 *   U3  kick the CPU whose slot holds the new head; clear the flag if the
 *       lock is now free
 * W3 and W4 are one step because platform_cpu_wait compares the word and
 * halts with kicks held pending (interrupts off, then STI;HLT; on the host
 * the kick counter read before the comparison): a kick after the comparison
 * ends the sleep, which `kicked` (a pending kick, consumed by the wake-up)
 * models.  The sleep's time bound (PLATFORM_WAIT_MAX_NS) is NOT modelled:
 * with it a lost kick would only be late, and the point is that none is lost.
 *
 * Mutants (run.sh): -DMUTANT_SKIP_RECHECK (the waiter announces with a
 * blind flag set and sleeps without looking at the head again) and
 * -DMUTANT_KICK_BEFORE_RELEASE (the unlocker looks and kicks before it
 * advances the head) both break no_lost_wakeup and progress.
 * -DSTRAY_KICKS adds a CPU that kicks anybody at any time: kicks to CPUs not
 * asleep, or asleep for a ticket not yet served, must be harmless.
 *
 * Memory order: U1 and W2 are locked instructions, and U2, W3 loads after
 * them; locked instructions are totally ordered and later loads do not pass
 * them (Intel SDM Vol. 3A 8.2.2), so Spin's sequential consistency is
 * faithful here (README.md).  A plain-store U1 would not be: its load U2
 * could pass it.
 */

#define CPUS 3
#define TICKETS 4 /* one more than the CPUs, as in ticket.pml */
#define NOBODY 255
#define NONE 255

hidden byte mutual_exclusion = 1;
hidden byte free_means_no_waiter = 1;
hidden byte no_lost_wakeup = 1;

byte head;	/* C: tickets.head */
byte tail;	/* C: tickets.tail less the flag */
bit sleepers;	/* C: SPIN_TAIL_SLEEPERS */
byte slot[CPUS] = NONE; /* C: spin_pv_slots[cpu] for this lock: the ticket, or NONE */
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

/* platform_cpu_wait's wake-up: a pending kick ends the halt and is consumed; the slot is cleared. */
inline wake(me)
{
    d_step {
        kicked[me] == 1;
        kicked[me] = 0;
        asleep[me] = 0;
        slot[me] = NONE
    }
}

/*
 * spin_pv_sleep(): W2..W4 (W1, the slot, was written in the step that
 * chose to sleep); returns on any wake, with the slot cleared.
 */
inline pv_sleep(me, ticket)
{
#ifdef MUTANT_SKIP_RECHECK
    sleepers = 1; /* W2, blind */
    d_step {
        if
        :: kicked[me] -> kicked[me] = 0; slot[me] = NONE
        :: else -> asleep[me] = 1
        fi
    }
#else
    d_step {
        if
        :: head == ticket -> slot[me] = NONE /* W2's compare-exchange fails: the lock is ours */
        :: else ->
            sleepers = 1; /* W2 */
            assert(free_means_no_waiter && !WORD_FREE)
        fi
    }
    if
    :: slot[me] == NONE -> skip
    :: else ->
        /* W3+W4: re-check the head, then sleep unless a kick is pending. */
        d_step {
            if
            :: head == ticket -> slot[me] = NONE
            :: else ->
                if
                :: kicked[me] -> kicked[me] = 0; slot[me] = NONE
                :: else -> asleep[me] = 1
                fi
            fi
        }
    fi;
#endif
    if
    :: asleep[me] -> wake(me)
    :: else -> skip
    fi
}

/* U3: kick the CPU asleep (or about to be) for @served; drop the flag if the lock is free. */
inline pv_kick(served)
{
    d_step {
        if
        :: slot[0] == served -> kicked[0] = 1
        :: slot[1] == served -> kicked[1] = 1
        :: slot[2] == served -> kicked[2] = 1
        :: else -> skip
        fi
    }
    d_step {
        if
        :: head == tail -> sleepers = 0
        :: else -> skip
        fi
    }
}

active [CPUS] proctype cpu()
{
    byte ticket, served;

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
       :: atomic { head != ticket -> slot[_pid] = ticket /* W1 */ }; pv_sleep(_pid, ticket)
       od;
       /* spin_unlock(). */
#ifdef MUTANT_KICK_BEFORE_RELEASE
       served = (head + 1) % TICKETS;
       if
       :: sleepers -> pv_kick(served) /* U2, U3 */
       :: else -> skip
       fi;
       d_step {
           assert(mutual_exclusion && holder == _pid);
           holder = NOBODY;
           head = served /* U1 */
       }
#else
       atomic {
           assert(mutual_exclusion && holder == _pid);
           holder = NOBODY;
           head = (head + 1) % TICKETS; /* U1 */
           served = head
       }
       if
       :: sleepers -> pv_kick(served) /* U2, U3 */
       :: else -> skip
       fi;
#endif
       atomic { served = 0; wants[_pid] = 0 }
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
 * Everyone stuck: is it because a sleeper's turn came and no kick is on its
 * way?  (Left out of the mutants' liveness runs, which must fail on progress.)
 */
#ifndef NO_WATCHDOG
active proctype watchdog()
{
    timeout ->
    assert(no_lost_wakeup &&
           !((asleep[0] && slot[0] == head && !kicked[0]) ||
             (asleep[1] && slot[1] == head && !kicked[1]) ||
             (asleep[2] && slot[2] == head && !kicked[2])))
}
#endif

ltl progress {
    [] ((wants[0] -> <> (holder == 0)) &&
        (wants[1] -> <> (holder == 1)) &&
        (wants[2] -> <> (holder == 2)))
}
