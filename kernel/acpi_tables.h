// SPDX-License-Identifier: MIT
/*
 * acpi_tables.h - pure parsers for the few ACPI tables this kernel needs.
 *
 * The kernel needs four things from firmware: the list of CPUs and the
 * local APIC address (MADT), the registers that power the machine off
 * (FADT), the sleep type to write to them (the DSDT's \_S5 package), and
 * the clocks to calibrate the TSC against when there is no PIT (the FADT's
 * ACPI PM timer, the HPET table).  Firmware
 * tables are untrusted input: lengths lie, checksums break, entries are
 * truncated.  So the parsing lives here, free of any hardware access, and
 * reads physical memory only through a caller-given map function.  The
 * kernel (kernel/acpi.c) passes an identity map; the host test
 * (tests/host/test_acpi.c) passes crafted tables in exact-size buffers, so
 * AddressSanitizer catches any read past a table's end.
 *
 * Specification: ACPI 6.5 (sections quoted next to each structure in
 * acpi_tables.c).
 */
#ifndef KERNEL_ACPI_TABLES_H
#define KERNEL_ACPI_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest table length accepted; anything longer is treated as corrupt. */
#define ACPI_TABLE_MAX_LEN (1u << 20)

/* I/O APICs and interrupt source overrides recorded; extras are counted and reported. */
#define ACPI_MAX_IOAPICS   16u
#define ACPI_MAX_OVERRIDES 16u

/* ACPI 6.5 5.2.12.2 Local APIC Flags (shared by MADT types 0 and 9). */
#define ACPI_LAPIC_ENABLED	  (1u << 0)
#define ACPI_LAPIC_ONLINE_CAPABLE (1u << 1)

/*
 * ACPI 6.5 5.2.12.2 Local APIC Flags: Online Capable exists from MADT
 * revision 5 (ACPI 6.3); before that bit 1 is reserved.
 */
#define ACPI_MADT_ONLINE_CAPABLE_REV 5

/* ACPI 6.5 5.2.9 FADT Fixed Feature Flags: the ones the kernel looks at. */
#define ACPI_FADT_TMR_VAL_EXT	  (1u << 8) /* the PM timer is 32 bits wide, not 24 */
#define ACPI_FADT_RESET_REG_SUP	  (1u << 10)
#define ACPI_FADT_HW_REDUCED_ACPI (1u << 20)

/* ACPI 6.5 5.2.3.2 Generic Address Structure: Address Space ID values used here. */
#define ACPI_GAS_SYSTEM_MEMORY 0
#define ACPI_GAS_SYSTEM_IO     1

/* ACPI 6.5 4.8.3.1.1 PM1 Status Registers: wake status, write 1 to clear. */
#define ACPI_PM1_STS_WAK_STS (1u << 15)

/* ACPI 6.5 4.8.3.2.1 PM1 Control Registers: the bits used to enable ACPI and power off. */
#define ACPI_PM1_CNT_SCI_EN	   (1u << 0)
#define ACPI_PM1_CNT_GBL_RLS	   (1u << 2) /* write-only: writing 1 raises an SMI */
#define ACPI_PM1_CNT_SLP_TYP_SHIFT 10
#define ACPI_PM1_CNT_SLP_TYP_MASK  (7u << ACPI_PM1_CNT_SLP_TYP_SHIFT)
#define ACPI_PM1_CNT_SLP_EN	   (1u << 13) /* write-only */

/* ACPI 6.5 4.8.3.7 Sleep Control and 4.8.3.8 Sleep Status Registers (hardware-reduced ACPI). */
#define ACPI_SLEEP_CNT_SLP_TYP_SHIFT 2
#define ACPI_SLEEP_CNT_SLP_TYP_MASK  (7u << ACPI_SLEEP_CNT_SLP_TYP_SHIFT)
#define ACPI_SLEEP_CNT_SLP_EN	     (1u << 5)
#define ACPI_SLEEP_STS_WAK_STS	     (1u << 7)

/* acpi_parse() results.  Anything but ACPI_OK means no table was trusted. */
#define ACPI_OK	      0
#define ACPI_ERR_ARGS (-1) /* bad arguments: no map function, or cpus NULL with max_cpus > 0 */
#define ACPI_ERR_RSDP (-2) /* the RSDP is too short, misnamed or fails its checksum */
#define ACPI_ERR_ROOT (-3) /* neither the XSDT nor the RSDT could be mapped and validated */

/*
 * Return a pointer through which @len bytes at physical address @phys can
 * be read, or NULL if that range cannot be mapped.  Addresses are 64-bit:
 * tables may sit above 4 GiB.  The parser may ask for the same address
 * again with a larger @len (first the header, then the whole table), and
 * keeps using every returned pointer until acpi_parse() returns.
 */
typedef const void *(*acpi_map_fn)(uint64_t phys, size_t len, void *ctx);

/*
 * Print one warning line (no trailing newline in @fmt).  Every rejection
 * names the table and what was wrong.  Formats use only %s, %u, %x, %llu
 * and %llx (unsigned long long), all supported by lib/printf.h, so
 * platform_log can be passed directly.  May be NULL for silence.
 */
