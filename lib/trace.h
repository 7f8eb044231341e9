// SPDX-License-Identifier: MIT
/*
 * trace.h - per-CPU event tracing of the locks at work (docs/tracing.md).
 *
 * Why: every figure the kernel prints is a sum; what the lockref is about
 * (a lockless update losing to a lock holder, a convoy behind a ticket
 * holder, a paravirtual waiter sleeping and being kicked) happens between
 * CPUs in microseconds.  Each CPU appends compact binary events, stamped
 * with the fenced TSC (platform_cycles_begin), to a ring of its own: no
 * write to a shared line, so tracing disturbs the CPUs as little as it can.
 * A full ring overwrites its own oldest event and counts it as dropped; it
 * never writes outside its own memory.  At the end of a run (and from the panic path) the rings
 * are printed as "# TRACE" lines that tools/trace/trace_convert.py and
 * tools/trace/trace_check.py read.
 *
 * Off costs nothing in the kernel unless trace= was given: every hook sits
 * behind trace_key (lib/static_key.h), a 5-byte NOP at each hook until a
 * trace= boot turns the key on, after which a hook reads trace_mask (which
 * trace.test= switches around each test) as it always did.  On the host
 * a hook reads trace_mask alone (static_key_guard).  trace_ev() is inline and
 * calls out only when tracing is on, so the lockref's lockless fast path
 * stays call-free.  -DTRACE_COMPILED_OUT removes the hooks altogether (the
 * baseline of the off-cost measurement).
 */
#ifndef LIB_TRACE_H
#define LIB_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "platform.h"
#include "static_key.h"

/*
 * The events, declared once: X(ID, letter, group, what).  TR_<ID> is the
 * type, the letter its "# TRACE" text encoding, group its trace= group
 * (TRACE_GROUP_*), what the words tools/trace/trace_parse.py shows for it: that
 * tool reads this list (its letters and words), so a new event is one line
 * here for the kernel and the tools alike.  The comment says the arg.
 */
#define TRACE_EVENT_LIST(X)                                                                        \
	X(SPIN_WAIT, 'W', SPIN, "spin wait")	      /* arg: ticket taken; the CPU waits */       \
	X(SPIN_ACQ, 'A', SPIN, "acquired")	      /* arg: ticket; the CPU holds the lock */    \
	X(SPIN_REL, 'R', SPIN, "released")	      /* the CPU holds it no more after here */    \
	X(LR_START, 's', LOCKREF, "lockref start")    /* arg: enum lockref_op */                   \
	X(LR_OK, 'L', LOCKREF, "lockless success")    /* arg: failed exchanges before */           \
	X(LR_FAIL, 'F', LOCKREF, "exchange failed")   /* arg: TR_FAIL_*; failed or refused */      \
	X(LR_LOCK, 'B', LOCKREF, "fallback to lock")  /* falls back to the lock */                 \
	X(LR_GIVEUP, 'G', LOCKREF, "give up")	      /* put_return gives up */                    \
	X(PV_ARM, 'a', PV, "pv arm")		      /* a waiter arms paravirtual sleeping */     \
	X(PV_SLEEP, 'S', PV, "pv sleep")	      /* arg: ticket; the waiter halts */          \
	X(PV_KICK, 'K', PV, "pv kick")		      /* arg: CPU kicked */                        \
	X(PV_WOKEN, 'Z', PV, "pv woken")	      /* arg: two bits (below) */                  \
	X(BAR_ARRIVE, 'b', BARRIER, "barrier arrive") /* at a barrier */                           \
	X(BAR_LEAVE, 'l', BARRIER, "barrier leave")   /* past it */                                \
	X(TEST_START, 'T', TEST, "test start")	      /* obj: the test's name */                   \
	X(TEST_END, 'E', TEST, "test end")	      /* arg: 1 passed */                          \
	X(SPIN_INIT, 'I', SPIN, "lock initialised")   /* the lock is made free: tickets restart */ \
	X(QSPIN_WAIT, 'w', SPIN, "qspinlock wait") /* arg: the word seen; the slow path begins */  \
	X(QSPIN_QUEUED, 'q', SPIN, "qspinlock queued") /* arg: predecessor's CPU + 1, 0 none */    \
	X(QSPIN_ACQ, 'h', SPIN, "qspinlock acquired")  /* arg: TR_QACQ_*; the CPU holds it */

