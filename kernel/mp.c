// SPDX-License-Identifier: MIT
/*
 * mp.c - find the Intel MP table and let mptable.c read it.
 *
 * Intel MultiProcessor Specification 1.4, 4: the floating pointer
 * structure lies in the first KiB of the EBDA, else in the last KiB of
 * base memory, else in the BIOS ROM at 0xF0000-0xFFFFF.  The BIOS data
 * area gives the EBDA segment (0x40E) and the base memory size in KiB
 * (0x413).  Everything here is below 4 GiB, inside the boot identity map;
 * the table's 32-bit address cannot point higher.  UEFI firmware has no MP
 * table; the search then reads some low memory and finds nothing.
 */
#include "mp.h"

#include "console.h"
#include "cpu.h"
#include "printf.h"

#define BDA_EBDA_SEGMENT 0x40e
#define BDA_BASE_KIB	 0x413
#define KIB		 1024u
#define BASE_MEMORY_MAX	 (640u * KIB) /* the real-mode base memory, at most */
#define BIOS_ROM_START	 0xf0000u
#define BIOS_ROM_LEN	 0x10000u
#define IDENTITY_LIMIT	 (4ull << 30) /* mapped by boot/entry.asm */
#define XAPIC_ID_LIMIT	 0xff	      /* the broadcast id: no CPU has it */

static const void *map_low(uint64_t phys, size_t len, void *ctx)
{
	(void)ctx;
	if (phys + len < phys || phys + len > IDENTITY_LIMIT)
		return NULL;
	return (const void *)(uintptr_t)phys;
}

/* The floating pointer in the three places the MP spec names, in its order; NULL if none. */
static const uint8_t *find_fps(void)
{
	uint32_t ebda = (uint32_t) * (const volatile uint16_t *)BDA_EBDA_SEGMENT << 4;
	uint32_t base_end = (uint32_t) * (const volatile uint16_t *)BDA_BASE_KIB * KIB;
	const uint8_t *fps = NULL;

	if (ebda)
		fps = mp_find_fps((const uint8_t *)(uintptr_t)ebda, KIB);
	if (!fps && base_end >= KIB && base_end <= BASE_MEMORY_MAX)
		fps = mp_find_fps((const uint8_t *)(uintptr_t)(base_end - KIB), KIB);
	if (!fps)
		fps = mp_find_fps((const uint8_t *)(uintptr_t)BIOS_ROM_START, BIOS_ROM_LEN);
	return fps;
}

/*
 * SeaBIOS, like BIOSes that followed Intel's advice for Hyper-Threading,
 * lists only the first logical processor of each package.  With
 * CPUID.1:EDX.HTT, EBX[23:16] says how many APIC ids a package spans
 * (rounded up to a power of two: the id's package field starts there).
 * When every listed id is the first of its package, the others are added
 * to the list; one that is not there is named and skipped by the start-up
 * like any CPU that does not answer.
 */
static void add_siblings(struct mp_info *out)
{
	struct cpuid_regs r = cpuid(CPUID_FEATURES, 0);
	unsigned ids =
	    r.edx & CPUID1_EDX_HTT ? r.ebx >> CPUID1_EBX_IDS_SHIFT & CPUID1_EBX_IDS_MASK : 1;
	unsigned span = 1, listed = out->ncpus, added = 0;

	while (span < ids)
		span <<= 1;
	if (span == 1)
		return;
	for (unsigned i = 0; i < listed; i++)
		if (out->cpus[i].apic_id % span)
			return;
	for (unsigned i = 0; i < listed; i++) {
		for (unsigned k = 1; k < span && out->cpus[i].apic_id + k < XAPIC_ID_LIMIT; k++) {
			if (out->ncpus == out->max_cpus) {
				out->cpus_extra++;
				continue;
			}
			out->cpus[out->ncpus++] =
			    (struct mp_cpu){.apic_id = (uint8_t)(out->cpus[i].apic_id + k)};
			added++;
		}
	}
	printk("mptable: one CPU listed per package, and CPUID says a package spans %u APIC ids: "
	       "trying %u more CPUs%s\n",
	       span, added, out->cpus_extra ? " (more than MAX_CPUS: the rest ignored)" : "");
}

bool mp_find_cpus(struct mp_info *out)
{
	const uint8_t *fps = find_fps();

	if (!fps) {
		printk("mptable: no MP floating pointer (EBDA, end of base memory, BIOS ROM)\n");
		return false;
	}
	if (!mp_parse(fps, map_low, NULL, out, printk_line))
		return false;
	printk("mptable: MP 1.%u table via 0x%lx, %u entries: %u CPU%s usable, %u disabled, "
	       "local APIC at 0x%x\n",
	       out->spec_rev, (uint64_t)(uintptr_t)fps, out->entries_read, out->ncpus,
	       plural(out->ncpus), out->cpus_disabled, out->lapic_phys);
	add_siblings(out);
	return true;
}
