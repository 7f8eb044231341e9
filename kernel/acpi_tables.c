// SPDX-License-Identifier: MIT
/*
 * acpi_tables.c - RSDP, RSDT/XSDT, MADT, FADT, HPET and the DSDT's \_S5,
 * parsed as untrusted input.
 *
 * Nothing here touches hardware: memory is reached through the caller's map
 * function (see acpi_tables.h).  A table is read only after its length has
 * been bounded and its checksum verified, and every read inside it is
 * checked against that length.  Fields are assembled byte by byte (ACPI is
 * little-endian and its structures are packed and often unaligned), so no
 * structure is ever overlaid on firmware memory.
 */
#include "acpi_tables.h"

/* ACPI 6.5 5.2.5.3 Root System Description Pointer (RSDP) Structure. */
#define RSDP_SIGNATURE	  "RSD PTR "
#define RSDP_SIG_LEN	  8
#define RSDP_V1_LEN	  20u /* the ACPI 1.0 part, covered by the first checksum */
#define RSDP_REVISION	  15
#define RSDP_RSDT_ADDRESS 16
#define RSDP_LENGTH	  20 /* revision >= 2: length covered by the extended checksum */
#define RSDP_XSDT_ADDRESS 24
#define RSDP_V2_LEN	  36u
#define RSDP_REVISION_2	  2 /* ACPI 2.0 and later; 0 is ACPI 1.0 */

/* ACPI 6.5 5.2.6 System Description Table Header. */
#define SDT_SIG_LEN    4
#define SDT_LENGTH     4
#define SDT_REVISION   8
#define SDT_HEADER_LEN 36u

/* ACPI 6.5 5.2.7 RSDT and 5.2.8 XSDT: the header, then physical addresses. */
#define RSDT_ENTRY_LEN 4
#define XSDT_ENTRY_LEN 8

/* ACPI 6.5 5.2.12 Multiple APIC Description Table (MADT). */
#define MADT_LAPIC_ADDRESS 36
#define MADT_FLAGS	   40
#define MADT_ENTRIES	   44u
#define MADT_PCAT_COMPAT   (1u << 0)
#define MADT_ENTRY_HDR_LEN 2 /* every entry starts with Type and Length bytes */

/* MADT entry types used, each with its length (the minimum accepted). */
#define MADT_LAPIC	    0 /* 5.2.12.2 Processor Local APIC */
#define MADT_LAPIC_LEN	    8
#define MADT_IOAPIC	    1 /* 5.2.12.3 I/O APIC */
#define MADT_IOAPIC_LEN	    12
#define MADT_OVERRIDE	    2 /* 5.2.12.5 Interrupt Source Override */
#define MADT_OVERRIDE_LEN   10
#define MADT_LAPIC_ADDR	    5 /* 5.2.12.8 Local APIC Address Override */
#define MADT_LAPIC_ADDR_LEN 12
#define MADT_X2APIC	    9 /* 5.2.12.12 Processor Local x2APIC */
#define MADT_X2APIC_LEN	    16
#define MADT_LAPIC_ID_NONE  0xffu	/* type 0: the xAPIC broadcast id, never a CPU */
#define MADT_X2APIC_ID_NONE 0xffffffffu /* type 9: the x2APIC broadcast id */

/* ACPI 6.5 5.2.9 Fixed ACPI Description Table (FADT): byte offsets. */
#define FADT_DSDT	    40
#define FADT_SCI_INT	    46
#define FADT_SMI_CMD	    48
#define FADT_ACPI_ENABLE    52
#define FADT_PM1A_EVT_BLK   56
#define FADT_PM1B_EVT_BLK   60
#define FADT_PM1A_CNT_BLK   64
#define FADT_PM1B_CNT_BLK   68
#define FADT_PM_TMR_BLK	    76
#define FADT_PM_TMR_LEN	    91
#define FADT_IAPC_BOOT_ARCH 109
#define FADT_FLAGS	    112
#define FADT_V1_LEN	    116u /* the ACPI 1.0 FADT ends after Flags */
#define FADT_RESET_REG	    116
#define FADT_RESET_VALUE    128
#define FADT_X_DSDT	    140
#define FADT_X_PM1A_EVT_BLK 148
#define FADT_X_PM1B_EVT_BLK 160
#define FADT_X_PM1A_CNT_BLK 172
#define FADT_X_PM1B_CNT_BLK 184
#define FADT_X_PM_TMR_BLK   208
#define FADT_SLEEP_CONTROL  244
#define FADT_SLEEP_STATUS   256
#define PM_TMR_LEN	    4 /* PM_TMR_LEN when the PM timer exists */
#define IO_PORT_MAX	    0xffffu

