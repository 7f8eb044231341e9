// SPDX-License-Identifier: MIT
/*
 * test_barrier.c - lib/barrier.c on host threads: its timeout runs from
 * the latest arrival, sleepers are woken by the last arrival, and a CPU
 * that never comes is named.
 *
 *   staggered  THREADS threads arrive one every STAGGER_MS; the whole round
 *              takes several times the timeout, but no gap reaches it, so
 *              every wait must succeed (a deadline counted from each
 *              caller's own arrival would give up: how -smp 255 failed).
 *   wake-up    the first threads go to sleep in the barrier; the last one
 *              arrives after a long while, and the sleepers must return
 *              well within their sleep's own bound (PLATFORM_WAIT_MAX_NS):
 *              the last arrival kicked them.
 *   missing    one thread never comes: the others give up after the
 *              timeout, and the log line names the missing CPU.
 */
#include "barrier.h"
#include "check.h"
#include "platform.h"
#include "platform_host.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define THREADS	    6
#define STAGGER_MS  40
#define TIMEOUT_MS  100 /* less than the whole staggered round (THREADS * STAGGER_MS) */
#define LATE_MS	    300
#define WAKE_MAX_NS (PLATFORM_WAIT_MAX_NS / 4)
#define MISSING_CPU (THREADS - 1)
#define NS_PER_MS   1000000ull

enum scenario { STAGGERED, WAKE_UP, MISSING };

static struct barrier bar;
static enum scenario scenario;
static uint64_t released_ns[THREADS];
static bool result[THREADS];

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	host_set_cpu_id(id);
	if (scenario == STAGGERED)
		sleep_ms(id * STAGGER_MS);
	if (scenario == WAKE_UP && id == THREADS - 1)
		sleep_ms(LATE_MS);
	if (scenario == MISSING && id == MISSING_CPU)
		return NULL;
	result[id] = barrier_wait(
	    &bar, (scenario == WAKE_UP ? 2 * LATE_MS : TIMEOUT_MS) * NS_PER_MS, "test");
	released_ns[id] = platform_now_ns();
	return NULL;
}

static void run(enum scenario s)
{
	pthread_t tid[THREADS];

	scenario = s;
	host_set_cpu_count(THREADS);
	barrier_init(&bar, THREADS);
	memset(result, 0, sizeof(result));
	for (unsigned i = 0; i < THREADS; i++)
		pthread_create(&tid[i], NULL, worker, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);
}

int main(void)
{
	uint64_t last;

	run(STAGGERED);
	for (unsigned i = 0; i < THREADS; i++)
		CHECK(result[i], "staggered arrivals: cpu %u gave up though CPUs kept arriving", i);

	run(WAKE_UP);
	last = released_ns[THREADS - 1];
	for (unsigned i = 0; i < THREADS; i++) {
		uint64_t late = released_ns[i] > last ? released_ns[i] - last : 0;

		CHECK(result[i], "wake-up: cpu %u gave up", i);
		CHECK(late < WAKE_MAX_NS, "wake-up: cpu %u left %lu us after the last arrival", i,
		      (unsigned long)(late / 1000));
	}

	printf("# expect one line naming CPU %u as missing:\n", MISSING_CPU);
	fflush(stdout);
	run(MISSING);
	for (unsigned i = 0; i < THREADS; i++)
		if (i != MISSING_CPU)
			CHECK(!result[i], "missing: cpu %u passed a barrier cpu %u never reached",
			      i, MISSING_CPU);
	CHECK(bar.broken != 0, "missing: the barrier did not break");

	return check_exit("test_barrier");
}
