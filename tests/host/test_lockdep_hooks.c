// SPDX-License-Identifier: MIT
/*
 * test_lockdep_hooks.c - the lock-order checker through the real locks:
 * spin_lock, spin_trylock and lockref_lock on both spinlock kinds, the
 * classes their init calls give, and what checking costs.
 *
 * A planted order through spin_lock and lockref_lock must be reported, a
 * trylock against the order must not, and a second spin_lock by the holder
 * must panic on the report (lockdep.panic) instead of spinning.  A report
 * made while the CPU holds the console lock, here a real spinlock_t that
 * the log hook takes as the kernel's platform_log does, is printed only
 * once that lock's word is free again, on the unlock and the trylock path
 * alike (printing earlier spins on the CPU's own lock).  The cost
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

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * The console as the kernel has it: platform_log takes a real spinlock_t
 * (the kernel's console lock), checked like any other, and the checker
 * knows it as its print lock.
 */
static spinlock_t *console;
static char console_line[256];

static void console_log(const char *line)
{
	spin_lock(console);
	snprintf(console_line, sizeof(console_line), "%s", line);
	spin_unlock(console);
}

static void console_setup(spinlock_t *lock)
{
	fresh();
	console = lock;
	lockdep_set_print_lock(lock);
	host_set_log_hook(console_log);
	console_line[0] = '\0';
}

/* The child's verdict: 0 printed after the release, 2 printed too early or never. */
static void console_verdict(const char *expect)
{
	bool printed = strstr(console_line, expect) != NULL;

	if (!printed)
		printf("# console lock: expected \"%s\" printed after its release, last line "
		       "\"%s\"\n",
		       expect, console_line);
	fflush(stdout);
	_exit(printed ? 0 : 2);
}

/* Unlock path: a report made while the console lock is held, printed at its release. */
static void report_under_console_lock(void)
{
	static spinlock_t lock, never_taken;

	console_setup(&lock);
	spin_init_named(&lock, "host:console");
	spin_lock(&lock);
	lockdep_release(&never_taken, LOCKDEP_SITE()); /* a bad unlock: a report, deferred */
	if (console_line[0]) {
		printf("# printed while the console lock was held: %s\n", console_line);
		_exit(2);
	}
	spin_unlock(&lock);
	console_verdict("bad unlock: cpu 0 releases");
}

/*
 * Trylock path: the console lock taken by spin_trylock (as the kernel's
 * results page does) and reported on (never given a class: zeroed heap
 * memory) once it is held and before the checker has it on its stack.
 */
static void report_in_console_trylock(void)
{
	spinlock_t *lock = calloc(1, sizeof(*lock));

	console_setup(lock);
	if (!lock || !spin_trylock(lock))
		_exit(2);
	if (console_line[0]) {
		printf("# printed while the console lock was held: %s\n", console_line);
		_exit(2);
	}
	spin_unlock(lock);
	console_verdict("uninitialised lock: cpu 0 takes lock");
}

/*
 * Run @fn in a child that must exit 0 within @secs: a CPU spinning on its
 * own lock shows as the child killed by SIGALRM, long before the lock's
 * own 20 s "deadlock?" panic.
 */
static bool child_finishes(void (*fn)(void), unsigned secs, const char *what)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		alarm(secs);
		fn();
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		printf("# %s: self-deadlock: the CPU still spun on its own console lock after "
		       "%u s\n",
		       what, secs);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
	host_set_cpu_id(0);
	test_real_locks();
	test_cost();
	CHECK(child_panics(take_twice_through_spin_lock,
			   "lockdep: a lock taken twice by its holder (lockdep.panic=on)"),
	      "a second spin_lock by the holder panics on the report, before spinning");
	CHECK(child_finishes(report_under_console_lock, 5, "unlock path"),
	      "a report under the console lock is printed after its release");
	CHECK(child_finishes(report_in_console_trylock, 5, "trylock path"),
	      "a report in the console lock's trylock is printed after its release");
	return check_exit("test_lockdep_hooks");
}
