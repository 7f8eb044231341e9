// SPDX-License-Identifier: MIT
/*
 * torture.h - what the boot-time lock torture tests share.
 *
 * torture_spinlock.c and torture_lockref.c follow Linux's locktorture:
 * every online CPU hammers one lock for a fixed time, with random holds,
 * rare long holds that build queues, and "stutter" (every CPU pauses at the
 * same moments, so each restart is a burst of contention).  A harness is
 * only trusted once it was seen to catch a broken lock: torture.busted=
 * swaps in one, and the run must then fail naming the invariant it broke.
 *
 * Portable on purpose: the tests use lib/, the kernel/ktest.h API and two
 * boot-time globals (`opts`, `cpuinfo`), and take time from lib/platform.h,
 * so tests/host/test_torture.c, which supplies those, runs the very same
 * code on host threads under the sanitizers.
 *
 * Waits inside the harness never PAUSE: under QEMU TCG a PAUSE leaves the
 * vCPU loop and costs microseconds (docs/tools.md), which would stretch every
 * hold and starve the run of operations.  And the clock is read sparingly:
 * RDTSC may trap to a hypervisor (under this machine's nested KVM it costs
 * about 17,000 cycles more than an empty loop iteration), so short holds
 * are counted in loop iterations, not cycles, and the run's clock is read
 * about every TORTURE_CLOCK_NS, not every operation.
 */
#ifndef KERNEL_TORTURE_H
#define KERNEL_TORTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "cmdline.h"
#include "ktest.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "random.h"

#define TORTURE_NS_PER_US 1000ull
#define TORTURE_NS_PER_MS 1000000ull

/* How long CPU 0's set-up may take before the others give up waiting for it. */
#define TORTURE_START_TIMEOUT_MS 10000u
/*
 * How long past the planned end a CPU may take to finish its last operation
 * before the end barrier gives up.  Longer than SPIN_TIMEOUT_NS, so a
 * deadlocked lock reports itself (spinlock.c panics) before this fires.
 */
#define TORTURE_END_SLACK_MS 30000u

/*
 * Stutter: the run is cut into this many periods; in the last
 * TORTURE_STUTTER_PAUSE_PCT percent of each, every CPU stands still.
 */
#define TORTURE_STUTTER_PERIODS	  4u
#define TORTURE_STUTTER_PAUSE_PCT 20u
/*
 * Each CPU reads the clock about this often, adapting how many operations
 * it does between reads (at most TORTURE_CLOCK_EVERY_MAX).
 */
#define TORTURE_CLOCK_NS	(100ull * 1000)
#define TORTURE_CLOCK_EVERY_MAX 64u

/*
 * Long holds: each CPU holds the lock this long once in a while, at random
 * gaps of TORTURE_LONG_GAP_MIN_MS plus up to TORTURE_LONG_GAP_SPAN_MS, so
 * that every other CPU queues behind it or takes the fallback path.
 */
#define TORTURE_LONG_HOLD_US	 1000u
#define TORTURE_LONG_GAP_MIN_MS	 10u
#define TORTURE_LONG_GAP_SPAN_MS 40u

/* Failure lines printed per invariant and test (from all CPUs); the rest are only counted. */
#define TORTURE_FAIL_PRINT 2u
/* Longest failure message (the ktest runner adds its prefix to it). */
#define TORTURE_MSG_MAX 320u

/* Latency histogram: bucket b counts waits of [2^b, 2^(b+1)) cycles; the last is open. */
#define TORTURE_HIST_BUCKETS 40u

/* The ticket-lock torture (suite spinlock) on every CPU of @t. */
void torture_spinlock_run(struct ktest_ctx *t);

/* The same torture on the queued spinlock's own calls (qspin_lock), whatever the boot's kind. */
void torture_qspinlock_run(struct ktest_ctx *t);

/* The two shapes of lockref under test. */
enum torture_form {
	TORTURE_LOCKREF8,  /* struct lockref: 4-byte lock + 32-bit count, CMPXCHG8B */
	TORTURE_LOCKREF16, /* struct lockref16: 64-bit count + lock + generation, CMPXCHG16B */
};

/*
 * The lockref torture (suite lockref) of @form under @policy, on every CPU
 * of @t.  With torture.busted=lockref the busted form (lockref_form.h) runs in its place.
 * @have_cx16: whether the CPU has CMPXCHG16B; without it the 16-byte form
 * has no lockless path and the test expects none.
 */
void torture_lockref_run(struct ktest_ctx *t, enum torture_form form,
			 const struct lockref_policy *policy, bool have_cx16);

