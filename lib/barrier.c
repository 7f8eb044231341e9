// SPDX-License-Identifier: MIT
/*
 * barrier.c - sense-reversing barrier (Mellor-Crummey and Scott, 1991).
 *
 * Each round, arriving CPUs decrement `remaining`; the last one resets it
 * and flips `sense`, which releases the rest.  Waiters watch `sense` only,
 * so no CPU can race into the next round and confuse this one.
 *
 * Sleeping waiters: a waiter marks itself in `sleeping`, then re-reads
 * `sense`, then sleeps only while `sense` is unchanged; the last arrival
 * flips `sense`, then kicks every CPU it finds marked.  Both sides store
 * first, with an exchange (a full barrier), and load second, so at least
 * one of them sees the other's store: either the waiter sees the
 * new sense and does not sleep, or the last arrival sees the mark and
 * kicks (and a kick after the waiter's comparison ends its sleep).
 */
#include "barrier.h"
#include "trace.h"

#include "atomic.h"
#include "printf.h"

/* Spins (PAUSE) between looks at the clock and, after the first, sleeps. */
#define BARRIER_SPINS 256u

static void (*arrive_hook)(const char *what);

void barrier_set_arrive_hook(void (*fn)(const char *what))
{
	atomic_store_ptr(&arrive_hook, fn);
}

void barrier_init(struct barrier *b, unsigned total)
{
	b->total = total;
	b->remaining = total;
	b->sense = 0;
	b->broken = 0;
	b->round = 0;
	b->last_arrival_ns = platform_now_ns();
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		b->arrived_round[i] = 0;
		b->sleeping[i] = 0;
	}
}

static void report_missing(struct barrier *b, unsigned round, uint64_t timeout_ns, const char *what)
{
	char missing[160];
	size_t len = 0;

	missing[0] = '\0';
	for (unsigned i = 0; i < b->total && len < sizeof(missing); i++)
		if (atomic_load32_relaxed(&b->arrived_round[i]) != round + 1)
			len += (size_t)ksnprintf(missing + len, sizeof(missing) - len, " %u", i);
	platform_log("barrier '%s': timed out in round %u waiting for %u of %u CPU%s (none "
		     "arrived for %lu ms); missing:%s",
		     what, round, atomic_load32_relaxed(&b->remaining), b->total, plural(b->total),
		     (unsigned long)(timeout_ns / 1000000), missing);
}

/* Kick every CPU that marked itself asleep: after a release or a break. */
static void wake_sleepers(struct barrier *b)
{
	for (unsigned i = 0; i < b->total; i++)
		if (atomic_load8(&b->sleeping[i]))
			platform_cpu_kick(i);
}

static void sleep_while_sense(struct barrier *b, unsigned me, uint32_t old_sense)
{
	atomic_xchg8(&b->sleeping[me], 1); /* a full barrier before the load of sense */
	if (atomic_load32(&b->sense) == old_sense && !atomic_load8(&b->broken))
		platform_cpu_wait(&b->sense, old_sense);
	atomic_store8(&b->sleeping[me], 0);
}

bool barrier_wait(struct barrier *b, uint64_t timeout_ns, const char *what)
{
	void (*hook)(const char *what) = atomic_load_ptr(&arrive_hook);

	if (hook)
		hook(what); /* before reading the barrier: as a CPU that really came late */
	unsigned me = platform_cpu_id();
	unsigned round = atomic_load32(&b->round);
	uint32_t old_sense = atomic_load32(&b->sense);
	uint32_t my_sense = !old_sense;
	unsigned spins = 0;

	if (atomic_load8(&b->broken))
		return false;
	trace_ev(TR_BAR_ARRIVE, b, round);
	atomic_store32_relaxed(&b->arrived_round[me], round + 1);
	atomic_store64_relaxed(&b->last_arrival_ns, platform_now_ns());
	if (atomic_xadd32(&b->remaining, (uint32_t)-1) == 1) { /* the last to arrive */
		atomic_store32_relaxed(&b->remaining, b->total);
		atomic_store32_relaxed(&b->round, round + 1);
		atomic_xchg32(&b->sense,
			      my_sense); /* a full barrier before the loads of sleeping */
		wake_sleepers(b);
		trace_ev(TR_BAR_LEAVE, b, round);
		return true;
	}
	while (atomic_load32(&b->sense) != my_sense) {
		if (atomic_load8(&b->broken))
			return false;
		if (++spins % BARRIER_SPINS != 0) {
			platform_relax();
			continue;
		}
		uint64_t now = platform_now_ns();
		uint64_t last = atomic_load64_relaxed(&b->last_arrival_ns);

		/* Another CPU's clock may be a hair ahead of ours: last > now is no timeout. */
		if (now > last && now - last > timeout_ns) {
			if (!atomic_xchg8(&b->broken, 1)) {
				report_missing(b, round, timeout_ns, what);
				wake_sleepers(b);
			}
			return false;
		}
		sleep_while_sense(b, me, old_sense);
	}
	trace_ev(TR_BAR_LEAVE, b, round);
	return true;
}