/* IA-PC HPET Specification 1.0a 3.2.4 The ACPI 2.0 HPET Description Table. */
#define HPET_BASE_ADDRESS 40 /* a Generic Address Structure */
#define HPET_TABLE_LEN	  56u

/* ACPI 6.5 5.2.3.2 Generic Address Structure. */
#define GAS_SPACE	0
#define GAS_BIT_WIDTH	1
#define GAS_BIT_OFFSET	2
#define GAS_ACCESS_SIZE 3
#define GAS_ADDRESS	4
#define GAS_LEN		12

/* ACPI 6.5 20.2 AML grammar: the bytes the \_S5 scan recognises. */
#define AML_ZERO_OP	 0x00 /* 20.2.3 ConstObj */
#define AML_ONE_OP	 0x01
#define AML_ONES_OP	 0xff
#define AML_BYTE_PREFIX	 0x0a /* 20.2.3 ByteConst, WordConst, DWordConst, QWordConst */
#define AML_WORD_PREFIX	 0x0b
#define AML_DWORD_PREFIX 0x0c
#define AML_QWORD_PREFIX 0x0e
#define AML_NAME_OP	 0x08 /* 20.2.5.1 DefName := NameOp NameString DataRefObject */
#define AML_PACKAGE_OP	 0x12 /* 20.2.5.4 DefPackage := PackageOp PkgLength NumElements ... */
#define AML_ROOT_CHAR	 0x5c /* 20.2.2 RootChar '\' */
#define AML_S5_NAME	 "_S5_"
#define AML_NAMESEG_LEN	 4

/* ACPI 6.5 20.2.4 Package Length Encoding (PkgLeadByte). */
#define PKG_FOLLOW_SHIFT  6    /* bits 7-6: how many bytes follow the lead byte */
#define PKG_SHORT_MASK	  0x3f /* no followers: bits 5-0 are the whole length */
#define PKG_NIBBLE_MASK	  0x0f /* with followers: bits 3-0 are the low nibble */
#define PKG_RESERVED_MASK 0x30 /* with followers: bits 5-4 must be zero */
#define PKG_NIBBLE_BITS	  4

#define SLP_TYP_MAX 7 /* SLP_TYPx is a 3-bit field of PM1x_CNT */

/* What every step needs: how to reach memory, where to complain, where to write. */
struct parser {
	acpi_map_fn map;
	void *ctx;
	acpi_report_fn report;
	struct acpi_info *out;
};

#define warn(p, ...)                                                                               \
	do {                                                                                       \
		if ((p)->report)                                                                   \
			(p)->report(__VA_ARGS__);                                                  \
	} while (0)

static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get64(const uint8_t *b)
{
	return (uint64_t)get32(b) | (uint64_t)get32(b + 4) << 32;
}

/* ACPI checksums: all bytes of the structure, checksum included, sum to 0 mod 256. */
static uint8_t sum_bytes(const uint8_t *b, size_t n)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + b[i]);
	return sum;
}

static bool same_bytes(const uint8_t *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != (uint8_t)s[i])
			return false;
	return true;
}

/* A table signature as a printable string: firmware bytes may be anything. */
static void sig_name(const uint8_t *b, char name[SDT_SIG_LEN + 1])
{
	for (int i = 0; i < SDT_SIG_LEN; i++)
		name[i] = (b[i] >= 0x20 && b[i] < 0x7f) ? (char)b[i] : '?';
	name[SDT_SIG_LEN] = '\0';
}

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

static struct acpi_gas get_gas(const uint8_t *b)
{
	return (struct acpi_gas){
	    .space = b[GAS_SPACE],
	    .bit_width = b[GAS_BIT_WIDTH],
	    .bit_offset = b[GAS_BIT_OFFSET],
	    .access_size = b[GAS_ACCESS_SIZE],
	    .address = get64(b + GAS_ADDRESS),
	};
}

/*
 * Map the table at @phys that must carry signature @sig, and validate it:
 * header mappable, signature right, length within [SDT_HEADER_LEN,
 * ACPI_TABLE_MAX_LEN], whole table mappable, checksum zero.  Returns the
 * table with its length in *@len, or NULL after reporting what was wrong.
 */
