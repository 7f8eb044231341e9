// SPDX-License-Identifier: MIT
/*
 * test_tas.c - the test-and-set kind (lib/spinlock_tas.h) on host threads,
 * through the lock layer's entry points with the kind switched to it: the
 * word's two states, trylock, what the lockref's free test and the waiters
 * column read, and the mutual-exclusion stress (lock_stress.h) with some
 * acquisitions by spin_trylock.
 */
#include "platform.h"
#include "platform_host.h"
#include "spinlock.h"
#include "spinlock_tas.h"
#include "check.h"
#include "lock_stress.h"

#include <stdio.h>

static uint32_t word(const spinlock_t *lock)
{
	return atomic_load32(&lock->val);
}

/* One thread (CPU 0): the word is 0 free and TAS_HELD_BY(0) held, and nothing else. */
static void test_single(void)
{
	spinlock_t lock;

	spin_init(&lock);
	CHECK(word(&lock) == 0 && !spin_is_locked(&lock), "a fresh lock is the word 0, free");
	spin_lock(&lock);
	CHECK(word(&lock) == TAS_HELD_BY(0), "held: word %#x, expected %#x", word(&lock),
	      TAS_HELD_BY(0));
	CHECK(spin_is_locked(&lock), "held reads locked");
	CHECK(!spin_trylock(&lock), "a trylock of a held lock fails");
	CHECK(word(&lock) == TAS_HELD_BY(0), "a failed trylock changes nothing: word %#x",
	      word(&lock));
	CHECK(spin_value_waiters(lock) == 0, "the word shows no waiters: %u",
	      spin_value_waiters(lock));
	spin_unlock(&lock);
	CHECK(word(&lock) == 0 && !spin_is_locked(&lock), "released: word %#x", word(&lock));
	CHECK(spin_trylock(&lock), "a trylock of a free lock takes it");
	CHECK(word(&lock) == TAS_HELD_BY(0), "taken by trylock: word %#x", word(&lock));
	spin_unlock(&lock);
}

/*
 * The lockref's test of a copy (the free column ZERO): only 0 is free; a
 * word a ticket lock would call free (head == tail, not 0) is held here.
 */
static void test_value_unlocked(void)
{
	spinlock_t free_word = {.val = 0}, held = {.val = TAS_HELD_BY(0)};
	spinlock_t ticket_free = {.tickets = {.head = SPIN_TICKET_STEP, .tail = SPIN_TICKET_STEP}};

	CHECK(spin_kind_free(SPIN_KIND_TAS) == SPIN_FREE_ZERO, "the kind's free column is ZERO");
	CHECK(spin_value_unlocked(free_word), "0 is free");
	CHECK(!spin_value_unlocked(held), "TAS_HELD_BY(0) is held");
	CHECK(!spin_value_unlocked(ticket_free), "head == tail is not free for this kind");
	CHECK(!spin_kind_fifo(SPIN_KIND_TAS), "the kind promises no order");
	CHECK(!spin_kind_fair(SPIN_KIND_TAS), "the kind is unfair: no starvation judgement");
	CHECK(spin_kind_fair(SPIN_KIND_TICKET) && spin_kind_fair(SPIN_KIND_QSPINLOCK),
	      "the ticket and queued kinds are judged by starvation");
	CHECK(!spin_kind_pv(SPIN_KIND_TAS), "the kind has no paravirtual waiting");
}

/*
 * The deadlock detector's progress: any hand-over the word shows, not only
 * the word read free (a waiter that keeps missing the free moment while
 * the lock moves between other CPUs must not panic).
 */
static void test_handed_over(void)
{
	CHECK(tas_handed_over(TAS_HELD_BY(1), TAS_HELD_BY(2)), "cpu 1 to cpu 2 is a hand-over");
	CHECK(tas_handed_over(TAS_HELD_BY(1), 0), "the word read free is progress");
	CHECK(tas_handed_over(0, 0), "free again is progress");
	CHECK(!tas_handed_over(TAS_HELD_BY(3), TAS_HELD_BY(3)), "the same holder is none");
}

static void test_stress(unsigned threads)
{
	struct lock_stress s = {
	    .lock = SPINLOCK_INIT, .acquire = spin_lock, .release = spin_unlock, .trylocks = true};

	lock_stress_run(&s, threads);
	CHECK(word(&s.lock) == 0, "%u threads: word %#x left", threads, word(&s.lock));
}

int main(void)
{
	static const unsigned thread_counts[] = {2, 4, LOCK_STRESS_MAX_THREADS};

	host_set_cpu_id(0);
	spin_kind_set(SPIN_KIND_TAS);
	CHECK(spin_kind() == SPIN_KIND_TAS, "the lock layer switched to the kind: %s",
	      spin_kind_names[spin_kind()]);
	test_single();
	test_value_unlocked();
	test_handed_over();
	for (unsigned i = 0; i < sizeof(thread_counts) / sizeof(thread_counts[0]); i++)
		test_stress(thread_counts[i]);
	return check_exit("test_tas");
}
