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

#include "acpi_sleep.h"
#include "console.h"
#include "cpu.h"
#include "platform.h"
#include "string.h"
#include "tsc.h"
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
/* After writing ACPI_ENABLE, firmware sets SCI_EN within a few ms on real machines. */
#define ACPI_ENABLE_WAIT_US 300000
#define POWEROFF_WAIT_US    100000

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
		       "no MADT, running on the boot CPU only\n");
		return;
	}
	memcpy(oem_id, (const uint8_t *)rsdp + RSDP_OEMID_AT, OEMID_LEN);
	acpi.cpus = acpi_cpus;
	acpi.max_cpus = MAX_CPUS;
	if (acpi_parse(rsdp, rsdp_len, map_identity, NULL, &acpi, platform_log) != ACPI_OK) {
		printk(
		    "acpi: WARNING: tables unusable (see above): running on the boot CPU only\n");
		acpi.have_madt = false;
		return;
	}
	printk("acpi: RSDP rev %u (%s, OEM '%s'), %s; MADT %s: %u CPUs usable, %u disabled, "
	       "%u online-capable (absent); FADT %s%s; \\_S5 %s\n",
	       acpi.rsdp_revision, where, oem_id, acpi.xsdt_used ? "XSDT" : "RSDT",
	       acpi.have_madt ? "found" : "MISSING", acpi.cpus_usable, acpi.cpus_disabled,
	       acpi.cpus_hotplug, acpi.have_fadt ? "found" : "missing",
	       acpi.fadt_flags & ACPI_FADT_HW_REDUCED_ACPI ? " (hardware-reduced)" : "",
	       acpi.have_s5 ? "found" : "missing");
	/* The clocks tsc.c can calibrate against when there is no PIT. */
	if (acpi.pm_timer)
		printk("acpi: ACPI PM timer at port 0x%x, %u bits wide\n", acpi.pm_timer,
		       acpi.pm_timer_32 ? 32 : 24);
	if (acpi.have_hpet)
		printk("acpi: HPET at 0x%lx\n", acpi.hpet_phys);
	if (!acpi.have_madt)
		printk("acpi: WARNING: no MADT: running on the boot CPU only\n");
}

bool acpi_oem_is_bochs(void)
{
	return strncmp(oem_id, "BOCHS", 5) == 0;
}

/* Put the chipset in ACPI mode if the firmware left it in legacy mode (ACPI 6.5 4.8.2.1.1). */
static bool acpi_enable_mode(void)
{
	if (inw(acpi.pm1a_cnt) & ACPI_PM1_CNT_SCI_EN)
		return true;
	if (!acpi.smi_cmd || !acpi.acpi_enable)
		return false;
	outb(acpi.smi_cmd, acpi.acpi_enable);
	uint64_t end = tsc_now() + tsc_from_us(ACPI_ENABLE_WAIT_US);
	while (tsc_now() < end)
		if (inw(acpi.pm1a_cnt) & ACPI_PM1_CNT_SCI_EN)
			return true;
	return false;
}

/* An ACPI register in memory space: through the identity map, mapped first if high. */
static volatile void *hw_mmio(uint64_t addr, unsigned bits)
{
	return (volatile void *)map_identity(addr, bits / 8, NULL);
}

static uint32_t hw_read(void *ctx, uint8_t space, uint64_t addr, unsigned bits)
{
	(void)ctx;
	if (space == ACPI_GAS_SYSTEM_IO)
		return bits == 8    ? inb((uint16_t)addr)
		       : bits == 16 ? inw((uint16_t)addr)
				    : inl((uint16_t)addr);
	volatile void *p = hw_mmio(addr, bits);
	if (!p)
		return 0;
	return bits == 8    ? *(volatile uint8_t *)p
	       : bits == 16 ? *(volatile uint16_t *)p
			    : *(volatile uint32_t *)p;
}

static void hw_write(void *ctx, uint8_t space, uint64_t addr, unsigned bits, uint32_t v)
{
	(void)ctx;
	if (space == ACPI_GAS_SYSTEM_IO) {
		if (bits == 8)
			outb((uint16_t)addr, (uint8_t)v);
		else if (bits == 16)
			outw((uint16_t)addr, (uint16_t)v);
		else
			outl((uint16_t)addr, v);
		return;
	}
	volatile void *p = hw_mmio(addr, bits);
	if (!p)
		return;
	if (bits == 8)
		*(volatile uint8_t *)p = (uint8_t)v;
	else if (bits == 16)
		*(volatile uint16_t *)p = (uint16_t)v;
	else
		*(volatile uint32_t *)p = v;
}

static void hw_flush_caches(void *ctx)
{
	(void)ctx;
	wbinvd();
}

static const struct acpi_hw kernel_hw = {
    .read = hw_read, .write = hw_write, .flush_caches = hw_flush_caches};

void acpi_poweroff(void)
{
	bool legacy = !(acpi.fadt_flags & ACPI_FADT_HW_REDUCED_ACPI);
	const char *why;

	/* Hardware-reduced platforms are always in ACPI mode: no SCI_EN, no SMI_CMD. */
	if (legacy && acpi.have_fadt && acpi.have_s5 && acpi.pm1a_cnt && !acpi_enable_mode())
		printk("acpi: SCI_EN stayed clear after the ACPI enable request; trying anyway\n");
	console_drain();
	why = acpi_enter_s5(&acpi, &kernel_hw);
	if (why) {
		printk("acpi: cannot power off: %s\n", why);
		return;
	}
	udelay(POWEROFF_WAIT_US);
	printk("acpi: still running after the S5 request (%s)\n",
	       legacy ? "PM1 control registers" : "sleep control register");
}

void acpi_reset(void)
{
	if (!acpi.have_reset || acpi.reset_reg.space != ACPI_GAS_SYSTEM_IO)
		return;
	outb((uint16_t)acpi.reset_reg.address, acpi.reset_value);
	udelay(POWEROFF_WAIT_US);
}
