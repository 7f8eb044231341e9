// SPDX-License-Identifier: MIT
/*
 * topology.c - number the raw keys densely, check them, describe them and
 * order CPUs for placement (topology.h).  Plain C on no platform service:
 * the kernel, bench_native and the host tests share it.  Quadratic loops:
 * at most MAX_CPUS CPUs, once per boot.
 */
#include "topology.h"

#include "printf.h"
#include "string.h"

const char *const topo_place_names[TOPO_PLACE_COUNT] = {TOPO_PLACE_LIST(TOPO_X_PLACE_NAME)};

/*
 * The fallback: every CPU its own core, LLC group and package.  Why flat
 * and not a guess: a benchmark placed on a wrong picture would report a
 * cache-line hop as "same LLC" that crosses packages; flat claims nothing,
 * and @why (one line in the boot log and the ENV line) says what was wrong.
 */
void topology_flat(struct topology *t, const unsigned *os, unsigned n, const char *why, ...)
{
	va_list ap;

	n = n > MAX_CPUS ? MAX_CPUS : n;
	t->ncpus = t->packages = t->cores = t->llcs = n;
	t->cores_per_package = t->threads_per_core = 1;
	for (unsigned i = 0; i < n; i++)
		t->cpu[i] = (struct topo_cpu){
		    .os = os ? os[i] : i, .package = i, .core = i, .thread = 0, .llc = i};
	va_start(ap, why);
	kvsnprintf(t->why, sizeof(t->why), why, ap);
	va_end(ap);
	ksnprintf(t->source, sizeof(t->source), "flat");
}

/*
 * Building.  The raw keys are whatever the source gives (APIC id fields,
 * sysfs ids): sparse, and numbered differently by each source.  Dense
 * numbers in the order of first appearance make the host's sysfs reading
 * and the kernel's CPUID reading of one machine print the same picture,
 * and let every count below index an array.  The checks are the nesting
 * the placements assume (a core inside one LLC group, a group inside one
 * package): a source that breaks it is not believed (topology_flat).
 */

/* The dense id of @key among @keys[0 .. @n-1] seen so far (first appearance numbers). */
static unsigned dense(const uint64_t *keys, unsigned n, uint64_t key, unsigned *count,
		      unsigned *ids)
{
	for (unsigned j = 0; j < n; j++)
		if (keys[j] == key)
			return ids[j];
	return (*count)++;
}

bool topology_build(struct topology *t, const struct topo_raw *raw, unsigned n, const char *source)
{
	static uint64_t pk[MAX_CPUS], lk[MAX_CPUS];
	static unsigned pid[MAX_CPUS], lid[MAX_CPUS], os[MAX_CPUS], threads[MAX_CPUS],
	    per_pkg[MAX_CPUS];

	n = n > MAX_CPUS ? MAX_CPUS : n;
	for (unsigned i = 0; i < n; i++)
		os[i] = raw[i].os;
	*t = (struct topology){.ncpus = n};
	for (unsigned i = 0; i < n; i++) {
		struct topo_cpu *c = &t->cpu[i];

		c->os = raw[i].os;
		for (unsigned j = 0; j < i; j++)
			if (raw[j].os == raw[i].os) {
				topology_flat(t, os, n, "CPU %u is listed twice", raw[i].os);
				return false;
			}
		c->package = pid[i] = dense(pk, i, raw[i].package, &t->packages, pid);
		pk[i] = raw[i].package;
		c->llc = lid[i] = dense(lk, i, raw[i].llc, &t->llcs, lid);
		lk[i] = raw[i].llc;
		c->core = t->cores;
		c->thread = 0;
		for (unsigned j = 0; j < i; j++)
			if (raw[j].package == raw[i].package && raw[j].core == raw[i].core) {
				c->core = t->cpu[j].core;
				c->thread = t->cpu[j].thread + 1;
			}
		if (c->core == t->cores)
			t->cores++;
		for (unsigned j = 0; j < i; j++) {
			if (t->cpu[j].core == c->core && t->cpu[j].llc != c->llc) {
				topology_flat(t, os, n,
					      "CPUs %u and %u share a core but not a last-level "
					      "cache",
					      raw[j].os, raw[i].os);
				return false;
			}
			if (t->cpu[j].llc == c->llc && t->cpu[j].package != c->package) {
				topology_flat(t, os, n,
					      "CPUs %u and %u share a last-level cache but not a "
					      "package",
					      raw[j].os, raw[i].os);
				return false;
			}
		}
	}
	memset(threads, 0, sizeof(threads));
	memset(per_pkg, 0, sizeof(per_pkg));
	for (unsigned i = 0; i < n; i++) {
		if (t->cpu[i].thread == 0)
			per_pkg[t->cpu[i].package]++;
		threads[t->cpu[i].core]++;
	}
	for (unsigned i = 0; i < n; i++) {
		if (per_pkg[i] > t->cores_per_package)
			t->cores_per_package = per_pkg[i];
		if (threads[i] > t->threads_per_core)
			t->threads_per_core = threads[i];
	}
	ksnprintf(t->source, sizeof(t->source), "%s", source);
	return true;
}

