// SPDX-License-Identifier: MIT
/*
 * test_spinlock.c - the ticket spinlock of lib/spinlock.c and lib/spinlock_pv.c on host threads.
 *
 * Single-threaded: every call's contract, the copied-value test of
 * spin_value_unlocked (a waiter counts as locked) and 16-bit wrap-around.
 * Multi-threaded: mutual exclusion at 2, 4 and 8 threads, proved with a
 * plain (non-atomic) counter updated read-pause-write inside the critical
 * section and an occupancy flag that must never be seen set on entry; as
 * the plain ticket lock, and at 8 threads in paravirtual mode too.
 * Paravirtual hand-over: a waiter made to sleep must be woken by the
 * unlock's kick (well before its sleep's time bound), and the sleepers flag
 * must be gone once the lock is free.  Pass-over: a sleeping waiter's turn
 * goes to a running waiter behind it, once per acquisition and not twice.
 *
 * Built with -DSPINLOCK_DEBUG it also checks, in child processes, that the
 * debug build panics on recursive locking and on unlock by a non-owner.
 * Built with -DSPINLOCK_TEST_BUSTED the stress uses the do-nothing lock and
 * must FAIL: the negative control that proves the stress can see a race.
 */
#include "platform.h"
#include "platform_host.h"
#include "pv_stats.h"
#include "spinlock.h"
#include "spinlock_ticket.h"
#include "check.h"
#include "child_panics.h"
#include "lock_stress.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef SPINLOCK_TEST_BUSTED
#define stress_lock   ticket_lock_busted
#define stress_unlock ticket_unlock_busted
#else
#define stress_lock   spin_lock
#define stress_unlock spin_unlock
#endif

static void test_single(void)
{
	spinlock_t lock = SPINLOCK_INIT;
	spinlock_t copy;

	CHECK(!spin_is_locked(&lock), "a fresh lock is free");
	spin_lock(&lock);
	CHECK(spin_is_locked(&lock), "held after spin_lock");
	CHECK(spin_is_held(&lock), "the caller holds it");
	CHECK(!spin_trylock(&lock), "trylock of a held lock must fail");
	CHECK(lock.tickets.tail == SPIN_TICKET_STEP && lock.tickets.head == 0, "head %u tail %u",
	      lock.tickets.head, lock.tickets.tail);
	CHECK(spin_value_waiters(lock) == 0, "a holder alone has no waiters");
	spin_unlock(&lock);
	CHECK(!spin_is_locked(&lock), "free after spin_unlock");
	CHECK(spin_trylock(&lock), "trylock of a free lock must succeed");
	CHECK(spin_is_locked(&lock), "held after trylock");
	spin_unlock(&lock);

	/* Decisions from a copy: free iff head == tail; a queued waiter is "locked". */
	copy.tickets.head = 8;
	copy.tickets.tail = 8;
	CHECK(spin_value_unlocked(copy), "head == tail is free");
	copy.tickets.tail = 8 + SPIN_TICKET_STEP;
	CHECK(!spin_value_unlocked(copy), "one holder");
	copy.tickets.tail = 8 + 2 * SPIN_TICKET_STEP;
	CHECK(!spin_value_unlocked(copy), "a holder and a waiter");
	CHECK(spin_value_waiters(copy) == 1, "one waiter, counted %u", spin_value_waiters(copy));
	copy.tickets.tail |= SPIN_TAIL_SLEEPERS;
	CHECK(!spin_value_unlocked(copy), "a holder and a sleeper");
	CHECK(spin_value_waiters(copy) == 1, "the flag is no waiter: %u", spin_value_waiters(copy));
	copy.tickets.tail = 8 | SPIN_TAIL_SLEEPERS;
	CHECK(!spin_value_unlocked(copy), "a sleepers flag not yet cleared is not free");

	/* The tickets wrap at 2^16 without carrying into each other. */
	lock.tickets.head = 0x10000 - SPIN_TICKET_STEP;
	lock.tickets.tail = 0x10000 - SPIN_TICKET_STEP;
	spin_lock(&lock);
	CHECK(lock.tickets.tail == 0 && lock.tickets.head == 0x10000 - SPIN_TICKET_STEP,
	      "after wrap: head %x tail %x", lock.tickets.head, lock.tickets.tail);
	CHECK(spin_is_locked(&lock), "held across the wrap");
	spin_unlock(&lock);
	CHECK(lock.val == 0, "both halves wrapped to zero: %x", lock.val);
	spin_init(&lock);
	CHECK(!spin_is_locked(&lock), "spin_init leaves it free");
}

