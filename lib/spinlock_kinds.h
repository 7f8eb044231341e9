// SPDX-License-Identifier: MIT
/*
 * spinlock_kinds.h - the kinds of spinlock_t (spinlock.h), one line each,
 * what each kind promises (spin_kind_props, one designated row each), and
 * the headers that hold them: the one list every other place derives a
 * kind from (spinlock.c's dispatch and traced copies, spinlock.kind='s
 * names, its option text and error line, # ENV, the benchmark impls and
 * rows, the torture and its negative control torture.busted=<kind>, the
 * host tests over every kind).  A new kind is its header
 * (lib/spinlock_<name>.h: the lock, its proof and its broken twin), one
 * line of SPIN_KINDS_SWITCHED below, its row of spin_kind_props, its
 * #include in the list at the bottom and its benchmark rows
 * (bench/bench_cases.h): docs/howto.md, "A lock kind".
 *
 * The default kind comes first and is the only one a lock costs nothing to
 * be (spinlock.h's static keys); SPIN_KINDS_SWITCHED(X, arg) are the
 * others, which a boot or a benchmark switches to (spin_kind_set).  Each
 * line is
 *
 *   X(arg, name, ID, prefix)
 *
 *   name     a bare word: the kind's name on the command line, in logs and
 *            benchmark impls ("lockref-<name>"); SPIN_KIND_<ID> its index,
 *            below SPIN_MODE_KIND + 1 (8 kinds: spinlock.h)
 *   prefix   the kind's functions are named after it, and its header
 *            declares or defines each one by name, so grep finds them:
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
 *              <prefix>_lock_traced, <prefix>_unlock_traced   (spinlock_t *):
 *                 the bodies with @traced true, out of line; the header
 *                 declares them, spinlock.c defines them from this list
 *                 (a declaration missing fails its build naming the function)
 *              <prefix>_value_waiters   (spinlock_t copy) -> unsigned: CPUs
 *                 the word shows queued behind a holder, a lower bound (0:
 *                 the word cannot tell)
 *              <prefix>_lock_busted, <prefix>_unlock_busted   (spinlock_t *):
 *                 the kind broken on purpose, for torture.busted=<name>;
 *                 only the torture takes them
 *
 * Every lock starts as the word 0, which must be free under every kind
 * (SPINLOCK_INIT, spin_init, spin_kind_set's reset of the global locks).
 * Bad lines fail the build with one line naming the kind (SPIN_KIND_CHECK
 * in spinlock.c): an empty column, a kind number past SPIN_MODE_KIND, a
 * kind without its row of spin_kind_props or with a property left out; a
 * missing function fails it naming the function.  The queued kind's
 * broken twin is the torture's (kernel/test/qspinlock_busted.h), beside
 * its broken queue steps.
 */
#ifndef LIB_SPINLOCK_KINDS_H
#define LIB_SPINLOCK_KINDS_H

#include <stdbool.h>

#define SPIN_KIND_LIST_ARG(X, arg)                                                                 \
	X(arg, ticket, TICKET, ticket)                                                             \
	SPIN_KINDS_SWITCHED(X, arg)
#define SPIN_KINDS_SWITCHED(X, arg)                                                                \
	X(arg, qspinlock, QSPINLOCK, qspin)                                                        \
	X(arg, tas, TAS, tas)

/* SPIN_KIND_LIST(X): X(name, ID, prefix) per kind, without the pass-through argument. */
#define SPIN_KIND_CALL(X, ...) X(__VA_ARGS__)
#define SPIN_KIND_LIST(X)      SPIN_KIND_LIST_ARG(SPIN_KIND_CALL, X)

#define SPIN_KIND_ENUM(name, ID, prefix) SPIN_KIND_##ID,
enum spin_kind { SPIN_KIND_LIST(SPIN_KIND_ENUM) SPIN_KINDS };
#undef SPIN_KIND_ENUM

/*
 * The kinds' names, for the command line, logs and # ENV (NULL-terminated;
 * a static copy per user keeps the parsers' tests free of the lock's code).
 */
