// SPDX-License-Identifier: MIT
/*
 * acpi.c - find the RSDP, let acpi_tables.c parse, and use the result.
 *
 * The RSDP comes from the Multiboot2 ACPI tags (the only way under UEFI,
 * docs/tools.md); without them we search where legacy BIOSes put it: the first
 * KiB of the EBDA and 0xE0000..0xFFFFF, on 16-byte boundaries (ACPI 6.5
 * 5.2.5.1).  Tables are read through the identity map; those above 4 GiB
 * are mapped first.
 */
#include "acpi.h"

#include "console.h"
#include "cpu.h"
#include "limits.h"
#include "printf.h"
#include "string.h"
#include "vm.h"

#define IDENTITY_LIMIT	 (4ull << 30) /* mapped by boot/entry.asm */
#define EBDA_SEGMENT_PTR 0x40e
#define EBDA_SEARCH_LEN	 1024
#define BIOS_ROM_START	 0xe0000
#define BIOS_ROM_END	 0x100000
#define RSDP_ALIGN	 16
#define RSDP_V1_LEN	 20
#define RSDP_OEMID_AT	 9
#define OEMID_LEN	 6

struct acpi_info acpi;
static struct acpi_cpu acpi_cpus[MAX_CPUS];
static char oem_id[OEMID_LEN + 1];

static const void *map_identity(uint64_t phys, size_t len, void *ctx)
{
	(void)ctx;
	if (phys + len < phys)
		return NULL;
	if (phys + len > IDENTITY_LIMIT && !vm_map_identity(phys, len))
		return NULL;
	return (const void *)(uintptr_t)phys;
}

static bool rsdp_checksum_ok(const uint8_t *p)
{
	uint8_t sum = 0;

	for (int i = 0; i < RSDP_V1_LEN; i++)
		sum += p[i];
	return sum == 0;
}

static const void *scan_for_rsdp(uint64_t start, uint64_t end)
{
	for (uint64_t a = start; a + RSDP_V1_LEN <= end; a += RSDP_ALIGN) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)a;

		if (memcmp(p, "RSD PTR ", 8) == 0 && rsdp_checksum_ok(p))
			return p;
	}
	return NULL;
}

void acpi_init(const struct boot_info *bi)
{
	const void *rsdp = bi->rsdp;
	size_t rsdp_len = bi->rsdp_len;
	const char *where = "Multiboot2 tag";

	if (!rsdp) {
		uint64_t ebda = (uint64_t) * (const volatile uint16_t *)EBDA_SEGMENT_PTR << 4;

		where = "BIOS memory scan";
		rsdp = ebda ? scan_for_rsdp(ebda, ebda + EBDA_SEARCH_LEN) : NULL;
		if (!rsdp)
			rsdp = scan_for_rsdp(BIOS_ROM_START, BIOS_ROM_END);
		/* A v2 RSDP found in memory is 36 bytes; the parser checks its length field. */
		rsdp_len = rsdp && ((const uint8_t *)rsdp)[15] >= 2 ? 36 : RSDP_V1_LEN;
	}
	if (!rsdp) {
		printk("acpi: WARNING: no RSDP (no Multiboot2 ACPI tag, none in BIOS memory): "
		       "no MADT, no FADT\n");
		return;
	}
	memcpy(oem_id, (const uint8_t *)rsdp + RSDP_OEMID_AT, OEMID_LEN);
	acpi.cpus = acpi_cpus;
	acpi.max_cpus = MAX_CPUS;
	if (acpi_parse(rsdp, rsdp_len, map_identity, NULL, &acpi, printk_line) != ACPI_OK) {
		printk("acpi: WARNING: tables unusable (see above): no MADT, no FADT\n");
		acpi.have_madt = false;
		return;
	}
	printk("acpi: RSDP rev %u (%s, OEM '%s'), %s; MADT %s: %u CPU%s usable, %u disabled, "
	       "%u online-capable (absent); FADT %s%s; \\_S5 %s\n",
	       acpi.rsdp_revision, where, oem_id, acpi.xsdt_used ? "XSDT" : "RSDT",
	       acpi.have_madt ? "found" : "MISSING", acpi.cpus_usable, plural(acpi.cpus_usable),
	       acpi.cpus_disabled, acpi.cpus_hotplug, acpi.have_fadt ? "found" : "missing",
	       acpi.fadt_flags & ACPI_FADT_HW_REDUCED_ACPI ? " (hardware-reduced)" : "",
	       acpi.have_s5 ? "found" : "missing");
	/* The clocks tsc.c can calibrate against when there is no PIT. */
	if (acpi.pm_timer)
		printk("acpi: ACPI PM timer at port 0x%x, %u bits wide\n", acpi.pm_timer,
		       acpi.pm_timer_32 ? 32 : 24);
	if (acpi.have_hpet)
		printk("acpi: HPET at 0x%lx\n", acpi.hpet_phys);
	if (!acpi.have_madt)
		printk("acpi: WARNING: no MADT\n");
}
