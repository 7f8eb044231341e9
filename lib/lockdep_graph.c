// SPDX-License-Identifier: MIT
/*
 * lockdep_graph.c - the orders between classes, the cycle search and the
 * reports of lockdep.h.
 *
 * An edge A -> B says "B was taken while A was held", recorded once with
 * where each was taken and on which CPU.  A cycle A -> B -> ... -> A means
 * that CPUs each following one of those orders can wait for each other
 * for ever; it closes the moment its last edge is added, so only a new
 * edge needs a search: a breadth-first walk from B for A, over at most
 * every edge once.  The edge that closes a cycle is still recorded, so the
 * same order is reported once, not on every acquisition.
 *
 * Report lines start with "lockdep:" and give every acquisition as
 * "'class' at 0xADDR": the address is the return address of the lock call,
 * which tools/log/lockdep_decode.py turns into file:line.
 */
#include "atomic.h"
#include "lockdep_impl.h"
#include "platform.h"
#include "printf.h"
#include "string.h"

_Static_assert((LD_EDGE_SLOTS & (LD_EDGE_SLOTS - 1)) == 0, "edge slots: a power of two");

/*
 * The edge set: the orders already known, as a hash set of 32-bit keys
 * (from << 16 | to) beside the edge list that holds their details.  Why a
 * second structure: the common acquisition asks only "is this order
 * known?", and a set of single words answers that with a few atomic loads
 * and no lock, where the edge list would need a walk under the graph lock.
 * The set has twice the edge table's slots (LD_EDGE_SLOTS), so the edge
 * table is full first and a probe always ends at an empty slot.
 */

static unsigned ld_edge_slot(uint32_t key)
{
	return (unsigned)((key * 0x9e3779b1u) >> 16) & (LD_EDGE_SLOTS - 1);
}

/* Whether the order @key (from << 16 | to) is known; no lock (entries are never removed). */
static bool ld_edge_known(uint32_t key)
{
	for (unsigned i = ld_edge_slot(key), n = 0; n < LD_EDGE_SLOTS;
	     n++, i = (i + 1) & (LD_EDGE_SLOTS - 1)) {
		uint32_t e = atomic_load32(&ld.edge_set[i]);

		if (e == key)
			return true;
		if (e == 0)
			return false;
	}
	return false;
}

/* Under the graph lock: remember @key.  The edge table fills first, so a slot is free. */
static void ld_edge_remember(uint32_t key)
{
	unsigned i = ld_edge_slot(key);

	while (atomic_load32(&ld.edge_set[i]) != 0)
		i = (i + 1) & (LD_EDGE_SLOTS - 1);
	atomic_store32(&ld.edge_set[i], key);
}

/*
 * Under the graph lock: add the edge; false when the table is full.  The
 * edge is written whole before the count that publishes it, and the set
 * learns its key last, so a lock-free reader that finds the key finds the
 * edge too.
 */
static bool ld_edge_add(unsigned cpu, const struct ld_held *held, const struct ld_held *now)
{
	unsigned n = ld.nedges;
	struct ld_class *from = &ld.classes[held->cls];

	if (n == LOCKDEP_EDGES) {
		ld_table_full("edge", LOCKDEP_EDGES);
		return false;
	}
	ld.edges[n] = (struct ld_edge){.from = held->cls,
				       .to = now->cls,
				       .cpu = (uint16_t)cpu,
				       .next_from = from->first_edge,
				       .from_site = held->site,
				       .to_site = now->site};
	from->first_edge = n + 1;
	atomic_store32(&ld.nedges, n + 1);
	ld_edge_remember((uint32_t)held->cls << 16 | now->cls);
	return true;
}

/*
 * The cycle search.  Breadth-first, so the path a report prints is a
 * shortest one: the fewest orders a reader must check.  It uses the
 * tables' own queue and via arrays, not the stack, since it runs inside
 * spin_lock on whatever stack the caller had; the graph lock makes them
 * this search's alone.
 *
 * Under the graph lock: a path of edges @from -> ... -> @to, as the index + 1
 * of its first edge, whose chain continues through ld.via; 0 if none.
 * ld.via[c] is the edge that reached class c + 1.
 */
static uint32_t ld_find_path(unsigned from, unsigned to)
{
	unsigned head = 0, tail = 0;

	memset(ld.via, 0, sizeof(ld.via));
	ld.searches++;
	ld.queue[tail++] = (uint16_t)from;
	ld.via[from] = UINT32_MAX; /* the start: reached by no edge */
	while (head < tail) {
		unsigned c = ld.queue[head++];

		for (uint32_t e = ld.classes[c].first_edge; e; e = ld.edges[e - 1].next_from) {
			unsigned next = ld.edges[e - 1].to;

			if (ld.via[next])
				continue;
			ld.via[next] = e;
			if (next == to)
				return e;
			ld.queue[tail++] = (uint16_t)next;
		}
	}
	return 0;
}

