/* SPDX-License-Identifier: MIT */
/*
 * qspinlock.pml - the queued spinlock of lib/qspinlock.c on x86-TSO, and
 * with -DPV its paravirtual waiting (lib/qspinlock_pv.c).
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
 * single store is covered.  -DSC makes every store go straight to memory
 * (sequential consistency): a mutant that passes with it and fails
 * without it breaks only on x86's store buffers.
 *
 * The word is three places (locked byte, pending bit, tail); each CPU has
 * one queue node (next, head, and with -DPV its state): the nesting of
 * contexts only picks which of a CPU's nodes is used and is not modelled.
 * A tail is the CPU + 1.
 *
 * What it checks, for CPUS CPUs taking and releasing one lock forever:
 *   mutual_exclusion      at most one holder (an assertion on entry and exit)
 *   word_zero_means_free  whenever the word in memory is 0, nobody holds the
 *                         lock, owns pending or is queued: the lockref's
 *                         "free" test (spin_value_unlocked) relies on it
 *   no lost waiter        no invalid end state: the CPUs never all block
 *   ltl progress          under weak fairness, CPU 0, once committed (it owns
 *                         pending, or its node is in the queue), gets the lock.
 *                         Before that, its compare-exchanges may keep failing
 *                         while the others take the lock (a retry loop is not
 *                         fair), which is progress for the system, not for it.
 * With -DPV also:
 *   no_lost_wakeup        when every process is stuck (Spin's timeout), no
 *                         CPU is asleep: every halted waiter was kicked
 *   hashed_head_found     an unlock that finds the locked byte SLOW finds
 *                         the halted head in the hash
 *
 * Steps, as named in qspinlock.c: F, P1-P3, Q1-Q5, U; qspinlock_pv.c: N1-N4
 * (a queued waiter halts), H1-H4 (the head hashes itself and halts), K (the
 * hand-off's kick), S1-S3 (the unlock's slow path).  Sleeping is armed from
 * the start here, so every unlock is the compare-exchange LOCKED -> 0 of
 * the locked byte; the arming (the plain-store unlock before it) is the
 * ticket lock's, checked in spinlock_pv_tso.pml.
 * The sleep's time bound is not modelled, so a lost kick shows.
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
 *                          it wipes pending and the tail (word_zero_means_free);
 *   -DMUTANT_HEAD_IGNORES_PENDING  Q3 waits for the locked byte only: the
 *                          head and the pending CPU both take the lock
 *                          (mutual_exclusion);
 *   -DMUTANT_PLAIN_TAIL_CLEAR  Q4 reads "we are the tail" and then stores
 *                          LOCKED to the whole word: a tail published in
 *                          between is wiped, its CPU never handed the head
 *                          (word_zero_means_free);
 *   -DMUTANT_HANDOFF_BEFORE_LOCKED  Q5 before the locked byte is set: the
 *                          successor finds the lock free and takes it beside
 *                          us (mutual_exclusion);
 *   -DMUTANT_SKIP_HEAD_WAIT  a queued CPU does not wait for its predecessor's
 *                          hand-off: as the tail it empties the queue and
 *                          takes the lock while the head still waits, and
 *                          once it unlocks the word reads 0 with the head
 *                          queued (word_zero_means_free);
 * and with -DPV:
 *   -DMUTANT_PV_PEEK_STATE  K loads the successor's state after storing its
 *                          head, without a locked instruction: the load
 *                          passes the buffered store, the successor halts
 *                          unkicked (no_lost_wakeup); with -DSC it passes;
 *   -DMUTANT_PV_SKIP_RECHECK  N3 halts without re-reading its head after
 *                          announcing HALTED (no_lost_wakeup);
 *   -DMUTANT_PV_PLAIN_UNLOCK  an armed unlock stores 0 to the locked byte
 *                          and never looks at SLOW (no_lost_wakeup);
 *   -DMUTANT_PV_SLOW_BEFORE_HASH  the head sets SLOW before it hashes
 *                          itself: the unlock finds no head to kick
 *                          (hashed_head_found);
 *   -DMUTANT_PV_PLAIN_RELEASE  S2 releases with a plain store: the kick
 *                          lands while it is buffered, the head sees SLOW
 *                          still and halts again, unkicked (no_lost_wakeup);
 *                          with -DSC it passes;
 *   -DMUTANT_PV_PLAIN_HALTED  N1 announces HALTED with a plain store: N2's
 *                          load of the head flag passes it, K's XCHG reads
 *                          RUNNING and does not kick, then the buffered
 *                          HALTED lands and the waiter halts (no_lost_wakeup);
 *   -DMUTANT_PV_UNHASH_AFTER_RELEASE  S1 after S2: the head, not yet
 *                          halted, finds the lock free and takes itself out
 *                          of the hash (H4), and the unlock finds no head
 *                          (hashed_head_found);
 *   -DMUTANT_PV_KICK_BEFORE_RELEASE  S3 before S2: the kicked head finds
 *                          SLOW still, hashes itself again and halts, and
 *                          the release that follows kicks nobody
 *                          (no_lost_wakeup).
 */

