// SPDX-License-Identifier: MIT
/*
 * test_topology.c - lib/topology.c and the sysfs reader on fixture trees.
 *
 * Each machine of topology_fixtures.h is written to a temporary folder,
 * read back, and compared with what the machine is: counts, which CPUs
 * share a core and an LLC group, the placement orders.  The damaged trees
 * must each give a flat topology and one line naming the damage.
 *
 *   test_topology                      run the checks
 *   test_topology --write NAME DIR     only write fixture NAME under DIR
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "topology.h"
#include "topology_fixtures.h"
#include "topology_sysfs.h"

static char tmp[] = "/tmp/test_topology.XXXXXX";

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Fixture @name read back into @t; returns what topology_from_sysfs did. */
static bool load(const char *name, struct topology *t)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	CHECK(topology_fixture_write(name, dir), "writing fixture %s", name);
	return topology_from_sysfs(t, dir);
}

static int cpu_of(const struct topology *t, unsigned os)
{
	int i = topology_find(t, os);

	CHECK(i >= 0, "CPU %u present", os);
	return i < 0 ? 0 : i;
}

static void check_counts(const char *name, const struct topology *t, unsigned ncpus, unsigned pkgs,
			 unsigned cpp, unsigned tpc, unsigned llcs)
{
	CHECK_EQ(t->ncpus, ncpus, "%s cpus", name);
	CHECK_EQ(t->packages, pkgs, "%s packages", name);
	CHECK_EQ(t->cores_per_package, cpp, "%s cores per package", name);
	CHECK_EQ(t->threads_per_core, tpc, "%s threads per core", name);
	CHECK_EQ(t->llcs, llcs, "%s LLC groups", name);
	CHECK(t->why[0] == '\0', "%s: unexpected flat topology: %s", name, t->why);
}

static void test_xeon(void)
{
	struct topology t;
	unsigned order[MAX_CPUS];
	char buf[512];

	CHECK(load("xeon-2s", &t));
	check_counts("xeon-2s", &t, 32, 2, 8, 2, 2);
	CHECK_EQ(t.cpu[cpu_of(&t, 3)].core, t.cpu[cpu_of(&t, 19)].core, "siblings 3 and 19");
	CHECK(t.cpu[cpu_of(&t, 3)].core != t.cpu[cpu_of(&t, 4)].core);
	CHECK_EQ(t.cpu[cpu_of(&t, 7)].llc, t.cpu[cpu_of(&t, 23)].llc);
	CHECK(t.cpu[cpu_of(&t, 7)].package != t.cpu[cpu_of(&t, 8)].package);
	topology_llc_list(buf, sizeof(buf), &t, t.cpu[cpu_of(&t, 0)].llc);
	CHECK(strcmp(buf, "0-7,16-23") == 0, "LLC of cpu0: %s", buf);
	topology_describe(buf, sizeof(buf), &t);
	CHECK(strcmp(buf, "32 CPUs: 2 packages x 8 cores x 2 threads, 2 LLC groups "
			  "(0-7,16-23 8-15,24-31)") == 0,
	      "%s", buf);
	/* cores: 0..7 (package 0), 8..15, then the siblings. */
	topology_order(&t, TOPO_PLACE_CORES, order);
	CHECK_EQ(t.cpu[order[0]].os, 0);
	CHECK_EQ(t.cpu[order[7]].os, 7);
	CHECK_EQ(t.cpu[order[8]].os, 8);
	CHECK_EQ(t.cpu[order[16]].os, 16);
	/* compact: 0, 16, 1, 17, ... */
	topology_order(&t, TOPO_PLACE_COMPACT, order);
	CHECK_EQ(t.cpu[order[1]].os, 16);
	CHECK_EQ(t.cpu[order[2]].os, 1);
	/* spread: 0, 8, 1, 9, ... */
	topology_order(&t, TOPO_PLACE_SPREAD, order);
	CHECK_EQ(t.cpu[order[1]].os, 8);
	CHECK_EQ(t.cpu[order[2]].os, 1);
	CHECK_EQ(t.cpu[order[16]].os, 16);
	topology_env_json(buf, sizeof(buf), &t);
	CHECK(strstr(buf, "\"packages\":2,\"cores_per_package\":8,\"threads_per_core\":2,"
			  "\"llc_groups\":2") != NULL,
	      "%s", buf);
	topology_env_llc_json(buf, sizeof(buf), &t);
	CHECK(strcmp(buf, ",\"llc_cpus\":[\"0-7,16-23\",\"8-15,24-31\"]") == 0, "%s", buf);
}