/*
 * Reports.  A report is written into a text (ld_say), kept as the last
 * report for the tests that plant one (ld_report_keep), then printed
 * (ld_report_out).  Why the three steps: a report may be made while this
 * CPU holds the console's lock, whose printing would wait for itself; then
 * the text waits in ld.deferred until lockdep_released.  The count of
 * reports rises either way, so a report that could not be printed still
 * fails the test.
 *
 * @cls's name into @buf: "name", "name/2" for a subclass, "lock@ADDR" for a
 * static lock's own, "uninit@SITE" for a site's.
 */
const char *ld_name(unsigned cls, char *buf, size_t size)
{
	const struct ld_class *c = &ld.classes[cls];

	if (c->name && c->sub)
		ksnprintf(buf, size, "%s/%u", c->name, c->sub);
	else if (c->name)
		ksnprintf(buf, size, "%s", c->name);
	else if (c->anon && c->sub)
		ksnprintf(buf, size, "lock@%p/%u", c->anon, c->sub);
	else if (c->anon)
		ksnprintf(buf, size, "lock@%p", c->anon);
	else if (c->sub)
		ksnprintf(buf, size, "uninit@%#lx/%u", (unsigned long)c->site, c->sub);
	else
		ksnprintf(buf, size, "uninit@%#lx", (unsigned long)c->site);
	return buf;
}

void ld_say(struct ld_text *t, const char *fmt, ...)
{
	char line[256];
	size_t n;

	KSNPRINTF_ARGS(line, fmt);
	n = strlen(line);
	if (t->used + n + 2 > sizeof(t->text))
		return; /* the first lines say what happened; the kept text is for tests */
	memcpy(t->text + t->used, line, n);
	t->used += n;
	t->text[t->used++] = '\n';
	t->text[t->used] = '\0';
}

void ld_report_keep(const struct ld_text *t)
{
	atomic_xadd64(&ld.reports, 1);
	memcpy(ld.report, t->text, t->used + 1);
}

/* Each line of @text with "lockdep: " before it. */
static void ld_print(const char *text)
{
	for (const char *line = text; *line;) {
		const char *end = line;

		while (*end && *end != '\n')
			end++;
		platform_log("lockdep: %.*s", (int)(end - line), line);
		line = *end ? end + 1 : end;
	}
}

/* Whether this CPU holds the print lock's word: printing now would wait for itself. */
static bool ld_holds_print_lock(void)
{
	return ld_cpus[platform_cpu_id()].holds_print_lock;
}

void ld_report_out(const struct ld_text *t, const char *what)
{
	if (!ld_holds_print_lock()) {
		ld_print(t->text);
	} else if (!atomic_xchg8(&ld.deferred_busy, 1)) {
		memcpy(ld.deferred, t->text, t->used + 1);
		ld.deferred_cpu = platform_cpu_id();
	} else {
		atomic_xadd64(&ld.unprinted, 1); /* counted all the same: the test fails */
	}
	if (ld.panic)
		platform_panic("lockdep: %s (lockdep.panic=on)", what);
}

void ld_print_deferred(void)
{
	uint64_t unprinted;

	if (!atomic_load8(&ld.deferred_busy) || ld.deferred_cpu != platform_cpu_id())
		return;
	ld_print(ld.deferred);
	unprinted = atomic_xchg64(&ld.unprinted, 0);
	if (unprinted)
		platform_log("lockdep: %llu more report(s) made under the print lock were counted "
			     "but not kept",
			     (unsigned long long)unprinted);
	atomic_store8(&ld.deferred_busy, 0);
}

/* The cycle's edges from @cls back to @to, each on a line of its own, in order. */
static void ld_say_path(struct ld_text *t, unsigned from, unsigned to)
{
	uint32_t chain[LOCKDEP_CLASSES];
	unsigned n = 0;
	char a[64], b[64];

	for (unsigned c = to; c != from && n < LOCKDEP_CLASSES; c = ld.edges[ld.via[c] - 1].from)
		chain[n++] = ld.via[c] - 1;
	while (n-- > 0) {
		const struct ld_edge *e = &ld.edges[chain[n]];

		ld_say(t, "  before: cpu %u held '%s' taken at %pB, and took '%s' at %pB", e->cpu,
		       ld_name(e->from, a, sizeof(a)), (void *)e->from_site,
		       ld_name(e->to, b, sizeof(b)), (void *)e->to_site);
	}
}

