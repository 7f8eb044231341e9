// SPDX-License-Identifier: MIT
/*
 * lockdep.c - the checker of lockdep.h: classes, the lock map, the held
 * stacks, acquire and release.  The graph of orders and the reports are in
 * lockdep_graph.c (lockdep_impl.h joins them).
 *
 * Concurrency: each CPU's held stack is touched by that CPU alone.  The
 * lock map and the edge set are read without a lock and written under the
 * checker's own graph lock (a flag, not a spinlock_t: the checker runs
 * inside spin_lock), and entries are never removed while the checker runs,
 * so a reader sees an entry either whole or not at all.  So the common
 * acquisition, whose orders are all known, takes no lock and writes no
 * shared line.  A CPU inside the checker marks itself busy: a lock taken
 * meanwhile on that CPU (the console's, by a report) is not checked, which
 * also keeps the checker from entering itself.
 */
#include "lockdep.h"

#include "atomic.h"
#include "lockdep_impl.h"
#include "platform.h"
#include "spinlock.h"
#include "string.h"

struct ld_state ld;
struct ld_cpu ld_cpus[MAX_CPUS];

/* The map's entries: the address's low 48 bits, the class above them; 0 is empty. */
#define LD_ADDR_BITS 48
#define LD_ADDR_MASK ((1ull << LD_ADDR_BITS) - 1)

_Static_assert((LOCKDEP_LOCKS & (LOCKDEP_LOCKS - 1)) == 0, "the lock map's size is a power of two");
_Static_assert(LOCKDEP_CLASSES < 65536, "a class must fit the map entry's 16 bits");

/*
 * The switches: lockdep=, lockdep.panic=, lockdep.classes= and the console
 * lock that reports print under.  They are set before the APs start or by
 * the runner between tests, with no lock held, so plain stores suffice for
 * all but `on`, which a CPU inside the checker may clear (ld_table_full).
 *
 * The switch is kept twice: here for the checker, and in the lock layer's
 * dispatch byte (spin_check_set) that spin_lock tests anyway, so that while
 * off it costs the locks no test of their own.
 */
void lockdep_set(bool on)
{
	atomic_store8(&ld.on, on ? 1 : 0);
	spin_check_set(on);
}

bool lockdep_enabled(void)
{
	return atomic_load8(&ld.on) != 0;
}

void lockdep_set_panic(bool panic)
{
	ld.panic = panic;
}

bool lockdep_set_class_limit(unsigned n)
{
	if (n < LOCKDEP_CLASSES_MIN || n > LOCKDEP_CLASSES)
		return false;
	ld.class_limit = n;
	return true;
}

void lockdep_set_print_lock(const void *lock)
{
	ld.print_lock = lock;
}

/* The classes usable, class 0 ("none") counted: lockdep.classes= or the whole table. */
static unsigned ld_class_limit(void)
{
	return ld.class_limit ? ld.class_limit : LOCKDEP_CLASSES;
}

/*
 * A full table.  The tables are fixed arrays (lib/lockdep_tables.h), since
 * the checker runs inside spin_lock and may not allocate.  When one fills,
 * the checker could only go on with a graph it knows to be incomplete, and
 * a report from an incomplete graph would be a guess: so it stops, once,
 * and says so as a report, which fails the test that filled it.
 *
 * Only marks the table and this CPU: the callers may hold the graph lock,
 * so the report (which takes it, and prints) waits for ld_leave.
 */
void ld_table_full(const char *table, unsigned size)
{
	if (!atomic_xchg8(&ld.on, 0))
		return; /* said once */
	/*
	 * The locks stop calling the checker, unless this CPU holds the print
	 * lock: then its report waits for lockdep_released, which the
	 * checked unlock path alone calls, and which turns checking off.
	 */
	if (!ld_cpus[platform_cpu_id()].holds_print_lock)
		spin_check_set(false);
	ld.stopped = table;
	ld.stopped_size = size;
	ld_cpus[platform_cpu_id()].stop_pending = true;
}

