/* SPDX-License-Identifier: MIT */
/*
 * spinlock_pv_tso.pml - the paravirtual unlock's plain store, on x86's
 * memory model, and the arming that makes it safe (lib/spinlock_pv.c).
 *
 * Why a second model: spinlock_pv.pml is sequentially consistent, where a
 * store is seen by everyone at once.  On x86 a store waits in its CPU's
 * store buffer, and that CPU's later loads may go ahead of it (Intel SDM
 * Vol. 3A 8.2.3.4).  The unlock is a plain store to the head (U1) and then
 * loads (U2 the mode, U3 the flag), so whether a waiter about to sleep is
 * seen depends on exactly that reordering.  Here each CPU has a store
 * buffer for its head store, drained into memory at any moment, by a
 * locked instruction, by a fence, or by the arming CPU's fence interrupt;
 * loads read memory (or the CPU's own buffer).  That is x86-TSO: stores
 * leave a CPU in order, loads are not reordered with each other, and a
 * locked instruction drains the buffer first.
 *
 * What it checks, for CPUS CPUs taking and releasing one lock forever:
 *   mutual_exclusion  at most one holder
 *   no_lost_wakeup    when every CPU is stuck (Spin's timeout), no sleeper
 *                     whose ticket the head has reached is without a kick
 *
 * The steps, as named in spinlock_pv.c's comment:
 *   W0  mode ARMED: go on.  ON: compare-exchange to ARMING, then the fence
 *       round (each other CPU's buffer drained, one CPU per step, while
 *       everyone runs on), then store ARMED.  ARMING: spin on.
 *   W1  slot := ticket
 *   W2  CMPXCHG: flag := 1 unless the head is already our ticket
 *   W3+W4  re-check the head, then sleep unless it moved or a kick is
 *       pending (one step: see spinlock_pv.pml)
 *   U0  load the mode; if ARMED, U1 is a locked XADD (the buffer drains
 *       first, and it is U3's fence), and on to U3's load
 *   U1  head := head + 1, into the store buffer
 *   U2  load the mode again; unless ARMING or ARMED, done
 *   U3  fence (drain the buffer), load the flag
 *   U4  kick the CPU whose slot holds the new head
 *   U5  clear the flag if the lock is free
 * Passing over (spinlock_pv.pml) happens after U3's fence, where this
 * model's question is settled, so it is left out here.  spin_pv_set's
 * disarming runs only while no lock is contended and is not modelled.
 *
 * Mutants (run.sh), each of which loses a wake-up (no_lost_wakeup):
 *   -DMUTANT_MODE_BEFORE_STORE  the unlock trusts U0's load of the mode
 *                          and skips U2: it read ON, the arming round
 *                          found nothing buffered yet, and the store then
 *                          lands after the waiter's W3;
 *   -DMUTANT_NO_FENCE      an unlock that finds sleeping armed only at U2
 *                          loads the flag with its store still buffered:
 *                          the flag is not set yet, and W3 still reads
 *                          the old head;
 *   -DMUTANT_NO_BARRIER    arming stores ARMED without the fence round: an
 *                          unlock that read ON keeps its store buffered
 *                          past W3.
 *   -DMUTANT_SLEEP_WHILE_ARMING  a waiter sleeps once it sees ARMING, before
 *                          the round that another CPU runs has drained
 *                          the unlock that read ON.
 */

#define CPUS 3
#define TICKETS 4 /* one more than the CPUs, as in ticket.pml */
#define NOBODY 255
#define NONE 255

/* spin_pv_mode; OFF never occurs here. */
#define ON 1
#define ARMING 2
#define ARMED 3

hidden byte mutual_exclusion = 1;
hidden byte no_lost_wakeup = 1;

byte head;	 /* C: tickets.head, in memory */
byte tail;	 /* C: tickets.tail less the flag */
bit sleepers;	 /* C: SPIN_TAIL_SLEEPERS */
byte mode = ON;	 /* C: spin_pv_mode */
byte slot[CPUS] = NONE; /* C: spin_pv_slots[cpu]: the ticket it sleeps for, or NONE */
bit kicked[CPUS]; /* a kick pending for the CPU */
bit asleep[CPUS]; /* halted in platform_cpu_wait */
byte pend[CPUS] = NONE; /* the CPU's store buffer: a head value not yet in memory, or NONE */

