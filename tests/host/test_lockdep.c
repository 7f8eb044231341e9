// SPDX-License-Identifier: MIT
/*
 * test_lockdep.c - the lock-order checker of lib/lockdep.c on host threads.
 *
 * Planted mistakes, each of which must be reported while the deadlock
 * itself never happens (the two orders are taken at different times): an
 * ABBA between two classes on two CPUs, a three-class cycle, a lock taken
 * twice by its holder, a same-class nesting without a subclass, two nodes
 * of one class locked child-before-parent with declared subclasses, a
 * release of a lock not held.  Each report must name both classes and
 * both acquisition addresses.  Controls that must stay silent: consistent
 * orders (also from 4 threads at once), declared subclasses in order, a
 * trylock against the order.  Full tables: one line naming the table and
 * its size, the checker off, the run going on, and that line a report.
 * Never-initialised locks in run-time memory: one report and one class per
 * site.  A held lock freed, a lock held at a test's end: reported with the
 * site that took it.  A report under the print lock: printed at its release.
 *
 * The locks here are objects the checker sees by address through
 * t_lock/t_unlock, which call it the way spin_lock does: it needs no lock
 * word, and no planted order can hang the test.  test_lockdep_hooks.c goes
 * through the real locks.  "-report" prints the ABBA
 * report and main's address for tools/tests/test_lockdep_decode.py, which
 * decodes it against this binary.
 */
#include "lockdep.h"
#include "platform.h"
#include "platform_host.h"
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A lock as the checker sees it: an address.  Aligned like a spinlock_t. */
struct t_lock {
	uint32_t word;
};

static struct t_lock a, b, c, n1, n2, x, y;
static struct lock_class_key key_a = {.name = "test:a"}, key_b = {.name = "test:b"},
			     key_c = {.name = "test:c"}, key_node = {.name = "test:node"},
			     key_x = {.name = "test:x"}, key_y = {.name = "test:y"};

/* As spin_lock_nested does: the site is the caller's return address. */
static __attribute__((noinline)) void t_lock(struct t_lock *l, unsigned subclass)
{
	lockdep_acquire(l, subclass, false, LOCKDEP_SITE());
}

static __attribute__((noinline)) bool t_trylock(struct t_lock *l)
{
	lockdep_acquire(l, 0, true, LOCKDEP_SITE());
	return true;
}

static __attribute__((noinline)) void t_unlock(struct t_lock *l)
{
	lockdep_release(l, LOCKDEP_SITE());
	lockdep_released(l); /* the word would be free now */
}

/* A fresh checker with the classes of this file. */
static void fresh(void)
{
	lockdep_reset();
	lockdep_set(true);
	lockdep_init_lock(&a, &key_a);
	lockdep_init_lock(&b, &key_b);
	lockdep_init_lock(&c, &key_c);
	lockdep_init_lock(&n1, &key_node);
	lockdep_init_lock(&n2, &key_node);
	lockdep_init_lock(&x, &key_x);
	lockdep_init_lock(&y, &key_y);
}

/* The last report mentions every one of the NULL-terminated strings. */
static bool report_says(const char *first, ...)
{
	const char *r = lockdep_last_report();
	va_list ap;
	bool ok = true;

	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *))
		if (!strstr(r, s)) {
			printf("# report lacks \"%s\":\n%s", s, r);
			ok = false;
		}
	va_end(ap);
	return ok;
}

struct order {
	struct t_lock *first, *second;
	unsigned cpu;
};

/* One thread, one CPU: take @first, then @second, then release both. */
static void *take_in_order(void *arg)
{
	struct order *o = arg;

	host_set_cpu_id(o->cpu);
	t_lock(o->first, 0);  /* site: order-first */
	t_lock(o->second, 0); /* site: order-second */
	t_unlock(o->second);
	t_unlock(o->first);
	return NULL;
}

static void run_on_cpu(struct order *o)
{
	pthread_t t;

	if (pthread_create(&t, NULL, take_in_order, o) != 0 || pthread_join(t, NULL) != 0) {
		perror("pthread");
		exit(1);
	}
}

