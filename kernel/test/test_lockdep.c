// SPDX-License-Identifier: MIT
/*
 * test_lockdep.c - the `lockdep` suite: planted lock-order mistakes that the
 * checker (lib/lockdep.h) must report, on real CPUs through the real locks.
 *
 * Run by name only (run=lockdep): every other suite fails a test during
 * which the checker reports anything.  Each test here plants one mistake
 * in a way that cannot deadlock (the two orders are taken at different
 * times, or by one CPU), then requires exactly one new report that names
 * both classes.  The reports stay in the log: make test decodes the ABBA's
 * addresses against build/kernel.elf (tools/log/lockdep_decode.py) and requires
 * this file's lines on both sides.  Whatever lockdep.panic= says, these run
 * with reports printed, not panicking, and restore it after.
 */
#include <stdarg.h>

#include "cmdline.h"
#include "fs.h"
#include "fs_impl.h"
#include "ktest.h"
#include "lockdep.h"
#include "platform.h"
#include "spinlock.h"
#include "string.h"

/* How long CPU 1 waits for CPU 0's order in the ABBA test. */
#define LOCKDEP_TEST_WAIT_MS 10000u

static spinlock_t lock_a, lock_b, lock_c, same_a, same_b;

/* Whether @s contains @part (the kernel's string.h has no strstr). */
static bool contains(const char *s, const char *part)
{
	size_t n = strlen(part);

	for (; *s; s++)
		if (strncmp(s, part, n) == 0)
			return true;
	return false;
}

/* One new report since @before, saying every NULL-terminated string; else a FAIL line each. */
static void expect_report(struct ktest_ctx *t, uint64_t before, ...)
{
	const char *r = lockdep_last_report();
	va_list ap;

	if (!lockdep_enabled()) {
		ktest_fail(t,
			   "the checker is off (lockdep=off, or a table filled): nothing to see");
		return;
	}
	if (lockdep_reports() != before + 1) {
		ktest_fail(t, "%llu new reports, expected 1",
			   (unsigned long long)(lockdep_reports() - before));
		return;
	}
	va_start(ap, before);
	for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
		if (!contains(r, s))
			ktest_fail(t, "the report does not say \"%s\"", s);
	va_end(ap);
}

/* The planted tests print their reports and go on, whatever lockdep.panic= says. */
static bool setup(struct ktest_ctx *t)
{
	if (!lockdep_enabled()) {
		ktest_fail(t, "lockdep=off: the planted mistakes cannot be seen");
		return false;
	}
	lockdep_set_panic(false);
	return true;
}

static void done(void)
{
	lockdep_set_panic(opts.lockdep_panic);
}

/* CPU 0 takes a then b; after it, CPU 1 takes b then a.  Never at once: no deadlock. */
static void abba_two_cpus(struct ktest_ctx *t)
{
	static uint64_t before;

	if (t->ncpus < 2) {
		if (t->cpu == 0)
			ktest_skip(t, "needs 2 CPUs");
		return;
	}
	if (t->cpu == 0 && setup(t)) {
		spin_init_named(&lock_a, "test:a");
		spin_init_named(&lock_b, "test:b");
		before = lockdep_reports();
		spin_lock(&lock_a);
		spin_lock(&lock_b);
		spin_unlock(&lock_b);
		spin_unlock(&lock_a);
	}
	if (!ktest_barrier(t, LOCKDEP_TEST_WAIT_MS))
		return;
	if (t->cpu == 1) {
		spin_lock(&lock_b);
		spin_lock(&lock_a);
		spin_unlock(&lock_a);
		spin_unlock(&lock_b);
		expect_report(t, before, "possible deadlock", "cpu 1 takes 'test:a'",
			      "holding 'test:b'", "before: cpu 0 held 'test:a'", "took 'test:b'",
			      NULL);
	}
	if (ktest_barrier(t, LOCKDEP_TEST_WAIT_MS) && t->cpu == 0)
		done();
}
KTEST(lockdep, "abba_two_cpus", abba_two_cpus, KTEST_ALL_CPUS);

