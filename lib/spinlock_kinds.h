// SPDX-License-Identifier: MIT
/*
 * spinlock_kinds.h - the kinds of spinlock_t (spinlock.h), one line each,
 * and the headers that hold them: the one list every other place derives a
 * kind from (spinlock.c's dispatch, spinlock.kind='s names, its option text
 * and error line, # ENV, the benchmark impls and rows, the torture and its
 * negative control torture.busted=<kind>, the host tests over every kind).
 * A new kind is its header (lib/spinlock_<name>.h: the lock, its proof and
 * its broken twin), one line of SPIN_KINDS_SWITCHED below and its #include
 * in the list at the bottom: docs/howto.md, "A lock kind".
 *
 * The default kind comes first and is the only one a lock costs nothing to
 * be (spinlock.h's static keys); SPIN_KINDS_SWITCHED(X, arg) are the
 * others, which a boot or a benchmark switches to (spin_kind_set).  Each
 * line is
 *
 *   X(arg, name, ID, prefix, free, fifo, fairness, pv)
 *
 *   name     a bare word: the kind's name on the command line, in logs and
 *            benchmark impls ("lockref-<name>"); SPIN_KIND_<ID> its index,
 *            below SPIN_MODE_KIND + 1 (8 kinds: spinlock.h)
 *   prefix   the kind's functions are named after it (each kind's header
 *            lists its six, so grep finds them):
 *              <prefix>_lock_body, <prefix>_trylock_body,
 *              <prefix>_unlock_body   (spinlock_t *, bool traced), always
 *                 inline, @traced a constant (spinlock.c makes an untraced
 *                 copy inline in each entry point and a traced one out of
 *                 line); they record the kind's trace events
 *                 (docs/tracing.md): a FIFO kind TR_SPIN_WAIT/ACQ with its
 *                 ticket, which trace_check.py holds to ticket order, any
 *                 other kind the word lock's TR_QSPIN_WAIT/ACQ, which it
 *                 judges for overlap only (and queue order where the kind
 *                 also stamps TR_QSPIN_QUEUED).  Paravirtual waiting, where
 *                 a kind has it, is inside them (spinlock_pv.h,
 *                 qspinlock_pv.h)
 *              <prefix>_value_waiters   (spinlock_t copy) -> unsigned: CPUs
 *                 the word shows queued behind a holder, a lower bound (0:
 *                 the word cannot tell)
 *              <prefix>_lock_busted, <prefix>_unlock_busted   (spinlock_t *):
 *                 the kind broken on purpose, for torture.busted=<name>;
 *                 only the torture takes them
 *   free     TICKET or ZERO: which test of a copy of the word says "free"
 *            (spin_value_free), the lockref's lockless test
 *   fifo     1 if waiters are served in arrival order: the torture's fifo
 *            invariant is judged for the kind
 *   fairness FAIR or UNFAIR: whether the kind shares the lock out about
 *            evenly among CPUs that all want it.  The torture judges a FAIR
 *            kind by starvation (max:min acquisitions per CPU at most 8:1),
 *            an UNFAIR one by every CPU acquiring at least once, since its
 *            shares follow the host's scheduler (docs/testing.md, "Fair and
 *            unfair kinds")
 *   pv       1 if the kind waits paravirtually when spinlock.pv= is on (its
 *            bodies call spinlock_pv.h's or qspinlock_pv.h's steps); 0: it
 *            only spins, whatever spinlock.pv= says (the boot log says so)
 *
 * Every lock starts as the word 0, which must be free under every kind
 * (SPINLOCK_INIT, spin_init, spin_kind_set's reset of the global locks).
 * Bad lines fail the build with one line naming the kind (SPIN_KIND_CHECK
 * in spinlock.c): an empty column, a fairness other than FAIR or UNFAIR, a
 * kind number past SPIN_MODE_KIND; a missing function fails it naming the
 * function.  The queued kind's broken twin is the torture's
 * (kernel/test/qspinlock_busted.h), beside its broken queue steps.
 */
#ifndef LIB_SPINLOCK_KINDS_H
#define LIB_SPINLOCK_KINDS_H

#define SPIN_KIND_LIST_ARG(X, arg)                                                                 \
	X(arg, ticket, TICKET, ticket, TICKET, 1, FAIR, 1)                                         \
	SPIN_KINDS_SWITCHED(X, arg)
#define SPIN_KINDS_SWITCHED(X, arg)                                                                \
	X(arg, qspinlock, QSPINLOCK, qspin, ZERO, 0, FAIR, 1)                                      \
	X(arg, tas, TAS, tas, ZERO, 0, UNFAIR, 0)

#endif /* LIB_SPINLOCK_KINDS_H */

/*
 * The kinds' headers, for the files that expand their functions (spinlock.c,
 * the torture): they define SPIN_KIND_BODIES and include this file after
 * spinlock.h.  Apart from the guard above, since spinlock.h includes this
 * file for the list alone.
 */
#if defined(SPIN_KIND_BODIES) && !defined(LIB_SPINLOCK_KIND_BODIES)
#define LIB_SPINLOCK_KIND_BODIES
#include "spinlock_ticket.h"
#include "qspinlock.h"
#include "spinlock_tas.h"
#endif