static const uint8_t *map_table(struct parser *p, uint64_t phys, const char *sig, uint32_t *len)
{
	const uint8_t *t = p->map(phys, SDT_HEADER_LEN, p->ctx);
	char name[SDT_SIG_LEN + 1];
	uint32_t n;
	uint8_t sum;

	if (!t) {
		warn(p, "acpi: %s at 0x%llx cannot be mapped, ignoring", sig, ull(phys));
		return NULL;
	}
	if (!same_bytes(t, sig, SDT_SIG_LEN)) {
		sig_name(t, name);
		warn(p, "acpi: table at 0x%llx is '%s', expected %s, ignoring", ull(phys), name,
		     sig);
		return NULL;
	}
	n = get32(t + SDT_LENGTH);
	if (n < SDT_HEADER_LEN || n > ACPI_TABLE_MAX_LEN) {
		warn(p, "acpi: %s at 0x%llx has length %u, outside [%u, %u], ignoring", sig,
		     ull(phys), n, SDT_HEADER_LEN, ACPI_TABLE_MAX_LEN);
		return NULL;
	}
	t = p->map(phys, n, p->ctx);
	if (!t) {
		warn(p, "acpi: %s at 0x%llx: its %u bytes cannot be mapped, ignoring", sig,
		     ull(phys), n);
		return NULL;
	}
	sum = sum_bytes(t, n);
	if (sum) {
		warn(p, "acpi: %s checksum bad (sum 0x%x), ignoring", sig, sum);
		return NULL;
	}
	*len = n;
	return t;
}

/*
 * Record one processor entry (MADT type 0 or 9).  Usable means Enabled:
 * ACPI 6.5 5.2.12.2 says an entry with Enabled clear is not present now;
 * with Online Capable set (MADT revision >= 5) it may be hot-added later,
 * which this kernel does not do, so it is absent too, counted apart.  An
 * APIC id already stored is a duplicate: firmware may list a CPU with APIC
 * id below 255 both as type 0 and as type 9.
 */
static void add_cpu(struct parser *p, uint8_t type, uint32_t apic_id, uint32_t uid, uint32_t flags)
{
	struct acpi_info *out = p->out;
	uint32_t none = type == MADT_LAPIC ? MADT_LAPIC_ID_NONE : MADT_X2APIC_ID_NONE;

	if (!(flags & ACPI_LAPIC_ENABLED)) {
		if ((flags & ACPI_LAPIC_ONLINE_CAPABLE) &&
		    out->madt_revision >= ACPI_MADT_ONLINE_CAPABLE_REV)
			out->cpus_hotplug++;
		else
			out->cpus_disabled++;
		return;
	}
	if (apic_id == none) {
		out->cpus_invalid++;
		warn(p, "acpi: MADT type %u entry (uid %u) has the broadcast APIC id 0x%x, skipped",
		     type, uid, apic_id);
		return;
	}
	for (unsigned i = 0; i < out->ncpus; i++) {
		if (out->cpus[i].apic_id == apic_id) {
			out->cpus_duplicate++;
			warn(p,
			     "acpi: MADT lists APIC id 0x%x twice (types %u and %u), keeping the "
			     "first",
			     apic_id, out->cpus[i].type, type);
			return;
		}
	}
	out->cpus_usable++;
	if (out->ncpus == out->max_cpus) {
		out->cpus_extra++;
		return;
	}
	out->cpus[out->ncpus++] =
	    (struct acpi_cpu){.apic_id = apic_id, .uid = uid, .flags = flags, .type = type};
}

/* The length of a MADT entry of @type that this parser uses, or 0 for a type it skips. */
static uint8_t madt_entry_len(uint8_t type)
{
	switch (type) {
	case MADT_LAPIC:
		return MADT_LAPIC_LEN;
	case MADT_IOAPIC:
		return MADT_IOAPIC_LEN;
	case MADT_OVERRIDE:
		return MADT_OVERRIDE_LEN;
	case MADT_LAPIC_ADDR:
		return MADT_LAPIC_ADDR_LEN;
	case MADT_X2APIC:
		return MADT_X2APIC_LEN;
	default:
		return 0;
	}
}

/* One MADT entry @e of @len bytes (already known to lie inside the table) at offset @off. */
static void madt_entry(struct parser *p, const uint8_t *e, uint8_t len, uint32_t off)
{
	struct acpi_info *out = p->out;
	uint8_t type = e[0];
	uint8_t need = madt_entry_len(type);

	/* Other types (NMI sources, SAPICs, GIC, ...) are structures this kernel does not use. */
	if (!need)
		return;
	if (len < need) {
		if (type == MADT_LAPIC || type == MADT_X2APIC)
			out->cpus_invalid++;
		warn(p, "acpi: MADT type %u entry at offset %u is %u bytes, need %u; skipped", type,
		     off, len, need);
		return;
	}
	switch (type) {
	case MADT_LAPIC:
		/* 5.2.12.2: [2] ACPI Processor UID, [3] APIC ID, [4..7] Flags. */
		add_cpu(p, type, e[3], e[2], get32(e + 4));
		break;
	case MADT_X2APIC:
		/* 5.2.12.12: [4..7] X2APIC ID, [8..11] Flags, [12..15] ACPI Processor UID. */
		add_cpu(p, type, get32(e + 4), get32(e + 12), get32(e + 8));
		break;
	case MADT_IOAPIC:
		/* 5.2.12.3: [2] I/O APIC ID, [4..7] address, [8..11] Global System Interrupt Base. */
		if (out->nioapics == ACPI_MAX_IOAPICS) {
			warn(p, "acpi: MADT I/O APIC id %u beyond the %u recorded, ignored", e[2],
			     ACPI_MAX_IOAPICS);
			break;
		}
		out->ioapics[out->nioapics++] = (struct acpi_ioapic){
		    .id = e[2], .address = get32(e + 4), .gsi_base = get32(e + 8)};
		break;
	case MADT_OVERRIDE:
		/* 5.2.12.5: [2] Bus (0: ISA), [3] Source IRQ, [4..7] GSI, [8..9] MPS INTI flags. */
		if (out->noverrides == ACPI_MAX_OVERRIDES) {
			warn(p, "acpi: MADT override of IRQ %u beyond the %u recorded, ignored",
			     e[3], ACPI_MAX_OVERRIDES);
			break;
		}
		out->overrides[out->noverrides++] = (struct acpi_irq_override){
		    .source = e[3], .gsi = get32(e + 4), .flags = get16(e + 8)};
		break;
	case MADT_LAPIC_ADDR:
		/* 5.2.12.8: a 64-bit address that replaces the header's 32-bit one. */
		out->lapic_phys = get64(e + 4);
		break;
	}
}

