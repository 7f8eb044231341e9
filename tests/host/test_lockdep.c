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
 * its size, the checker off, the run going on.
 *
 * The locks here are objects the checker sees by address through
 * t_lock/t_unlock, which call it the way spin_lock does: it needs no lock
 * word, and no planted order can hang the test.  test_lockdep_hooks.c goes
 * through the real locks.  "-report" prints the ABBA
 * report and main's address for tools/test_lockdep_decode.py, which
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

/* Full tables: one line naming the table, the checker off, nothing else. */
static void test_tables_full(void)
{
	static uint32_t many[LOCKDEP_CLASSES + 1];

	host_set_log_hook(keep_line);
	fresh();
	for (unsigned i = 0; i <= LOCKDEP_DEPTH; i++)
		t_lock((struct t_lock *)&many[i], 0);
	CHECK(strstr(last_line, "held-lock stack (per CPU) table is full (16 entries"), "%s",
	      last_line);
	CHECK(!lockdep_enabled(), "a full table switches the checker off");
	for (unsigned i = 0; i <= LOCKDEP_DEPTH; i++)
		t_unlock((struct t_lock *)&many[i]);
	CHECK_EQ(lockdep_reports(), 0, "the run goes on, unchecked");

	fresh();
	for (unsigned i = 0; i <= LOCKDEP_CLASSES; i++)
		t_lock((struct t_lock *)&many[i], 0), t_unlock((struct t_lock *)&many[i]);
	CHECK(strstr(last_line, "the class table is full (512 entries"), "%s", last_line);
	CHECK(!lockdep_enabled());

	/* 100 classes taken in every ordered pair: 4950 edges > LOCKDEP_EDGES. */
	fresh();
	for (unsigned i = 0; i < 100 && lockdep_enabled(); i++)
		for (unsigned j = i + 1; j < 100; j++) {
			t_lock((struct t_lock *)&many[i], 0), t_lock((struct t_lock *)&many[j], 0);
			t_unlock((struct t_lock *)&many[j]), t_unlock((struct t_lock *)&many[i]);
		}
	{
		char want[64];

		snprintf(want, sizeof(want), "the edge table is full (%u entries", LOCKDEP_EDGES);
		CHECK(strstr(last_line, want), "%s", last_line);
	}
	CHECK_EQ(lockdep_reports(), 0, "an order with no cycle, however large");
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
		/* For tools/test_lockdep_decode.py: main's address, then one report. */
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
	test_threads();
	return check_exit("test_lockdep");
}
