// SPDX-License-Identifier: MIT
/*
 * torture_spinlock_setup.c - CPU 0's set-up of the spinlock torture
 * (torture_spinlock.c): a fresh lock, zeroed results, and the calls of
 * the lock each test takes, real or broken.
 *
 * Why apart from the loop: which lock a test takes is a table
 * (spin_unbroken, and BUSTED_LIST's rows), and the broken locks that only
 * torture.busted= plants live here, beside that table, not in the loop
 * every CPU runs.
 *
 * torture.busted= swaps a broken lock into one test or both, the one its
 * row of BUSTED_LIST (kernel/busted_list.h) names with the lock's calls,
 * the kind it is judged as, what it breaks and the line it prints first:
 * each kind's broken twin (<prefix>_lock_busted, spinlock_kinds.h), where
 * fifo is judged only if the kind's fifo column says it is FIFO; queued
 * locks with one queue step broken each (qspinlock_busted.h); a lock that
 * excludes but starves odd CPUs (spinlock_busted.h), which only the
 * starvation check can fail, so it proves that check; the real locks with
 * kicks dropped; and a second lock taken inside the first on even CPUs and
 * outside it on odd ones: a real ABBA deadlock waiting for its
 * interleaving, which the lock-order checker (lockdep=on) must report
 * first, before the spinlock's 20-second "deadlock?" panic.
 */
#include "torture_spinlock.h"

#include "atomic.h"
#include "platform.h"
#include "qspinlock.h"
#include "qspinlock_busted.h"
#include "spinlock_busted.h"
/* Every kind's header, for its broken twin (torture.busted=<kind>). */
#define SPIN_KIND_BODIES
#include "spinlock_kinds.h"
#include "trace.h"

/*
 * torture.busted=abba: the torture's lock and this one, in opposite orders on
 * even and odd CPUs.  Exempt from the lock rules: used through the
 * torture's function pointers, and the order is the bug on purpose.
 */
static spinlock_t spin_abba_other;

static LOCK_RULES_EXEMPT("a planted ABBA, broken on purpose") void spin_lock_abba(spinlock_t *lock)
{
	if (platform_cpu_id() % 2) {
		spin_lock(&spin_abba_other);
		spin_lock(lock);
	} else {
		spin_lock(lock);
		spin_lock(&spin_abba_other);
	}
}

static LOCK_RULES_EXEMPT("a planted ABBA, broken on purpose") void spin_unlock_abba(
    spinlock_t *lock)
{
	spin_unlock(lock);
	spin_unlock(&spin_abba_other);
}

/* torture.busted=*-lost-kick: drop one kick in BUSTED_KICK_DROP_EVERY, as a lost interrupt. */
uint64_t busted_kicks;
static bool busted_drop_kick(unsigned cpu)
{
	(void)cpu;
	return atomic_xadd64(&busted_kicks, 1) % BUSTED_KICK_DROP_EVERY == 0;
}

/*
 * What each test takes: with torture.busted= not given (or given for the
 * other test, or another suite) the real lock, else its BUSTED_LIST row's
 * (kernel/busted_list.h).  kind: the lock kind judged (fifo, fairness),
 * BUSTED_BOOT_KIND for the boot's (spinlock.kind=).
 */
struct spin_lock_calls {
	enum busted_on on;
	unsigned kind;
	enum busted_breaks breaks;
	void (*acquire)(spinlock_t *lock);
	void (*release)(spinlock_t *lock);
	const char *diagnostic; /* after "torture.busted=<word>: " */
};

static const struct spin_lock_calls spin_unbroken[] = {
    /* [false]: ticket_lock_torture, on spin_lock; [true]: qspinlock_torture, on qspin_lock */
    {BUSTED_ON_SPIN, BUSTED_BOOT_KIND, BUSTED_BREAKS_NOTHING, spin_lock, spin_unlock, NULL},
    {BUSTED_ON_QSPIN, SPIN_KIND_QSPINLOCK, BUSTED_BREAKS_NOTHING, qspin_lock, qspin_unlock, NULL},
};

#define SPIN_X_BUSTED(word, id, on, kind, breaks, acquire, release, diagnostic)                    \
	[BUSTED_##id] = {on, kind, breaks, acquire, release, diagnostic},
static const struct spin_lock_calls spin_busted[BUSTED_COUNT] = {BUSTED_LIST(SPIN_X_BUSTED)};
#undef SPIN_X_BUSTED

/*
 * CPU 0, before the others look: a fresh lock and zeroed results, and the
 * calls of the lock tortured (spin_lock_calls); for a broken one its
 * diagnostic line, and what its breaks column needs planted.
 */
void spin_setup(struct ktest_ctx *t, bool queued)
{
	const struct spin_lock_calls *calls = &spin_unbroken[queued];
	bool busted = spin_busted[opts.busted].on & calls->on;

	if (busted)
		calls = &spin_busted[opts.busted];
	spin_init_named(&spin_torture.lock, "torture:spinlock");
	trace_name(&spin_torture.lock, "torture:spinlock");
	for (unsigned i = 0; i < SPIN_INVARIANTS; i++)
		spin_torture.printed[i] = 0;
	spin_torture.holder = 0;
	spin_torture.counter = 0;
	spin_torture.served = 0;
	spin_torture.acquire = calls->acquire;
	spin_torture.release = calls->release;
	enum spin_kind kind = calls->kind == BUSTED_BOOT_KIND ? spin_kind() : calls->kind;

	spin_torture.label = queued ? "qspinlock" : "spinlock";
	spin_torture.fifo = !queued && spin_kind_fifo(kind);
	spin_torture.fair = spin_kind_fair(kind);
	spin_torture.busted = busted;
	spin_torture.lost_kick = calls->breaks == BUSTED_BREAKS_WAKEUP;
	spin_torture.ncpus = t->ncpus;
	spin_torture.cpu = platform_alloc(sizeof(struct spin_cpu) * t->ncpus, CACHE_PAIR_BYTES);
	if (!spin_torture.cpu)
		ktest_fail(t, "out of memory for %u CPUs' results", t->ncpus);
	if (busted)
		ktest_diag(t, "torture.busted=%s: %s", busted_name(opts.busted), calls->diagnostic);
	if (calls->breaks == BUSTED_BREAKS_ORDER)
		spin_init_named(&spin_abba_other, "torture:spinlock-abba");
	if (spin_torture.lost_kick)
		ktest_diag(t, "one kick in %u is not sent%s", BUSTED_KICK_DROP_EVERY,
			   spin_pv_enabled() ? "" : ", but paravirtual mode is off: nothing halts");
	qbusted_lost = 0; /* counted only by the broken queues (BUSTED_BREAKS_QUEUE) */
	busted_kicks = 0;
	pv_kick_drop = spin_torture.lost_kick ? busted_drop_kick : NULL;
	spin_torture.pv = pv_stats();
	torture_clock_init(&spin_torture.clock, torture_duration_ns(), spin_torture.ncpus);
}

struct spin_lost_waiters spin_lost_waiters(void)
{
	return (struct spin_lost_waiters){qbusted_lost, qbusted_lost_cpu, qbusted_lost_prev,
					  qbusted_lost_word};
}