/*
 * ACPI 6.5 5.2.12: the 44-byte MADT header, then entries of (Type, Length,
 * body).  An entry shorter than its own 2-byte header or running past the
 * table end leaves no way to find the next one: stop there.
 */
static void parse_madt(struct parser *p, const uint8_t *t, uint32_t len)
{
	struct acpi_info *out = p->out;
	uint32_t off = MADT_ENTRIES;

	if (len < MADT_ENTRIES) {
		warn(p, "acpi: APIC (MADT) length %u is shorter than its %u-byte header, ignoring",
		     len, MADT_ENTRIES);
		return;
	}
	out->have_madt = true;
	out->madt_revision = t[SDT_REVISION];
	out->lapic_phys = get32(t + MADT_LAPIC_ADDRESS);
	out->pcat_compat = get32(t + MADT_FLAGS) & MADT_PCAT_COMPAT;

	while (off < len) {
		uint8_t type, elen;

		if (len - off < MADT_ENTRY_HDR_LEN) {
			warn(p,
			     "acpi: MADT entry at offset %u is cut off by the table end (%u), "
			     "stopping",
			     off, len);
			break;
		}
		type = t[off];
		elen = t[off + 1];
		if (elen < MADT_ENTRY_HDR_LEN) {
			warn(p, "acpi: MADT type %u entry at offset %u has length %u, stopping",
			     type, off, elen);
			break;
		}
		if (elen > len - off) {
			warn(p,
			     "acpi: MADT type %u entry at offset %u (length %u) runs past the "
			     "table end (%u), stopping",
			     type, off, elen, len);
			break;
		}
		madt_entry(p, t + off, elen, off);
		off += elen;
	}
	if (out->cpus_extra)
		warn(p, "acpi: MADT lists %u usable CPUs, only %u supported", out->cpus_usable,
		     out->max_cpus);
}

/* An I/O port from a FADT field, or 0 (reported) when it does not fit the 64 KiB I/O space. */
static uint16_t io_port(struct parser *p, const char *field, uint64_t addr)
{
	if (addr > IO_PORT_MAX) {
		warn(p, "acpi: FACP %s 0x%llx is not an I/O port, ignored", field, ull(addr));
		return 0;
	}
	return (uint16_t)addr;
}

/*
 * A fixed-hardware block's port (PM1x event or control, PM timer): the
 * 32-bit @legacy_off field, unless the table is long enough to hold the X_
 * Generic Address Structure at @x_off and that has a nonzero address in
 * System I/O space (5.2.9: X_ fields take precedence).  An X_ block in
 * memory space cannot be driven with port I/O, so the 32-bit field is used
 * then.
 */
static uint16_t fadt_port(struct parser *p, const uint8_t *t, uint32_t len, uint32_t legacy_off,
			  uint32_t x_off, const char *field)
{
	uint32_t legacy = get32(t + legacy_off);
	struct acpi_gas x;

	if (len < x_off + GAS_LEN)
		return io_port(p, field, legacy);
	x = get_gas(t + x_off);
	if (!x.address)
		return io_port(p, field, legacy);
	if (x.space != ACPI_GAS_SYSTEM_IO) {
		warn(p, "acpi: FACP X_%s is in address space %u, not System I/O; using %s 0x%x",
		     field, x.space, field, legacy);
		return io_port(p, field, legacy);
	}
	if (legacy && legacy != x.address)
		warn(p, "acpi: FACP %s 0x%x and X_%s 0x%llx differ, using X_%s", field, legacy,
		     field, ull(x.address), field);
	return io_port(p, field, x.address);
}