static void test_stress(unsigned threads)
{
	struct lock_stress s = {
	    .lock = SPINLOCK_INIT, .acquire = stress_lock, .release = stress_unlock};

	lock_stress_run(&s, threads);
	CHECK(!spin_is_locked(&s.lock), "%u threads: lock left held (head %u tail %u)", threads,
	      s.lock.tickets.head, s.lock.tickets.tail);
}

/* The stress again in paravirtual mode: waiters that outlast their spin sleep. */
static void test_stress_pv(void)
{
	struct pv_stats before, run;
	char line[PV_STATS_LINE];

	spin_pv_set(true);
	before = pv_stats();
	test_stress(LOCK_STRESS_MAX_THREADS);
	run = pv_stats_delta(pv_stats(), before);
	spin_pv_set(false);
	printf("# paravirtual, %d threads: %s\n", LOCK_STRESS_MAX_THREADS,
	       pv_stats_format(line, sizeof(line), &run));
	CHECK(run.arms <= 1,
	      "sleeping was armed %lu times under one spin_pv_set, at most once expected",
	      (unsigned long)run.arms);
	CHECK(run.lost_kicks == 0,
	      "%lu lost wake-ups: a halt lasted to its bound with its kick due",
	      (unsigned long)run.lost_kicks);
	CHECK(run.sleeps == 0 || run.arms == 1, "%lu waiters slept but sleeping was never armed",
	      (unsigned long)run.sleeps);
}

/* How long the holder keeps the lock in test_pv_handover: far past the waiter's spin. */
#define PV_HOLD_MS 50
/* A kicked sleeper must own the lock well within the sleep's own time bound. */
#define PV_HANDOVER_MAX_NS (PLATFORM_WAIT_MAX_NS / 4)

struct pv_handover {
	spinlock_t lock;
	uint64_t released_ns; /* when the holder unlocked */
	uint64_t acquired_ns; /* when the waiter got the lock */
	int queued;	      /* the waiter has its ticket */
};

static void *pv_waiter(void *arg)
{
	struct pv_handover *h = arg;

	host_set_cpu_id(1);
	__atomic_store_n(&h->queued, 1, __ATOMIC_RELEASE);
	spin_lock(&h->lock);
	__atomic_store_n(&h->acquired_ns, platform_now_ns(), __ATOMIC_RELEASE);
	spin_unlock(&h->lock);
	return NULL;
}

/*
 * One waiter that must sleep (the holder keeps the lock PV_HOLD_MS) and
 * must be woken by the unlock's kick, not by its sleep's time bound: the
 * hand-over takes well under PLATFORM_WAIT_MAX_NS, the counts show one
 * sleep and one kick, and the sleepers flag is gone once the lock is free.
 */
static void test_pv_handover(void)
{
	struct pv_handover h = {.lock = SPINLOCK_INIT};
	struct timespec hold = {0, PV_HOLD_MS * 1000000L};
	struct pv_stats before, run;
	char line[PV_STATS_LINE];
	uint64_t handover;
	pthread_t tid;

	spin_pv_set(true);
	host_set_cpu_count(2);
	before = pv_stats();
	spin_lock(&h.lock);
	pthread_create(&tid, NULL, pv_waiter, &h);
	while (!__atomic_load_n(&h.queued, __ATOMIC_ACQUIRE))
		sched_yield();
	nanosleep(&hold, NULL);
	__atomic_store_n(&h.released_ns, platform_now_ns(), __ATOMIC_RELEASE);
	spin_unlock(&h.lock);
	pthread_join(tid, NULL);
	run = pv_stats_delta(pv_stats(), before);
	spin_pv_set(false);
	handover = h.acquired_ns - h.released_ns;
	printf("# paravirtual hand-over to a sleeper: %lu us; %s\n",
	       (unsigned long)(handover / 1000), pv_stats_format(line, sizeof(line), &run));
	CHECK(run.sleeps >= 1, "the waiter never slept (held %d ms)", PV_HOLD_MS);
	CHECK(run.kicks >= 1, "the unlock kicked nobody");
	CHECK(run.arms == 1, "one sleep armed sleeping %lu times, expected once",
	      (unsigned long)run.arms);
	CHECK(run.passes == 0, "a lone sleeper was passed over: nobody was behind it");
	CHECK(handover < PV_HANDOVER_MAX_NS,
	      "hand-over took %lu us: woken by the time bound, "
	      "not a kick (lost wake-up)",
	      (unsigned long)(handover / 1000));
	CHECK(spin_value_unlocked(h.lock), "free lock still flagged: head %x tail %x",
	      h.lock.tickets.head, h.lock.tickets.tail);
}