/*
 * The order check of one (held, now) pair: the cheap question first with
 * no lock (the order is known: nothing to do, the case of nearly every
 * acquisition), then again under the graph lock, since another CPU may
 * have added it meanwhile; only a new order pays for the search.
 */
void ld_check_order(unsigned cpu, const struct ld_held *held, const struct ld_held *now)
{
	uint32_t key = (uint32_t)held->cls << 16 | now->cls;
	struct ld_text t = {0};
	bool cycle;
	char a[64], b[64];

	if (ld_edge_known(key))
		return;
	ld_graph_lock();
	if (ld_edge_known(key)) {
		ld_graph_unlock();
		return;
	}
	/* A path now -> ... -> held, closed by held -> now. */
	cycle = ld_find_path(now->cls, held->cls) != 0;
	if (cycle) {
		ld_say(&t,
		       "possible deadlock: cpu %u takes '%s' while holding '%s', but '%s' was "
		       "taken before '%s' already",
		       cpu, ld_name(now->cls, b, sizeof(b)), ld_name(held->cls, a, sizeof(a)), b,
		       a);
		ld_say(&t, "  now: cpu %u holds '%s' taken at %pB, and takes '%s' at %pB", cpu, a,
		       (void *)held->site, b, (void *)now->site);
		ld_say_path(&t, now->cls, held->cls);
		ld_report_keep(&t);
	}
	ld_edge_add(cpu, held, now);
	ld_graph_unlock();
	if (cycle)
		ld_report_out(&t, "possible deadlock");
}

/*
 * The reports that need no search: a lock taken again by its holder, two
 * locks of one class nested without a subclass, a release of a lock not
 * held, a subclass out of range.  Each takes the graph lock only to keep
 * its text (ld.report is one buffer for every CPU).
 */
void ld_report_self(unsigned cpu, const struct ld_held *held, const struct ld_held *now)
{
	struct ld_text t = {0};
	char a[64];

	ld_graph_lock();
	ld_say(&t,
	       "deadlock: cpu %u takes '%s' (lock %p) again at %pB; it took it at %pB and "
	       "still holds it",
	       cpu, ld_name(now->cls, a, sizeof(a)), now->lock, (void *)now->site,
	       (void *)held->site);
	ld_report_keep(&t);
	ld_graph_unlock();
	ld_report_out(&t, "a lock taken twice by its holder");
}

void ld_report_same_class(unsigned cpu, const struct ld_held *held, const struct ld_held *now)
{
	uint32_t key = (uint32_t)held->cls << 16 | now->cls;
	struct ld_text t = {0};
	char a[64];

	/* Once per class: the self-edge, which no other order uses, marks it reported. */
	if (ld_edge_known(key))
		return;
	ld_graph_lock();
	if (!ld_edge_known(key) && ld_edge_add(cpu, held, now)) {
		ld_name(now->cls, a, sizeof(a));
		ld_say(&t,
		       "possible deadlock: cpu %u nests two locks of class '%s' without a "
		       "subclass (spin_lock_nested)",
		       cpu, a);
		ld_say(&t,
		       "  now: cpu %u holds '%s' (lock %p) taken at %pB, and takes '%s' (lock %p) "
		       "at %pB",
		       cpu, a, held->lock, (void *)held->site, a, now->lock, (void *)now->site);
		ld_report_keep(&t);
		ld_graph_unlock();
		ld_report_out(&t, "same-class nesting without a subclass");
		return;
	}
	ld_graph_unlock();
}

void ld_report_not_held(unsigned cpu, const void *lock, unsigned cls, uintptr_t site)
{
	struct ld_text t = {0};
	char a[64] = "unknown class";

	ld_graph_lock();
	if (cls)
		ld_name(cls, a, sizeof(a));
	ld_say(&t, "bad unlock: cpu %u releases '%s' (lock %p) at %pB, which it does not hold", cpu,
	       a, lock, (void *)site);
	ld_report_keep(&t);
	ld_graph_unlock();
	ld_report_out(&t, "release of a lock not held");
}

void ld_report_subclass(unsigned cpu, const void *lock, unsigned subclass, uintptr_t site)
{
	struct ld_text t = {0};

	ld_graph_lock();
	ld_say(&t,
	       "bad subclass: cpu %u takes lock %p at %pB with subclass %u; subclasses are 0 "
	       "to %u (LOCKDEP_SUBCLASSES): taken as 0",
	       cpu, lock, (void *)site, subclass, LOCKDEP_SUBCLASSES - 1);
	ld_report_keep(&t);
	ld_graph_unlock();
	ld_report_out(&t, "a subclass out of range");
}

uint64_t lockdep_reports(void)
{
	return atomic_load64(&ld.reports);
}

const char *lockdep_last_report(void)
{
	return ld.report;
}