/* ACPI 6.5 5.2.9: X_DSDT (64-bit, when present and nonzero) takes precedence over DSDT. */
static uint64_t fadt_dsdt(struct parser *p, const uint8_t *t, uint32_t len)
{
	uint32_t legacy = get32(t + FADT_DSDT);
	uint64_t x;

	if (len < FADT_X_DSDT + sizeof(uint64_t))
		return legacy;
	x = get64(t + FADT_X_DSDT);
	if (!x)
		return legacy;
	if (legacy && legacy != x)
		warn(p, "acpi: FACP DSDT 0x%x and X_DSDT 0x%llx differ, using X_DSDT", legacy,
		     ull(x));
	return x;
}

/*
 * The ACPI PM timer's port, or 0.  5.2.9: PM_TMR_LEN is 4 when the timer
 * exists, and hardware-reduced platforms have none (the fields are ignored).
 */
static uint16_t fadt_pm_timer(struct parser *p, const uint8_t *t, uint32_t len)
{
	uint16_t port;

	if (p->out->fadt_flags & ACPI_FADT_HW_REDUCED_ACPI)
		return 0;
	port = fadt_port(p, t, len, FADT_PM_TMR_BLK, FADT_X_PM_TMR_BLK, "PM_TMR_BLK");
	if (port && t[FADT_PM_TMR_LEN] != PM_TMR_LEN) {
		warn(p, "acpi: FACP PM_TMR_LEN is %u, expected %u; PM timer ignored",
		     t[FADT_PM_TMR_LEN], PM_TMR_LEN);
		return 0;
	}
	return port;
}

/* ACPI 6.5 5.2.9 FADT: the fields for entering ACPI mode, powering off, resetting and timing. */
static void parse_fadt(struct parser *p, const uint8_t *t, uint32_t len)
{
	struct acpi_info *out = p->out;

	if (len < FADT_V1_LEN) {
		warn(p, "acpi: FACP length %u is shorter than the %u-byte ACPI 1.0 FADT, ignoring",
		     len, FADT_V1_LEN);
		return;
	}
	out->have_fadt = true;
	out->fadt_revision = t[SDT_REVISION];
	out->fadt_flags = get32(t + FADT_FLAGS);
	out->iapc_boot_arch = get16(t + FADT_IAPC_BOOT_ARCH);
	out->sci_irq = get16(t + FADT_SCI_INT);
	out->smi_cmd = io_port(p, "SMI_CMD", get32(t + FADT_SMI_CMD));
	out->acpi_enable = t[FADT_ACPI_ENABLE];
	out->pm1a_evt =
	    fadt_port(p, t, len, FADT_PM1A_EVT_BLK, FADT_X_PM1A_EVT_BLK, "PM1a_EVT_BLK");
	out->pm1b_evt =
	    fadt_port(p, t, len, FADT_PM1B_EVT_BLK, FADT_X_PM1B_EVT_BLK, "PM1b_EVT_BLK");
	out->pm1a_cnt =
	    fadt_port(p, t, len, FADT_PM1A_CNT_BLK, FADT_X_PM1A_CNT_BLK, "PM1a_CNT_BLK");
	out->pm1b_cnt =
	    fadt_port(p, t, len, FADT_PM1B_CNT_BLK, FADT_X_PM1B_CNT_BLK, "PM1b_CNT_BLK");
	out->pm_timer = fadt_pm_timer(p, t, len);
	out->pm_timer_32 = out->fadt_flags & ACPI_FADT_TMR_VAL_EXT;
	out->dsdt_phys = fadt_dsdt(p, t, len);
	if (len > FADT_RESET_VALUE && (out->fadt_flags & ACPI_FADT_RESET_REG_SUP)) {
		out->have_reset = true;
		out->reset_reg = get_gas(t + FADT_RESET_REG);
		out->reset_value = t[FADT_RESET_VALUE];
	}
	if (len >= FADT_SLEEP_STATUS + GAS_LEN) {
		out->sleep_control = get_gas(t + FADT_SLEEP_CONTROL);
		out->sleep_status = get_gas(t + FADT_SLEEP_STATUS);
	}
	if (out->fadt_flags & ACPI_FADT_HW_REDUCED_ACPI) {
		if (!out->sleep_control.address)
			warn(p, "acpi: FACP is hardware-reduced but gives no sleep control "
				"register; ACPI power-off unavailable");
	} else if (!out->pm1a_cnt) {
		warn(p, "acpi: FACP gives no PM1a control block; ACPI power-off unavailable");
	}
}