/* Ghost. */
byte holder = NOBODY;

/* The buffered head store of @c reaches memory. */
inline drain(c)
{
    if
    :: pend[c] != NONE -> head = pend[c]; pend[c] = NONE
    :: else -> skip
    fi
}

/* The fence round of platform_fence_others: each other CPU drains, one per step. */
inline fence_others(me, c)
{
    c = 0;
    do
    :: c < CPUS -> d_step { if :: c != me -> drain(c) :: else -> skip fi; c++ }
    :: c == CPUS -> c = 0; break
    od
}

active [CPUS] proctype cpu()
{
    byte ticket, served, m, c;

    do
    :: /* spin_lock(): the XADD on the tail, locked, so our buffer drains first. */
       atomic {
           drain(_pid);
           ticket = tail;
           tail = (tail + 1) % TICKETS
       }
       do
       :: atomic { head == ticket -> assert(mutual_exclusion && holder == NOBODY); holder = _pid };
          break
       :: atomic { head != ticket && mode == ON -> mode = ARMING }; /* W0: arm */
#ifndef MUTANT_NO_BARRIER
          fence_others(_pid, c);
#endif
          mode = ARMED
#ifdef MUTANT_SLEEP_WHILE_ARMING
       :: head != ticket && mode >= ARMING -> /* W0, too trusting */
#else
       :: head != ticket && mode == ARMED -> /* W0: armed */
#endif
          slot[_pid] = ticket; /* W1 */
          d_step { /* W2 */
              if
              :: head == ticket -> skip
              :: else -> sleepers = 1
              fi
          }
          d_step { /* W3+W4 */
              if
              :: head == ticket -> skip
              :: else ->
                  if
                  :: kicked[_pid] -> kicked[_pid] = 0
                  :: else -> asleep[_pid] = 1
                  fi
              fi
          }
          d_step { /* the wake-up, and W5 */
              !asleep[_pid] || kicked[_pid];
              if
              :: asleep[_pid] -> asleep[_pid] = 0; kicked[_pid] = 0
              :: else -> skip
              fi;
              slot[_pid] = NONE
          }
       od;
       /* spin_unlock(). */
       m = mode; /* U0 */
       if
       :: m == ARMED -> /* U1 as a locked XADD: our buffer drains, and it is U3's fence */
          atomic {
              assert(mutual_exclusion && holder == _pid);
              holder = NOBODY;
              drain(_pid);
              head = (head + 1) % TICKETS;
              served = head
          }
       :: else ->
          atomic {
              assert(mutual_exclusion && holder == _pid);
              holder = NOBODY;
              served = (head + 1) % TICKETS;
              pend[_pid] = served /* U1, into the buffer */
          }
#ifndef MUTANT_MODE_BEFORE_STORE
          m = mode; /* U2 */
#endif
          if
          :: m >= ARMING ->
#ifndef MUTANT_NO_FENCE
             d_step { drain(_pid) } /* U3: the fence */
#else
             skip
#endif
          :: else -> m = 0
          fi
       fi;
       if
       :: m >= ARMING && sleepers -> /* U3: the flag */
          d_step { /* U4 */
              c = 0;
              do
              :: c < CPUS && slot[c] == served -> kicked[c] = 1; c++
              :: c < CPUS && slot[c] != served -> c++
              :: c == CPUS -> c = 0; break
              od
          }
          d_step { /* U5: a compare-exchange, locked, so our buffer drains first */
              drain(_pid);
              if
              :: head == tail -> sleepers = 0
              :: else -> skip
              fi
          }
       :: else -> skip
       fi;
       served = 0;
       m = 0
    od
}

/* Stores leave a CPU's buffer whenever the memory system gets to them. */
active proctype memory()
{
end:
    do
    :: atomic { pend[0] != NONE -> drain(0) }
    :: atomic { pend[1] != NONE -> drain(1) }
    :: atomic { pend[2] != NONE -> drain(2) }
    od
}

/* Everyone stuck: is a sleeper owed a kick its turn brought and none is on its way? */
#define OWED_A_KICK(c) (asleep[c] && !kicked[c] && slot[c] == head)

active proctype watchdog()
{
    timeout ->
    assert(no_lost_wakeup && !(OWED_A_KICK(0) || OWED_A_KICK(1) || OWED_A_KICK(2)))
}