/*
 * 3 CPUs for the plain queue (holder, pending, two queued: every path);
 * 2 with -DPV, which is enough for each paravirtual step (a holder and a
 * halting head: H1-H4, S1-S3; a head and a halting waiter queued behind it
 * once the first hands the lock over: N1-N4, K) and keeps make test's model
 * step short (3 CPUs: 2.3 million states; 2: see README.md).  -DCPUS=3
 * runs the larger search by hand.
 */
#ifndef CPUS
#ifdef PV
#define CPUS 2
#else
#define CPUS 3
#endif
#endif
#if CPUS == 2
#define ANY_COMMITTED (committed[0] || committed[1])
#define NONE_ASLEEP (!asleep[0] && !asleep[1])
#elif CPUS == 3
#define ANY_COMMITTED (committed[0] || committed[1] || committed[2])
#define NONE_ASLEEP (!asleep[0] && !asleep[1] && !asleep[2])
#endif
#define NOBODY 255
#define NONE 255

#define LOCKED 1
#define SLOW 2 /* the locked byte of a held lock whose halted head is hashed (QSPIN_SLOW) */
#define RUNNING 0
#define HALTED 1

/* Places in mem[]: the word's three parts, the hash slot, then each CPU's node. */
#define L 0 /* locked byte */
#define P 1 /* pending bit */
#define T 2 /* tail: 0, or the queued CPU + 1 */
#define H 3 /* the hash slot of this lock: 0, or the halted head's CPU + 1 */
#define NEXT(c) (4 + 3 * (c)) /* node.next: the successor's tail, or 0 */
#define HEAD(c) (5 + 3 * (c)) /* node.head: 1 once it is the queue's head */
#define ST(c) (6 + 3 * (c))   /* node.state: RUNNING or HALTED */
#define PLACES (4 + 3 * CPUS)
/* Wide stores, as one buffered entry: P3's 16-bit store (L 1, P 0), the mutants' 32-bit ones. */
#define LOW16 (PLACES)
#define WORD (PLACES + 1)
#define WORD_LOCKED (PLACES + 2)

hidden byte mutual_exclusion = 1;
hidden byte word_zero_means_free = 1;
hidden byte no_lost_wakeup = 1;
hidden byte hashed_head_found = 1;

byte mem[PLACES];
byte sb_addr[CPUS] = NONE; /* each CPU's buffered store: its place, or NONE */
byte sb_val[CPUS];
bit committed[CPUS]; /* ghost: owns pending, or has published its tail */
bit asleep[CPUS];    /* halted in platform_cpu_wait until kicked */
byte holder = NOBODY; /* ghost */

/* What CPU c loads from place a: its own buffered store first (store forwarding). */
#define LD(c, a)                                                                   \
    (sb_addr[c] == (a) -> sb_val[c] :                                              \
    ((sb_addr[c] == LOW16 || sb_addr[c] == WORD_LOCKED) && (a) == L -> 1 :         \
    ((sb_addr[c] == LOW16 || sb_addr[c] == WORD_LOCKED) && (a) == P -> 0 :         \
    (sb_addr[c] == WORD_LOCKED && (a) == T -> 0 :                                  \
    (sb_addr[c] == WORD && (a) <= T -> 0 : mem[a])))))

