// SPDX-License-Identifier: MIT
/*
 * test_race.c - two CPUs sharing a counter and publishing a value behind a
 * flag: done right (lib/atomic.h), or, with torture.busted=race, with plain
 * accesses, the data races the race detector (make kcsan, docs/kcsan.md)
 * must report with both sites.
 *
 * Right: every increment a locked add, the value written before the flag is
 * stored with release and read after the flag is loaded with acquire.
 * Busted: `counter++` on two CPUs at once (a load and a store: updates get
 * lost), and flag and value plain, so nothing orders them and the compiler
 * may move them.  Only CPUs 0 and 1 take part; the others wait at the end.
 */
#include "atomic.h"
#include "cmdline.h"
#include "ktest.h"
#include "tsc.h"

/*
 * Increments per CPU: busted, enough that the detector samples the counter
 * about 100 times per CPU; right, enough to contend (it runs in every boot).
 */
#define RACE_ADDS_BUSTED 100000u
#define RACE_ADDS	 20000u
/* Values handed from CPU 0 to CPU 1, each behind the flag. */
#define RACE_ROUNDS 64u
/* How long CPU 1 waits for one value, and the end barrier for anyone. */
#define RACE_WAIT_US	2000000u
#define RACE_BARRIER_MS 10000u

static uint32_t counter, flag, value;

static unsigned adds(bool busted)
{
	return busted ? RACE_ADDS_BUSTED : RACE_ADDS;
}

static void add_all(bool busted)
{
	for (unsigned i = 0; i < adds(busted); i++) {
		if (busted)
			counter++;
		else
			atomic_xadd32(&counter, 1);
	}
}

/* CPU 0: for each round, the value, then the flag saying it is there. */
static void publish(bool busted)
{
	for (uint32_t r = 1; r <= RACE_ROUNDS; r++) {
		uint64_t until = tsc_now() + tsc_from_us(RACE_WAIT_US);

		/* The previous value taken (the flag back at 0) before the next one is written. */
		while ((busted ? flag : atomic_load32(&flag)) != 0 && tsc_now() < until)
			atomic_compiler_barrier();
		if (busted) {
			value = r * 3;
			flag = r;
		} else {
			value = r * 3;
			atomic_store32(&flag, r);
		}
	}
}

/* CPU 1: wait for each flag, check the value behind it, hand the flag back. */
static void consume(struct ktest_ctx *t, bool busted)
{
	for (uint32_t r = 1; r <= RACE_ROUNDS; r++) {
		uint64_t until = tsc_now() + tsc_from_us(RACE_WAIT_US);
		uint32_t f;

		while ((f = busted ? flag : atomic_load32(&flag)) != r && tsc_now() < until)
			atomic_compiler_barrier();
		if (f != r) {
			ktest_fail(t, "round %u: no flag within %u us (flag %u)", r, RACE_WAIT_US,
				   f);
			return;
		}
		if (value != r * 3 && !busted)
			ktest_fail(t, "round %u: value %u behind the flag, expected %u", r, value,
				   r * 3);
		if (busted)
			flag = 0;
		else
			atomic_store32(&flag, 0);
	}
}

static void shared_counter_and_flag(struct ktest_ctx *t)
{
	bool busted = opts.busted == BUSTED_RACE;

	if (t->ncpus < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	if (t->cpu == 0) {
		atomic_store32(&counter, 0);
		atomic_store32(&flag, 0);
	}
	if (!ktest_barrier(t, RACE_BARRIER_MS))
		return;
	if (t->cpu < 2) {
		add_all(busted);
		if (t->cpu == 0)
			publish(busted);
		else
			consume(t, busted);
	}
	if (!ktest_barrier(t, RACE_BARRIER_MS) || t->cpu != 0)
		return;
	uint32_t total = atomic_load32(&counter);
	if (total != 2 * adds(busted) && !busted)
		ktest_fail(t, "counter %u after 2 x %u locked adds", total, adds(busted));
	if (busted)
		ktest_diag(t, "torture.busted=race: counter %u after 2 x %u plain adds (%u lost)",
			   total, adds(busted), 2 * adds(busted) - total);
}
KTEST(boot, "shared_counter_and_flag", shared_counter_and_flag, KTEST_ALL_CPUS);