/* The report of a full table: the checker stopped, which fails the test that was running. */
static void ld_report_stopped(void)
{
	struct ld_text t = {0};

	ld_say(&t,
	       "checking stopped: the %s table is full (%u entries, lib/lockdep_tables.h or "
	       "lockdep.classes=): lock orders are not checked for the rest of the run",
	       ld.stopped, ld.stopped_size);
	ld_graph_lock();
	ld_report_keep(&t);
	ld_graph_unlock();
	ld_report_out(&t, "a full table stopped the checker");
}

/*
 * The checker's graph lock: a byte, not a spinlock_t, because the checker
 * runs inside spin_lock and a lock of the lock layer would check itself.
 * Its holders only add an entry or print a report, so the wait is bounded:
 * a holder stuck for LD_GRAPH_WAIT_S is a bug in the checker, and a panic
 * naming the CPU says more than a hang.  The clock is first read after
 * LD_GRAPH_CLOCK_EVERY turns, so an uncontended take never reads it.
 */
void ld_graph_lock(void)
{
	uint64_t start = 0;

	for (unsigned spins = 1; atomic_xchg8(&ld.graph_lock, 1); spins++) {
		platform_relax();
		if (spins % LD_GRAPH_CLOCK_EVERY != 0)
			continue;
		if (!start)
			start = platform_now_ns();
		else if (platform_now_ns() - start > LD_GRAPH_WAIT_NS)
			platform_panic(
			    "lockdep: cpu %u waited over %u s for the checker's graph lock",
			    platform_cpu_id(), LD_GRAPH_WAIT_S);
	}
}

void ld_graph_unlock(void)
{
	atomic_store8(&ld.graph_lock, 0);
}

/*
 * The lock map: which class each lock address belongs to, as an open-
 * addressed table of single 64-bit words (address and class together), so
 * a reader needs no lock: one atomic load shows an entry whole or empty.
 * Entries are only added, under the graph lock, and never moved, so a
 * probe that meets an empty slot knows the address is not there.
 */

/* Fibonacci hashing: the top bits of the product spread lock addresses that differ in few bits. */
static unsigned ld_map_hash(uint64_t addr)
{
	return (unsigned)((addr * 0x9e3779b97f4a7c15ull) >> 40) & (LOCKDEP_LOCKS - 1);
}

/* The class the map gives @lock, or 0. */
static unsigned ld_map_find(const void *lock)
{
	uint64_t addr = (uintptr_t)lock & LD_ADDR_MASK;

	for (unsigned i = ld_map_hash(addr), n = 0; n < LOCKDEP_LOCKS;
	     n++, i = (i + 1) & (LOCKDEP_LOCKS - 1)) {
		uint64_t e = atomic_load64(&ld.map[i]);

		if (e == 0)
			return 0;
		if ((e & LD_ADDR_MASK) == addr)
			return (unsigned)(e >> LD_ADDR_BITS);
	}
	return 0;
}

/* Under the graph lock: @lock's class is @cls from now on.  False when the map is full. */
static bool ld_map_set(const void *lock, unsigned cls)
{
	uint64_t addr = (uintptr_t)lock & LD_ADDR_MASK;

	for (unsigned i = ld_map_hash(addr), n = 0; n < LOCKDEP_LOCKS;
	     n++, i = (i + 1) & (LOCKDEP_LOCKS - 1)) {
		uint64_t e = atomic_load64(&ld.map[i]);

		if (e == 0 || (e & LD_ADDR_MASK) == addr) {
			ld.nlocks += e == 0;
			atomic_store64(&ld.map[i], addr | (uint64_t)cls << LD_ADDR_BITS);
			return true;
		}
	}
	ld_table_full("lock", LOCKDEP_LOCKS);
	return false;
}

/*
 * Classes.  A class is what the order graph is about: every lock of a
 * kind (all inodes' locks, say) shares one, given by the static
 * lock_class_key its initialiser names, so one ABBA between two inodes
 * is reported however many inodes there are.  Class 0 means "none": the
 * class count published by its atomic store comes after the entry is
 * written, so a reader that sees the count sees the class whole.
 */

