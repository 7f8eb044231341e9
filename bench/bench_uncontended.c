// SPDX-License-Identifier: MIT
/*
 * bench_uncontended.c - what one operation costs when nobody else is
 * looking: the locked instructions the designs are built from, and a get,
 * a put and a get+put pair of every implementation, on one CPU.
 *
 * The v7 series measured lock/update/unlock at 14.7 ns against 16.0 ns for a
 * lockref get/put on a 2.4 GHz Westmere and called 10% the price of the
 * lockless path.  This benchmark measures the same comparison here, with
 * the raw instructions beside it so the figures can be read against what
 * the hardware charges for one locked read-modify-write: LOCK XADD, the
 * CMPXCHG8B the lockref uses, the REX.W CMPXCHG that could replace it, and
 * the CMPXCHG16B of the 16-byte form.  And the limit a lockref get+put is
 * judged by: the textbook compare-exchange loop (cas_loop.h), an
 * increment and a decrement, each one call, as a lockref get and put are.
 *
 * A get alone or a put alone changes the count, so each timed batch of
 * gets is followed by an untimed batch of puts that undoes it (and the
 * other way round, from a count preloaded by one batch), keeping every
 * count in range however long the trial.
 */
#include "atomic.h"
#include "bench.h"
#include "bench_cases.h"
#include "bench_ref.h"
#include "cas_loop.h"
#include "platform.h"
#include "printf.h"
#include "qspinlock.h"
#include "spinlock.h"

/*
 * Operations per timed batch: alone on its CPU an operation takes
 * nanoseconds, so a long batch makes the timing overhead (taken off
 * anyway) a small part of what is measured.
 */
#define UNCONTENDED_BATCH 256

/* One locked instruction's operand, alone in its line pair. */
struct insn_obj {
	union {
		uint64_t word;
		atomic_u128 wide;
	};
} __attribute__((aligned(CACHE_PAIR_BYTES)));

_Static_assert(_Alignof(struct insn_obj) >= 16, "CMPXCHG16B faults on a misaligned operand");

enum { INSN_XADD, INSN_CMPXCHG8B, INSN_CMPXCHGQ, INSN_CMPXCHG16B, INSNS };

static const char *const insn_names[INSNS] = {
    [INSN_XADD] = "xadd",
    [INSN_CMPXCHG8B] = "cmpxchg8b",
    [INSN_CMPXCHGQ] = "cmpxchgq",
    [INSN_CMPXCHG16B] = "cmpxchg16b",
};

static struct insn_obj insn_objs[INSNS];
static struct bench_ref_obj ref_objs[BENCH_IMPLS];
static struct bench_ref ref_args[BENCH_IMPLS];

/* @n LOCK XADDs. */
static void insn_xadd(void *arg, unsigned cpu, unsigned n)
{
	struct insn_obj *o = arg;

	(void)cpu;
	for (unsigned i = 0; i < n; i++)
		atomic_xadd64(&o->word, 1);
}

/*
 * @n compare-exchanges by the 8-byte instruction @cas that all succeed:
 * nobody else writes the word, so the expected value is always the one just
 * stored.  A macro, not a function pointer, so that each loop calls its
 * instruction inline, as the lockref it stands for does.
 */
#define DEFINE_INSN_CMPXCHG64(name, cas)                                                           \
	static void name(void *arg, unsigned cpu, unsigned n)                                      \
	{                                                                                          \
		struct insn_obj *o = arg;                                                          \
		uint64_t old = atomic_load64(&o->word);                                            \
                                                                                                   \
		(void)cpu;                                                                         \
		for (unsigned i = 0; i < n; i++)                                                   \
			if (cas(&o->word, &old, old + 1))                                          \
				old++;                                                             \
	}

DEFINE_INSN_CMPXCHG64(insn_cmpxchg8b, atomic_cmpxchg64_8b)
DEFINE_INSN_CMPXCHG64(insn_cmpxchgq, atomic_cmpxchg64_q)

/* The 128-bit operand is read once through CMPXCHG16B itself (a failed exchange loads it). */
static void insn_cmpxchg16b(void *arg, unsigned cpu, unsigned n)
{
	struct insn_obj *o = arg;
	atomic_u128 old = 0;

	(void)cpu;
	for (unsigned i = 0; i < n; i++)
		if (atomic_cmpxchg128(&o->wide, &old, old + 1))
			old++;
}