/*
 * test_pv_pass_over: CPU 0 holds the lock; CPU 1 queues and sleeps; CPU 2
 * queues behind it.  CPU 0's unlock must pass the sleeping CPU 1 over and
 * give the turn to CPU 2.  CPU 1 queues again and sleeps again while CPU 2
 * holds; CPU 3 queues behind it.  CPU 2's unlock must now wait for CPU 1:
 * a CPU is passed over once per acquisition, never twice.
 */
#define PV_PASS_CPUS	4
#define PV_PASS_TRIES	5
#define PV_PASS_WAIT_NS (5ull * 1000 * 1000 * 1000)

static struct pv_pass {
	spinlock_t lock;
	unsigned places;	      /* acquisitions so far, counted inside the lock */
	unsigned place[PV_PASS_CPUS]; /* by CPU: 1 for the first to get the lock after CPU 0 */
	int release;		      /* CPU 2 may unlock */
} pv_pass;

static void *pv_pass_cpu(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;

	host_set_cpu_id(cpu);
	spin_lock(&pv_pass.lock);
	__atomic_store_n(&pv_pass.place[cpu], ++pv_pass.places, __ATOMIC_RELEASE);
	if (cpu == 2)
		while (!__atomic_load_n(&pv_pass.release, __ATOMIC_ACQUIRE))
			sched_yield();
	spin_unlock(&pv_pass.lock);
	return NULL;
}

/* Tickets taken and not yet served: the holder's and the waiters'. */
static unsigned pv_pass_tickets(void)
{
	spinlock_t copy = {.val = __atomic_load_n(&pv_pass.lock.val, __ATOMIC_ACQUIRE)};

	return (uint16_t)((copy.tickets.tail & ~SPIN_TAIL_SLEEPERS) - copy.tickets.head) /
	       SPIN_TICKET_STEP;
}

static unsigned pv_pass_place(unsigned cpu)
{
	return __atomic_load_n(&pv_pass.place[cpu], __ATOMIC_ACQUIRE);
}

/* Wait for @cond; false (and a CHECK failure naming @what) after PV_PASS_WAIT_NS. */
#define PV_PASS_AWAIT(cond, what)                                                                  \
	({                                                                                         \
		uint64_t until_ = platform_now_ns() + PV_PASS_WAIT_NS;                             \
		while (!(cond) && platform_now_ns() < until_)                                      \
			sched_yield();                                                             \
		CHECK(cond, "pass-over: timed out waiting until %s", what);                        \
		(bool)(cond);                                                                      \
	})