typedef void (*acpi_report_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One usable processor from the MADT. */
struct acpi_cpu {
	uint32_t apic_id; /* 8-bit xAPIC id (type 0) or 32-bit x2APIC id (type 9) */
	uint32_t uid;	  /* ACPI processor UID (type 0: 8-bit processor id) */
	uint32_t flags;	  /* ACPI_LAPIC_ENABLED / ACPI_LAPIC_ONLINE_CAPABLE */
	uint8_t type;	  /* MADT entry type it came from: 0 or 9 */
};

struct acpi_ioapic {
	uint8_t id;
	uint32_t address; /* physical base of its registers */
	uint32_t gsi_base;
};

/* ISA IRQ @source is wired to global system interrupt @gsi (MPS INTI @flags). */
struct acpi_irq_override {
	uint8_t source;
	uint32_t gsi;
	uint16_t flags;
};

/* ACPI 6.5 5.2.3.2 Generic Address Structure, unpacked. */
struct acpi_gas {
	uint8_t space; /* ACPI_GAS_SYSTEM_IO, ACPI_GAS_SYSTEM_MEMORY, ... */
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;
	uint64_t address;
};

struct acpi_info {
	/* In: set by the caller before acpi_parse(); left untouched by it. */
	struct acpi_cpu *cpus; /* room for max_cpus entries (may be NULL if max_cpus == 0) */
	unsigned max_cpus;

	/* Out: everything below is zeroed, then filled from the tables. */
	uint8_t rsdp_revision;
	bool xsdt_used;	    /* the root table was the XSDT (else the RSDT) */
	uint64_t root_phys; /* physical address of that root table */

	/* MADT ("APIC"), ACPI 6.5 5.2.12. */
	bool have_madt;
	uint8_t madt_revision;
	uint64_t lapic_phys;	 /* the 32-bit header field, or the type 5 override */
	bool pcat_compat;	 /* dual 8259s present: mask them before using the APIC */
	unsigned ncpus;		 /* entries stored in cpus[], at most max_cpus */
	unsigned cpus_usable;	 /* usable entries seen, stored or not (see cpus_duplicate) */
	unsigned cpus_extra;	 /* usable entries that did not fit: cpus_usable - ncpus */
	unsigned cpus_disabled;	 /* not Enabled (nor Online Capable): absent, skipped */
	unsigned cpus_hotplug;	 /* Online Capable, not Enabled (revision >= 5): absent, skipped */
	unsigned cpus_duplicate; /* APIC id already in cpus[]: skipped (extras are not compared) */
	unsigned cpus_invalid;	 /* id 0xff (type 0) or 0xffffffff (type 9), short entries */
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	unsigned nioapics;
	struct acpi_irq_override overrides[ACPI_MAX_OVERRIDES];
	unsigned noverrides;

	/* FADT ("FACP"), ACPI 6.5 5.2.9.  A port of 0 means "not present". */
	bool have_fadt;
	uint8_t fadt_revision;
	uint32_t fadt_flags;	 /* ACPI_FADT_* */
	uint16_t iapc_boot_arch; /* ACPI 6.5 5.2.9.3 */
	uint16_t sci_irq;
	uint16_t smi_cmd; /* write acpi_enable here to enter ACPI mode (0: always in it) */
	uint8_t acpi_enable;
	uint16_t pm1a_evt;  /* PM1a event block I/O port: the status register first */
	uint16_t pm1b_evt;  /* PM1b event block I/O port, often absent */
	uint16_t pm1a_cnt;  /* PM1a control block I/O port */
	uint16_t pm1b_cnt;  /* PM1b control block I/O port, often absent */
	uint16_t pm_timer;  /* ACPI PM timer I/O port (0: none, or hardware-reduced ACPI) */
	bool pm_timer_32;   /* TMR_VAL_EXT: the timer counts 32 bits, else 24 */
	uint64_t dsdt_phys; /* X_DSDT when nonzero, else DSDT */
	bool have_reset;    /* RESET_REG_SUP is set: write reset_value to reset_reg */
	struct acpi_gas reset_reg;
	uint8_t reset_value;
	/* Hardware-reduced ACPI (ACPI 5.0+): these replace the PM1 blocks (address 0: absent). */
	struct acpi_gas sleep_control;
	struct acpi_gas sleep_status;

	/* HPET table, IA-PC HPET Specification 1.0a 3.2.4: the first timer block. */
	bool have_hpet;
	uint64_t hpet_phys; /* its 1 KiB register block, in system memory */

	/*
	 * DSDT \_S5 package, ACPI 6.5 7.4.2 \_Sx and 7.4.2.6: the sleep types
	 * for soft-off.  A one-element package (the ACPI 1.0 form) packs
	 * SLP_TYPa in bits 0-7 of its integer and SLP_TYPb in bits 8-15.
	 */
	bool have_s5;
	uint8_t slp_typa; /* 3-bit SLP_TYP for PM1a_CNT */
	uint8_t slp_typb; /* 3-bit SLP_TYP for PM1b_CNT */
};

/*
 * Parse the ACPI tables reachable from the RSDP at @rsdp, of which @rsdp_len
 * bytes are readable (20 for a revision 0 RSDP, 36 for revision 2).
 *
 * Checks the RSDP (signature, checksum, and for revision >= 2 the extended
 * checksum), then walks the XSDT (revision >= 2 with a nonzero address) or
 * the RSDT, falling back to the RSDT when the XSDT is unusable.  Each table
 * used (MADT, FADT, DSDT) is trusted only if it maps, its length lies in
 * [36, ACPI_TABLE_MAX_LEN] and its checksum is zero; otherwise it is
 * reported and ignored, and the matching have_* flag stays false.
 *
 * Returns ACPI_OK when the RSDP and a root table were valid (the have_*
 * flags then say which tables were found), or a negative ACPI_ERR_* after
 * reporting why.  Only reads memory; keeps no state; may run on any CPU.
 */
int acpi_parse(const void *rsdp, size_t rsdp_len, acpi_map_fn map, void *ctx, struct acpi_info *out,
	       acpi_report_fn report);

#endif /* KERNEL_ACPI_TABLES_H */