/*
 * Lookups and the text forms.  CPU lists are written as ranges ("0-3,8"),
 * the form of Linux's cpulist files, so a reader can paste them into
 * taskset and the host tests can compare them with sysfs.
 */
int topology_find(const struct topology *t, unsigned os)
{
	for (unsigned i = 0; i < t->ncpus; i++)
		if (t->cpu[i].os == os)
			return (int)i;
	return -1;
}

size_t topology_format_list(char *buf, size_t size, const unsigned *v, unsigned n)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < n;) {
		unsigned j = i;
		int k;

		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		k = j == i ? ksnprintf(buf + len, size > len ? size - len : 0, "%s%u",
				       len ? "," : "", v[i])
			   : ksnprintf(buf + len, size > len ? size - len : 0, "%s%u-%u",
				       len ? "," : "", v[i], v[j]);
		len += k > 0 ? (size_t)k : 0;
		i = j + 1;
	}
	return len;
}

/* Insertion sort: at most MAX_CPUS numbers. */
static void sort_unsigned(unsigned *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			unsigned x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
}

size_t topology_llc_list(char *buf, size_t size, const struct topology *t, unsigned llc)
{
	unsigned v[MAX_CPUS], n = 0;

	for (unsigned i = 0; i < t->ncpus; i++)
		if (t->cpu[i].llc == llc)
			v[n++] = t->cpu[i].os;
	sort_unsigned(v, n);
	return topology_format_list(buf, size, v, n);
}

size_t topology_describe(char *buf, size_t size, const struct topology *t)
{
	size_t len;
	int k;

	k = ksnprintf(buf, size,
		      "%u CPU%s: %u package%s x %u core%s x %u thread%s, %u LLC group%s (",
		      t->ncpus, plural(t->ncpus), t->packages, plural(t->packages),
		      t->cores_per_package, plural(t->cores_per_package), t->threads_per_core,
		      plural(t->threads_per_core), t->llcs, plural(t->llcs));
	len = k > 0 ? (size_t)k : 0;
	for (unsigned g = 0; g < t->llcs && len + 1 < size; g++) {
		if (g)
			buf[len++] = ' ';
		len += topology_llc_list(buf + len, size - len, t, g);
	}
	k = ksnprintf(buf + (len < size ? len : size), len < size ? size - len : 0, ")");
	return len + (k > 0 ? (size_t)k : 0);
}

/*
 * The "# ENV" line's topology fields, in two parts: the counts always fit,
 * but the per-group lists of a large machine may not fit one line, and
 * then they are dropped with a flag rather than cut in the middle of a
 * list that a tool would misread.
 */
size_t topology_env_json(char *buf, size_t size, const struct topology *t)
{
	int k =
	    ksnprintf(buf, size,
		      ",\"packages\":%u,\"cores_per_package\":%u,\"threads_per_core\":%u,"
		      "\"llc_groups\":%u,\"topology_source\":\"%s\"",
		      t->packages, t->cores_per_package, t->threads_per_core, t->llcs, t->source);

	return k > 0 ? (size_t)k : 0;
}

size_t topology_env_llc_json(char *buf, size_t size, const struct topology *t)
{
	char group[TOPO_ENV_LLC_MAX];
	size_t len = (size_t)ksnprintf(buf, size, ",\"llc_cpus\":[");
	unsigned g;

	for (g = 0; g < t->llcs; g++) {
		size_t n = topology_llc_list(group, sizeof(group), t, g);

		if (n >= sizeof(group) || len + n + 5 >= size) /* ,"...", then "]" and the NUL */
			break;
		len += (size_t)ksnprintf(buf + len, size - len, "%s\"%s\"", g ? "," : "", group);
	}
	if (g == t->llcs && len + 2 <= size)
		return len + (size_t)ksnprintf(buf + len, size - len, "]");
	/* Too long for the line: the count is in topology_env_json, the list goes. */
	return (size_t)ksnprintf(buf, size, ",\"llc_cpus_cut\":true");
}