/* ABBA on two CPUs, one after the other: CPU 0 takes a then b, CPU 1 takes b then a. */
static void test_abba(void)
{
	struct order ab = {&a, &b, 0}, ba = {&b, &a, 1};

	fresh();
	run_on_cpu(&ab);
	CHECK_EQ(lockdep_reports(), 0, "one order alone is no deadlock");
	run_on_cpu(&ba);
	CHECK_EQ(lockdep_reports(), 1, "the opposite order must be reported");
	CHECK(report_says("possible deadlock", "cpu 1 takes 'test:a' while holding 'test:b'",
			  "now: cpu 1 holds 'test:b'", "before: cpu 0 held 'test:a'",
			  "took 'test:b'", NULL));
	/* Reported once: the same order again is known. */
	run_on_cpu(&ba);
	CHECK_EQ(lockdep_reports(), 1, "a known cycle is reported once");
}

/*
 * The report's addresses are the lock calls' return addresses, on both
 * sides: each lies just after its call, within this function's code.
 */
static __attribute__((noinline)) void take_x_then_y(void)
{
	t_lock(&x, 0);
	t_lock(&y, 0);
	t_unlock(&y);
	t_unlock(&x);
}

static void test_sites(void)
{
	unsigned n = 0;

	fresh();
	take_x_then_y();
	t_lock(&y, 0);
	t_lock(&x, 0);
	t_unlock(&x);
	t_unlock(&y);
	CHECK_EQ(lockdep_reports(), 1);
	/* The "before" line is the last: its two addresses are within take_x_then_y. */
	for (const char *p = strstr(lockdep_last_report(), "before:");
	     p && (p = strstr(p, " at 0x")); p += 6) {
		uintptr_t at = (uintptr_t)strtoull(p + 4, NULL, 16), fn = (uintptr_t)&take_x_then_y;

		CHECK(at > fn && at < fn + 256,
		      "%#lx not just after a call in take_x_then_y (%#lx)", (unsigned long)at,
		      (unsigned long)fn);
		n++;
	}
	CHECK_EQ(n, 2, "both acquisitions of the earlier order");
}

static void test_three_cycle(void)
{
	fresh();
	t_lock(&a, 0), t_lock(&b, 0), t_unlock(&b), t_unlock(&a);
	t_lock(&b, 0), t_lock(&c, 0), t_unlock(&c), t_unlock(&b);
	CHECK_EQ(lockdep_reports(), 0, "a -> b -> c is an order");
	t_lock(&c, 0), t_lock(&a, 0), t_unlock(&a), t_unlock(&c);
	CHECK_EQ(lockdep_reports(), 1, "c -> a closes a -> b -> c");
	CHECK(report_says("takes 'test:a' while holding 'test:c'", "held 'test:a'", "took 'test:b'",
			  "held 'test:b'", "took 'test:c'", NULL));
}

static void test_self(void)
{
	fresh();
	t_lock(&a, 0);
	t_lock(&a, 0); /* the real lock would hang here; the checker only sees it */
	CHECK_EQ(lockdep_reports(), 1, "a lock taken twice by its holder");
	CHECK(report_says("deadlock: cpu 0 takes 'test:a'", "again at", "it took it at", NULL));
	t_unlock(&a);
	t_unlock(&a);
}

static void test_same_class(void)
{
	fresh();
	t_lock(&n1, 0), t_lock(&n2, 0), t_unlock(&n2), t_unlock(&n1);
	CHECK_EQ(lockdep_reports(), 1, "two locks of one class nested without a subclass");
	CHECK(report_says("nests two locks of class 'test:node' without a subclass", NULL));
	/* Declared: parent (0) before child (1) is an order like any other. */
	fresh();
	for (int i = 0; i < 3; i++)
		t_lock(&n1, 0), t_lock(&n2, 1), t_unlock(&n2), t_unlock(&n1);
	CHECK_EQ(lockdep_reports(), 0, "declared nesting in order is fine");
	/* Child before parent: the child's subclass taken first. */
	t_lock(&n2, 1), t_lock(&n1, 0), t_unlock(&n1), t_unlock(&n2);
	CHECK_EQ(lockdep_reports(), 1, "child before parent closes a cycle");
	CHECK(report_says("takes 'test:node' while holding 'test:node/1'", NULL));
}

static void test_trylock_and_release(void)
{
	fresh();
	t_lock(&a, 0), t_lock(&b, 0), t_unlock(&b), t_unlock(&a);
	/* Against the order, but a trylock never waits: no edge, no report. */
	t_lock(&b, 0);
	CHECK(t_trylock(&a));
	CHECK_EQ(lockdep_reports(), 0, "a trylock adds no order");
	/* ...but it is held: what is taken under it is ordered after it (a -> c). */
	t_lock(&c, 0), t_unlock(&c), t_unlock(&a), t_unlock(&b);
	t_lock(&c, 0), t_lock(&a, 0), t_unlock(&a), t_unlock(&c);
	CHECK_EQ(lockdep_reports(), 1, "a lock taken under a trylock is ordered after it");

	fresh();
	t_unlock(&a);
	CHECK_EQ(lockdep_reports(), 1, "releasing a lock not held");
	CHECK(report_says("bad unlock: cpu 0 releases 'test:a'", NULL));
}

