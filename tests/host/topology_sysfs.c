// SPDX-License-Identifier: MIT
/*
 * topology_sysfs.c - read topology/ and cache/ of every online CPU under
 * a sysfs root into lib/topology.h's raw records (topology_sysfs.h).
 *
 * Every list file is checked against the ids it must agree with: the
 * kernel writes them from the same facts, so a disagreement means the
 * tree is damaged or made by hand, and a flat topology is safer than a
 * wrong one.
 */
#define _GNU_SOURCE
#include "topology_sysfs.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_MAX_LEN 512
#define SET_WORDS    (MAX_CPUS / 64)
#define CACHE_MAX    16 /* index0 .. index15 */

struct cpuset {
	uint64_t w[SET_WORDS];
};

static bool set_has(const struct cpuset *s, unsigned c)
{
	return c < MAX_CPUS && (s->w[c / 64] >> (c % 64) & 1);
}

static void set_add(struct cpuset *s, unsigned c)
{
	if (c < MAX_CPUS)
		s->w[c / 64] |= 1ull << (c % 64);
}

static bool set_equal(const struct cpuset *a, const struct cpuset *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* The first line of @root/@rel (formatted) into @buf; false if it cannot be read. */
static bool read_line(char *buf, size_t size, const char *root, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool read_line(char *buf, size_t size, const char *root, const char *fmt, ...)
{
	char path[2 * PATH_MAX_LEN], rel[PATH_MAX_LEN];
	va_list ap;
	FILE *f;
	bool ok;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* "0-3,8,10-11" into @s; false if it is not such a list of numbers below MAX_CPUS. */
static bool parse_list(const char *p, struct cpuset *s)
{
	*s = (struct cpuset){0};
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return false;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return false;
			p = end;
		}
		if (b >= MAX_CPUS)
			return false;
		for (unsigned long c = a; c <= b; c++)
			set_add(s, (unsigned)c);
		if (*p == ',')
			p++;
		else if (*p)
			return false;
	}
	return true;
}

/* The online CPUs: root/online, else every cpuN folder. */
static bool online_cpus(const char *root, struct cpuset *on)
{
	char line[1024];
	DIR *d;
	struct dirent *e;
	bool any = false;

	if (read_line(line, sizeof(line), root, "online"))
		return parse_list(line, on);
	*on = (struct cpuset){0};
	d = opendir(root);
	while (d && (e = readdir(d))) {
		char *end;
		unsigned long c;

		if (strncmp(e->d_name, "cpu", 3) != 0)
			continue;
		c = strtoul(e->d_name + 3, &end, 10);
		if (end != e->d_name + 3 && *end == '\0' && c < MAX_CPUS)
			set_add(on, (unsigned)c), any = true;
	}
	if (d)
		closedir(d);
	return any;
}

static bool read_number(const char *root, unsigned cpu, const char *file, long *v)
{
	char line[64], *end;

	if (!read_line(line, sizeof(line), root, "cpu%u/topology/%s", cpu, file))
		return false;
	*v = strtol(line, &end, 10);
	return end != line && *end == '\0';
}

/* CPU @cpu's last-level cache (the highest data or unified level): its CPUs into @s. */
static int read_llc(const char *root, unsigned cpu, struct cpuset *s)
{
	long best = -1;
	char line[1024], list[1024];

	for (unsigned i = 0; i < CACHE_MAX; i++) {
		long level;

		if (!read_line(line, sizeof(line), root, "cpu%u/cache/index%u/level", cpu, i))
			continue;
		level = strtol(line, NULL, 10);
		if (!read_line(line, sizeof(line), root, "cpu%u/cache/index%u/type", cpu, i) ||
		    strcmp(line, "Instruction") == 0 || level <= best)
			continue;
		if (!read_line(list, sizeof(list), root, "cpu%u/cache/index%u/shared_cpu_list", cpu,
			       i))
			return -2;
		best = level;
		if (!parse_list(list, s))
			return -3;
	}
	return best < 0 ? -1 : (int)best;
}

bool topology_from_sysfs(struct topology *t, const char *root)
{
	static struct topo_raw raw[MAX_CPUS];
	static struct cpuset llc[MAX_CPUS], pkgset[MAX_CPUS], thrset[MAX_CPUS];
	static unsigned os[MAX_CPUS];
	static long pkg[MAX_CPUS], die[MAX_CPUS], core[MAX_CPUS];
	static bool has_llc[MAX_CPUS], has_thr[MAX_CPUS];
	struct cpuset on;
	char line[1024];
	unsigned n = 0, no_cache = 0;

	if (!online_cpus(root, &on)) {
		topology_flat(t, NULL, 1, "%s/online: missing or not a CPU list", root);
		return false;
	}
	for (unsigned c = 0; c < MAX_CPUS; c++)
		if (set_has(&on, c))
			os[n++] = c;
	for (unsigned i = 0; i < n; i++) {
		unsigned c = os[i];
		int lvl;

		if (!read_number(root, c, "physical_package_id", &pkg[i]) ||
		    !read_number(root, c, "core_id", &core[i])) {
			topology_flat(t, os, n,
				      "%s/cpu%u/topology/: physical_package_id or core_id missing "
				      "or not a number",
				      root, c);
			return false;
		}
		if (!read_number(root, c, "die_id", &die[i]))
			die[i] = 0;
		thrset[i] = pkgset[i] = (struct cpuset){0};
		has_thr[i] =
		    read_line(line, sizeof(line), root, "cpu%u/topology/thread_siblings_list", c) &&
		    parse_list(line, &thrset[i]);
		if (read_line(line, sizeof(line), root, "cpu%u/topology/package_cpus_list", c) ||
		    read_line(line, sizeof(line), root, "cpu%u/topology/core_siblings_list", c))
			parse_list(line, &pkgset[i]);
		lvl = read_llc(root, c, &llc[i]);
		if (lvl < -1) {
			topology_flat(t, os, n, "%s/cpu%u/cache/: shared_cpu_list %s", root, c,
				      lvl == -2 ? "missing" : "is not a CPU list");
			return false;
		}
		has_llc[i] = lvl >= 0;
		no_cache += !has_llc[i];
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned c = os[i];
		struct cpuset same_core = {0}, same_pkg = {0};

		for (unsigned j = 0; j < n; j++) {
			if (pkg[j] == pkg[i])
				set_add(&same_pkg, os[j]);
			if (pkg[j] == pkg[i] && die[j] == die[i] && core[j] == core[i])
				set_add(&same_core, os[j]);
		}
		for (unsigned j = 0; j < n; j++)
			if (set_has(&pkgset[j], c) && pkg[j] != pkg[i]) {
				topology_flat(
				    t, os, n,
				    "%s: CPU %u is in two packages (%ld, and %ld by cpu%u's "
				    "package list)",
				    root, c, pkg[i], pkg[j], os[j]);
				return false;
			}
		if (has_thr[i] && !set_equal(&thrset[i], &same_core)) {
			topology_flat(t, os, n,
				      "%s/cpu%u/topology/thread_siblings_list: expected the online "
				      "CPUs with its package and core_id",
				      root, c);
			return false;
		}
		if (!has_llc[i])
			continue;
		for (unsigned k = 0; k < MAX_CPUS; k++)
			if (set_has(&llc[i], k) && !set_has(&on, k)) {
				topology_flat(
				    t, os, n,
				    "%s/cpu%u/cache/: shared_cpu_list names CPU %u, which is "
				    "not online",
				    root, c, k);
				return false;
			}
		if (!set_has(&llc[i], c)) {
			topology_flat(t, os, n,
				      "%s/cpu%u/cache/: shared_cpu_list leaves out CPU %u itself",
				      root, c, c);
			return false;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned first = 0;

		while (has_llc[i] && !set_has(&llc[i], first))
			first++;
		raw[i] = (struct topo_raw){
		    .os = os[i],
		    .package = (uint64_t)pkg[i],
		    .core = (uint64_t)die[i] << 32 | (uint32_t)core[i],
		    .llc = has_llc[i] ? first : (1ull << 63) | (uint64_t)pkg[i],
		};
		for (unsigned j = 0; has_llc[i] && j < i; j++)
			if (has_llc[j] && set_has(&llc[i], os[j]) != set_equal(&llc[i], &llc[j])) {
				topology_flat(t, os, n,
					      "%s: cpu%u and cpu%u list different last-level cache "
					      "CPUs that overlap",
					      root, os[j], os[i]);
				return false;
			}
	}
	return topology_build(t, raw, n,
			      no_cache ? "sysfs (no cache/: one LLC group per package)" : "sysfs");
}