#define SPIN_KIND_NAME(name, ID, prefix) #name,
static const char *const spin_kind_names[] = {SPIN_KIND_LIST(SPIN_KIND_NAME) NULL};
#undef SPIN_KIND_NAME

/*
 * What a kind promises, each property an enum whose 0 is "not given", so
 * that a row or a property left out of spin_kind_props is caught at build
 * time (SPIN_KIND_CHECK in spinlock.c names the kind and the property).
 *
 *   free      which test of a copy of the word says "free"
 *             (spin_value_free), the lockref's lockless test: TICKET
 *             (head == tail) or ZERO (the word is 0)
 *   fifo      whether waiters are served in arrival order: the torture's
 *             fifo invariant is judged for the kind
 *   fairness  whether the kind shares the lock out about evenly among CPUs
 *             that all want it.  The torture judges a FAIR kind by
 *             starvation (max:min acquisitions per CPU at most 8:1), an
 *             UNFAIR one by every CPU acquiring at least once, since its
 *             shares follow the host's scheduler (docs/testing.md, "Fair
 *             and unfair kinds")
 *   pv        whether the kind waits paravirtually when spinlock.pv= is on
 *             (its bodies call spinlock_pv.h's or qspinlock_pv.h's steps);
 *             NONE: it only spins, whatever spinlock.pv= says (the boot log
 *             says so)
 */
enum spin_free { SPIN_FREE_UNSET, SPIN_FREE_TICKET, SPIN_FREE_ZERO };
enum spin_fifo { SPIN_FIFO_UNSET, SPIN_FIFO_YES, SPIN_FIFO_NO };
enum spin_fairness { SPIN_FAIRNESS_UNSET, SPIN_FAIRNESS_FAIR, SPIN_FAIRNESS_UNFAIR };
enum spin_pv_waiting { SPIN_PV_WAITING_UNSET, SPIN_PV_WAITING_HALTS, SPIN_PV_WAITING_NONE };

struct spin_kind_props {
	enum spin_free free;
	enum spin_fifo fifo;
	enum spin_fairness fairness;
	enum spin_pv_waiting pv;
};

static const struct spin_kind_props spin_kind_props[SPIN_KINDS] = {
    [SPIN_KIND_TICKET] = {.free = SPIN_FREE_TICKET,
			  .fifo = SPIN_FIFO_YES,
			  .fairness = SPIN_FAIRNESS_FAIR,
			  .pv = SPIN_PV_WAITING_HALTS},
    [SPIN_KIND_QSPINLOCK] = {.free = SPIN_FREE_ZERO,
			     .fifo = SPIN_FIFO_NO,
			     .fairness = SPIN_FAIRNESS_FAIR,
			     .pv = SPIN_PV_WAITING_HALTS},
    [SPIN_KIND_TAS] = {.free = SPIN_FREE_ZERO,
		       .fifo = SPIN_FIFO_NO,
		       .fairness = SPIN_FAIRNESS_UNFAIR,
		       .pv = SPIN_PV_WAITING_NONE},
};

/* @kind's free test (SPIN_FREE_TICKET for a number past the list, which no lock has). */
static inline __attribute__((always_inline)) enum spin_free spin_kind_free(enum spin_kind kind)
{
	return kind < SPIN_KINDS ? spin_kind_props[kind].free : SPIN_FREE_TICKET;
}

/* Whether @kind serves waiters in arrival order. */
static inline bool spin_kind_fifo(enum spin_kind kind)
{
	return kind < SPIN_KINDS && spin_kind_props[kind].fifo == SPIN_FIFO_YES;
}

/* Whether the torture judges @kind by starvation. */
static inline bool spin_kind_fair(enum spin_kind kind)
{
	return kind >= SPIN_KINDS || spin_kind_props[kind].fairness == SPIN_FAIRNESS_FAIR;
}

/* Whether @kind waits paravirtually while spinlock.pv= is on. */
static inline bool spin_kind_pv(enum spin_kind kind)
{
	return kind < SPIN_KINDS && spin_kind_props[kind].pv == SPIN_PV_WAITING_HALTS;
}

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