/* One run of the scenario; false (run it again) if CPU 2 was passed over too, which legitimately reorders it. */
static bool pv_pass_over_once(void)
{
	struct pv_stats s0, s1, s2;
	pthread_t tid[PV_PASS_CPUS];
	bool judged = false, holding = true;
	unsigned long waits;

	memset(&pv_pass, 0, sizeof(pv_pass));
	spin_lock(&pv_pass.lock);
	s0 = pv_stats();
	waits = host_cpu_waits(1);
	pthread_create(&tid[1], NULL, pv_pass_cpu, (void *)(uintptr_t)1);
	if (!PV_PASS_AWAIT(host_cpu_waits(1) > waits, "CPU 1 sleeps"))
		goto out_one;
	pthread_create(&tid[2], NULL, pv_pass_cpu, (void *)(uintptr_t)2);
	if (!PV_PASS_AWAIT(pv_pass_tickets() == 3, "CPU 2 queues behind CPU 1"))
		goto out_two;
	waits = host_cpu_waits(1);
	spin_unlock(&pv_pass.lock);
	holding = false;
	if (!PV_PASS_AWAIT(pv_pass_place(2), "CPU 2 gets the lock"))
		goto out_two;
	s1 = pv_stats();
	CHECK(s1.passes != s0.passes, "pass-over: CPU 1 slept with CPU 2 queued behind it, and "
				      "its turn was not passed over");
	if (s1.passes == s0.passes) {
		judged = true;
		goto out_two;
	}
	if (s1.passes - s0.passes > 1) {
		printf("# pass-over: %lu turns passed over, CPU 2 slept too; again\n",
		       (unsigned long)(s1.passes - s0.passes));
		goto out_two;
	}
	CHECK(pv_pass_place(2) == 1 && pv_pass_place(1) == 0,
	      "pass-over: CPU 1 slept and CPU 2 waited behind it, yet CPU 1 got the lock first");
	/* CPU 1 queues again behind CPU 2 (which holds until released) and sleeps again. */
	if (!PV_PASS_AWAIT(pv_pass_tickets() == 2 && host_cpu_waits(1) > waits,
			   "CPU 1 queues and sleeps again"))
		goto out_two;
	pthread_create(&tid[3], NULL, pv_pass_cpu, (void *)(uintptr_t)3);
	PV_PASS_AWAIT(pv_pass_tickets() == 3, "CPU 3 queues behind CPU 1");
	__atomic_store_n(&pv_pass.release, 1, __ATOMIC_RELEASE);
	pthread_join(tid[3], NULL);
	s2 = pv_stats();
	CHECK(pv_pass_place(1) == 2 && pv_pass_place(3) == 3,
	      "pass-over: CPU 1 was passed over twice in one acquisition (places: CPU 1 %u, "
	      "CPU 3 %u)",
	      pv_pass_place(1), pv_pass_place(3));
	CHECK(s2.passes == s1.passes, "pass-over: %lu more turns passed over, expected none",
	      (unsigned long)(s2.passes - s1.passes));
	judged = true;
out_two:
	__atomic_store_n(&pv_pass.release, 1, __ATOMIC_RELEASE);
	if (holding) {
		spin_unlock(&pv_pass.lock); /* a timeout before our unlock: let them finish */
		holding = false;
	}
	pthread_join(tid[2], NULL);
out_one:
	if (holding)
		spin_unlock(&pv_pass.lock);
	pthread_join(tid[1], NULL);
	CHECK(!spin_is_locked(&pv_pass.lock), "pass-over: lock left held (head %u tail %u)",
	      pv_pass.lock.tickets.head, pv_pass.lock.tickets.tail);
	return judged;
}

static void test_pv_pass_over(void)
{
	unsigned tries = 0;
	bool judged = false;

	spin_pv_set(true);
	host_set_cpu_count(PV_PASS_CPUS);
	while (!judged && tries < PV_PASS_TRIES) {
		tries++;
		judged = pv_pass_over_once();
	}
	spin_pv_set(false);
	printf("# paravirtual pass-over: %u run(s) of the scenario\n", tries);
	CHECK(judged, "pass-over: CPU 2 was passed over too in each of %u runs; order unchecked",
	      PV_PASS_TRIES);
}

#ifdef SPINLOCK_DEBUG
static void lock_twice(void)
{
	spinlock_t lock = SPINLOCK_INIT;

	spin_lock(&lock);
	spin_lock(&lock);
}

static void unlock_free_lock(void)
{
	spinlock_t lock = SPINLOCK_INIT;

	spin_unlock(&lock);
}

static spinlock_t other_cpu_lock = SPINLOCK_INIT;

static void *take_other_cpu_lock(void *arg)
{
	(void)arg;
	host_set_cpu_id(1);
	spin_lock(&other_cpu_lock);
	return NULL;
}

static void unlock_by_non_owner(void)
{
	pthread_t t;

	pthread_create(&t, NULL, take_other_cpu_lock, NULL);
	pthread_join(t, NULL);
	spin_unlock(&other_cpu_lock);
}

static void lock_unlock_nested(void)
{
	spinlock_t a = SPINLOCK_INIT, b = SPINLOCK_INIT;

	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&a); /* out of order is allowed */
	spin_unlock(&b);
}

static void test_debug(void)
{
	spinlock_t lock = SPINLOCK_INIT;

	CHECK(child_panics(lock_twice, "already holds"), "recursive spin_lock must panic");
	CHECK(child_panics(unlock_free_lock, "does not hold"), "unlocking a free lock must panic");
	CHECK(child_panics(unlock_by_non_owner, "cpu 0 unlocks"),
	      "unlock by another cpu must panic");
	CHECK(!child_panics(lock_unlock_nested, "PANIC"), "nested, out-of-order release is legal");
	CHECK(!spin_is_held(&lock), "not held before locking");
	spin_lock(&lock);
	CHECK(spin_is_held(&lock), "held by the caller");
	spin_unlock(&lock);
	CHECK(!spin_is_held(&lock), "not held after unlocking");
}
#endif

