/* SPDX-License-Identifier: MIT */
/*
 * qspinlock.pml - the queued spinlock of lib/qspinlock.c on x86-TSO.
 *
 * Why a model: the queued lock hands the lock on through three places (the
 * locked byte, the pending bit, a queue node) with plain stores, so
 * whether a waiter can be lost or two CPUs can both hold it depends on the
 * order in which those stores become visible.  Each CPU here has a store
 * buffer (one entry: its plain stores leave it in program order, as x86's
 * do, Intel SDM Vol. 3A 8.2.2) that a drainer process empties at any
 * moment; a load reads the CPU's own buffered store if it has one for that
 * place, else memory; a locked instruction (compare-exchange, XCHG) drains
 * the buffer first and acts on memory at once.  A buffer of one entry
 * is an under-approximation of x86's (deeper buffers allow more delays),
 * chosen to keep the search small; every store-to-load reordering of a
 * single store is covered.
 *
 * The word is three places (locked byte, pending bit, tail); each CPU has
 * one queue node (next, head): the nesting of contexts only picks which of
 * a CPU's nodes is used and is not modelled.  A tail is the CPU + 1.
 *
 * What it checks, for CPUS CPUs taking and releasing one lock forever:
 *   mutual_exclusion  at most one holder (an assertion on entry and exit)
 *   no lost waiter    no invalid end state: the CPUs never all block
 *   ltl progress      under weak fairness, CPU 0, once committed (it owns
 *                     pending, or its node is in the queue), gets the lock.
 *                     Before that, its compare-exchanges may keep failing
 *                     while the others take the lock (a retry loop is not
 *                     fair), which is progress for the system, not for it.
 *
 * Steps, as named in qspinlock.c: F, P1-P3, Q1-Q5, U.
 *
 * Mutants (run.sh), each failing for its named reason:
 *   -DMUTANT_CLEAR_PENDING_FIRST  P3 as two stores, pending cleared before
 *                          the locked byte is set: the queue head sees
 *                          both clear in between and takes the lock too
 *                          (mutual_exclusion);
 *   -DMUTANT_PUBLISH_BEFORE_INIT  Q1 publishes the tail before clearing
 *                          the node: a successor's link is wiped, the head
 *                          waits for it forever (deadlock: a lost waiter);
 *   -DMUTANT_WIDE_UNLOCK   U stores 0 to the whole word instead of the byte:
 *                          it wipes pending and the tail, and a second CPU
 *                          sets pending beside the first (mutual_exclusion).
 */

#define CPUS 3
#define NOBODY 255
#define NONE 255

/* Places in mem[]: the word's three parts, then each CPU's node. */
#define L 0 /* locked byte */
#define P 1 /* pending bit */
#define T 2 /* tail: 0, or the queued CPU + 1 */
#define NEXT(c) (3 + 2 * (c)) /* node.next: the successor's tail, or 0 */
#define HEAD(c) (4 + 2 * (c)) /* node.head: 1 once it is the queue's head */
#define PLACES (3 + 2 * CPUS)
/* Wide stores, as one buffered entry: P3's 16-bit store (L 1, P 0), the mutant's 32-bit 0. */
#define LOW16 (PLACES)
#define WORD (PLACES + 1)

hidden byte mutual_exclusion = 1;

byte mem[PLACES];
byte sb_addr[CPUS] = NONE; /* each CPU's buffered store: its place, or NONE */
byte sb_val[CPUS];
bit committed[CPUS]; /* ghost: owns pending, or has published its tail */
byte holder = NOBODY; /* ghost */

/* What CPU c loads from place a: its own buffered store first (store forwarding). */
#define LD(c, a)                                                                   \
    (sb_addr[c] == (a) -> sb_val[c] :                                              \
    (sb_addr[c] == LOW16 && (a) == L -> 1 :                                        \
    (sb_addr[c] == LOW16 && (a) == P -> 0 :                                        \
    (sb_addr[c] == WORD && (a) <= T -> 0 : mem[a]))))

