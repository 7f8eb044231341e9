// SPDX-License-Identifier: MIT
/*
 * test_bench_kind.c - a benchmark trial that fails at its barrier under the
 * other lock kind leaves every lock it does not own usable and the boot's
 * kind back (bench/bench_ref.c, spin_init_global in lib/spinlock.h).
 *
 * Why: the reference benchmarks switch every spinlock_t to the kind of the
 * implementation they measure.  A failed barrier reports through the
 * console, whose lock was last used under the boot's kind; if the switch
 * left that lock in the other kind's encoding, the report would panic
 * ("corrupt lock word") or write into another CPU's queue node, and if the
 * restore sat only in the check a failed barrier skips, the rest of the run
 * would keep the wrong kind.
 *
 * How: the runner here is single-threaded and its barrier fails on purpose
 * (this file provides barrier_init and barrier_wait instead of
 * lib/barrier.c: the fault is injected at the link), reporting through a
 * log hook that takes a lock registered with spin_init_global, as the
 * kernel's console does.  The trial runs the qspinlock implementation on a
 * ticket boot, whose console word is not 0 after a few lines.
 */
#include "barrier.h"
#include "bench.h"
#include "bench_ref.h"
#include "check.h"
#include "platform.h"
#include "platform_host.h"
#include "printf.h"
#include "spinlock.h"
#include "string.h"

#include <stdarg.h>
#include <stdio.h>

static spinlock_t console = SPINLOCK_INIT; /* stands for the kernel's console_lock */
static unsigned barrier_failures, bench_failures, lines;

/* Every log line goes through the console lock, as printk does in the kernel. */
static void console_print(const char *line)
{
	spin_lock(&console);
	printf("# %s\n", line);
	lines++;
	spin_unlock(&console);
}

/* The injected fault: every barrier of the trial times out, and says so. */
void barrier_init(struct barrier *b, unsigned total)
{
	(void)b;
	(void)total;
}

bool barrier_wait(struct barrier *b, uint64_t timeout_ns, const char *what)
{
	(void)b;
	(void)timeout_ns;
	barrier_failures++;
	platform_log("barrier '%s': timed out (injected by test_bench_kind)", what);
	return false;
}

/* The runner's part of bench.h. */
void bench_fail(struct bench_ctx *t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	(void)t;
	va_start(ap, fmt);
	kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	bench_failures++;
	platform_log("bench failed: %s", buf);
}

void bench_diag(struct bench_ctx *t, const char *fmt, ...)
{
	(void)t;
	(void)fmt;
}

bool bench_barrier(struct bench_ctx *t, unsigned timeout_ms)
{
	(void)t;
	(void)timeout_ms;
	return true;
}

static const struct bench_ref_impl *impl_named(const char *name)
{
	for (unsigned i = 0; i < BENCH_IMPLS; i++)
		if (bench_ref_impls[i].name && strcmp(bench_ref_impls[i].name, name) == 0)
			return &bench_ref_impls[i];
	return NULL;
}

int main(void)
{
	static struct bench_ref r;
	static struct bench_ref_obj obj;
	const struct bench_ref_impl *impl = impl_named("qspinlock");
	struct bench_ctx t = {.cpu = 0, .ncpus = 2, .ms = 1, .trials = 1, .id = &t};
	struct bench_spec spec;
	bool ok;

	host_set_cpu_count(2);
	host_set_cpu_id(0);
	spin_kind_set(SPIN_KIND_TICKET);
	spin_init_global(&console);
	host_set_log_hook(console_print);
	for (unsigned i = 0; i < 3; i++)
		platform_log("a line before the benchmark, %u of 3", i + 1);
	CHECK(console.val != 0, "the console's free ticket word is not 0 (%#x)", console.val);
	CHECK(impl != NULL, "bench_ref_impls has a \"qspinlock\" implementation");
	if (!impl)
		return check_exit("test_bench_kind");
	bench_ref_init(&r, impl, &obj);
	spec = bench_ref_spec("refcount", &r);
	ok = bench_run(&t, &spec, 2, NULL);
	CHECK(!ok && barrier_failures > 0 && bench_failures > 0,
	      "the trial failed at its barrier (%u barrier, %u bench failures reported)",
	      barrier_failures, bench_failures);
	CHECK(spin_kind() == SPIN_KIND_TICKET, "the boot's kind is back: %s",
	      spin_kind_names[spin_kind()]);
	CHECK(!spin_is_locked(&console), "the console lock is free (word %#x)", console.val);
	platform_log("a line after the benchmark");
	host_set_log_hook(NULL);
	CHECK(lines == 3 + barrier_failures + bench_failures + 1, "every line printed (%u)", lines);
	return check_exit("test_bench_kind");
}