static void test_epyc(void)
{
	struct topology t;
	unsigned order[MAX_CPUS];
	struct topo_bounds b;

	CHECK(load("epyc-2s", &t));
	check_counts("epyc-2s", &t, 64, 2, 16, 2, 8);
	CHECK_EQ(t.cpu[cpu_of(&t, 0)].llc, t.cpu[cpu_of(&t, 35)].llc, "cpu0 and cpu35 share a CCX");
	CHECK(t.cpu[cpu_of(&t, 3)].llc != t.cpu[cpu_of(&t, 4)].llc, "cpu3 and cpu4 do not");
	topology_order(&t, TOPO_PLACE_CORES, order);
	topology_bounds(&t, TOPO_PLACE_CORES, order, &b);
	/* One CCX at 4, one socket at 16, every core at 32. */
	CHECK_EQ(b.llc, 4);
	CHECK_EQ(b.package, 16);
	CHECK_EQ(b.cores, 32);
	topology_order(&t, TOPO_PLACE_COMPACT, order);
	topology_bounds(&t, TOPO_PLACE_COMPACT, order, &b);
	CHECK_EQ(b.llc, 8);
	CHECK_EQ(b.package, 32);
	CHECK_EQ(b.cores, 0);
	/* spread: one core of each CCX, the CCXs interleaving the two sockets. */
	topology_order(&t, TOPO_PLACE_SPREAD, order);
	CHECK_EQ(t.cpu[order[0]].os, 0);
	CHECK_EQ(t.cpu[order[1]].os, 16);
	CHECK_EQ(t.cpu[order[2]].os, 4);
	CHECK_EQ(t.cpu[order[8]].os, 1);
}

static void test_offline(void)
{
	struct topology t;
	char buf[256];

	CHECK(load("offline", &t));
	check_counts("offline", &t, 7, 1, 4, 2, 1);
	CHECK(topology_find(&t, 5) < 0, "offline cpu5 left out");
	CHECK_EQ(t.cpu[cpu_of(&t, 4)].thread, 0);
	topology_llc_list(buf, sizeof(buf), &t, 0);
	CHECK(strcmp(buf, "0-4,6-7") == 0, "%s", buf);
}

static void test_big(void)
{
	struct topology t;
	char buf[TOPO_ENV_LLC_MAX];

	CHECK(load("big-256", &t));
	check_counts("big-256", &t, 256, 2, 64, 2, 16);
	CHECK(topology_env_llc_json(buf, sizeof(buf), &t) < sizeof(buf));
	CHECK(strstr(buf, "\"0-7,128-135\"") != NULL, "%s", buf);
	topology_flat(&t, NULL, 256, "test");
	topology_env_llc_json(buf, sizeof(buf), &t);
	CHECK(strcmp(buf, ",\"llc_cpus_cut\":true") == 0, "%s", buf);
}

/* A damaged tree: flat, false, and a line containing @what. */
static void check_damaged(const char *name, const char *what)
{
	struct topology t;

	CHECK(!load(name, &t), "%s must be refused", name);
	CHECK(strstr(t.why, what) != NULL, "%s: why is '%s', expected '%s'", name, t.why, what);
	CHECK_EQ(t.llcs, t.ncpus, "%s flat", name);
	CHECK_EQ(t.threads_per_core, 1, "%s flat", name);
}

static void test_damaged(void)
{
	struct topology t;
	struct topo_raw raw[3] = {{0, 0, 0, 0}, {1, 0, 0, 1}, {2, 1, 0, 2}};

	check_damaged("two-packages", "CPU 8 is in two packages");
	check_damaged("no-topology", "cpu3/topology/: physical_package_id or core_id missing");
	check_damaged("offline-cache", "names CPU 5, which is not online");
	CHECK(!topology_from_sysfs(&t, "/nonexistent/sysfs"));
	CHECK(strstr(t.why, "online: missing") != NULL, "%s", t.why);
	CHECK_EQ(t.ncpus, 1);
	/* Raw records: one core in two LLC groups; one LLC across packages; a CPU twice. */
	CHECK(!topology_build(&t, raw, 2, "test"));
	CHECK(strstr(t.why, "share a core but not a last-level cache") != NULL, "%s", t.why);
	raw[2] = (struct topo_raw){2, 1, 5, 0};
	raw[1] = (struct topo_raw){1, 0, 1, 0};
	CHECK(!topology_build(&t, raw, 3, "test"));
	CHECK(strstr(t.why, "share a last-level cache but not a package") != NULL, "%s", t.why);
	raw[1].os = 0;
	CHECK(!topology_build(&t, raw, 2, "test"));
	CHECK(strstr(t.why, "listed twice") != NULL, "%s", t.why);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--write") == 0) {
		if (topology_fixture_write(argv[2], argv[3]))
			return 0;
		fprintf(stderr, "test_topology: could not write fixture '%s' under %s\n", argv[2],
			argv[3]);
		return 2;
	}
	if (!mkdtemp(tmp)) {
		perror("test_topology: mkdtemp");
		return 1;
	}
	test_xeon();
	test_epyc();
	test_offline();
	test_big();
	test_damaged();
	nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return check_exit("test_topology");
}
