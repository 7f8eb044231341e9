// SPDX-License-Identifier: MIT
/*
 * test_spin_kinds.c - every kind of lib/spinlock_kinds.h's table through the
 * lock layer, on host threads: what each promises by its columns alone, so
 * a kind added by its header and one table line (docs/howto.md) is tested
 * here with no line of its own.
 *
 * For each kind: the word 0 is free and a fresh lock reads unlocked; a held
 * lock reads locked, a trylock of it fails and changes nothing, and its
 * copy is held by the lockref's free test (the kind's free column); the
 * unlock leaves the word free; the waiters column reads 0 of a word nobody
 * waits on; and the mutual-exclusion stress (lock_stress.h), some
 * acquisitions by spin_trylock, at 2 and 4 threads leaves the word 0.
 */
#include "platform.h"
#include "platform_host.h"
#include "spinlock.h"
#include "check.h"
#include "lock_stress.h"

#include <stdio.h>

static uint32_t word(const spinlock_t *lock)
{
	return atomic_load32(&lock->val);
}

/* One thread: the states a kind's word goes through, read by the kind-free calls. */
static void test_states(const char *name)
{
	spinlock_t lock = SPINLOCK_INIT;
	spinlock_t copy;

	spin_init(&lock);
	CHECK(word(&lock) == 0 && !spin_is_locked(&lock), "%s: a fresh lock is the word 0, free",
	      name);
	spin_lock(&lock);
	copy.val = word(&lock);
	CHECK(spin_is_locked(&lock), "%s: held reads locked (word %#x)", name, copy.val);
	CHECK(!spin_value_unlocked(copy), "%s: the free test calls a held copy held", name);
	CHECK(spin_value_waiters(copy) == 0, "%s: nobody waits, the word shows %u", name,
	      spin_value_waiters(copy));
	CHECK(!spin_trylock(&lock), "%s: a trylock of a held lock fails", name);
	CHECK(word(&lock) == copy.val, "%s: a failed trylock changes nothing: %#x, was %#x", name,
	      word(&lock), copy.val);
	spin_unlock(&lock);
	copy.val = word(&lock);
	CHECK(!spin_is_locked(&lock) && spin_value_unlocked(copy), "%s: released: word %#x free",
	      name, copy.val);
	CHECK(spin_trylock(&lock), "%s: a trylock of a free lock takes it", name);
	spin_unlock(&lock);
	CHECK(!spin_is_locked(&lock), "%s: released after the trylock", name);
}

static void test_stress(const char *name, unsigned threads)
{
	struct lock_stress s = {
	    .lock = SPINLOCK_INIT, .acquire = spin_lock, .release = spin_unlock, .trylocks = true};

	lock_stress_run(&s, threads);
	CHECK(!spin_is_locked(&s.lock), "%s, %u threads: word %#x left held", name, threads,
	      word(&s.lock));
}

int main(void)
{
	host_set_cpu_id(0);
	CHECK(SPIN_KINDS >= 1 && spin_kind_names[SPIN_KINDS] == NULL, "one name per kind");
	for (unsigned kind = 0; kind < SPIN_KINDS; kind++) {
		const char *name = spin_kind_names[kind];

		spin_kind_set((enum spin_kind)kind);
		CHECK(spin_kind() == kind, "%s: the lock layer switched to it (in force: %s)", name,
		      spin_kind_names[spin_kind()]);
		test_states(name);
		test_stress(name, 2);
		test_stress(name, 4);
		printf("# kind %s: states, trylock and the stress at 2 and 4 threads checked\n",
		       name);
	}
	spin_kind_set(SPIN_KIND_TICKET);
	return check_exit("test_spin_kinds");
}