/* Under the graph lock: a new class, or 0 when the table is full. */
static unsigned ld_class_new(const char *name, const void *anon, uintptr_t site, unsigned base,
			     unsigned sub)
{
	unsigned cls = ld.nclasses + 1;

	if (cls >= ld_class_limit()) {
		ld_table_full("class", ld_class_limit() - 1);
		return 0;
	}
	ld.classes[cls] = (struct ld_class){.name = name,
					    .anon = anon,
					    .site = site,
					    .base = (uint16_t)(base ? base : cls),
					    .sub = (uint8_t)sub};
	atomic_store32(&ld.nclasses, cls);
	return cls;
}

/* Under the graph lock: @key's class (subclass 0), made on first use. */
static unsigned ld_key_class(struct lock_class_key *key)
{
	unsigned cls = key->base;

	/* A key from before a reset (tests) names a class that is not its own any more. */
	if (cls && cls <= ld.nclasses && ld.classes[cls].key == key)
		return cls;
	cls = ld_class_new(key->name, NULL, 0, 0, 0);
	if (cls) {
		ld.classes[cls].key = key;
		key->base = (uint16_t)cls;
	}
	return cls;
}

/*
 * Entering and leaving the checker.  The busy mark is per CPU and only
 * this CPU reads it, so a compiler barrier orders it: an interrupt on this
 * CPU that takes a lock then sees busy and is not checked, which is what
 * keeps the checker from calling itself through the console's lock.
 */

/* This CPU's state, marked busy; NULL if the checker is off or already running here. */
static struct ld_cpu *ld_enter(void)
{
	struct ld_cpu *c;

	if (!lockdep_enabled())
		return NULL;
	c = &ld_cpus[platform_cpu_id()];
	if (c->busy)
		return NULL;
	c->busy = true;
	atomic_compiler_barrier();
	return c;
}

/* Out of the checker: first the report of a table this CPU filled, with no graph lock held. */
static void ld_leave(struct ld_cpu *c)
{
	if (c->stop_pending) {
		c->stop_pending = false;
		ld_report_stopped();
	}
	atomic_compiler_barrier();
	c->busy = false;
}

void lockdep_init_lock(const void *lock, struct lock_class_key *key)
{
	struct ld_cpu *c = ld_enter();
	unsigned cls;

	if (!c)
		return;
	ld_graph_lock();
	cls = ld_key_class(key);
	if (cls)
		ld_map_set(lock, cls);
	ld_graph_unlock();
	ld_leave(c);
}

/*
 * The class @lock is taken with at @site under @subclass, made on first
 * use; a subclass is a class of its own.  A static lock with no class
 * (SPINLOCK_INIT, no spin_init) gets a class of its own, named by its
 * address, as Linux's lockdep keys a static lock by its address.  Any
 * other lock with no class (never initialised: zeroed heap memory) takes
 * the class of the site that takes it: one class and one report per site,
 * however many such locks it takes, since a class per lock would fill the
 * table one instance at a time.  The site is the map's key for that class
 * (code and lock addresses never meet).  0 once a table is full.
 */
static unsigned ld_class_of(const void *lock, unsigned subclass, uintptr_t site)
{
	unsigned base = ld_map_find(lock), cls;
	bool is_static = false, uninit = false;
	struct ld_text t;

	if (!base) {
		is_static = platform_static_data(lock);
		if (!is_static)
			base = ld_map_find((const void *)site);
	}
	if (base && subclass == 0)
		return base;
	if (base && (cls = atomic_load16(&ld.classes[base].subs[subclass])) != 0)
		return cls;
	ld_graph_lock();
	base = ld_map_find(lock);
	if (!base && !is_static)
		base = ld_map_find((const void *)site);
	if (!base && is_static) {
		base = ld_class_new(NULL, lock, 0, 0, 0);
		if (base && !ld_map_set(lock, base))
			base = 0;
	} else if (!base) {
		base = ld_class_new(NULL, NULL, site, 0, 0);
		if (base && !ld_map_set((const void *)site, base))
			base = 0;
		uninit = base != 0;
	}
	cls = base;
	if (base && subclass) {
		cls = ld.classes[base].subs[subclass];
		if (!cls) {
			cls = ld_class_new(ld.classes[base].name, ld.classes[base].anon,
					   ld.classes[base].site, base, subclass);
			if (cls)
				atomic_store16(&ld.classes[base].subs[subclass], (uint16_t)cls);
		}
	}
	if (uninit) {
		char a[64];

		t.used = 0;
		t.text[0] = '\0';
		ld_say(&t,
		       "uninitialised lock: cpu %u takes lock %p at %pB, which was never given a "
		       "class (spin_init): zeroed memory?  Every such lock taken here is class "
		       "'%s' from now on, reported once",
		       platform_cpu_id(), lock, (void *)site, ld_name(base, a, sizeof(a)));
		ld_report_keep(&t);
	}
	ld_graph_unlock();
	if (uninit)
		ld_report_out(&t, "a lock never initialised");
	return cls;
}