/* IA-PC HPET Specification 1.0a 3.2.4: the event timer block's address, in system memory. */
static void parse_hpet(struct parser *p, const uint8_t *t, uint32_t len)
{
	struct acpi_gas base;

	if (len < HPET_TABLE_LEN) {
		warn(p, "acpi: HPET length %u is shorter than its %u bytes, ignoring", len,
		     HPET_TABLE_LEN);
		return;
	}
	base = get_gas(t + HPET_BASE_ADDRESS);
	if (base.space != ACPI_GAS_SYSTEM_MEMORY || !base.address) {
		warn(p,
		     "acpi: HPET base address 0x%llx in address space %u, expected a nonzero "
		     "System Memory address; ignoring",
		     ull(base.address), base.space);
		return;
	}
	p->out->have_hpet = true;
	p->out->hpet_phys = base.address;
}

/*
 * ACPI 6.5 20.2.4 PkgLength at @pos, bounded by @end.  Stores the length
 * (which counts its own encoding bytes) and the number of encoding bytes.
 * Returns NULL, or what is wrong with it.
 */
static const char *pkg_length(const uint8_t *t, uint32_t end, uint32_t pos, uint32_t *len,
			      uint32_t *nbytes)
{
	uint8_t lead;
	uint32_t follow, v;

	if (pos >= end)
		return "is cut off by the table end";
	lead = t[pos];
	follow = lead >> PKG_FOLLOW_SHIFT;
	if (follow >= end - pos)
		return "is cut off by the table end";
	if (!follow) {
		*len = lead & PKG_SHORT_MASK;
		*nbytes = 1;
	} else {
		if (lead & PKG_RESERVED_MASK)
			return "has reserved bits 5-4 set";
		v = lead & PKG_NIBBLE_MASK;
		for (uint32_t k = 1; k <= follow; k++)
			v |= (uint32_t)t[pos + k] << (PKG_NIBBLE_BITS + 8 * (k - 1));
		*len = v;
		*nbytes = follow + 1;
	}
	if (*len < *nbytes + 1)
		return "is too short to hold NumElements";
	return NULL;
}

/*
 * ACPI 6.5 20.2.3 Data Objects Encoding: one integer constant at *@pos
 * (ZeroOp, OneOp, OnesOp, or a Byte/Word/DWord/QWord prefix and that many
 * little-endian bytes), all of it before @end.  Advances *@pos past it.
 * Returns NULL, or what is wrong with it.
 */
static const char *aml_integer(const uint8_t *t, uint32_t end, uint32_t *pos, uint64_t *v)
{
	uint32_t size;

	if (*pos >= end)
		return "is missing: the package ends first";
	switch (t[*pos]) {
	case AML_ZERO_OP:
		*v = 0;
		size = 0;
		break;
	case AML_ONE_OP:
		*v = 1;
		size = 0;
		break;
	case AML_ONES_OP:
		*v = UINT64_MAX;
		size = 0;
		break;
	case AML_BYTE_PREFIX:
		size = 1;
		break;
	case AML_WORD_PREFIX:
		size = 2;
		break;
	case AML_DWORD_PREFIX:
		size = 4;
		break;
	case AML_QWORD_PREFIX:
		size = 8;
		break;
	default:
		return "is not an integer constant";
	}
	if (size > end - *pos - 1)
		return "is cut off by the package end";
	if (size) {
		*v = 0;
		for (uint32_t k = 0; k < size; k++)
			*v |= (uint64_t)t[*pos + 1 + k] << (8 * k);
	}
	*pos += 1 + size;
	return NULL;
}

/* SLP_TYPx is 3 bits wide; keep the low bits of a wider value (as OnesOp gives), loudly. */
static uint8_t slp_typ(struct parser *p, const char *name, uint64_t v)
{
	if (v > SLP_TYP_MAX)
		warn(p, "acpi: DSDT \\_S5 %s 0x%llx is wider than 3 bits, using 0x%x", name, ull(v),
		     (unsigned)(v & SLP_TYP_MAX));
	return (uint8_t)(v & SLP_TYP_MAX);
}

/*
 * Decode Package(n) { SLP_TYPa, SLP_TYPb, ... } at @pos, the byte after
 * the \_S5_ name (ACPI 6.5 7.4.2 \_Sx: the first two elements are the
 * values for PM1a_CNT and PM1b_CNT), or the ACPI 1.0 Package(1) { packed }
 * (see acpi_tables.h).  Nothing is read at or past @len.
 */
