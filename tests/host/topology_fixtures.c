// SPDX-License-Identifier: MIT
/*
 * topology_fixtures.c - sysfs trees of machines this host is not, written
 * on demand (topology_fixtures.h).
 *
 * Written, not checked in: a 256-CPU tree is thousands of small files,
 * while the machine is a few lines of arithmetic here.  The files are
 * those Linux writes (drivers/base/topology.c, cacheinfo), with the lists
 * made from the same ids, so a damaged variant differs in one file.
 */
#define _GNU_SOURCE
#include "topology_fixtures.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "topology.h"

#define PATH_LEN 512

/* One CPU of a machine: package, core_id, LLC id; online or not. */
struct fx_cpu {
	unsigned pkg, core, llc;
	bool online;
};

static bool fx_ok;

static void fx_write(const char *dir, const char *text, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Write @text (and a newline) to @dir/<fmt...>, making the folders on the way. */
static void fx_write(const char *dir, const char *text, const char *fmt, ...)
{
	char path[PATH_LEN];
	size_t len = (size_t)snprintf(path, sizeof(path), "%s/", dir);
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path + len, sizeof(path) - len, fmt, ap);
	va_end(ap);
	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(path, 0755) != 0 && errno != EEXIST)
				fx_ok = false;
			*p = '/';
		}
	f = fopen(path, "w");
	if (!f) {
		fx_ok = false;
		return;
	}
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* The online CPUs of @m[0 .. @n-1] for which @same(a, b) holds with @c, as a list. */
static void fx_list(char *buf, size_t size, const struct fx_cpu *m, unsigned n, unsigned c,
		    int what)
{
	unsigned v[MAX_CPUS], k = 0;

	for (unsigned i = 0; i < n; i++) {
		bool same = what == 0	? m[i].pkg == m[c].pkg && m[i].core == m[c].core
			    : what == 1 ? m[i].pkg == m[c].pkg
					: m[i].llc == m[c].llc;

		if (m[i].online && same)
			v[k++] = i;
	}
	topology_format_list(buf, size, v, k);
}

static void fx_machine(const char *dir, const struct fx_cpu *m, unsigned n)
{
	char list[1024], num[16];
	unsigned v[MAX_CPUS], k = 0;

	for (unsigned i = 0; i < n; i++)
		if (m[i].online)
			v[k++] = i;
	topology_format_list(list, sizeof(list), v, k);
	fx_write(dir, list, "online");
	snprintf(list, sizeof(list), "0-%u", n - 1);
	fx_write(dir, list, "possible");
	for (unsigned c = 0; c < n; c++) {
		if (!m[c].online) {
			fx_write(dir, "0", "cpu%u/online",
				 c); /* Linux drops topology/ and cache/ */
			continue;
		}
		snprintf(num, sizeof(num), "%u", m[c].pkg);
		fx_write(dir, num, "cpu%u/topology/physical_package_id", c);
		snprintf(num, sizeof(num), "%u", m[c].core);
		fx_write(dir, num, "cpu%u/topology/core_id", c);
		fx_list(list, sizeof(list), m, n, c, 0);
		fx_write(dir, list, "cpu%u/topology/thread_siblings_list", c);
		fx_write(dir, "1", "cpu%u/cache/index0/level", c);
		fx_write(dir, "Data", "cpu%u/cache/index0/type", c);
		fx_write(dir, list, "cpu%u/cache/index0/shared_cpu_list", c);
		fx_write(dir, "1", "cpu%u/cache/index1/level", c);
		fx_write(dir, "Instruction", "cpu%u/cache/index1/type", c);
		fx_write(dir, list, "cpu%u/cache/index1/shared_cpu_list", c);
		fx_write(dir, "2", "cpu%u/cache/index2/level", c);
		fx_write(dir, "Unified", "cpu%u/cache/index2/type", c);
		fx_write(dir, list, "cpu%u/cache/index2/shared_cpu_list", c);
		fx_list(list, sizeof(list), m, n, c, 1);
		fx_write(dir, list, "cpu%u/topology/package_cpus_list", c);
		fx_list(list, sizeof(list), m, n, c, 2);
		fx_write(dir, "3", "cpu%u/cache/index3/level", c);
		fx_write(dir, "Unified", "cpu%u/cache/index3/type", c);
		fx_write(dir, list, "cpu%u/cache/index3/shared_cpu_list", c);
	}
}

/*
 * @pkgs x @llcs_per_pkg x @cores_per_llc x @threads; @split: SMT siblings
 * i and i + N/threads (Intel's and AMD's usual Linux numbering), else
 * neighbours.
 */
static unsigned fx_shape(struct fx_cpu *m, unsigned pkgs, unsigned llcs_per_pkg,
			 unsigned cores_per_llc, unsigned threads, bool split)
{
	unsigned cores = pkgs * llcs_per_pkg * cores_per_llc, n = cores * threads;

	for (unsigned i = 0; i < n; i++) {
		unsigned core = split ? i % cores : i / threads; /* machine-wide core number */

		m[i] = (struct fx_cpu){.pkg = core / (llcs_per_pkg * cores_per_llc),
				       .core = core % (llcs_per_pkg * cores_per_llc),
				       .llc = core / cores_per_llc,
				       .online = true};
	}
	return n;
}

bool topology_fixture_write(const char *name, const char *dir)
{
	static struct fx_cpu m[MAX_CPUS];
	unsigned n;

	fx_ok = true;
	if (strcmp(name, "xeon-2s") == 0 || strcmp(name, "two-packages") == 0 ||
	    strcmp(name, "no-topology") == 0)
		n = fx_shape(m, 2, 1, 8, 2, true); /* 32 CPUs, siblings i and i+16 */
	else if (strcmp(name, "epyc-2s") == 0)
		n = fx_shape(m, 2, 4, 4, 2, true); /* 64 CPUs, 4 CCXs of 4 cores per socket */
	else if (strcmp(name, "offline") == 0 || strcmp(name, "offline-cache") == 0) {
		n = fx_shape(m, 1, 1, 4, 2, false); /* 8 CPUs, siblings neighbours, cpu5 off */
		m[5].online = false;
	} else if (strcmp(name, "big-256") == 0)
		n = fx_shape(m, 2, 8, 8, 2, true); /* 256 CPUs, 8 LLC groups of 8 cores a socket */
	else
		return false;
	fx_machine(dir, m, n);
	if (strcmp(name, "two-packages") == 0) /* cpu1's package list claims cpu8 (package 1) */
		fx_write(dir, "0-8,16-23", "cpu1/topology/package_cpus_list");
	if (strcmp(name, "no-topology") == 0) {
		char path[PATH_LEN];

		snprintf(path, sizeof(path), "%s/cpu3/topology/core_id", dir);
		remove(path);
		snprintf(path, sizeof(path), "%s/cpu3/topology/physical_package_id", dir);
		remove(path);
	}
	if (strcmp(name, "offline-cache") == 0) /* the L3 list still names offline cpu5 */
		for (unsigned c = 0; c < n; c++)
			if (m[c].online)
				fx_write(dir, "0-7", "cpu%u/cache/index3/shared_cpu_list", c);
	return fx_ok;
}