/*
 * Placement (bench.place=): the order in which a benchmark's threads take
 * CPUs.  Each placement is a sort key, so the three share one sort and
 * differ only in which property varies fastest:
 *   cores    every physical core before any second thread, package by
 *            package: the default, since a sibling thread shares the L1
 *            and would make a contended line look cheap;
 *   compact  a core's threads together, then the next core of the group:
 *            the cheapest hops first;
 *   spread   one core of each LLC group in turn, groups alternating
 *            between packages: the dearest hops from two CPUs on.
 */

/* Keys to order by, for one placement: compare (a, b) lexicographically. */
static void place_key(const struct topology *t, enum topo_place place, unsigned i, unsigned *key,
		      const unsigned *llc_rank, const unsigned *core_rank)
{
	const struct topo_cpu *c = &t->cpu[i];

	switch (place) {
	case TOPO_PLACE_COMPACT:
		key[0] = c->package, key[1] = c->llc, key[2] = c->core, key[3] = c->thread;
		break;
	case TOPO_PLACE_SPREAD:
		/* The k-th core of every LLC group (groups round-robin over packages) in turn. */
		key[0] = c->thread, key[1] = core_rank[i], key[2] = llc_rank[c->llc], key[3] = 0;
		break;
	default:
		key[0] = c->thread, key[1] = c->package, key[2] = c->llc, key[3] = c->core;
		break;
	}
}

void topology_order(const struct topology *t, enum topo_place place, unsigned *order)
{
	static unsigned llc_rank[MAX_CPUS], core_rank[MAX_CPUS];
	unsigned n = t->ncpus;

	/* spread: an LLC group's rank interleaves packages; a core's rank counts within its group. */
	for (unsigned g = 0; g < t->llcs; g++) {
		unsigned pkg = 0, before = 0;

		for (unsigned i = 0; i < n; i++)
			if (t->cpu[i].llc == g) {
				pkg = t->cpu[i].package;
				break;
			}
		for (unsigned h = 0; h < g; h++)
			for (unsigned i = 0; i < n; i++)
				if (t->cpu[i].llc == h) {
					before += t->cpu[i].package == pkg;
					break;
				}
		llc_rank[g] = before * t->packages + pkg;
	}
	for (unsigned i = 0; i < n; i++) {
		core_rank[i] = 0;
		for (unsigned j = 0; j < n; j++)
			if (t->cpu[j].llc == t->cpu[i].llc && t->cpu[j].thread == 0 &&
			    t->cpu[j].core < t->cpu[i].core)
				core_rank[i]++;
		order[i] = i;
	}
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0; j--) {
			unsigned a[4], b[4], k = 0;

			place_key(t, place, order[j - 1], a, llc_rank, core_rank);
			place_key(t, place, order[j], b, llc_rank, core_rank);
			while (k < 4 && a[k] == b[k])
				k++;
			if (k == 4 || a[k] < b[k])
				break;
			unsigned x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
}

/*
 * The bounds are the CPU counts at which an order crosses a level of the
 * machine: where a contended line starts to travel between LLC groups or
 * packages.  The benchmark sweeps always measure those counts (bench_plan.c),
 * since that is where the curves bend.
 */
void topology_bounds(const struct topology *t, enum topo_place place, const unsigned *order,
		     struct topo_bounds *b)
{
	const struct topo_cpu *first = t->ncpus ? &t->cpu[order[0]] : NULL;
	bool all = place == TOPO_PLACE_COMPACT; /* siblings come with their core */
	unsigned llc_left = 0, pkg_left = 0, cores_left = 0;

	*b = (struct topo_bounds){0};
	if (!first)
		return;
	if (place == TOPO_PLACE_SPREAD) {
		/* One thread in every group, then in every package, then on every core. */
		b->llc = t->llcs;
		b->package = t->packages;
		b->cores = t->cores;
		return;
	}
	/* Under cores and spread a group is filled once its cores (first threads) are. */
	for (unsigned i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *c = &t->cpu[i];

		if (!all && c->thread != 0)
			continue;
		llc_left += c->llc == first->llc;
		pkg_left += c->package == first->package;
		cores_left += c->thread == 0;
	}
	for (unsigned k = 0; k < t->ncpus; k++) {
		const struct topo_cpu *c = &t->cpu[order[k]];

		if (!all && c->thread != 0)
			continue;
		if (c->llc == first->llc && --llc_left == 0)
			b->llc = k + 1;
		if (c->package == first->package && --pkg_left == 0)
			b->package = k + 1;
		if (c->thread == 0 && --cores_left == 0 && !all)
			b->cores = k + 1;
	}
}
