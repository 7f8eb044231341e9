// SPDX-License-Identifier: MIT
/*
 * ktest_stall.c - selftest.stall=: hold one CPU up on purpose, once.
 *
 * Why here and not in a test: what it proves is the runner's own failure
 * paths (kernel/ktest.c), which no test can reach from inside.  `start`
 * and `deadline` stall inside the runner (ktest.c's run_here asks where);
 * `fs-start` stalls at a barrier a suite names (ktest_stall_barrier), seen
 * through the barrier library's arrival hook, so the runner knows no
 * suite's barrier by name.
 */
#include "ktest_stall.h"

#include "atomic.h"
#include "barrier.h"
#include "console.h"
#include "percpu.h"
#include "printf.h"
#include "smp.h"
#include "string.h"
#include "tsc.h"

static bool stall_pending;	     /* at start or deadline: the next all-CPU test */
static uint8_t fs_stall_armed;	     /* at fs-start, not yet done */
static const char *fs_stall_barrier; /* which barrier fs-start is (ktest_stall_barrier) */
static const char *running_test;     /* the test a stall at a barrier happens in */

void stall(unsigned cpu, const char *where, const char *test)
{
	printk(KTAP_DIAG_PREFIX "selftest.stall: cpu %u stalls %u ms %s of test '%s'\n", cpu,
	       opts.stall_ms, where, test);
	udelay((uint64_t)opts.stall_ms * 1000);
}

void ktest_stall_barrier(const char *what)
{
	atomic_store_ptr(&fs_stall_barrier, what);
}

/* The barrier hook of selftest.stall=N:MS:fs-start: once, on CPU N. */
static void stall_at_barrier(const char *what)
{
	const char *barrier = atomic_load_ptr(&fs_stall_barrier);
	char where[64];

	if (this_cpu_index() != opts.stall_cpu || !barrier || strcmp(what, barrier) != 0 ||
	    !atomic_xchg8(&fs_stall_armed, 0))
		return;
	ksnprintf(where, sizeof(where), "before barrier '%s'", what);
	stall(opts.stall_cpu, where, atomic_load_ptr(&running_test));
}

void stall_arm(void)
{
	unsigned n = smp_cpus_online();

	if (opts.stall_where == STALL_NONE)
		return;
	if (opts.stall_cpu >= n) {
		printk(
		    "cmdline: 'selftest.stall=%u:%u:%s': expected a CPU from 1 to %u (this run has "
		    "%u online); no stall\n",
		    opts.stall_cpu, opts.stall_ms, stall_where_names[opts.stall_where], n - 1, n);
		char value[40];

		ksnprintf(value, sizeof(value), "%u:%u:%s", opts.stall_cpu, opts.stall_ms,
			  stall_where_names[opts.stall_where]);
		cmdline_not_done("selftest.stall", value, "a CPU this run lacks; no stall");
		opts.stall_where = STALL_NONE;
		return;
	}
	if (opts.stall_where == STALL_FS_START) {
		fs_stall_armed = 1;
		barrier_set_arrive_hook(stall_at_barrier);
	} else {
		stall_pending = true;
	}
}

unsigned stall_test_starts(const char *name, unsigned ncpus)
{
	atomic_store_ptr(&running_test, name);
	if (!stall_pending || ncpus == 1)
		return 0;
	stall_pending = false;
	return opts.stall_cpu;
}