/* CPU 1 of test_pv_lost_kick: after CPU 0 halts, change its word and kick it. */
static uint32_t lost_word;
static unsigned long lost_waits_before; /* CPU 0's waits before its halt */
static void *kick_after_halt(void *arg)
{
	(void)arg;
	host_set_cpu_id(1);
	while (host_cpu_waits(0) == lost_waits_before)
		sched_yield();
	usleep(5000); /* CPU 0 is in its futex wait by now, or sees the word changed */
	__atomic_store_n(&lost_word, 1, __ATOMIC_SEQ_CST);
	pv_kick(0);
	return NULL;
}

static bool drop_every_kick(unsigned cpu)
{
	(void)cpu;
	return true;
}

/*
 * pv_halt's judgement: a halt whose kick is dropped (pv_kick_drop) lasts
 * to its bound with no kick received, although one was sent 95 ms before
 * it ended: one lost wake-up.  The same with the kick sent: none.
 */
static void test_pv_lost_kick(void)
{
	for (int drop = 1; drop >= 0; drop--) {
		uint64_t lost = 0, took = 0;

		/* A busy host may run the kicker before CPU 0 compares: it then never halts; again. */
		for (int tries = 0; tries < 5 && took < PLATFORM_WAIT_MAX_NS / 10 * 9; tries++) {
			struct pv_stats before = pv_stats();
			pthread_t kicker;
			uint64_t start;

			host_set_cpu_count(2);
			host_set_cpu_id(0);
			lost_word = 0;
			lost_waits_before = host_cpu_waits(0);
			pv_kick_drop = drop ? drop_every_kick : NULL;
			pthread_create(&kicker, NULL, kick_after_halt, NULL);
			start = platform_now_ns();
			pv_halt(&lost_word, 0, &lost_word);
			took = platform_now_ns() - start;
			pthread_join(kicker, NULL);
			pv_kick_drop = NULL;
			lost = pv_stats().lost_kicks - before.lost_kicks;
			if (!drop)
				break;
		}
		CHECK_EQ(lost, (uint64_t)drop, "a halt whose kick was %s (it took %lu ms)",
			 drop ? "dropped" : "sent", (unsigned long)(took / 1000000));
	}
	host_set_cpu_count(1);
}

/*
 * pv_stats_format derives its line from PV_STAT_LIST; make test and the
 * tortures' readers grep that line, so its words must stay as they are.
 * Each counter a distinct value, 1 where a noun's plural shows.
 */
static void test_pv_stats_line(void)
{
	struct pv_stats s = {2, 3, 4, 1, 5, 6, 1}; /* in PV_STAT_LIST's order */
	char line[PV_STATS_LINE], cut[20];

	pv_stats_format(line, sizeof(line), &s);
	CHECK(strcmp(line,
		     "2 sleeps, 3 kicks, 4 turns passed over, armed 1 time; bad input: 5 hash "
		     "full, 6 SLOW without a hashed head; 1 lost wake-up") == 0,
	      "pv line: '%s'", line);
	s = (struct pv_stats){.arms = 7, .lost_kicks = 0};
	pv_stats_format(line, sizeof(line), &s);
	CHECK(strcmp(line,
		     "0 sleeps, 0 kicks, 0 turns passed over, armed 7 times; bad input: 0 hash "
		     "full, 0 SLOW without a hashed head; 0 lost wake-ups") == 0,
	      "pv line: '%s'", line);
	CHECK(pv_stats_bad(&s) == 0, "no bad input counted %lu", pv_stats_bad(&s));
	s.no_head = 2;
	s.hash_full = 3;
	CHECK(pv_stats_bad(&s) == 5, "bad input: hash full and no head, 5, counted %lu",
	      pv_stats_bad(&s));
	pv_stats_format(cut, sizeof(cut), &s);
	CHECK(strcmp(cut, "0 sleeps, 0 kicks, ") == 0, "cut to %zu bytes: '%s'", sizeof(cut), cut);
}

int main(void)
{
	static const unsigned thread_counts[] = {2, 4, LOCK_STRESS_MAX_THREADS};

	host_set_cpu_id(0);
	test_single();
#ifdef SPINLOCK_DEBUG
	test_debug();
#endif
	for (unsigned i = 0; i < sizeof(thread_counts) / sizeof(thread_counts[0]); i++)
		test_stress(thread_counts[i]);
	test_pv_stats_line();
	test_stress_pv();
	test_pv_handover();
	test_pv_pass_over();
	test_pv_lost_kick();
	return check_exit("test_spinlock");
}