/*
 * TR_PV_WOKEN's arg: bit 0 the word was unchanged (time bound or
 * spurious), bit 1 a kick reached the CPU during the sleep (pv_halt).
 * TR_QSPIN_QUEUED comes once the tail XCHG is done.
 */
#define TRACE_X_TYPE(id, letter, group, what) TR_##id,
enum trace_type {
	TR_NONE, /* 0: an event is never of it */
	TRACE_EVENT_LIST(TRACE_X_TYPE) TR_NTYPES
};
#undef TRACE_X_TYPE

/* Why a lockless attempt failed (TR_LR_FAIL). */
#define TR_FAIL_HELD	1 /* the lock was held */
#define TR_FAIL_CHANGED 2 /* the value changed under the exchange */

/*
 * How a qspinlock was taken (TR_QSPIN_ACQ): the word read 0 (the fast
 * path, or the slow path finding it free), as the pending waiter, at the
 * head of the queue, or by a trylock.  Its release is TR_SPIN_REL.
 */
#define TR_QACQ_FAST	0
#define TR_QACQ_PENDING 1
#define TR_QACQ_QUEUE	2
#define TR_QACQ_TRYLOCK 3

/* The event groups of trace=, as bits of trace_mask: one per group. */
#define TRACE_GROUP_SPIN    (1u << 0)
#define TRACE_GROUP_LOCKREF (1u << 1)
#define TRACE_GROUP_PV	    (1u << 2)
#define TRACE_GROUP_BARRIER (1u << 3)
#define TRACE_GROUP_TEST    (1u << 4)
#define TRACE_GROUP_ALL	    0x1fu

/* Events per CPU: the default, and the range trace.events= accepts. */
#define TRACE_EVENTS_DEFAULT 4096u
#define TRACE_EVENTS_MIN     16u
#define TRACE_EVENTS_MAX     65536u

/* The groups being recorded now; 0 = off.  Read-mostly: written at boot and around a test. */
extern unsigned trace_mask;

/* On once any group may be recorded in this boot: the hooks read trace_mask only then. */
extern struct static_key trace_key;

/* Append trace_key to @out if no group is recorded now (a bare lock path turns it off). */
unsigned trace_keys_at_default(struct static_key *out[]);

/* Record one event of @type on @obj (a lock, a lockref's lock, a barrier). Tracing on only. */
void trace_record(enum trace_type type, const void *obj, uint32_t arg);

/*
 * Whether tracing is on, as a not-taken branch: for hot paths that hand the
 * traced case to an out-of-line function by a tail call, so that while
 * tracing is off they keep no register for a call they do not make.
 */
static inline __attribute__((always_inline)) bool trace_active(void)
{
#ifndef TRACE_COMPILED_OUT
	return static_key_guard(&trace_key) && __builtin_expect(trace_mask != 0, 0);
#else
	return false;
#endif
}

/* The hook: one not-taken branch while tracing is off. */
static inline __attribute__((always_inline)) void trace_ev(enum trace_type type, const void *obj,
							   uint32_t arg)
{
#ifndef TRACE_COMPILED_OUT
	if (static_key_guard(&trace_key) && __builtin_expect(trace_mask != 0, 0))
		trace_record(type, obj, arg);
#else
	(void)type;
	(void)obj;
	(void)arg;
#endif
}

/*
 * Configure before trace_start: @groups (TRACE_GROUP_*, 0 = off), @events
 * per CPU, and @test: trace only the test of that name (NULL: everything).
 */
void trace_configure(unsigned groups, unsigned events, const char *test);

/* Allocate the rings for platform_cpu_count() CPUs and switch on.  Returns false if out of memory. */
bool trace_start(void);

/*
 * Name @obj in the dump ("torture:lockref[3]", "fs:/a/b"), printf-style; up
 * to TRACE_NAME_MAX-1 bytes kept.  Does nothing while no trace= is given, so
 * callers need no test of their own.  The newest TRACE_NAMES_MAX names are
 * kept; the newest name of an address wins (an address reused).
 */
#define TRACE_NAME_MAX	40
#define TRACE_NAMES_MAX 2048
void trace_name(const void *obj, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Around each test (ktest): records the events, and trace.test= switches on and off here. */
void trace_test_begin(const char *name);
void trace_test_end(const char *name, bool passed);

/*
 * Print every ring as "# TRACE" lines (docs/interface.md) with
 * platform_print, once: a second call (a panic while dumping) does
 * nothing.  Stops recording first.
 */
void trace_dump(void);

#endif /* LIB_TRACE_H */
