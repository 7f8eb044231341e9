// SPDX-License-Identifier: MIT
/*
 * topology_cpuid.c - APIC-id shifts from CPUID leaves, then the raw
 * records of topology.h (topology_cpuid.h says what each leaf gives).
 */
#include "topology_cpuid.h"

#include "printf.h"
#include "string.h"

#define LEVEL_TYPE(ecx)	 (((ecx) >> 8) & 0xffu) /* 0 ends the list, 1 SMT, 2 core, ... */
#define LEVEL_SHIFT(eax) ((eax)&0x1fu)
#define LEVEL_COUNT(ebx) ((ebx)&0xffffu) /* logical processors at this level */
#define LEVEL_SMT	 1u
#define CACHE_TYPE(eax)	 ((eax)&0x1fu) /* 0 none, 1 data, 2 instruction, 3 unified */
#define CACHE_LEVEL(eax) (((eax) >> 5) & 0x7u)
#define CACHE_SHARE(eax) ((((eax) >> 14) & 0xfffu) + 1)
#define CACHE_CORES(eax) ((((eax) >> 26) & 0x3fu) + 1) /* leaf 4: cores a package */
#define CACHE_INSTR	 2u
#define LEAF1_HTT	 (1u << 28)
#define LEAF1_LOGICAL(b) (((b) >> 16) & 0xffu)
#define LEAF1_APIC(b)	 ((b) >> 24)
#define AMD_NC(ecx)	 (((ecx)&0xffu) + 1)
#define AMD_IDSIZE(ecx)	 (((ecx) >> 12) & 0xfu)
#define AMD_TPC(ebx)	 ((((ebx) >> 8) & 0xffu) + 1)
#define XAPIC_ID_MASK	 0xffu

struct shifts {
	unsigned smt, pkg, llc;
	unsigned llc_level, llc_share; /* for the how line */
	uint32_t apic;		       /* the id the leaves report */
	const char *levels;	       /* which leaf gave smt and pkg */
};

/* The smallest s with 2^s >= @v. */
static unsigned ceil_log2(unsigned v)
{
	unsigned s = 0;

	while ((1u << s) < v && s < 31)
		s++;
	return s;
}

static const char *leaf_name(uint32_t leaf)
{
	return leaf == TOPO_LEAF_XTOPO2	   ? "0x1f"
	       : leaf == TOPO_LEAF_XTOPO   ? "0xb"
	       : leaf == TOPO_LEAF_AMD_TOP ? "0x80000026"
	       : leaf == TOPO_LEAF_CACHE   ? "4"
					   : "0x8000001d";
}

/* x2APIC levels: false, with @why, when the first level is missing or zero. */
static bool from_levels(const struct topo_leaves *l, struct shifts *s, char *why, size_t size)
{
	unsigned last = 0;

	s->smt = 0;
	for (unsigned i = 0; i < TOPO_LEVELS_MAX; i++) {
		const struct topo_regs *r = &l->levels[i];

		if (LEVEL_TYPE(r->ecx) == 0)
			break;
		if (LEVEL_TYPE(r->ecx) == LEVEL_SMT)
			s->smt = LEVEL_SHIFT(r->eax);
		if (LEVEL_COUNT(r->ebx) == 0 || LEVEL_SHIFT(r->eax) < last) {
			ksnprintf(why, size, "leaf %s subleaf %u: %s", leaf_name(l->levels_leaf), i,
				  LEVEL_COUNT(r->ebx) == 0 ? "zero processors at this level"
							   : "a shift below the level under it");
			return false;
		}
		last = LEVEL_SHIFT(r->eax);
	}
	if (LEVEL_TYPE(l->levels[0].ecx) == 0) {
		ksnprintf(why, size, "leaf %s: no levels (subleaf 0 has level type 0)",
			  leaf_name(l->levels_leaf));
		return false;
	}
	s->pkg = last;
	s->apic = l->levels[0].edx;
	s->levels = leaf_name(l->levels_leaf);
	return true;
}