static void decode_s5(struct parser *p, const uint8_t *t, uint32_t len, uint32_t pos)
{
	struct acpi_info *out = p->out;
	uint32_t pkg_len, nbytes, pkg_end, start;
	uint64_t v[2];
	const char *why;
	uint8_t count, used;

	if (pos >= len) {
		warn(p, "acpi: DSDT \\_S5 name at the very end of the table has no value");
		return;
	}
	if (t[pos] != AML_PACKAGE_OP) {
		warn(p, "acpi: DSDT \\_S5 at offset 0x%x is not a Package (opcode 0x%x)", pos,
		     t[pos]);
		return;
	}
	start = pos + 1;
	why = pkg_length(t, len, start, &pkg_len, &nbytes);
	if (why) {
		warn(p, "acpi: DSDT \\_S5 package length at offset 0x%x %s", start, why);
		return;
	}
	if (pkg_len > len - start) {
		warn(p,
		     "acpi: DSDT \\_S5 package at offset 0x%x (length %u) is truncated by the "
		     "table end (%u)",
		     start, pkg_len, len);
		return;
	}
	pkg_end = start + pkg_len;
	pos = start + nbytes;
	count = t[pos++];
	if (count == 0) {
		warn(p, "acpi: DSDT \\_S5 package has no elements, need 1 or 2");
		return;
	}
	used = count == 1 ? 1 : 2;
	for (unsigned k = 0; k < used; k++) {
		uint32_t at = pos;

		why = aml_integer(t, pkg_end, &pos, &v[k]);
		if (why) {
			warn(p, "acpi: DSDT \\_S5 element %u at offset 0x%x %s", k, at, why);
			return;
		}
	}
	if (used == 1) {
		/* The ACPI 1.0 form: one integer, byte 0 for PM1a, byte 1 for PM1b. */
		v[1] = (v[0] >> 8) & 0xff;
		v[0] &= 0xff;
	}
	out->slp_typa = slp_typ(p, "SLP_TYPa", v[0]);
	out->slp_typb = slp_typ(p, "SLP_TYPb", v[1]);
	out->have_s5 = true;
}

/*
 * Find DefName(\_S5_, ...) in the DSDT's AML: NameOp, an optional root
 * prefix '\', the NameSeg "_S5_", then the Package.  A plain byte scan, not
 * an AML interpreter: a "_S5_" not preceded by NameOp (a reference inside a
 * method, say) is passed over.  The first match decides.
 */
static void parse_s5(struct parser *p, const uint8_t *t, uint32_t len)
{
	for (uint32_t i = SDT_HEADER_LEN; i + AML_NAMESEG_LEN <= len; i++) {
		bool named;

		if (!same_bytes(t + i, AML_S5_NAME, AML_NAMESEG_LEN))
			continue;
		named = (i >= SDT_HEADER_LEN + 1 && t[i - 1] == AML_NAME_OP) ||
			(i >= SDT_HEADER_LEN + 2 && t[i - 1] == AML_ROOT_CHAR &&
			 t[i - 2] == AML_NAME_OP);
		if (!named)
			continue;
		decode_s5(p, t, len, i + AML_NAMESEG_LEN);
		return;
	}
	warn(p, "acpi: DSDT has no Name(\\_S5, ...); ACPI power-off unavailable");
}

/*
 * Entry @index of the root table @root: a physical table address.  Only
 * the MADT, the FADT and the HPET table are of interest; the first valid
 * one of each wins.
 */
static void visit_table(struct parser *p, const char *root, uint32_t index, uint64_t phys)
{
	struct acpi_info *out = p->out;
	const uint8_t *hdr;
	const uint8_t *t;
	uint32_t len;

	if (!phys) {
		warn(p, "acpi: %s entry %u is a null address, skipped", root, index);
		return;
	}
	hdr = p->map(phys, SDT_HEADER_LEN, p->ctx);
	if (!hdr) {
		warn(p, "acpi: %s entry %u at 0x%llx cannot be mapped, skipped", root, index,
		     ull(phys));
		return;
	}
	if (same_bytes(hdr, "APIC", SDT_SIG_LEN)) {
		if (out->have_madt) {
			warn(p, "acpi: second APIC (MADT) at 0x%llx ignored", ull(phys));
			return;
		}
		t = map_table(p, phys, "APIC", &len);
		if (t)
			parse_madt(p, t, len);
	} else if (same_bytes(hdr, "FACP", SDT_SIG_LEN)) {
		if (out->have_fadt) {
			warn(p, "acpi: second FACP (FADT) at 0x%llx ignored", ull(phys));
			return;
		}
		t = map_table(p, phys, "FACP", &len);
		if (t)
			parse_fadt(p, t, len);
	} else if (same_bytes(hdr, "HPET", SDT_SIG_LEN)) {
		if (out->have_hpet) {
			warn(p,
			     "acpi: second HPET at 0x%llx ignored (only the first timer block is "
			     "used)",
			     ull(phys));
			return;
		}
		t = map_table(p, phys, "HPET", &len);
		if (t)
			parse_hpet(p, t, len);
	}
}

