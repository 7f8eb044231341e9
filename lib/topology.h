// SPDX-License-Identifier: MIT
/*
 * topology.h - which CPUs share a core, a last-level cache and a package.
 *
 * Why: a scaling curve bends where its threads start to share a core
 * (SMT), leave a last-level cache group or cross a socket.  Without
 * knowing those boundaries a figure at "2 threads" may mean two
 * hyperthreads of one core or two sockets, and a knee cannot be
 * explained.  One structure, filled by either platform:
 *
 *   kernel   CPUID on every CPU (lib/topology_cpuid.c decodes the leaves
 *            each CPU read of itself: x2APIC levels 0xB/0x1F or AMD's
 *            0x80000026/0x8000001E, cache leaf 4 or 0x8000001D, the
 *            legacy leaf-1/leaf-4 counts on old CPUs)
 *   host     sysfs (tests/host/topology_sysfs.c: topology/ and
 *            cache/index*\/shared_cpu_list, with the root a parameter so
 *            tests read fixture trees)
 *
 * Both hand topology_build() one raw record per CPU: its own number and
 * three keys (package, core within the package, last-level cache group).
 * topology_build() numbers the keys densely, in the order of the CPUs,
 * and checks them; input that contradicts itself gives a flat topology
 * (every CPU its own package, core and cache group) and one line in
 * t->why naming what was wrong.
 *
 * Placement (topology_order): which CPU the i-th thread of a benchmark
 * runs on, by bench.place=:
 *   cores    one thread per physical core, filling one LLC group, then
 *            the next, then the next package; SMT siblings after every core
 *   compact  SMT siblings first: core by core, group by group
 *   spread   round-robin over packages and their LLC groups
 */
#ifndef LIB_TOPOLOGY_H
#define LIB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform.h"

#define TOPO_WHY_MAX	  160
#define TOPO_SOURCE_MAX	  64
#define TOPO_ENV_JSON_MAX 160 /* topology_env_json's members */
#define TOPO_ENV_LLC_MAX  320 /* topology_env_llc_json's: at most this much of an ENV line */

/* One CPU: its number on its platform and its dense ids (0 .. count-1). */
struct topo_cpu {
	unsigned os;	  /* the OS's CPU number (host) or the kernel's CPU index */
	unsigned package; /* 0 .. packages-1 */
	unsigned core;	  /* 0 .. cores-1, over the whole machine */
	unsigned thread;  /* 0 .. threads of its core - 1, in CPU order */
	unsigned llc;	  /* 0 .. llcs-1 */
};

struct topology {
	unsigned ncpus, packages, cores, llcs;
	unsigned cores_per_package; /* the most any package has */
	unsigned threads_per_core;  /* the most any core has */
	struct topo_cpu cpu[MAX_CPUS];
	char source[TOPO_SOURCE_MAX]; /* where the facts came from ("sysfs", "cpuid 0x1f", ...) */
	char why[TOPO_WHY_MAX];	      /* "" or why the topology is flat */
};

/* What a platform read for one CPU: keys compare equal where the CPUs share that thing. */
struct topo_raw {
	unsigned os;
	uint64_t package; /* the package's key */
	uint64_t core;	  /* the core's key within its package */
	uint64_t llc;	  /* the last-level cache's key, over the machine */
};

/*
 * Fill @t from @raw[0 .. @n-1] (n at most MAX_CPUS, one record per CPU, in
 * the platform's CPU order).  Returns true; false, with @t flat and t->why
 * saying why, if the records contradict each other (a CPU listed twice, a
 * core whose threads sit in two LLC groups, an LLC group across packages).
 */
bool topology_build(struct topology *t, const struct topo_raw *raw, unsigned n, const char *source);

/* @t flat over CPUs @os[0 .. @n-1] (NULL: 0 .. n-1), with @why (formatted) in t->why. */
void topology_flat(struct topology *t, const unsigned *os, unsigned n, const char *why, ...)
    __attribute__((format(printf, 4, 5)));

/* The index in t->cpu of OS CPU @os, or -1. */
int topology_find(const struct topology *t, unsigned os);

/* "2 packages x 2 cores x 2 threads, 2 LLC groups (0-3 4-7)" into @buf; returns the length. */
size_t topology_describe(char *buf, size_t size, const struct topology *t);

/*
 * The # ENV members (docs/interface.md), each with a leading comma:
 * ,"packages":2,"cores_per_package":2,"threads_per_core":2,"llc_groups":2,
 * "topology_source":"sysfs" here, and ,"llc_cpus":["0-3","4-7"] from
 * topology_env_llc_json, which gives ,"llc_cpus_cut":true instead when
 * the list would not fit in @size (the line prints it last).
 */
size_t topology_env_json(char *buf, size_t size, const struct topology *t);
size_t topology_env_llc_json(char *buf, size_t size, const struct topology *t);

/* The CPUs of LLC group @llc as a list ("0-3,8-11") into @buf. */
size_t topology_llc_list(char *buf, size_t size, const struct topology *t, unsigned llc);

/* Placement (bench.place=). */
#define TOPO_PLACE_LIST(X)     X(CORES, cores) X(COMPACT, compact) X(SPREAD, spread)
#define TOPO_X_PLACE(id, name) TOPO_PLACE_##id,
enum topo_place { TOPO_PLACE_LIST(TOPO_X_PLACE) TOPO_PLACE_COUNT };
#undef TOPO_X_PLACE
/* Their names, from the list: the plan line's here, bench.place='s choices in the parser. */
#define TOPO_X_PLACE_NAME(id, name) #name,
extern const char *const topo_place_names[TOPO_PLACE_COUNT];

/* The indices into t->cpu in the order threads take them under @place; fills @order[0 .. ncpus-1]. */
void topology_order(const struct topology *t, enum topo_place place, unsigned *order);

/*
 * The boundaries of @order (topology_order, under @place): the thread
 * counts at which the first n CPUs have just filled the first CPU's LLC
 * group, its package, and (cores) every physical core; 0 where the
 * order never does (compact has no all-cores point).  Under spread, the
 * counts that first reach every LLC group, every package, every core.
 */
struct topo_bounds {
	unsigned llc, package, cores;
};
void topology_bounds(const struct topology *t, enum topo_place place, const unsigned *order,
		     struct topo_bounds *b);

/* A CPU-number list ("0-3,8,10-11") from @v[0 .. @n-1] sorted ascending, into @buf. */
size_t topology_format_list(char *buf, size_t size, const unsigned *v, unsigned n);

#endif /* LIB_TOPOLOGY_H */
