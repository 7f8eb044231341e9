// SPDX-License-Identifier: MIT
/*
 * test_topology_cpuid.c - lib/topology_cpuid.c fed the leaves of made-up
 * machines: x2APIC levels with and without a cache leaf, the legacy
 * counts (Intel and AMD), and leaves that are absent, zero or name an
 * APIC id the firmware did not give the CPU.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "topology_cpuid.h"

#define TYPE_SMT  1u
#define TYPE_CORE 2u
#define TYPE_DIE  5u

static struct topo_leaves l[MAX_CPUS];

/* @n CPUs with APIC ids 0 .. n-1 and x2APIC levels (type, shift) from @types/@shifts. */
static void levels(unsigned n, uint32_t leaf, unsigned nlev, const unsigned *types,
		   const unsigned *shifts)
{
	for (unsigned i = 0; i < n; i++) {
		l[i] = (struct topo_leaves){.apic_id = i, .max_leaf = 0x1f, .levels_leaf = leaf};
		for (unsigned k = 0; k < nlev; k++)
			l[i].levels[k] =
			    (struct topo_regs){shifts[k], 1u << shifts[k], (types[k] << 8) | k, i};
	}
}

/* Every CPU: cache leaf 4 with L1d (per core) and an L3 shared by @share ids. */
static void l3(unsigned n, unsigned share)
{
	for (unsigned i = 0; i < n; i++) {
		l[i].cache_leaf = TOPO_LEAF_CACHE;
		l[i].cache_eax[0] = 1u | (1u << 5) | (1u << 14);
		l[i].cache_eax[1] = 3u | (3u << 5) | ((share - 1) << 14);
	}
}

static void test_levels(void)
{
	static struct topology t;
	char how[160];
	const unsigned types[] = {TYPE_SMT, TYPE_CORE, TYPE_DIE}, shifts[] = {1, 2, 3};

	/* QEMU -smp 8,sockets=2,cores=2,threads=2 under TCG: leaf 0xB, no cache leaf. */
	levels(8, TOPO_LEAF_XTOPO, 2, types, shifts);
	CHECK(topology_from_cpuid(&t, l, 8, how, sizeof(how)), "%s", t.why);
	CHECK_EQ(t.packages, 2);
	CHECK_EQ(t.cores_per_package, 2);
	CHECK_EQ(t.threads_per_core, 2);
	CHECK_EQ(t.llcs, 2);
	CHECK(strstr(how, "no cache leaf") != NULL, "%s", how);
	/* Leaf 0x1F with dies, an L3 per die (4 ids): 2 packages, 4 LLC groups. */
	levels(16, TOPO_LEAF_XTOPO2, 3, types, shifts);
	l3(16, 4);
	CHECK(topology_from_cpuid(&t, l, 16, how, sizeof(how)), "%s", t.why);
	CHECK_EQ(t.packages, 2);
	CHECK_EQ(t.cores_per_package, 4);
	CHECK_EQ(t.llcs, 4);
	CHECK(strstr(how, "cpuid 0x1f: smt shift 1, package shift 3; cache leaf 4: L3 shared by "
			  "4 ids") != NULL,
	      "%s", how);
	/* An L3 "shared" by more ids than a package holds stays inside the package. */
	l3(16, 64);
	CHECK(topology_from_cpuid(&t, l, 16, how, sizeof(how)), "%s", t.why);
	CHECK_EQ(t.llcs, 2);
}

static void test_legacy(void)
{
	static struct topology t;
	char how[160];

	/* Intel, no leaf 0xB: 8 logical a package, 4 cores (leaf 4), 2 packages. */
	for (unsigned i = 0; i < 16; i++)
		l[i] = (struct topo_leaves){.apic_id = i,
					    .max_leaf = 4,
					    .leaf1 = {0, (i << 24) | (8u << 16), 0, 1u << 28},
					    .leaf4_eax = 1u | (3u << 26)};
	CHECK(topology_from_cpuid(&t, l, 16, how, sizeof(how)), "%s", t.why);
	CHECK_EQ(t.packages, 2);
	CHECK_EQ(t.cores_per_package, 4);
	CHECK_EQ(t.threads_per_core, 2);
	/* AMD: 0x80000008 says 8 cores, id size 3; 0x8000001E one thread a core. */
	for (unsigned i = 0; i < 16; i++)
		l[i] = (struct topo_leaves){.apic_id = i,
					    .amd = true,
					    .max_leaf = 0xd,
					    .max_ext = 0x8000001e,
					    .leaf1 = {0, (i << 24) | (8u << 16), 0, 1u << 28},
					    .amd_80000008_ecx = 7u | (3u << 12),
					    .have_8000001e = true};
	CHECK(topology_from_cpuid(&t, l, 16, how, sizeof(how)), "%s", t.why);
	CHECK_EQ(t.packages, 2);
	CHECK_EQ(t.cores_per_package, 8);
	CHECK_EQ(t.threads_per_core, 1);
}

/* Leaves that must give a flat topology and a line containing @what. */
static void check_bad(unsigned n, const char *what)
{
	static struct topology t;
	char how[160];

	CHECK(!topology_from_cpuid(&t, l, n, how, sizeof(how)), "%s: accepted", what);
	CHECK(strstr(t.why, what) != NULL, "why is '%s', expected '%s'", t.why, what);
	CHECK_EQ(t.llcs, n);
	CHECK_EQ(t.ncpus, n);
}

static void test_bad(void)
{
	const unsigned types[] = {TYPE_SMT, TYPE_CORE}, shifts[] = {1, 2};

	/* No level leaf and no HTT: nothing counts the processors of a package. */
	for (unsigned i = 0; i < 4; i++)
		l[i] =
		    (struct topo_leaves){.apic_id = i, .max_leaf = 1, .leaf1 = {0, i << 24, 0, 0}};
	check_bad(4, "CPU 0: CPUID no x2APIC topology leaf, and leaf 1 EBX[23:16] is zero");
	/* A level that counts zero processors. */
	levels(8, TOPO_LEAF_XTOPO, 2, types, shifts);
	l[3].levels[1].ebx = 0;
	check_bad(8, "CPU 3: CPUID leaf 0xb subleaf 1: zero processors at this level");
	/* Subleaf 0 with level type 0: the leaf is there but empty. */
	levels(8, TOPO_LEAF_XTOPO, 2, types, shifts);
	memset(&l[0].levels[0], 0, sizeof(l[0].levels[0]));
	l[0].levels[0].ebx = 1;
	check_bad(8, "CPU 0: CPUID leaf 0xb: no levels");
	/* CPU 5 reports the APIC id of CPU 4: not what the MADT gave it. */
	levels(8, TOPO_LEAF_XTOPO, 2, types, shifts);
	l[5].levels[0].edx = 4;
	check_bad(8, "CPU 5: CPUID leaf 0xb gives APIC id 4, but the firmware (MADT) and the APIC "
		     "say 5");
}

int main(void)
{
	test_levels();
	test_legacy();
	test_bad();
	return check_exit("test_topology_cpuid");
}