/* The buffered store of c reaches memory. */
inline drain(c)
{
    if
    :: sb_addr[c] == LOW16 -> mem[L] = 1; mem[P] = 0
    :: sb_addr[c] == WORD -> mem[L] = 0; mem[P] = 0; mem[T] = 0
    :: sb_addr[c] == WORD_LOCKED -> mem[L] = 1; mem[P] = 0; mem[T] = 0
    :: sb_addr[c] != NONE && sb_addr[c] < PLACES -> mem[sb_addr[c]] = sb_val[c]
    :: else -> skip
    fi;
    sb_addr[c] = NONE
}

/* A plain store: waits for the one-entry buffer to be free, then buffers. */
inline store(c, a, v)
{
#ifdef SC
    atomic { sb_addr[c] = a; sb_val[c] = v; drain(c) }
#else
    atomic { sb_addr[c] == NONE -> sb_addr[c] = a; sb_val[c] = v }
#endif
}

/*
 * platform_cpu_wait(a, v): compare and halt are one step for a kick (the
 * kernel halts with the kick held pending), so a kick after the comparison
 * ends the sleep; a kick before it is lost, which is why every kicker
 * changes the compared place first.
 */
inline pv_wait(c, a, v)
{
    atomic {
        if
        :: LD(c, a) == v -> asleep[c] = 1
        :: else -> skip
        fi
    };
    asleep[c] == 0
}

