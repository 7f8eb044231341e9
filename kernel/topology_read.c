// SPDX-License-Identifier: MIT
/*
 * topology_read.c - each CPU reads the CPUID leaves that describe itself;
 * lib/topology_cpuid.c turns them into the topology.
 *
 * A leaf is read only below its range's maximum (cpuinfo.c says why), and
 * a level leaf is used only if its first subleaf counts some processors:
 * zero there means "not implemented" on some CPUs and emulators.
 */
#include "topology_read.h"

#include "apic.h"
#include "console.h"
#include "cpu.h"
#include "cpuinfo.h"
#include "percpu.h"
#include "printf.h"
#include "smp.h"
#include "string.h"
#include "topology_cpuid.h"

#define TOPO_READ_TIMEOUT_MS 2000
#define CPUIDX_ECX_TOPOEXT   (1u << 22) /* CPUID.80000001h:ECX: leaves 0x8000001D/1E */
#define TOPO_HOW_MAX	     160
#define TOPO_DESCRIBE_MAX    400

static struct topo_leaves leaves[MAX_CPUS];
static struct topology topo;

static struct topo_regs regs(uint32_t leaf, uint32_t sub)
{
	struct cpuid_regs r = cpuid(leaf, sub);

	return (struct topo_regs){r.eax, r.ebx, r.ecx, r.edx};
}

/* The x2APIC level leaf to use: 0x1F, 0xB, AMD's 0x80000026, or 0 when none counts processors. */
static uint32_t levels_leaf(const struct topo_leaves *l)
{
	if (l->max_leaf >= TOPO_LEAF_XTOPO2 && regs(TOPO_LEAF_XTOPO2, 0).ebx)
		return TOPO_LEAF_XTOPO2;
	if (l->max_leaf >= TOPO_LEAF_XTOPO && regs(TOPO_LEAF_XTOPO, 0).ebx)
		return TOPO_LEAF_XTOPO;
	if (l->amd && l->max_ext >= TOPO_LEAF_AMD_TOP && regs(TOPO_LEAF_AMD_TOP, 0).ebx)
		return TOPO_LEAF_AMD_TOP;
	return 0;
}

static void read_this_cpu(void *arg)
{
	struct topo_leaves *l = &leaves[this_cpu_index()];
	bool topoext;

	(void)arg;
	*l = (struct topo_leaves){
	    .apic_id = this_cpu()->apic_id,
	    .x2apic_mode = apic_is_x2apic(),
	    .amd = strcmp(cpuinfo.vendor, "AuthenticAMD") == 0 ||
		   strcmp(cpuinfo.vendor, "HygonGenuine") == 0,
	    .max_leaf = cpuinfo.basic_max_leaf,
	    .max_ext = cpuinfo.ext_max_leaf,
	    .leaf1 = regs(TOPO_LEAF_LEGACY, 0),
	};
	topoext = l->max_ext >= CPUID_EXT_FEATURES &&
		  (regs(CPUID_EXT_FEATURES, 0).ecx & CPUIDX_ECX_TOPOEXT);
	l->levels_leaf = levels_leaf(l);
	for (unsigned i = 0; l->levels_leaf && i < TOPO_LEVELS_MAX; i++)
		l->levels[i] = regs(l->levels_leaf, i);
	if (l->max_leaf >= TOPO_LEAF_CACHE)
		l->leaf4_eax = regs(TOPO_LEAF_CACHE, 0).eax;
	if (l->amd && topoext && l->max_ext >= TOPO_LEAF_AMD_CCH)
		l->cache_leaf = TOPO_LEAF_AMD_CCH;
	else if (l->leaf4_eax & 0x1f) /* a cache type: leaf 4 is implemented */
		l->cache_leaf = TOPO_LEAF_CACHE;
	for (unsigned i = 0; l->cache_leaf && i < TOPO_CACHES_MAX; i++)
		l->cache_eax[i] = regs(l->cache_leaf, i).eax;
	if (l->amd && l->max_ext >= TOPO_LEAF_AMD_NC)
		l->amd_80000008_ecx = regs(TOPO_LEAF_AMD_NC, 0).ecx;
	l->have_8000001e = l->amd && topoext && l->max_ext >= TOPO_LEAF_AMD_ID;
	if (l->have_8000001e)
		l->amd_8000001e = regs(TOPO_LEAF_AMD_ID, 0);
}

void topology_init(void)
{
	char how[TOPO_HOW_MAX], text[TOPO_DESCRIBE_MAX];
	unsigned n = smp_cpus_online();

	if (!smp_run_on_all(read_this_cpu, NULL, TOPO_READ_TIMEOUT_MS, "topology: read CPUID")) {
		topology_flat(&topo, NULL, n, "a CPU did not read its CPUID leaves in time");
		ksnprintf(how, sizeof(how), "CPUID not read on every CPU");
	} else {
		topology_from_cpuid(&topo, leaves, n, how, sizeof(how));
	}
	printk("topology: %s\n", how);
	if (topo.why[0])
		printk("topology: WARNING: %s; taking every CPU as its own core, package and LLC "
		       "group\n",
		       topo.why);
	topology_describe(text, sizeof(text), &topo);
	printk("topology: %s\n", text);
}

const struct topology *kernel_topology(void)
{
	return &topo;
}