static char last_line[512];
static void keep_line(const char *line)
{
	snprintf(last_line, sizeof(last_line), "%s", line);
	printf("%s\n", line);
}

static struct lock_class_key many_keys[LOCKDEP_CLASSES];

/* The @i-th of many locks, each of a class of its own (a key each). */
static struct t_lock *many_lock(unsigned i)
{
	static struct t_lock many[LOCKDEP_CLASSES];

	many_keys[i].name = "test:many";
	lockdep_init_lock(&many[i], &many_keys[i]);
	return &many[i];
}

/*
 * Full tables: one line naming the table and its size, the checker off,
 * and that line a report (counted, kept): a run that stops being checked
 * fails.  The report is printed after the graph lock is released.
 */
static void test_tables_full(void)
{
	host_set_log_hook(keep_line);
	fresh();
	for (unsigned i = 0; i <= LOCKDEP_DEPTH; i++)
		t_lock(many_lock(i), 0);
	CHECK(strstr(last_line, "held-lock stack (per CPU) table is full (16 entries"), "%s",
	      last_line);
	CHECK(!lockdep_enabled(), "a full table switches the checker off");
	CHECK_EQ(lockdep_reports(), 1, "a full table is a report");
	CHECK(report_says("checking stopped: the held-lock stack (per CPU) table is full", NULL));
	for (unsigned i = 0; i <= LOCKDEP_DEPTH; i++)
		t_unlock(many_lock(i));
	CHECK_EQ(lockdep_reports(), 1, "the run goes on, unchecked");

	fresh();
	for (unsigned i = 0; i < LOCKDEP_CLASSES && lockdep_enabled(); i++)
		t_lock(many_lock(i), 0), t_unlock(many_lock(i));
	CHECK(strstr(last_line, "the class table is full (511 entries"), "%s", last_line);
	CHECK(!lockdep_enabled());
	CHECK_EQ(lockdep_reports(), 1, "a full class table is a report");

	/* lockdep.classes=: a small table, filled on purpose; out of range refused. */
	CHECK(!lockdep_set_class_limit(LOCKDEP_CLASSES_MIN - 1), "below the minimum");
	CHECK(!lockdep_set_class_limit(LOCKDEP_CLASSES + 1), "above the table");
	CHECK(lockdep_set_class_limit(LOCKDEP_CLASSES_MIN + 1), "4 usable classes");
	fresh(); /* 7 classes of this file: the 5th fills it */
	CHECK(!lockdep_enabled(), "fresh's classes fill a 4-class table");
	CHECK(strstr(last_line, "the class table is full (4 entries"), "%s", last_line);
	CHECK_EQ(lockdep_stats().classes, 4);
	CHECK(lockdep_stats().stopped && strcmp(lockdep_stats().stopped, "class") == 0);
	CHECK(lockdep_set_class_limit(LOCKDEP_CLASSES), "back to the whole table");

	/* 100 classes taken in every ordered pair: 4950 edges > LOCKDEP_EDGES. */
	fresh();
	for (unsigned i = 0; i < 100 && lockdep_enabled(); i++)
		for (unsigned j = i + 1; j < 100 && lockdep_enabled(); j++) {
			t_lock(many_lock(i), 0), t_lock(many_lock(j), 0);
			t_unlock(many_lock(j)), t_unlock(many_lock(i));
		}
	{
		char want[64];

		snprintf(want, sizeof(want), "the edge table is full (%u entries", LOCKDEP_EDGES);
		CHECK(strstr(last_line, want), "%s", last_line);
	}
	CHECK_EQ(lockdep_reports(), 1,
		 "an order with no cycle, however large: only the full table");
	host_set_log_hook(NULL);
}

/* The one site of the never-initialised locks below. */
static __attribute__((noinline)) void take_here(struct t_lock *l)
{
	t_lock(l, 0);
	t_unlock(l);
}

/*
 * Locks in run-time memory never initialised: one report and one class per
 * site, however many; a static lock with no init gets a class of its own,
 * silently (as Linux keys a static lock by its address).
 */