/* Leaf 1 (and 4 or AMD's 0x80000008 and 0x8000001E) counts: old CPUs and emulators. */
static bool from_legacy(const struct topo_leaves *l, struct shifts *s, char *why, size_t size)
{
	unsigned logical = LEAF1_LOGICAL(l->leaf1.ebx), cores = 1, tpc;

	s->apic = LEAF1_APIC(l->leaf1.ebx);
	s->levels = "1 (legacy)";
	if (!(l->leaf1.edx & LEAF1_HTT) || logical == 0) {
		ksnprintf(why, size,
			  "no x2APIC topology leaf, and leaf 1 %s: no count of processors a "
			  "package",
			  logical == 0 ? "EBX[23:16] is zero" : "HTT is clear");
		return false;
	}
	if (l->amd && l->max_ext >= TOPO_LEAF_AMD_NC) {
		cores = AMD_NC(l->amd_80000008_ecx);
		s->pkg = AMD_IDSIZE(l->amd_80000008_ecx) ? AMD_IDSIZE(l->amd_80000008_ecx)
							 : ceil_log2(logical);
		tpc = l->have_8000001e ? AMD_TPC(l->amd_8000001e.ebx) : 1;
		s->smt = ceil_log2(tpc);
		return true;
	}
	if (CACHE_TYPE(l->leaf4_eax) != 0)
		cores = CACHE_CORES(l->leaf4_eax);
	s->pkg = ceil_log2(logical);
	s->smt = cores <= logical ? ceil_log2(logical / cores) : 0;
	return true;
}

/* The highest data or unified cache: its shift; the package's without a cache leaf. */
static void llc_shift(const struct topo_leaves *l, struct shifts *s)
{
	s->llc = s->pkg;
	s->llc_level = 0;
	s->llc_share = 0;
	for (unsigned i = 0; l->cache_leaf && i < TOPO_CACHES_MAX; i++) {
		uint32_t eax = l->cache_eax[i];

		if (CACHE_TYPE(eax) == 0)
			break;
		if (CACHE_TYPE(eax) == CACHE_INSTR || CACHE_LEVEL(eax) < s->llc_level)
			continue;
		s->llc_level = CACHE_LEVEL(eax);
		s->llc_share = CACHE_SHARE(eax);
	}
	if (s->llc_level) {
		s->llc = ceil_log2(s->llc_share);
		/* A cache said to be shared beyond the package is taken as the package's. */
		s->llc = s->llc > s->pkg ? s->pkg : s->llc;
	}
}

bool topology_from_cpuid(struct topology *t, const struct topo_leaves *l, unsigned n, char *how,
			 size_t how_size)
{
	static struct topo_raw raw[MAX_CPUS];
	static unsigned os[MAX_CPUS];
	char why[TOPO_WHY_MAX];
	struct shifts s, first = {0};

	n = n > MAX_CPUS ? MAX_CPUS : n;
	for (unsigned i = 0; i < n; i++)
		os[i] = i;
	ksnprintf(how, how_size, "no leaves");
	for (unsigned i = 0; i < n; i++) {
		uint32_t want = l[i].apic_id, got;
		bool ok = l[i].levels_leaf ? from_levels(&l[i], &s, why, sizeof(why))
					   : from_legacy(&l[i], &s, why, sizeof(why));

		if (!ok) {
			topology_flat(t, os, n, "CPU %u: CPUID %s", i, why);
			return false;
		}
		llc_shift(&l[i], &s);
		got = s.apic;
		if (!l[i].x2apic_mode || !l[i].levels_leaf)
			got &= XAPIC_ID_MASK, want &= XAPIC_ID_MASK;
		if (got != want) {
			topology_flat(t, os, n,
				      "CPU %u: CPUID leaf %s gives APIC id %u, but the firmware "
				      "(MADT) and the APIC say %u",
				      i, s.levels, got, want);
			return false;
		}
		if (i == 0)
			first = s;
		raw[i] = (struct topo_raw){
		    .os = i,
		    .package = l[i].apic_id >> s.pkg,
		    .core = l[i].apic_id >> s.smt,
		    .llc = l[i].apic_id >> s.llc,
		};
	}
	if (n == 0) {
		topology_flat(t, os, 0, "no CPUs");
		return false;
	}
	if (first.llc_level)
		ksnprintf(how, how_size,
			  "cpuid %s: smt shift %u, package shift %u; cache leaf %s: L%u shared by "
			  "%u ids",
			  first.levels, first.smt, first.pkg, leaf_name(l[0].cache_leaf),
			  first.llc_level, first.llc_share);
	else
		ksnprintf(how, how_size,
			  "cpuid %s: smt shift %u, package shift %u; no cache leaf: one LLC group "
			  "a package",
			  first.levels, first.smt, first.pkg);
	ksnprintf(why, sizeof(why), "cpuid %s", first.levels);
	return topology_build(t, raw, n, why);
}
