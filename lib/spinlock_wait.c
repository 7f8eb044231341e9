// SPDX-License-Identifier: MIT
/*
 * spinlock_wait.c - the one bounded wait of every lock kind and its
 * "deadlock?" panic (the contract and why on progress: spinlock_wait.h).
 */
#include "spinlock_wait.h"

#include "atomic.h"
#include "platform.h"
#include "spinlock.h"

void spin_wait_check(struct spin_wait *w, uint32_t progress, const char *what, int who)
{
	uint64_t now = platform_now_ns();

	if (w->since == 0 || progress != w->seen) {
		w->seen = progress;
		w->since = now;
	} else if (now - w->since > SPIN_TIMEOUT_NS) {
		spin_deadlock(w->lock, what, who);
	}
}

void spin_deadlock(const spinlock_t *lock, const char *what, int who)
{
	unsigned long long secs = SPIN_TIMEOUT_NS / 1000000000u;
	uint32_t word = atomic_load32(&lock->val);

	if (who >= 0)
		platform_panic("spinlock %p: cpu %u waited for %s %d, and nothing it watched "
			       "moved for over %llu s (word now %#x): deadlock?",
			       (const void *)lock, platform_cpu_id(), what, who, secs, word);
	platform_panic("spinlock %p: cpu %u waited for %s, and nothing it watched moved for "
		       "over %llu s (word now %#x): deadlock?",
		       (const void *)lock, platform_cpu_id(), what, secs, word);
}