static void test_uninitialised(void)
{
	struct t_lock *heap = calloc(64, sizeof(*heap));
	static struct t_lock still;
	unsigned classes;

	fresh();
	classes = lockdep_stats().classes;
	for (unsigned i = 0; i < 64; i++)
		take_here(&heap[i]);
	CHECK_EQ(lockdep_reports(), 1, "64 zeroed locks at one site: one report");
	CHECK(report_says("uninitialised lock: cpu 0 takes lock", "never given a class", "uninit@",
			  NULL));
	CHECK_EQ(lockdep_stats().classes, classes + 1, "one class for the site");
	t_lock(&heap[0], 0), t_unlock(&heap[0]);
	CHECK_EQ(lockdep_reports(), 2, "another site: its own report");
	take_here(&still);
	CHECK_EQ(lockdep_reports(), 2, "a static lock: no report");
	CHECK_EQ(lockdep_stats().classes, classes + 3, "and a class of its own");
	free(heap);
}

/* Memory freed holding a held lock; a lock held when a test ends: both with their site. */
static void test_held_checks(void)
{
	struct t_lock *heap = calloc(4, sizeof(*heap));

	fresh();
	lockdep_init_lock(&heap[2], &key_a);
	t_lock(&b, 0);
	t_lock(&heap[2], 0);
	lockdep_check_free(heap, 2 * sizeof(*heap), LOCKDEP_SITE());
	CHECK_EQ(lockdep_reports(), 0, "a free beside the held lock");
	lockdep_check_free(heap, 4 * sizeof(*heap), LOCKDEP_SITE());
	CHECK_EQ(lockdep_reports(), 1, "a free of the held lock's memory");
	CHECK(report_says("held lock freed: cpu 0 frees", "holds 'test:a'", "taken at", NULL));
	free(heap);
	CHECK_EQ(lockdep_check_none_held("test_held_checks"), 1, "b still held");
	CHECK_EQ(lockdep_reports(), 2);
	CHECK(report_says("held past the end: cpu 0 still holds 1 lock(s) at the end of "
			  "test_held_checks",
			  "held: 'test:b'", NULL));
	CHECK_EQ(lockdep_check_none_held("again"), 0, "the stack was emptied");
	CHECK_EQ(lockdep_reports(), 2);
}

/*
 * A report made while this CPU holds the print lock (the console's, in the
 * kernel) is kept and printed at its release: printing then would wait for
 * the lock the CPU holds.  Counted at once all the same.
 */
static void test_print_lock(void)
{
	static struct t_lock print;

	host_set_log_hook(keep_line);
	fresh();
	lockdep_set_print_lock(&print);
	last_line[0] = '\0';
	t_lock(&print, 0);
	t_unlock(&a); /* not held: a report */
	CHECK_EQ(lockdep_reports(), 1, "counted under the print lock");
	CHECK_EQ(last_line[0], '\0', "not printed while the print lock is held: %s", last_line);
	t_unlock(&print);
	CHECK(strstr(last_line, "bad unlock: cpu 0 releases 'test:a'"), "printed at release: %s",
	      last_line);
	lockdep_set_print_lock(NULL);
	host_set_log_hook(NULL);
}

/* Four CPUs at once, each nesting a, b, c in order at random depths: silent, and race-free. */
static void *consistent(void *arg)
{
	struct t_lock *order[] = {&a, &b, &c};
	unsigned cpu = (unsigned)(uintptr_t)arg, seed = cpu + 1;

	host_set_cpu_id(cpu);
	for (int i = 0; i < 20000; i++) {
		unsigned from = (seed = seed * 1103515245u + 12345u) >> 16 & 1;

		for (unsigned k = from; k < 3; k++)
			t_lock(order[k], 0);
		for (unsigned k = 3; k-- > from;)
			t_unlock(order[k]);
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t t[4];

	fresh();
	host_set_cpu_count(4);
	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, consistent, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(lockdep_reports(), 0, "consistent orders from 4 CPUs");
	CHECK_EQ(lockdep_stats().edges, 3, "a->b, a->c, b->c");
	host_set_cpu_count(1);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "-report") == 0) {
		/* For tools/tests/test_lockdep_decode.py: main's address, then one report. */
		printf("main at %#lx\n", (unsigned long)(uintptr_t)&main);
		test_abba();
		return check_exit("test_lockdep -report");
	}
	test_abba();
	test_sites();
	test_three_cycle();
	test_self();
	test_same_class();
	test_trylock_and_release();
	test_tables_full();
	test_uninitialised();
	test_held_checks();
	test_print_lock();
	test_threads();
	return check_exit("test_lockdep");
}