/* The schedule every CPU of one run follows, written by CPU 0 before the start barrier. */
struct torture_clock {
	uint64_t start_ns;     /* when the run began */
	uint64_t end_ns;       /* when every CPU stops starting operations */
	uint64_t period_ns;    /* one stutter period: running, then paused */
	uint64_t run_ns;       /* the running part of each period */
	uint32_t ncpus;	       /* CPUs taking part */
	uint32_t begun;	       /* of them, those that began their loop (torture_pace_init) */
	uint64_t all_begun_ns; /* when the last of them began; 0 until then */
};

static inline void torture_clock_init(struct torture_clock *c, uint64_t duration_ns, unsigned ncpus)
{
	c->start_ns = platform_now_ns();
	c->end_ns = c->start_ns + duration_ns;
	c->period_ns = duration_ns / TORTURE_STUTTER_PERIODS;
	if (c->period_ns == 0)
		c->period_ns = 1;
	c->run_ns = c->period_ns - c->period_ns * TORTURE_STUTTER_PAUSE_PCT / 100;
	c->ncpus = ncpus;
	c->begun = 0;
	c->all_begun_ns = 0;
}

/*
 * One CPU's way through the clock.
 *
 * @all_running: every CPU of the run has begun its loop
 * (torture_all_running).  Until then, the CPUs that began first run the
 * test alone: the start barrier's sleepers wake one by one, and with
 * more vCPUs than host cores a woken vCPU waits for the host to run it.  At
 * -smp 16 on 2 cores the last CPU began 3 to 11 ms after the first, which
 * meanwhile took 1300 to 5000 uncontended acquisitions while the others
 * took about 100 each in the same half-period: a count of the host's
 * scheduler, not the lock.  (A start line every CPU busy-waits at until all
 * came does not help: whoever the host runs when it opens runs alone just
 * the same.)  So tests that judge fairness count from @all_running on.
 */
struct torture_pace {
	struct torture_clock *clock;
	struct rng *rng;
	unsigned every;	       /* operations between clock reads */
	unsigned left;	       /* operations until the next read */
	bool all_running;      /* every CPU began: see above */
	uint64_t now_ns;       /* the clock as last read by torture_continue */
	uint64_t next_long_ns; /* when this CPU's next long hold is due */
	uint64_t pauses;       /* stutter pauses sat through */
	uint64_t long_holds;
};

static inline uint64_t torture_long_gap_ns(struct rng *rng)
{
	return (TORTURE_LONG_GAP_MIN_MS + rng_below(rng, TORTURE_LONG_GAP_SPAN_MS + 1)) *
	       TORTURE_NS_PER_MS;
}

/* This CPU begins its loop on @c. */
static inline void torture_pace_init(struct torture_pace *p, struct torture_clock *c,
				     struct rng *rng)
{
	p->clock = c;
	p->rng = rng;
	p->every = 1;
	p->left = 1;
	p->now_ns = platform_now_ns();
	p->all_running = atomic_xadd32(&c->begun, 1) + 1 >= c->ncpus;
	if (p->all_running)
		atomic_store64_relaxed(&c->all_begun_ns, p->now_ns);
	p->next_long_ns = p->now_ns + torture_long_gap_ns(rng);
	p->pauses = 0;
	p->long_holds = 0;
}

/*
 * Whether every CPU has begun (struct torture_pace): looked up on each call
 * until it is true, then remembered.  Not only when the clock is read: a
 * CPU that began alone reads it once in up to TORTURE_CLOCK_EVERY_MAX
 * operations, and once the others run, that many may take seconds.
 */
static inline bool torture_all_running(struct torture_pace *p)
{
	if (!p->all_running)
		p->all_running = atomic_load32(&p->clock->begun) >= p->clock->ncpus;
	return p->all_running;
}

/* Busy-wait until the clock reads @deadline_ns; no PAUSE (see the top of the file). */
static inline void torture_wait_until(uint64_t deadline_ns)
{
	while (platform_now_ns() < deadline_ns)
		__asm__ __volatile__("" ::: "memory");
}

/* Busy-wait @loops iterations of an empty loop (no clock: see the top of the file). */
static inline void torture_spin(uint64_t loops)
{
	for (uint64_t i = 0; i < loops; i++)
		__asm__ __volatile__("" ::: "memory");
}

/*
 * Call before each operation.  Returns false once the run is over; inside a
 * stutter pause it first waits, with every other CPU, for the next period.
 */