/*
 * The held stack and the acquisition.  Each CPU keeps the locks it holds,
 * in the order taken, touched by that CPU alone.  A new lock is checked
 * against each of them (ld_check_order, lockdep_graph.c): that is where a
 * new order is learned or a reversed one reported.  A trylock is pushed
 * but not checked: it cannot wait, so it cannot close a deadlock cycle.
 */

/* Drop entry @i of @c's held stack, keeping the others' order. */
static void ld_held_drop(struct ld_cpu *c, unsigned i)
{
	for (unsigned j = i + 1; j < c->n; j++)
		c->held[j - 1] = c->held[j];
	c->n--;
}

void lockdep_acquire(const void *lock, unsigned subclass, bool trylock, uintptr_t site)
{
	struct ld_cpu *c = ld_enter();
	struct ld_held now = {.lock = lock, .site = site, .trylock = trylock};
	unsigned cpu = platform_cpu_id();

	if (!c)
		return;
	/* A trylock has the word already: its reports wait for the release. */
	if (trylock && lock == ld.print_lock)
		c->holds_print_lock = true;
	if (subclass >= LOCKDEP_SUBCLASSES) {
		ld_report_subclass(cpu, lock, subclass, site);
		subclass = 0;
	}
	now.cls = (uint16_t)ld_class_of(lock, subclass, site);
	if (!now.cls)
		goto out;
	if (c->n == LOCKDEP_DEPTH) {
		ld_table_full("held-lock stack (per CPU)", LOCKDEP_DEPTH);
		goto out;
	}
	/* Newest first: the report names the innermost lock the order is against. */
	for (unsigned i = c->n; !trylock && i-- > 0 && lockdep_enabled();) {
		const struct ld_held *h = &c->held[i];

		if (h->lock == lock)
			ld_report_self(cpu, h, &now);
		else if (h->cls == now.cls)
			ld_report_same_class(cpu, h, &now);
		else
			ld_check_order(cpu, h, &now);
	}
	c->held[c->n++] = now;
	/* The deepest nesting seen, for the docs' table: any CPU may raise it. */
	for (uint32_t seen = atomic_load32(&ld.max_depth); c->n > seen;)
		if (atomic_cmpxchg32(&ld.max_depth, &seen, c->n))
			break;
out:
	ld_leave(c);
	/*
	 * A blocking lock's reports are out: they printed before the word was
	 * taken.  Not once the checker stopped: its unlock will not call here.
	 */
	if (lock == ld.print_lock && lockdep_enabled())
		c->holds_print_lock = true;
}

/*
 * Releases.  Spinlocks may be dropped in any order, so the stack is
 * searched from the top; a release of a lock not held is a report, since
 * it means a path unlocked twice or unlocked another CPU's lock.
 */
void lockdep_release(const void *lock, uintptr_t site)
{
	struct ld_cpu *c = ld_enter();

	if (!c)
		return;
	for (unsigned i = c->n; i-- > 0;) {
		if (c->held[i].lock == lock) {
			/* Spinlocks may be released in any order: close the gap, keep the order. */
			ld_held_drop(c, i);
			ld_leave(c);
			return;
		}
	}
	ld_report_not_held(platform_cpu_id(), lock, ld_map_find(lock), site);
	ld_leave(c);
}