/* ACPI 6.5 5.2.7 RSDT / 5.2.8 XSDT: validate the root table and visit each entry. */
static bool walk_root(struct parser *p, uint64_t phys, bool xsdt)
{
	const char *sig = xsdt ? "XSDT" : "RSDT";
	uint32_t esize = xsdt ? XSDT_ENTRY_LEN : RSDT_ENTRY_LEN;
	const uint8_t *t;
	uint32_t len, n;

	t = map_table(p, phys, sig, &len);
	if (!t)
		return false;
	n = (len - SDT_HEADER_LEN) / esize;
	if ((len - SDT_HEADER_LEN) % esize)
		warn(p, "acpi: %s length %u leaves a partial entry; its last %u bytes ignored", sig,
		     len, (len - SDT_HEADER_LEN) % esize);
	p->out->xsdt_used = xsdt;
	p->out->root_phys = phys;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = t + SDT_HEADER_LEN + i * esize;

		visit_table(p, sig, i, xsdt ? get64(e) : get32(e));
	}
	return true;
}

/*
 * The XSDT address from a revision >= 2 RSDP (of which @avail bytes are
 * readable), or 0 after reporting why the ACPI 2.0 part cannot be trusted.
 */
static uint64_t rsdp_xsdt(struct parser *p, const uint8_t *r, size_t avail)
{
	uint32_t len;
	uint8_t sum;

	if (avail < RSDP_V2_LEN) {
		warn(p, "acpi: RSDP revision %u but only %llu bytes given, using the RSDT",
		     r[RSDP_REVISION], ull(avail));
		return 0;
	}
	len = get32(r + RSDP_LENGTH);
	if (len < RSDP_V2_LEN || len > avail) {
		warn(p, "acpi: RSDP length %u outside [%u, %llu], using the RSDT", len, RSDP_V2_LEN,
		     ull(avail));
		return 0;
	}
	sum = sum_bytes(r, len);
	if (sum) {
		warn(p, "acpi: RSDP extended checksum bad (sum 0x%x), using the RSDT", sum);
		return 0;
	}
	return get64(r + RSDP_XSDT_ADDRESS);
}

int acpi_parse(const void *rsdp, size_t rsdp_len, acpi_map_fn map, void *ctx, struct acpi_info *out,
	       acpi_report_fn report)
{
	struct parser p = {.map = map, .ctx = ctx, .report = report, .out = out};
	const uint8_t *r = rsdp;
	uint64_t rsdt, xsdt = 0;
	uint8_t sum;

	if (!out || !map || (out->max_cpus && !out->cpus)) {
		warn(&p, "acpi: acpi_parse needs an output, a map function and room for CPUs");
		return ACPI_ERR_ARGS;
	}
	*out = (struct acpi_info){.cpus = out->cpus, .max_cpus = out->max_cpus};

	/* ACPI 6.5 5.2.5.3: signature, then the checksum over the ACPI 1.0 part. */
	if (!r || rsdp_len < RSDP_V1_LEN) {
		warn(&p, "acpi: RSDP missing or too short (%llu bytes, need %u)", ull(rsdp_len),
		     RSDP_V1_LEN);
		return ACPI_ERR_RSDP;
	}
	if (!same_bytes(r, RSDP_SIGNATURE, RSDP_SIG_LEN)) {
		warn(&p, "acpi: RSDP signature is not \"%s\"", RSDP_SIGNATURE);
		return ACPI_ERR_RSDP;
	}
	sum = sum_bytes(r, RSDP_V1_LEN);
	if (sum) {
		warn(&p, "acpi: RSDP checksum bad (sum 0x%x)", sum);
		return ACPI_ERR_RSDP;
	}
	out->rsdp_revision = r[RSDP_REVISION];
	rsdt = get32(r + RSDP_RSDT_ADDRESS);
	if (out->rsdp_revision >= RSDP_REVISION_2)
		xsdt = rsdp_xsdt(&p, r, rsdp_len);

	/* Prefer the XSDT (64-bit entries); the RSDT is the fallback. */
	if (!xsdt || !walk_root(&p, xsdt, true)) {
		if (xsdt)
			warn(&p, "acpi: XSDT unusable, falling back to the RSDT");
		if (!rsdt) {
			warn(&p, "acpi: RSDP gives no RSDT address");
			return ACPI_ERR_ROOT;
		}
		if (!walk_root(&p, rsdt, false))
			return ACPI_ERR_ROOT;
	}

	if (!out->have_madt)
		warn(&p, "acpi: no usable APIC table (MADT): CPU list unknown");
	if (!out->have_fadt) {
		warn(&p, "acpi: no usable FACP table (FADT): no power-off ports");
	} else if (!out->dsdt_phys) {
		warn(&p, "acpi: FACP gives no DSDT address: \\_S5 unknown");
	} else {
		uint32_t len;
		const uint8_t *dsdt = map_table(&p, out->dsdt_phys, "DSDT", &len);

		if (dsdt)
			parse_s5(&p, dsdt, len);
	}
	return ACPI_OK;
}