static inline bool torture_continue(struct torture_pace *p)
{
	const struct torture_clock *c = p->clock;
	uint64_t now, into, period_start;

	/*
	 * The others just began: operations are about to get slower than those
	 * this CPU paced itself by alone, so read the clock now and pace anew
	 * (else, at -smp 64, one CPU's next clock read came after the run's
	 * end, and it sat through no stutter pause).
	 */
	if (!p->all_running && torture_all_running(p))
		p->left = p->every = 1;
	if (--p->left > 0)
		return true;
	now = platform_now_ns();
	/* Read the clock about every TORTURE_CLOCK_NS: do twice or half as many operations in between. */
	if (now - p->now_ns < TORTURE_CLOCK_NS / 2 && p->every < TORTURE_CLOCK_EVERY_MAX)
		p->every *= 2;
	else if (now - p->now_ns > TORTURE_CLOCK_NS * 2 && p->every > 1)
		p->every /= 2;
	p->left = p->every;
	p->now_ns = now;
	if (now >= c->end_ns)
		return false;
	/* CPU 0 set start_ns; this CPU's clock may be a hair behind. */
	if (now < c->start_ns)
		return true;
	into = (now - c->start_ns) % c->period_ns;
	if (into < c->run_ns)
		return true;
	period_start = now - into;
	p->pauses++;
	torture_wait_until(period_start + c->period_ns < c->end_ns ? period_start + c->period_ns
								   : c->end_ns);
	return platform_now_ns() < c->end_ns;
}

/*
 * True, and the next one scheduled, when this CPU is due for a long hold
 * (judged by the clock torture_continue last read: no clock read here).
 */
static inline bool torture_long_hold_due(struct torture_pace *p)
{
	if (p->now_ns < p->next_long_ns)
		return false;
	p->next_long_ns = p->now_ns + torture_long_gap_ns(p->rng);
	p->long_holds++;
	return true;
}

/* Hold for a long hold's length. */
static inline void torture_long_hold(void)
{
	torture_wait_until(platform_now_ns() + TORTURE_LONG_HOLD_US * TORTURE_NS_PER_US);
}

/* The run's length in nanoseconds: torture.secs= (or quick's default) from the command line. */
static inline uint64_t torture_duration_ns(void)
{
	return (uint64_t)opts.torture_ms * TORTURE_NS_PER_MS;
}

/* FNV-1a of the test's name: every test draws from its own random streams. */
static inline uint64_t torture_stream(const struct ktest_ctx *t)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *s = t->test->name; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* This CPU's generator for test @t, replayable from seed=. */
static inline void torture_rng_init(struct rng *r, const struct ktest_ctx *t)
{
	rng_seed(r, opts.seed, torture_stream(t) + t->cpu);
}

static inline unsigned torture_log2(uint64_t v)
{
	unsigned b = v ? 63u - (unsigned)__builtin_clzll(v) : 0;

	return b < TORTURE_HIST_BUCKETS ? b : TORTURE_HIST_BUCKETS - 1;
}

/*
 * Report that @invariant broke, as seen by this CPU: one line naming it,
 * the values (@fmt), and the seed to replay the run.  @count is this CPU's
 * tally for the invariant, @printed the lines all CPUs printed for it so
 * far in this test: past TORTURE_FAIL_PRINT the failure is only counted
 * (the test is already marked failed, and the totals are printed at the end).
 */
__attribute__((format(printf, 5, 6))) static inline void
torture_fail(struct ktest_ctx *t, uint64_t *count, uint32_t *printed, const char *invariant,
	     const char *fmt, ...)
{
	char msg[TORTURE_MSG_MAX];
	uint32_t line;
	va_list ap;

	(*count)++;
	line = atomic_xadd32(printed, 1);
	if (line >= TORTURE_FAIL_PRINT)
		return;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ktest_fail(t, "invariant %s broken: %s (seed=%lu)%s", invariant, msg, opts.seed,
		   line + 1 == TORTURE_FAIL_PRINT ? "; further ones only counted" : "");
}

/*
 * Append " name=N" for every nonzero tally in @fails (one per invariant,
 * @n of them, already summed over CPUs) to @buf; "none" if all are zero.
 * Returns the total.
 */
static inline uint64_t torture_fail_summary(char *buf, size_t size, const uint64_t *fails,
					    const char *const *names, unsigned n)
{
	uint64_t total = 0;
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		total += fails[i];
		if (fails[i] && len < size)
			len +=
			    (size_t)ksnprintf(buf + len, size - len, " %s=%lu", names[i], fails[i]);
	}
	if (total == 0)
		ksnprintf(buf, size, " none");
	return total;
}

/*
 * " cpu:value" for each of @n per-CPU values, the first at @first and the
 * next @stride bytes further each, into @buf (cut short if there are too
 * many CPUs for one line).
 */
static inline void torture_per_cpu(char *buf, size_t size, const uint64_t *first, size_t stride,
				   unsigned n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && len < size; i++)
		len += (size_t)ksnprintf(
		    buf + len, size - len, " %u:%lu", i,
		    *(const uint64_t *)((const char *)first + (size_t)i * stride));
}

#endif /* KERNEL_TORTURE_H */