/* a -> b, b -> c, then c -> a closes the cycle. */
static void cycle_three_classes(struct ktest_ctx *t)
{
	uint64_t before = lockdep_reports();

	if (!setup(t))
		return;
	spin_init_named(&lock_a, "test:a3");
	spin_init_named(&lock_b, "test:b3");
	spin_init_named(&lock_c, "test:c3");
	spin_lock(&lock_a), spin_lock(&lock_b), spin_unlock(&lock_b), spin_unlock(&lock_a);
	spin_lock(&lock_b), spin_lock(&lock_c), spin_unlock(&lock_c), spin_unlock(&lock_b);
	spin_lock(&lock_c), spin_lock(&lock_a), spin_unlock(&lock_a), spin_unlock(&lock_c);
	expect_report(t, before, "takes 'test:a3' while holding 'test:c3'", "held 'test:a3'",
		      "took 'test:b3'", "held 'test:b3'", "took 'test:c3'", NULL);
	done();
}
KTEST(lockdep, "cycle_three_classes", cycle_three_classes, 0);

/*
 * The holder takes its lock again.  Through spin_lock that would hang after
 * the report, so the second acquisition is the checker's call alone, made
 * as spin_lock makes it: before the wait, naming its caller's line.
 */
static __attribute__((noinline)) void take_again(spinlock_t *lock)
{
	lockdep_acquire(lock, 0, false, LOCKDEP_SITE());
}

static void lock_taken_twice(struct ktest_ctx *t)
{
	uint64_t before = lockdep_reports();

	if (!setup(t))
		return;
	spin_init_named(&lock_a, "test:twice");
	spin_lock(&lock_a);
	take_again(&lock_a);
	lockdep_release(&lock_a, 0);
	spin_unlock(&lock_a);
	expect_report(t, before, "deadlock: cpu 0 takes 'test:twice'", "again at", NULL);
	done();
}
KTEST(lockdep, "lock_taken_twice", lock_taken_twice, 0);

/* One init site, so one class for every lock it initialises. */
static void init_same(spinlock_t *lock)
{
	spin_init_named(lock, "test:same");
}

/* Two locks of one class nested without spin_lock_nested. */
static void same_class_without_subclass(struct ktest_ctx *t)
{
	uint64_t before = lockdep_reports();

	if (!setup(t))
		return;
	init_same(&same_a);
	init_same(&same_b);
	spin_lock(&same_a);
	spin_lock(&same_b);
	spin_unlock(&same_b);
	spin_unlock(&same_a);
	expect_report(t, before, "nests two locks of class 'test:same' without a subclass", NULL);
	done();
}
KTEST(lockdep, "same_class_without_subclass", same_class_without_subclass, 0);

/*
 * A real fs: unlink takes the parent, then the child (FS_LOCK_CHILD); then a
 * planted path takes a child, then its parent.
 */
static void fs_child_before_parent(struct ktest_ctx *t)
{
	struct fs_config cfg = {.mem_slots = 64};
	struct fs *fs = setup(t) ? fs_new(&cfg) : NULL;
	struct fs_node *d = NULL, *f = NULL;
	uint64_t before = lockdep_reports();

	if (!fs)
		return;
	if (fs_create(fs, "/d", FS_DIR, &d) || fs_create(fs, "/d/f", FS_FILE, &f) ||
	    fs_create(fs, "/d/g", FS_FILE, NULL) || fs_unlink(fs, "/d/g")) {
		ktest_fail(t, "could not build /d/f");
	} else {
		fs_node_lock_nested(f, FS_LOCK_CHILD);
		fs_node_lock(d);
		fs_node_unlock(d);
		fs_node_unlock(f);
		expect_report(t, before, "takes 'fs:node' while holding 'fs:node/2'",
			      "held 'fs:node'", NULL);
	}
	if (f)
		fs_put(fs, f);
	if (d)
		fs_put(fs, d);
	fs_unlink(fs, "/d/f");
	fs_rmdir(fs, "/d");
	if (fs_destroy(fs) != 0)
		ktest_fail(t, "fs_destroy failed");
	done();
}
KTEST(lockdep, "fs_child_before_parent", fs_child_before_parent, 0);

