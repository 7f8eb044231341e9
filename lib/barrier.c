/*
 * barrier.c - sense-reversing barrier (Mellor-Crummey and Scott, 1991).
 *
 * Each round, arriving CPUs decrement `remaining`; the last one resets it
 * and flips `sense`, which releases the rest.  Waiters spin on `sense`
 * only, so no CPU can race into the next round and confuse this one.
 */
#include "barrier.h"

#include "printf.h"

void barrier_init(struct barrier *b, unsigned total)
{
	b->total = total;
	b->remaining = total;
	b->sense = 0;
	b->broken = false;
	b->round = 0;
	for (unsigned i = 0; i < MAX_CPUS; i++)
		b->arrived_round[i] = 0;
}

static void report_missing(struct barrier *b, unsigned round, const char *what)
{
	char missing[160];
	size_t len = 0;

	missing[0] = '\0';
	for (unsigned i = 0; i < b->total && len < sizeof(missing); i++)
		if (b->arrived_round[i] != round + 1)
			len += (size_t)ksnprintf(missing + len, sizeof(missing) - len, " %u", i);
	platform_log("barrier '%s': timed out in round %u waiting for %u of %u CPUs; missing:%s",
		     what, round, b->remaining, b->total, missing);
}

bool barrier_wait(struct barrier *b, uint64_t timeout_ns, const char *what)
{
	unsigned round = __atomic_load_n(&b->round, __ATOMIC_ACQUIRE);
	unsigned my_sense = !__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&b->broken, __ATOMIC_ACQUIRE))
		return false;
	__atomic_store_n(&b->arrived_round[platform_cpu_id()], round + 1, __ATOMIC_RELAXED);
	if (__atomic_sub_fetch(&b->remaining, 1, __ATOMIC_ACQ_REL) == 0) {
		__atomic_store_n(&b->remaining, b->total, __ATOMIC_RELAXED);
		__atomic_store_n(&b->round, round + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&b->sense, my_sense, __ATOMIC_RELEASE);
		return true;
	}
	uint64_t deadline = platform_now_ns() + timeout_ns;
	while (__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) != my_sense) {
		if (__atomic_load_n(&b->broken, __ATOMIC_ACQUIRE))
			return false;
		if (platform_now_ns() > deadline) {
			if (!__atomic_exchange_n(&b->broken, true, __ATOMIC_ACQ_REL))
				report_missing(b, round, what);
			return false;
		}
		platform_relax();
	}
	return true;
}