/* The buffered store of c reaches memory. */
inline drain(c)
{
    if
    :: sb_addr[c] == LOW16 -> mem[L] = 1; mem[P] = 0
    :: sb_addr[c] == WORD -> mem[L] = 0; mem[P] = 0; mem[T] = 0
    :: sb_addr[c] != NONE && sb_addr[c] < PLACES -> mem[sb_addr[c]] = sb_val[c]
    :: else -> skip
    fi;
    sb_addr[c] = NONE
}

/* A plain store: waits for the one-entry buffer to be free, then buffers. */
inline store(c, a, v)
{
    atomic { sb_addr[c] == NONE -> sb_addr[c] = a; sb_val[c] = v }
}

active [CPUS] proctype drainer()
{
end:
    do
    :: atomic { sb_addr[_pid] != NONE -> drain(_pid) }
    od
}

active [CPUS] proctype cpu()
{
    byte me = _pid - CPUS;
    byte prev, next;
    bit got, queue;

    do
    :: /* F: compare-exchange 0 -> LOCKED */
       atomic {
           drain(me);
           if
           :: mem[L] == 0 && mem[P] == 0 && mem[T] == 0 -> mem[L] = 1; got = 1
           :: else -> got = 0
           fi
       };
       if
       :: got -> skip
       :: else ->
          /* P1: the retry loop of compare-exchanges, as one step on the value it finally sees */
          atomic {
              drain(me);
              if
              :: mem[P] != 0 || mem[T] != 0 -> queue = 1
              :: else ->
                 queue = 0;
                 if
                 :: mem[L] == 0 -> mem[L] = 1; got = 1
                 :: else -> mem[P] = 1; committed[me] = 1
                 fi
              fi
          };
          if
          :: got -> skip
          :: !got && !queue ->
             LD(me, L) == 0; /* P2 */
#ifdef MUTANT_CLEAR_PENDING_FIRST
             store(me, P, 0);
             store(me, L, 1)
#else
             store(me, LOW16, 0) /* P3: L 1 and P 0 in one store */
#endif
          :: queue ->
#ifndef MUTANT_PUBLISH_BEFORE_INIT
             store(me, NEXT(me), 0); /* Q1: the node first */
             store(me, HEAD(me), 0);
#endif
             atomic { drain(me); prev = mem[T]; mem[T] = me + 1; committed[me] = 1 }; /* Q1: XCHG */
#ifdef MUTANT_PUBLISH_BEFORE_INIT
             store(me, NEXT(me), 0);
             store(me, HEAD(me), 0);
#endif
             if
             :: prev != 0 ->
                store(me, NEXT(prev - 1), me + 1); /* Q2 */
                LD(me, HEAD(me)) == 1
             :: else -> skip
             fi;
             LD(me, L) == 0 && LD(me, P) == 0; /* Q3 */
             atomic { /* Q4: compare-exchange tail|0 -> LOCKED */
                 drain(me);
                 if
                 :: mem[T] == me + 1 && mem[L] == 0 && mem[P] == 0 -> mem[T] = 0; mem[L] = 1; got = 1
                 :: else -> got = 0
                 fi
             };
             if
             :: got -> skip
             :: else ->
                store(me, L, 1);
                atomic { LD(me, NEXT(me)) != 0 -> next = LD(me, NEXT(me)) };
                store(me, HEAD(next - 1), 1) /* Q5 */
             fi
          fi
       fi;
       atomic { assert(mutual_exclusion && holder == NOBODY); holder = me; committed[me] = 0 };
       atomic { assert(mutual_exclusion && holder == me); holder = NOBODY };
#ifdef MUTANT_WIDE_UNLOCK
       store(me, WORD, 0);
#else
       store(me, L, 0); /* U: the byte alone */
#endif
       got = 0; queue = 0; prev = 0; next = 0
    od
}

ltl progress { [] (committed[0] -> <> (holder == 0)) }
