// SPDX-License-Identifier: MIT
/*
 * test_lockdep_hooks.c - the lock-order checker through the real locks:
 * spin_lock, spin_trylock and lockref_lock on both spinlock kinds, the
 * classes their init calls give, and what checking costs.
 *
 * A planted order through spin_lock and lockref_lock must be reported, a
 * trylock against the order must not, and a second spin_lock by the holder
 * must panic on the report (lockdep.panic) instead of spinning.  The cost
 * of one uncontended spin_lock + spin_unlock pair, off and on, is printed
 * for docs/lockdep.md.
 */
#include "lockdep.h"
#include "lockref.h"
#include "platform.h"
#include "platform_host.h"
#include "spinlock.h"
#include "check.h"
#include "child_panics.h"

#include <stdio.h>
#include <string.h>

/* A fresh checker, on. */
static void fresh(void)
{
	lockdep_reset();
	lockdep_set(true);
}

/* The last report says @what. */
static bool report_says(const char *what, void *unused)
{
	(void)unused;
	if (strstr(lockdep_last_report(), what))
		return true;
	printf("# report lacks \"%s\":\n%s", what, lockdep_last_report());
	return false;
}

/* The hooks of the real locks: classes from the init calls, sites, trylock, both kinds. */
static void test_real_locks(void)
{
	static spinlock_t l1;
	static struct lockref ref;

	for (int kind = SPIN_KIND_TICKET; kind < SPIN_KINDS; kind++) {
		spin_kind_set((enum spin_kind)kind);
		fresh();
		unsigned known = lockdep_stats().locks;

		spin_init_named(&l1, "real:one");
		lockref_init_named(&ref, "real:ref");
		spin_lock(&l1);
		lockref_lock(&ref);
		lockref_unlock(&ref);
		spin_unlock(&l1);
		CHECK_EQ(lockdep_reports(), 0, "kind %d: one order", kind);
		lockref_lock(&ref);
		CHECK(spin_trylock(&l1), "kind %d: a free lock", kind);
		CHECK_EQ(lockdep_reports(), 0, "kind %d: a trylock against the order is fine",
			 kind);
		spin_unlock(&l1);
		spin_lock(&l1);
		CHECK_EQ(lockdep_reports(), 1, "kind %d: spin_lock against the order", kind);
		CHECK(report_says("takes 'real:one' while holding 'real:ref'", NULL));
		spin_unlock(&l1);
		lockref_unlock(&ref);
		CHECK_EQ(lockdep_stats().locks, known + 2, "kind %d: both known by their init",
			 kind);
	}
	spin_kind_set(SPIN_KIND_TICKET);
	lockdep_set(false);
}

/*
 * What checking costs one uncontended spin_lock + spin_unlock pair, with
 * @held locks already held: cycles, the least of 21 runs of 20000 pairs
 * (the least is what the code costs; a busy host only adds).  Printed for
 * docs/lockdep.md; checked only for being a number.
 */
static double pair_cycles(bool on, unsigned held)
{
	static spinlock_t outer[2], l;
	double best = 1e30;

	fresh();
	spin_init_named(&outer[0], "cost:outer0"); /* two sites: two classes */
	spin_init_named(&outer[1], "cost:outer1");
	spin_init(&l);
	lockdep_set(on);
	for (unsigned i = 0; i < held; i++)
		spin_lock(&outer[i]);
	for (int run = 0; run < 21; run++) {
		uint64_t t0 = platform_cycles_begin();

		for (int i = 0; i < 20000; i++) {
			spin_lock(&l);
			spin_unlock(&l);
		}
		double c = (double)(platform_cycles_end() - t0) / 20000;
		best = c < best ? c : best;
	}
	for (unsigned i = held; i-- > 0;)
		spin_unlock(&outer[i]);
	lockdep_set(false);
	return best;
}

static void test_cost(void)
{
	double off = pair_cycles(false, 0), on0 = pair_cycles(true, 0), on2 = pair_cycles(true, 2);

	printf("# cost: spin_lock+spin_unlock %.1f cycles with lockdep off; on: %.1f (nothing else "
	       "held), %.1f (2 locks held)\n",
	       off, on0, on2);
	CHECK(off > 0 && on0 > 0 && on2 > 0);
	CHECK_EQ(lockdep_reports(), 0, "no order among these");
}

static void take_twice_through_spin_lock(void)
{
	static spinlock_t l;

	fresh();
	lockdep_set_panic(true);
	spin_init_named(&l, "real:twice");
	spin_lock(&l);
	spin_lock(&l); /* without the checker: the spinlock's 20 s "deadlock?" */
}

int main(void)
{
	host_set_cpu_id(0);
	test_real_locks();
	test_cost();
	CHECK(child_panics(take_twice_through_spin_lock,
			   "lockdep: a lock taken twice by its holder (lockdep.panic=on)"),
	      "a second spin_lock by the holder panics on the report, before spinning");
	return check_exit("test_lockdep_hooks");
}