static const bench_ops_fn insn_fns[INSNS] = {
    [INSN_XADD] = insn_xadd,
    [INSN_CMPXCHG8B] = insn_cmpxchg8b,
    [INSN_CMPXCHGQ] = insn_cmpxchgq,
    [INSN_CMPXCHG16B] = insn_cmpxchg16b,
};

/* The compare-exchange loops' word, alone in its line pair. */
struct cas_loop_obj {
	uint64_t word;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* Nothing: the second half of a get-only or put-only loop. */
static inline void cas_loop_nothing(uint64_t *word)
{
	(void)word;
}

/*
 * A loop of @n rounds of @first then @second on the object's word: the
 * get, put and get+put loops of one instruction's compare-exchange loop,
 * as the lockref's loops call lockref_get and lockref_put_or_lock.
 */
#define DEFINE_CAS_LOOP(name, first, second)                                                       \
	static void name(void *arg, unsigned cpu, unsigned n)                                      \
	{                                                                                          \
		uint64_t *word = &((struct cas_loop_obj *)arg)->word;                              \
                                                                                                   \
		(void)cpu;                                                                         \
		for (unsigned i = 0; i < n; i++) {                                                 \
			first(word);                                                               \
			second(word);                                                              \
		}                                                                                  \
	}

DEFINE_CAS_LOOP(cas8b_gets, cas_loop_inc_8b, cas_loop_nothing)
DEFINE_CAS_LOOP(cas8b_puts, cas_loop_dec_8b, cas_loop_nothing)
DEFINE_CAS_LOOP(cas8b_pairs, cas_loop_inc_8b, cas_loop_dec_8b)
DEFINE_CAS_LOOP(casq_gets, cas_loop_inc_q, cas_loop_nothing)
DEFINE_CAS_LOOP(casq_puts, cas_loop_dec_q, cas_loop_nothing)
DEFINE_CAS_LOOP(casq_pairs, cas_loop_inc_q, cas_loop_dec_q)

enum { CAS_LOOP_8B, CAS_LOOP_Q, CAS_LOOPS };

static struct cas_loop_obj cas_loop_objs[CAS_LOOPS];

/*
 * The word starts every trial at a value whose high half is not zero, so
 * the 8-byte exchange really compares and carries across both halves, as
 * a lockref's (count in the high half) does.
 */
#define CAS_LOOP_START (1ull << 32)

static void cas_loop_reset(void *arg)
{
	atomic_store64(&((struct cas_loop_obj *)arg)->word, CAS_LOOP_START);
}

/* Every batch of increments was undone by as many decrements, or the loop lost an update. */
static bool cas_loop_check(void *arg, char *why, size_t size)
{
	uint64_t word = atomic_load64(&((struct cas_loop_obj *)arg)->word);

	if (word == CAS_LOOP_START)
		return true;
	ksnprintf(why, size, "word %llu after the trial, expected %llu", (unsigned long long)word,
		  (unsigned long long)CAS_LOOP_START);
	return false;
}

/*
 * The locks' baselines: the ticket lock and the queued spinlock written
 * inline in the loop, with no switch, no dispatch and no call, around the
 * same count++ / count-- as the `spinlock` and `qspinlock` impls' get+put.
 * What the library's lock pair (two calls, each behind its static keys)
 * is measured against.  Alone on its CPU nobody holds the lock, so the
 * waits below never spin; they are bounded all the same.
 */
#define INLINE_LOCK_SPINS (1u << 30)

struct inline_lock_obj {
	spinlock_t lock;
	uint32_t count;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

enum { INLINE_TICKET, INLINE_QSPIN, INLINE_LOCKS };

static struct inline_lock_obj inline_lock_objs[INLINE_LOCKS];

static void inline_lock_stuck(const char *kind)
{
	platform_panic("bench uncontended: the %s inline baseline's lock stayed held for %u spins "
		       "with nobody else running",
		       kind, INLINE_LOCK_SPINS);
}

/* One XADD takes a ticket; the unlock stores head + one step (spinlock.c's algorithm). */
static inline __attribute__((always_inline)) void ticket_inline_lock(spinlock_t *lock)
{
	uint32_t old = atomic_xadd32(&lock->val, SPIN_TICKET_ONE);
	uint16_t ticket = (uint16_t)(old >> SPIN_TICKET_BITS) & (uint16_t)~SPIN_TAIL_SLEEPERS;

	for (unsigned n = 0; atomic_load16(&lock->tickets.head) != ticket; n++) {
		if (n == INLINE_LOCK_SPINS)
			inline_lock_stuck("ticket");
		platform_relax();
	}
}

static inline __attribute__((always_inline)) void ticket_inline_unlock(spinlock_t *lock)
{
	atomic_store16(&lock->tickets.head,
		       (uint16_t)(atomic_load16(&lock->tickets.head) + SPIN_TICKET_STEP));
}

/* One compare-exchange 0 -> locked; the unlock stores 0 to the locked byte (qspinlock.h's). */
static inline __attribute__((always_inline)) void qspin_inline_lock(spinlock_t *lock)
{
	uint32_t free = 0;

	for (unsigned n = 0; !atomic_cmpxchg32(&lock->val, &free, QSPIN_LOCKED); n++) {
		if (n == INLINE_LOCK_SPINS)
			inline_lock_stuck("qspinlock");
		free = 0;
		platform_relax();
	}
}

static inline __attribute__((always_inline)) void qspin_inline_unlock(spinlock_t *lock)
{
	atomic_store8(&lock->queued.locked, 0);
}

/* One locked update of @o's count by @delta, with the lock @lock_fn / @unlock_fn. */
#define INLINE_LOCKED_ADD(o, lock_fn, unlock_fn, delta)                                            \
	do {                                                                                       \
		lock_fn(&(o)->lock);                                                               \
		atomic_store32(&(o)->count, atomic_load32(&(o)->count) + (uint32_t)(delta));       \
		unlock_fn(&(o)->lock);                                                             \
	} while (0)

/* The get, put and pair loops of one inline lock (@get, @put: how many of each per round). */
#define DEFINE_INLINE_LOCK_LOOP(name, lock_fn, unlock_fn, get, put)                                \
	static void name(void *arg, unsigned cpu, unsigned n)                                      \
	{                                                                                          \
		struct inline_lock_obj *o = arg;                                                   \
                                                                                                   \
		(void)cpu;                                                                         \
		for (unsigned i = 0; i < n; i++) {                                                 \
			if (get)                                                                   \
				INLINE_LOCKED_ADD(o, lock_fn, unlock_fn, 1);                       \
			if (put)                                                                   \
				INLINE_LOCKED_ADD(o, lock_fn, unlock_fn, -1);                      \
		}                                                                                  \
	}
#define DEFINE_INLINE_LOCK(prefix, lock_fn, unlock_fn)                                             \
	DEFINE_INLINE_LOCK_LOOP(prefix##_gets, lock_fn, unlock_fn, 1, 0)                           \
	DEFINE_INLINE_LOCK_LOOP(prefix##_puts, lock_fn, unlock_fn, 0, 1)                           \
	DEFINE_INLINE_LOCK_LOOP(prefix##_pairs, lock_fn, unlock_fn, 1, 1)

DEFINE_INLINE_LOCK(ticket_inline, ticket_inline_lock, ticket_inline_unlock)
DEFINE_INLINE_LOCK(qspin_inline, qspin_inline_lock, qspin_inline_unlock)

static void inline_lock_reset(void *arg)
{
	struct inline_lock_obj *o = arg;

	atomic_store32(&o->lock.val, 0); /* free to both algorithms */
	atomic_store32(&o->count, 1);
}

/* Every pair undid itself and released the lock, or the loop lost an update. */
static bool inline_lock_check(void *arg, char *why, size_t size)
{
	struct inline_lock_obj *o = arg;
	uint32_t count = atomic_load32(&o->count);
	spinlock_t word = {.val = atomic_load32(&o->lock.val)};

	if (count == 1 && (word.val == 0 || (word.tickets.head == word.tickets.tail)))
		return true;
	ksnprintf(why, size, "count %u and lock word %#x after the trial, expected 1 and free",
		  count, word.val);
	return false;
}

/*
 * The baselines the lockref and the locks are judged by: the compare-exchange
 * loops and the inline locks, each with its get, put and pair loops.
 */
enum { BASE_CAS8B, BASE_CASQ, BASE_TICKET_INLINE, BASE_QSPIN_INLINE, BASELINES };

static const struct {
	const char *name; /* docs/interface.md impl names */
	bench_ops_fn gets, puts, pairs;
	void (*reset)(void *arg);
	bool (*check)(void *arg, char *why, size_t size);
	void *arg;
} baselines[BASELINES] = {
    [BASE_CAS8B] = {"cas-loop-cmpxchg8b", cas8b_gets, cas8b_puts, cas8b_pairs, cas_loop_reset,
		    cas_loop_check, &cas_loop_objs[CAS_LOOP_8B]},
    [BASE_CASQ] = {"cas-loop-cmpxchgq", casq_gets, casq_puts, casq_pairs, cas_loop_reset,
		   cas_loop_check, &cas_loop_objs[CAS_LOOP_Q]},
    [BASE_TICKET_INLINE] = {"ticket-inline", ticket_inline_gets, ticket_inline_puts,
			    ticket_inline_pairs, inline_lock_reset, inline_lock_check,
			    &inline_lock_objs[INLINE_TICKET]},
    [BASE_QSPIN_INLINE] = {"qspinlock-inline", qspin_inline_gets, qspin_inline_puts,
			   qspin_inline_pairs, inline_lock_reset, inline_lock_check,
			   &inline_lock_objs[INLINE_QSPIN]},
};

/* Get, put and get+put of each baseline; false if the harness gave up. */
static bool uncontended_baselines(struct bench_ctx *t)
{
	for (unsigned i = 0; i < BASELINES; i++) {
		struct bench_spec spec = {
		    .bench = "uncontended",
		    .impl = baselines[i].name,
		    .reset = baselines[i].reset,
		    .check = baselines[i].check,
		    .arg = baselines[i].arg,
		    .batch = UNCONTENDED_BATCH,
		    .bare = true, /* written inline, no switch: what the lock rows are held to */
		};

		spec.op = "get";
		spec.run = baselines[i].gets;
		spec.untimed = baselines[i].puts;
		if (!bench_run(t, &spec, 1, NULL))
			return false;
		spec.op = "put";
		spec.run = baselines[i].puts;
		spec.untimed = baselines[i].gets;
		if (!bench_run(t, &spec, 1, NULL))
			return false;
		spec.op = "get+put";
		spec.run = baselines[i].pairs;
		spec.untimed = NULL;
		if (!bench_run(t, &spec, 1, NULL))
			return false;
	}
	return true;
}

/* The locked instructions; false if the harness gave up. */
static bool uncontended_insns(struct bench_ctx *t)
{
	for (unsigned i = 0; i < INSNS; i++) {
		struct bench_spec spec = {
		    .bench = "uncontended",
		    .impl = insn_names[i],
		    .op = "insn",
		    .run = insn_fns[i],
		    .arg = &insn_objs[i],
		    .batch = UNCONTENDED_BATCH,
		};

		if (i == INSN_CMPXCHG16B && !platform_facts().cx16) {
			bench_diag(t, "bench uncontended: no CMPXCHG16B (CPUID.01H:ECX.CX16), "
				      "not timed");
			continue;
		}
		if (!bench_run(t, &spec, 1, NULL))
			return false;
	}
	return true;
}

/* Get, put and get+put of @impl; false if the harness gave up. */
static bool uncontended_ref(struct bench_ctx *t, unsigned impl)
{
	struct bench_ref *r = &ref_args[impl];
	struct bench_spec spec;

	bench_ref_init(r, &bench_ref_impls[impl], &ref_objs[impl]);
	spec = bench_ref_spec("uncontended", r);
	spec.batch = UNCONTENDED_BATCH;
	spec.op = "get";
	spec.run = r->gets;
	spec.untimed = r->puts;
	if (!bench_run(t, &spec, 1, NULL))
		return false;

	spec.op = "put";
	spec.run = r->puts;
	spec.untimed = r->gets;
	r->preload = UNCONTENDED_BATCH; /* the first batch of puts needs references to drop */
	if (!bench_run(t, &spec, 1, NULL))
		return false;

	spec = bench_ref_spec("uncontended", r);
	spec.batch = UNCONTENDED_BATCH;
	r->preload = 0;
	return bench_run(t, &spec, 1, NULL);
}

void uncontended(struct bench_ctx *t)
{
	if (!uncontended_insns(t) || !uncontended_baselines(t))
		return;
	for (unsigned impl = 0; impl < BENCH_IMPLS; impl++)
		if (!uncontended_ref(t, impl))
			return;
}

uint64_t uncontended_estimate(const struct bench_estimate *e)
{
	return (INSNS + 3 * BASELINES + 3 * BENCH_IMPLS) * e->run_ms; /* as uncontended() runs */
}