/* The one site that takes the never-initialised locks below. */
static __attribute__((noinline)) void take_and_release(spinlock_t *lock)
{
	spin_lock(lock);
	spin_unlock(lock);
}

/*
 * Two zeroed locks in run-time memory, never given a class (a zeroed word
 * is a free lock of either kind), taken at one site: one report naming the
 * site, and one class for both, not a class per instance.
 */
static void uninitialised_once_per_site(struct ktest_ctx *t)
{
	spinlock_t *locks = setup(t) ? platform_alloc(2 * sizeof(*locks), 64) : NULL;
	uint64_t before = lockdep_reports();
	unsigned classes = lockdep_stats().classes;

	if (!locks)
		return;
	take_and_release(&locks[0]);
	take_and_release(&locks[1]);
	take_and_release(&locks[0]);
	expect_report(t, before, "uninitialised lock: cpu 0 takes lock", "never given a class",
		      "uninit@", NULL);
	if (lockdep_stats().classes != classes + 1)
		ktest_fail(t, "%u new classes for two locks taken at one site, expected 1",
			   lockdep_stats().classes - classes);
	platform_free(locks, 2 * sizeof(*locks));
	done();
}
KTEST(lockdep, "uninitialised_once_per_site", uninitialised_once_per_site, 0);

/* Memory freed while this CPU holds a lock inside it: reported with where it was taken. */
static LOCK_RULES_EXEMPT("a held lock freed, on purpose") void held_lock_freed(struct ktest_ctx *t)
{
	spinlock_t *lock = setup(t) ? platform_alloc(sizeof(*lock), 64) : NULL;
	uint64_t before = lockdep_reports();

	if (!lock)
		return;
	spin_init_named(lock, "test:freed");
	spin_lock(lock);
	platform_free(lock, sizeof(*lock)); /* planted: its lock is gone with it, never released */
	expect_report(t, before, "held lock freed: cpu 0 frees", "holds 'test:freed'", "taken at",
		      NULL);
	done();
}
KTEST(lockdep, "held_lock_freed", held_lock_freed, 0);

/*
 * A test that ends holding a lock: the runner reports it when the test
 * returns (kernel/ktest.c), and the next test checks that report.  The
 * suite does not fail on reports (it plants them), so the check is there.
 */
static LOCK_RULES_EXEMPT("a lock kept past the test, on purpose") void held_past_end(
    struct ktest_ctx *t)
{
	if (!setup(t))
		return;
	spin_init_named(&lock_c, "test:held");
	spin_lock(&lock_c); /* planted: never released by this test */
	/* Not the last call: a tail call would make the runner the lock's site. */
	ktest_diag(t, "held_past_end: returns holding 'test:held', on purpose");
}
KTEST(lockdep, "held_past_end", held_past_end, 0);

static void held_past_end_reported(struct ktest_ctx *t)
{
	const char *r = lockdep_last_report();

	if (!contains(r, "held past the end: cpu 0 still holds 1 lock(s) at the end of "
			 "held_past_end") ||
	    !contains(r, "held: 'test:held'") || !contains(r, "taken at"))
		ktest_fail(
		    t, "the runner did not report the lock held_past_end kept; last report: %s", r);
	/* The checker forgot it; the word is still taken: make it free for whoever comes next. */
	spin_init_named(&lock_c, "test:held");
	done();
}
KTEST(lockdep, "held_past_end_reported", held_past_end_reported, 0);