inline kick(c)
{
    asleep[c] = 0
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
    byte prev, next, old;
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
#ifdef PV
              /* PV: the pending CPU spins as in the plain lock; left out to keep the search small */
              :: true -> queue = 1 /* F failed: queue */
#else
              :: mem[P] != 0 || mem[T] != 0 -> queue = 1
#endif
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
#ifdef PV
                do
                :: LD(me, HEAD(me)) == 1 -> break
                :: LD(me, HEAD(me)) == 0 -> /* spun its bound */
#ifdef MUTANT_PV_PLAIN_HALTED
                   store(me, ST(me), HALTED); /* N1 as a plain store: N2's load passes it */
#else
                   atomic { drain(me); mem[ST(me)] = HALTED }; /* N1: XCHG */
#endif
#ifdef MUTANT_PV_SKIP_RECHECK
                   pv_wait(me, ST(me), HALTED); /* N3 */
#else
                   if
                   :: LD(me, HEAD(me)) == 1 -> skip /* N2: the re-check */
                   :: else -> pv_wait(me, ST(me), HALTED) /* N3 */
                   fi;
#endif
                   /* N4: XCHG back to RUNNING (its own line: nobody else reads it while we run) */
                   atomic { drain(me); mem[ST(me)] = RUNNING }
                od
#elif !defined(MUTANT_SKIP_HEAD_WAIT)
                LD(me, HEAD(me)) == 1
#endif
             :: else -> skip
             fi;
#ifdef PV
             /* Q3 with H1-H4: spin, then hash ourselves, mark the byte SLOW and halt. */
             do
             :: atomic { /* H4: free; out of the hash if still in (only we set SLOW, so one step) */
                   LD(me, L) == 0 && LD(me, P) == 0 ->
                   drain(me); if :: mem[H] == me + 1 -> mem[H] = 0 :: else -> skip fi
                };
                break
             :: LD(me, L) != 0 || LD(me, P) != 0 -> /* spun its bound */
#ifdef MUTANT_PV_SLOW_BEFORE_HASH
                atomic { drain(me); old = mem[L]; if :: old == LOCKED -> mem[L] = SLOW :: else -> skip fi };
                atomic { drain(me); assert(hashed_head_found && (mem[H] == 0 || mem[H] == me + 1)); mem[H] = me + 1 };
#else
                /* H1: into the hash (compare-exchange of a free slot), unless still there */
                atomic { drain(me); assert(hashed_head_found && (mem[H] == 0 || mem[H] == me + 1)); mem[H] = me + 1 };
                /* H2: compare-exchange LOCKED -> SLOW; SLOW already: ours, from before a spurious wake-up */
                atomic { drain(me); old = mem[L]; if :: old == LOCKED -> mem[L] = SLOW :: else -> skip fi };
#endif
                if
                :: old == 0 -> skip /* no holder (pending may be set): look again */
                :: else -> pv_wait(me, L, SLOW) /* H3: until the unlock kicks */
                fi
             od;
#else
             /* Q3: the holder and the pending CPU go first. */
#ifdef MUTANT_HEAD_IGNORES_PENDING
             LD(me, L) == 0;
#else
             LD(me, L) == 0 && LD(me, P) == 0;
#endif
#endif
#ifdef MUTANT_PLAIN_TAIL_CLEAR
             if
             :: LD(me, T) == me + 1 -> store(me, WORD_LOCKED, 0); got = 1
             :: else -> got = 0
             fi;
#else
             atomic { /* Q4: compare-exchange tail|0 -> LOCKED */
                 drain(me);
                 if
                 :: mem[T] == me + 1 && mem[L] == 0 && mem[P] == 0 -> mem[T] = 0; mem[L] = 1; got = 1
                 :: else -> got = 0
                 fi
             };
#endif
             if
             :: got -> skip
             :: else ->
#ifndef MUTANT_HANDOFF_BEFORE_LOCKED
                store(me, L, 1);
#endif
                atomic { LD(me, NEXT(me)) != 0 -> next = LD(me, NEXT(me)) };
                store(me, HEAD(next - 1), 1); /* Q5 */
#ifdef MUTANT_HANDOFF_BEFORE_LOCKED
                store(me, L, 1);
#endif
#ifdef PV
#ifdef MUTANT_PV_PEEK_STATE
                if
                :: LD(me, ST(next - 1)) == HALTED ->
                   atomic { drain(me); mem[ST(next - 1)] = RUNNING };
                   kick(next - 1)
                :: else -> skip
                fi
#else
                atomic { drain(me); old = mem[ST(next - 1)]; mem[ST(next - 1)] = RUNNING }; /* K: XCHG */
                if
                :: old == HALTED -> kick(next - 1)
                :: else -> skip
                fi
#endif
#endif
             fi
          fi
       fi;
       atomic { assert(mutual_exclusion && holder == NOBODY); holder = me; committed[me] = 0 };
       atomic { assert(mutual_exclusion && holder == me); holder = NOBODY };
#ifdef MUTANT_WIDE_UNLOCK
       store(me, WORD, 0);
#elif defined(PV) && !defined(MUTANT_PV_PLAIN_UNLOCK)
       /* U, once armed: compare-exchange LOCKED -> 0; it fails only on SLOW */
       atomic { drain(me); old = mem[L]; if :: old == LOCKED -> mem[L] = 0 :: else -> skip fi };
       if
       :: old == SLOW ->
#ifdef MUTANT_PV_UNHASH_AFTER_RELEASE
          atomic { drain(me); mem[L] = 0 }; /* S2 first: a head that finds it free unhashes itself */
          atomic { next = mem[H]; assert(hashed_head_found && next != 0); mem[H] = 0 };
          kick(next - 1)
#elif defined(MUTANT_PV_KICK_BEFORE_RELEASE)
          atomic { next = mem[H]; assert(hashed_head_found && next != 0); mem[H] = 0 };
          kick(next - 1); /* S3 before S2: the head wakes to SLOW still, and halts again */
          atomic { drain(me); mem[L] = 0 }
#else
          /* S1: the halted head out of the hash, before the lock is free */
          atomic { next = mem[H]; assert(hashed_head_found && next != 0); mem[H] = 0 };
#ifdef MUTANT_PV_PLAIN_RELEASE
          store(me, L, 0); /* S2 as a plain store: still buffered when the kick lands */
#else
          atomic { drain(me); mem[L] = 0 }; /* S2: XCHG, visible before the kick */
#endif
          kick(next - 1) /* S3 */
#endif
       :: else -> skip
       fi;
#else
       store(me, L, 0); /* U: the byte alone */
#endif
       got = 0; queue = 0; prev = 0; next = 0; old = 0
    od
}

/* The lockref's "free" test on the word in memory: 0 only with nobody holding, pending or queued. */
active proctype free_word()
{
    bit clean = 1;
end:
    atomic {
        mem[L] == 0 && mem[P] == 0 && mem[T] == 0 &&
        (holder != NOBODY || ANY_COMMITTED) ->
        clean = 0;
        assert(word_zero_means_free && clean)
    }
}

#ifdef PV
/* Everyone stuck: not because a CPU sleeps that nobody will kick. */
active proctype watchdog()
{
    bit none_asleep;
end:
    timeout ->
    none_asleep = NONE_ASLEEP;
    assert(no_lost_wakeup && none_asleep)
}
#endif

ltl progress { [] (committed[0] -> <> (holder == 0)) }
