// SPDX-License-Identifier: MIT
/*
 * bench_retry.c - the v7 series' retry-policy table, measured here.
 *
 * Waiman Long's v7 cover letter tabulated AIM7 throughput on 80 CPUs for
 * two families of lockless policy: wait until the lock is free, then try
 * 1 to 4 compare-exchanges; or do not wait, and try 2 to 32 times before
 * taking the lock.  Few attempts without waiting collapsed (a CPU that
 * gives up takes the lock, which makes the others give up too) and the
 * middle of the range was erratic from run to run.  This benchmark runs
 * the same policies (plus mainline's 100 attempts) on the refcount
 * workload at every online CPU, so the table shows throughput and, through
 * the min and max over trials, its spread.
 */
#include "bench.h"
#include "bench_cases.h"
#include "bench_ref.h"

/* How long CPUs wait for CPU 0 to set up the shared arguments. */
#define SETUP_TIMEOUT_MS 10000

/* Each policy's name is the impl name of its BENCH line. */
static const struct lockref_policy retry_policies[] = {
    {.name = "lockref-wait-1", .retries = 1, .wait_unlocked = true},
    {.name = "lockref-wait-2", .retries = 2, .wait_unlocked = true},
    {.name = "lockref-wait-3", .retries = 3, .wait_unlocked = true},
    {.name = "lockref-wait-4", .retries = 4, .wait_unlocked = true},
    {.name = "lockref-nowait-2", .retries = 2, .wait_unlocked = false},
    {.name = "lockref-nowait-4", .retries = 4, .wait_unlocked = false},
    {.name = "lockref-nowait-8", .retries = 8, .wait_unlocked = false},
    {.name = "lockref-nowait-16", .retries = 16, .wait_unlocked = false},
    {.name = "lockref-nowait-32", .retries = 32, .wait_unlocked = false},
    {.name = "lockref-nowait-100", .retries = 100, .wait_unlocked = false},
};

#define RETRY_POLICIES (sizeof(retry_policies) / sizeof(retry_policies[0]))

static struct bench_ref_impl retry_impls[RETRY_POLICIES];
static struct bench_ref_obj retry_objs[RETRY_POLICIES];
static struct bench_ref retry_args[RETRY_POLICIES];

void retry_table(struct bench_ctx *t)
{
	if (t->cpu == 0) {
		for (unsigned i = 0; i < RETRY_POLICIES; i++) {
			retry_impls[i] =
			    (struct bench_ref_impl){retry_policies[i].name, BENCH_REF_LOCKREF,
						    &retry_policies[i], false, false};
			bench_ref_init(&retry_args[i], &retry_impls[i], &retry_objs[i]);
		}
	}
	/* The specs are built from retry_args: no CPU reads them before CPU 0 has filled them. */
	if (!bench_barrier(t, SETUP_TIMEOUT_MS))
		return;
	for (unsigned i = 0; i < RETRY_POLICIES; i++) {
		struct bench_spec spec = bench_ref_spec("retry-table", &retry_args[i]);

		if (!bench_run(t, &spec, t->ncpus, NULL))
			return;
	}
}

uint64_t retry_table_estimate(const struct bench_estimate *e)
{
	return RETRY_POLICIES * e->run_ms; /* one bench_run per policy, on every CPU */
}
