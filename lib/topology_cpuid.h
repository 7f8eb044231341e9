// SPDX-License-Identifier: MIT
/*
 * topology_cpuid.h - the topology from the CPUID leaves each CPU read of
 * itself (Intel SDM Vol. 2A "CPUID"; AMD APM Vol. 3 appendix E).
 *
 * Why each CPU: the leaves that carry an APIC id (1, 0xB, 0x1F,
 * 0x8000001E) describe the CPU that executes CPUID, so the kernel runs
 * the reads on every CPU (kernel/topology_read.c) and hands the raw
 * registers here.  Pure decoding, so the host tests feed it leaves of
 * machines and of broken emulators.
 *
 * Decoding, per CPU, into three bit shifts of its APIC id:
 *   smt      APIC id >> smt is its core   (x2APIC level type 1's shift)
 *   pkg      APIC id >> pkg is its package (the last level's shift)
 *   llc      APIC id >> llc is its LLC group: the highest data or unified
 *            cache of leaf 4 (Intel) or 0x8000001D (AMD), "ids sharing
 *            this cache" rounded up to a power of two
 * from the first of: leaf 0x1F, leaf 0xB, AMD's 0x80000026 (x2APIC
 * levels), else the legacy counts (leaf 1 EBX[23:16] logical processors
 * a package; cores from leaf 4 EAX[31:26] or AMD 0x80000008 ECX, threads
 * a core from AMD 0x8000001E).  Without a cache leaf a package is one LLC
 * group.  Absent or zero leaves, or an APIC id that is not the one the
 * firmware (MADT) gave the CPU, give a flat topology and t->why.
 */
#ifndef LIB_TOPOLOGY_CPUID_H
#define LIB_TOPOLOGY_CPUID_H

#include <stdbool.h>
#include <stdint.h>

#include "topology.h"

#define TOPO_LEVELS_MAX 6 /* x2APIC levels: SMT, core, module, tile, die, and the end mark */
#define TOPO_CACHES_MAX 8 /* cache leaf subleaves read */

struct topo_regs {
	uint32_t eax, ebx, ecx, edx;
};

/* What one CPU read of itself; leaves not read are zero. */
struct topo_leaves {
	uint32_t apic_id;  /* what the kernel knows it by: the MADT's id, as the APIC reports it */
	bool x2apic_mode;  /* false: only the low 8 bits of the ids are comparable */
	bool amd;	   /* AuthenticAMD or HygonGenuine */
	uint32_t max_leaf; /* CPUID.0:EAX */
	uint32_t max_ext;  /* CPUID.80000000h:EAX */
	struct topo_regs leaf1;
	uint32_t levels_leaf; /* 0x1f, 0xb or 0x80000026; 0 if none */
	struct topo_regs levels[TOPO_LEVELS_MAX];
	uint32_t cache_leaf; /* 4 or 0x8000001d; 0 if none */
	uint32_t cache_eax[TOPO_CACHES_MAX];
	uint32_t leaf4_eax;	   /* leaf 4 subleaf 0 (cores a package, legacy) */
	uint32_t amd_80000008_ecx; /* NC and ApicIdCoreIdSize */
	struct topo_regs amd_8000001e;
	bool have_8000001e;
};

/* The leaves the kernel reads, by number (the kernel and the tests use the same). */
#define TOPO_LEAF_LEGACY  0x1u
#define TOPO_LEAF_CACHE	  0x4u
#define TOPO_LEAF_XTOPO	  0xbu
#define TOPO_LEAF_XTOPO2  0x1fu
#define TOPO_LEAF_AMD_NC  0x80000008u
#define TOPO_LEAF_AMD_CCH 0x8000001du
#define TOPO_LEAF_AMD_ID  0x8000001eu
#define TOPO_LEAF_AMD_TOP 0x80000026u

/*
 * Fill @t from @l[0 .. @n-1] (CPU i's leaves, i its kernel index).  Returns
 * false, with @t flat and t->why naming the CPU and the leaf, when the
 * leaves are absent, zero or disagree with the APIC ids.  @how gets one
 * line of how the first CPU's leaves were read ("cpuid 0xb: smt shift 1,
 * package shift 2; cache leaf 4: L3 shared by 4 ids").
 */
bool topology_from_cpuid(struct topology *t, const struct topo_leaves *l, unsigned n, char *how,
			 size_t how_size);

#endif
