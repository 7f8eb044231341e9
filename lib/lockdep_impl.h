// SPDX-License-Identifier: MIT
/*
 * lockdep_impl.h - the checker's state, shared by lockdep.c (classes, map,
 * held stacks) and lockdep_graph.c (orders, cycle search, reports) alone.
 */
#ifndef LIB_LOCKDEP_IMPL_H
#define LIB_LOCKDEP_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lockdep.h"
#include "platform.h"

/*
 * The longest wait for the checker's graph lock before it is called a bug,
 * in seconds (the panic names it), and how many turns of the wait pass
 * between two readings of the clock, which costs more than a PAUSE.
 */
#define LD_GRAPH_WAIT_S	     10u
#define LD_GRAPH_WAIT_NS     (LD_GRAPH_WAIT_S * 1000ull * 1000 * 1000)
#define LD_GRAPH_CLOCK_EVERY 4096u

/* Edge-set slots: twice the edges, so probes stay short; a power of two. */
#define LD_EDGE_SLOTS (2 * LOCKDEP_EDGES)

/*
 * A class: a key's (subclass 0), a subclass of one, a static lock's own
 * (@anon, no key), or the class of the never-initialised locks in run-time
 * memory that one site takes (@site, no key).
 */
struct ld_class {
	const char *name; /* the key's; NULL for a static lock's or a site's */
	const void *anon; /* the static lock of a class of its own */
	uintptr_t site;	  /* where never-initialised locks of this class are taken */
	const struct lock_class_key *key;  /* the key whose subclass 0 this is */
	uint16_t base;			   /* the subclass-0 class (itself for subclass 0) */
	uint8_t sub;			   /* the subclass */
	uint16_t subs[LOCKDEP_SUBCLASSES]; /* on a base class: its subclasses' classes */
	uint32_t first_edge;		   /* the newest edge from this class + 1; 0 none */
};

/* An order seen once: @to taken at @to_site while @from (taken at @from_site) was held. */
struct ld_edge {
	uint16_t from, to;
	uint16_t cpu;
	uint32_t next_from; /* the next older edge from the same class + 1; 0 none */
	uintptr_t from_site, to_site;
};

/* One lock a CPU holds. */
struct ld_held {
	const void *lock;
	uintptr_t site; /* where it was taken */
	uint16_t cls;
	bool trylock;
};

/* A CPU's held stack, oldest first; touched by that CPU alone. */
struct ld_cpu {
	struct ld_held held[LOCKDEP_DEPTH];
	unsigned n;
	bool busy;	   /* inside the checker: locks taken now are not checked */
	bool stop_pending; /* this CPU filled a table: reported when it leaves the checker */
	/*
	 * This CPU holds the print lock's word: from a trylock's first report
	 * (the word is already taken) or a blocking lock's return, to
	 * lockdep_released after the real unlock.  The held stack alone
	 * misses both ends: a trylock is pushed after its reports, and a
	 * release pops the lock before its word is written.
	 */
	bool holds_print_lock;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/*
 * A report's text, composed on the reporting CPU's stack: under the graph
 * lock it is counted and kept (ld_report_keep), and only after the lock is
 * released is it printed (ld_report_out), so printing never waits with the
 * graph lock held.
 */
struct ld_text {
	char text[LOCKDEP_REPORT_MAX];
	size_t used;
};

struct ld_state {
	uint8_t on; /* the switch; cleared for good by a full table */
	bool panic;
	uint8_t graph_lock;
	uint32_t class_limit;	/* classes in use at most (lockdep.classes=); 0: LOCKDEP_CLASSES */
	const char *stopped;	/* the table whose filling stopped the checker; NULL: none */
	unsigned stopped_size;	/* its size */
	const void *print_lock; /* the lock platform_log takes (lockdep_set_print_lock) */
	uint8_t deferred_busy;	/* ld.deferred holds a report not yet printed */
	unsigned deferred_cpu;	/* the CPU that holds the print lock and made it */
	uint64_t unprinted;	/* reports made under the print lock while ld.deferred was taken */
	char deferred[LOCKDEP_REPORT_MAX];
	uint32_t nclasses, nedges, nlocks; /* classes and edges: published by release stores */
	uint32_t max_depth;
	uint64_t searches, reports;
	struct ld_class classes[LOCKDEP_CLASSES]; /* [0] unused: class 0 is "none" */
	struct ld_edge edges[LOCKDEP_EDGES];
	uint32_t edge_set[LD_EDGE_SLOTS]; /* from << 16 | to; 0 empty */
	uint64_t map[LOCKDEP_LOCKS];	  /* lock address -> class (lockdep.c) */
	/* The cycle search's work space, under the graph lock. */
	uint32_t via[LOCKDEP_CLASSES]; /* the edge a class was reached by + 1; 0 not yet */
	uint16_t queue[LOCKDEP_CLASSES];
	char report[LOCKDEP_REPORT_MAX];
};

extern struct ld_state ld;
extern struct ld_cpu ld_cpus[MAX_CPUS];

void ld_graph_lock(void);
void ld_graph_unlock(void);

/*
 * A table is full: the checker goes off for good, and the CPU that filled
 * it reports so (one line naming the table and its size, counted as a
 * report) when it leaves the checker, after any graph lock is released.
 */
void ld_table_full(const char *table, unsigned size);

/* Compose a report: a line appended to @t (each is printed with "lockdep: " before it). */
void ld_say(struct ld_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Under the graph lock: count the report and keep its text (lockdep_last_report). */
void ld_report_keep(const struct ld_text *t);

/*
 * With no graph lock held: print @t (deferred while this CPU holds the
 * print lock), then panic naming @what if lockdep.panic= says so.
 */
void ld_report_out(const struct ld_text *t, const char *what);

/* This CPU just made the print lock's word free: print the report kept while it held it. */
void ld_print_deferred(void);

/* @now is being taken while @held is held (different classes): record and check the order. */
void ld_check_order(unsigned cpu, const struct ld_held *held, const struct ld_held *now);

/* The reports (lockdep_graph.c); each then panics if lockdep.panic= says so. */
void ld_report_self(unsigned cpu, const struct ld_held *held, const struct ld_held *now);
void ld_report_same_class(unsigned cpu, const struct ld_held *held, const struct ld_held *now);
void ld_report_not_held(unsigned cpu, const void *lock, unsigned cls, uintptr_t site);
void ld_report_subclass(unsigned cpu, const void *lock, unsigned subclass, uintptr_t site);

/* @cls's name into @buf (lockdep_graph.c). */
const char *ld_name(unsigned cls, char *buf, size_t size);

#endif /* LIB_LOCKDEP_IMPL_H */