/*
 * The print lock's release: the one point where this CPU's deferred
 * reports can print, since they were kept while it held the console's lock
 * and printing then would have deadlocked on it.
 */
void lockdep_released(const void *lock)
{
	struct ld_cpu *c = &ld_cpus[platform_cpu_id()];

	if (lock != ld.print_lock || !c->holds_print_lock || c->busy)
		return;
	c->holds_print_lock = false;
	/* Busy while printing: the print lock's own acquisitions are not checked meanwhile. */
	c->busy = true;
	atomic_compiler_barrier();
	ld_print_deferred();
	if (!lockdep_enabled())
		spin_check_set(false); /* a table filled under the print lock (ld_table_full) */
	atomic_compiler_barrier();
	c->busy = false;
}

/*
 * The checks a caller asks for at a point in time rather than at a lock:
 * memory freed with a held lock in it (the heap calls this), and a test or
 * a boot step that ends with a lock still held (the runner calls this).
 * Both drop the offending entries after the report, so one mistake is
 * reported once and not again at every later acquisition.
 */
void lockdep_check_free(const void *mem, size_t size, uintptr_t site)
{
	struct ld_cpu *c = ld_enter();
	uintptr_t start = (uintptr_t)mem;

	if (!c)
		return;
	for (unsigned i = c->n; i-- > 0;) {
		const struct ld_held *h = &c->held[i];
		struct ld_text t = {0};
		char a[64];

		if ((uintptr_t)h->lock < start || (uintptr_t)h->lock - start >= size)
			continue;
		ld_graph_lock();
		ld_say(&t,
		       "held lock freed: cpu %u frees %p (%zu bytes) at %pB, and holds '%s' (lock "
		       "%p) in it, taken at %pB",
		       platform_cpu_id(), mem, size, (void *)site, ld_name(h->cls, a, sizeof(a)),
		       h->lock, (void *)h->site);
		ld_report_keep(&t);
		ld_graph_unlock();
		ld_held_drop(c, i);
		ld_report_out(&t, "memory freed with a lock in it held");
	}
	ld_leave(c);
}

unsigned lockdep_check_none_held(const char *what)
{
	struct ld_cpu *c = ld_enter();
	struct ld_text t = {0};
	unsigned n;

	if (!c)
		return 0;
	n = c->n;
	if (n) {
		char a[64];

		ld_graph_lock();
		ld_say(&t, "held past the end: cpu %u still holds %u lock(s) at the end of %s",
		       platform_cpu_id(), n, what);
		for (unsigned i = 0; i < n; i++)
			ld_say(&t, "  held: '%s' (lock %p) taken at %pB",
			       ld_name(c->held[i].cls, a, sizeof(a)), c->held[i].lock,
			       (void *)c->held[i].site);
		ld_report_keep(&t);
		ld_graph_unlock();
		c->n = 0;
		ld_report_out(&t, "a lock held past the end of a test");
	}
	ld_leave(c);
	return n;
}

/*
 * The figures of the `# lockdep:` summary line, and the reset the host
 * tests use between cases.  The reset keeps the switches, which belong to
 * the command line, not to the graph.
 */
struct lockdep_stats lockdep_stats(void)
{
	return (struct lockdep_stats){.classes = atomic_load32(&ld.nclasses),
				      .edges = atomic_load32(&ld.nedges),
				      .locks = ld.nlocks,
				      .max_depth = atomic_load32(&ld.max_depth),
				      .class_limit = ld_class_limit() - 1,
				      .searches = ld.searches,
				      .stopped = ld.stopped,
				      .stopped_size = ld.stopped_size};
}

void lockdep_reset(void)
{
	uint8_t on = ld.on;
	bool panic = ld.panic;
	uint32_t class_limit = ld.class_limit;
	const void *print_lock = ld.print_lock;

	memset(ld_cpus, 0, sizeof(ld_cpus));
	memset(&ld, 0, sizeof(ld));
	ld.on = on;
	ld.panic = panic;
	ld.class_limit = class_limit;
	ld.print_lock = print_lock;
}
