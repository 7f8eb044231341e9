// SPDX-License-Identifier: MIT
/*
 * test_acpi.c - kernel/acpi_tables.c against crafted firmware tables.
 *
 * Real firmware gives one good set of tables per machine; the parser must
 * also survive the bad ones.  Here every table is built byte by byte from
 * the ACPI 6.5 layouts (written out again below, independently of the
 * parser), given a correct checksum, and placed in "physical memory" made
 * of exact-size heap buffers: under AddressSanitizer a single byte read
 * past any table, or a CPU stored past the caller's array, aborts the run.
 * Each case asserts exact values and the exact warning lines.
 */
#include "acpi_tables.h"
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- checks: check.h, with the case and its warning lines as context ---- */

static const char *current;

#define MAX_REPORTS 32
static char reports[MAX_REPORTS][256];
static unsigned nreports;

/* check_context: after a failed check, the case it failed in and what the parser warned. */
static void print_case(void)
{
	printf("      case: %s\n", current);
	for (unsigned i = 0; i < nreports && i < MAX_REPORTS; i++)
		printf("      report: %s\n", reports[i]);
}

#define CHECK_REPORT(s)	 CHECK(reported(s), "no report \"%s\"", s)
#define CHECK_REPORTS(n) CHECK_EQ(nreports, n)

__attribute__((format(printf, 1, 2))) static void capture(const char *fmt, ...)
{
	va_list ap;

	if (nreports < MAX_REPORTS) {
		va_start(ap, fmt);
		vsnprintf(reports[nreports], sizeof(reports[0]), fmt, ap);
		va_end(ap);
	}
	nreports++;
}

/* True if some warning line contains @needle. */
static int reported(const char *needle)
{
	for (unsigned i = 0; i < nreports && i < MAX_REPORTS; i++)
		if (strstr(reports[i], needle))
			return 1;
	return 0;
}

/* ---- fake physical memory: exact-size buffers at 64-bit addresses ---- */

#define MEM_REGIONS 16
#define FOUR_GIB    0x100000000ull

static struct region {
	uint64_t phys;
	uint8_t *buf;
	size_t len;
} mem[MEM_REGIONS];
static unsigned nmem;
static unsigned low_maps; /* map calls below 4 GiB: the high-memory case wants none */

/* Place a copy of @src at @phys, replacing what was there. */
static void mem_add(uint64_t phys, const uint8_t *src, size_t len)
{
	for (unsigned i = 0; i < nmem; i++) {
		if (mem[i].phys == phys) {
			free(mem[i].buf);
			mem[i] = mem[--nmem];
			break;
		}
	}
	if (nmem == MEM_REGIONS) {
		fprintf(stderr, "test_acpi: more than %d regions\n", MEM_REGIONS);
		exit(2);
	}
	mem[nmem].phys = phys;
	mem[nmem].len = len;
	mem[nmem].buf = malloc(len);
	if (!mem[nmem].buf) {
		fprintf(stderr, "test_acpi: out of memory\n");
		exit(2);
	}
	memcpy(mem[nmem].buf, src, len);
	nmem++;
}

static void mem_reset(void)
{
	while (nmem)
		free(mem[--nmem].buf);
	low_maps = 0;
}

static const void *mem_map(uint64_t phys, size_t len, void *ctx)
{
	(void)ctx;
	if (phys < FOUR_GIB)
		low_maps++;
	for (unsigned i = 0; i < nmem; i++) {
		struct region *r = &mem[i];

		if (phys >= r->phys && phys - r->phys <= r->len && len <= r->len - (phys - r->phys))
			return r->buf + (phys - r->phys);
	}
	return NULL;
}

/* ---- table builders (ACPI 6.5 layouts, written from the spec) ---- */

#define TBL_MAX 8192

struct tbl {
	uint8_t b[TBL_MAX];
	size_t len;
};

static void room(struct tbl *t, size_t n)
{
	if (t->len + n > TBL_MAX) {
		fprintf(stderr, "test_acpi: table builder overflow\n");
		exit(2);
	}
}

static void put8(struct tbl *t, uint8_t v)
{
	room(t, 1);
	t->b[t->len++] = v;
}

static void putn(struct tbl *t, const void *p, size_t n)
{
	room(t, n);
	memcpy(t->b + t->len, p, n);
	t->len += n;
}

static void set_le(uint8_t *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static void put_le(struct tbl *t, uint64_t v, unsigned n)
{
	room(t, n);
	set_le(t->b + t->len, v, n);
	t->len += n;
}

static void zeros(struct tbl *t, size_t n)
{
	room(t, n);
	memset(t->b + t->len, 0, n);
	t->len += n;
}

static uint8_t sum8(const uint8_t *b, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *b++);
	return s;
}

/* 5.2.6 header: Signature, Length, Revision, Checksum, OEMID, OEM Table ID, ... (36 bytes). */
static void sdt_begin(struct tbl *t, const char *sig, uint8_t rev)
{
	t->len = 0;
	putn(t, sig, 4);
	put_le(t, 0, 4);
	put8(t, rev);
	put8(t, 0);
	putn(t, "LOCKRF", 6);
	putn(t, "TESTTBL ", 8);
	put_le(t, 1, 4);
	putn(t, "TEST", 4);
	put_le(t, 1, 4);
}

/* Write the final length and make the bytes sum to zero. */
static void sdt_seal(struct tbl *t)
{
	set_le(t->b + 4, t->len, 4);
	t->b[9] = 0;
	t->b[9] = (uint8_t)-sum8(t->b, t->len);
}

static void make_rsdt(struct tbl *t, const uint64_t *addr, unsigned n)
{
	sdt_begin(t, "RSDT", 1);
	for (unsigned i = 0; i < n; i++)
		put_le(t, addr[i], 4);
	sdt_seal(t);
}

static void make_xsdt(struct tbl *t, const uint64_t *addr, unsigned n)
{
	sdt_begin(t, "XSDT", 1);
	for (unsigned i = 0; i < n; i++)
		put_le(t, addr[i], 8);
	sdt_seal(t);
}

/* 5.2.5.3 RSDP: 20 bytes (revision 0) or 36 (revision 2), both checksums right. */
static size_t make_rsdp(uint8_t b[36], uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
	memset(b, 0, 36);
	memcpy(b, "RSD PTR ", 8);
	memcpy(b + 9, "LOCKRF", 6);
	b[15] = rev;
	set_le(b + 16, rsdt, 4);
	b[8] = (uint8_t)-sum8(b, 20);
	if (rev < 2)
		return 20;
	set_le(b + 20, 36, 4);
	set_le(b + 24, xsdt, 8);
	b[32] = (uint8_t)-sum8(b, 36);
	return 36;
}

/* 5.2.12 MADT header of revision @rev: Local Interrupt Controller Address, Flags. */
static void madt_begin_rev(struct tbl *t, uint8_t rev, uint32_t lapic, uint32_t flags)
{
	sdt_begin(t, "APIC", rev);
	put_le(t, lapic, 4);
	put_le(t, flags, 4);
}

/* The same at revision 5 (ACPI 6.3), the first to define Online Capable. */
static void madt_begin(struct tbl *t, uint32_t lapic, uint32_t flags)
{
	madt_begin_rev(t, 5, lapic, flags);
}

/* 5.2.12.2: Type 0, Length 8, ACPI Processor UID, APIC ID, Flags. */
static void madt_lapic(struct tbl *t, uint8_t uid, uint8_t id, uint32_t flags)
{
	put8(t, 0);
	put8(t, 8);
	put8(t, uid);
	put8(t, id);
	put_le(t, flags, 4);
}

/* 5.2.12.12: Type 9, Length 16, Reserved(2), X2APIC ID, Flags, ACPI Processor UID. */
static void madt_x2apic(struct tbl *t, uint32_t id, uint32_t flags, uint32_t uid)
{
	put8(t, 9);
	put8(t, 16);
	put_le(t, 0, 2);
	put_le(t, id, 4);
	put_le(t, flags, 4);
	put_le(t, uid, 4);
}

/* 5.2.12.3: Type 1, Length 12, I/O APIC ID, Reserved, Address, GSI Base. */
static void madt_ioapic(struct tbl *t, uint8_t id, uint32_t addr, uint32_t gsi)
{
	put8(t, 1);
	put8(t, 12);
	put8(t, id);
	put8(t, 0);
	put_le(t, addr, 4);
	put_le(t, gsi, 4);
}

/* 5.2.12.5: Type 2, Length 10, Bus, Source, GSI, Flags(2). */
static void madt_override(struct tbl *t, uint8_t irq, uint32_t gsi, uint16_t flags)
{
	put8(t, 2);
	put8(t, 10);
	put8(t, 0);
	put8(t, irq);
	put_le(t, gsi, 4);
	put_le(t, flags, 2);
}

/* 5.2.12.8: Type 5, Length 12, Reserved(2), 64-bit Local APIC Address. */
static void madt_lapic_addr(struct tbl *t, uint64_t addr)
{
	put8(t, 5);
	put8(t, 12);
	put_le(t, 0, 2);
	put_le(t, addr, 8);
}

/* The FADT fields the parser reads; zero means "leave zero". */
struct fadt_spec {
	size_t len;
	uint8_t rev;
	uint32_t dsdt, smi_cmd, pm1a, pm1b, pm1a_evt, pm1b_evt, pm_tmr, flags;
	uint16_t sci, boot_arch;
	uint8_t acpi_enable, reset_value, pm_tmr_len;
	uint8_t reset_space, x_pm1a_space, x_pm1b_space, x_pm_tmr_space;
	uint8_t sleep_ctl_space, sleep_sts_space;
	uint64_t reset_addr, x_dsdt, x_pm1a, x_pm1b, x_pm_tmr, sleep_ctl, sleep_sts;
};

/* 5.2.3.2 Generic Address Structure at @off: space, width, offset, access size, address. */
static void set_gas(struct tbl *t, size_t off, uint8_t space, uint8_t width, uint64_t addr)
{
	t->b[off] = space;
	t->b[off + 1] = width;
	t->b[off + 2] = 0;
	t->b[off + 3] = 1;
	set_le(t->b + off + 4, addr, 8);
}

#define FADT_V6_LEN 276

/* 5.2.9 FADT: the full ACPI 6 layout, then cut to f->len bytes. */
static void make_fadt(struct tbl *t, const struct fadt_spec *f)
{
	sdt_begin(t, "FACP", f->rev);
	zeros(t, FADT_V6_LEN - 36);
	set_le(t->b + 40, f->dsdt, 4);
	set_le(t->b + 46, f->sci, 2);
	set_le(t->b + 48, f->smi_cmd, 4);
	t->b[52] = f->acpi_enable;
	set_le(t->b + 56, f->pm1a_evt, 4);
	set_le(t->b + 60, f->pm1b_evt, 4);
	set_le(t->b + 64, f->pm1a, 4);
	set_le(t->b + 68, f->pm1b, 4);
	set_le(t->b + 76, f->pm_tmr, 4);
	t->b[88] = 4; /* PM1_EVT_LEN */
	t->b[89] = 2; /* PM1_CNT_LEN */
	t->b[91] = f->pm_tmr_len;
	set_le(t->b + 109, f->boot_arch, 2);
	set_le(t->b + 112, f->flags, 4);
	set_gas(t, 116, f->reset_space, 8, f->reset_addr);
	t->b[128] = f->reset_value;
	set_le(t->b + 140, f->x_dsdt, 8);
	set_gas(t, 172, f->x_pm1a_space, 16, f->x_pm1a);
	set_gas(t, 184, f->x_pm1b_space, 16, f->x_pm1b);
	set_gas(t, 208, f->x_pm_tmr_space, 32, f->x_pm_tmr);
	set_gas(t, 244, f->sleep_ctl_space, 8, f->sleep_ctl);
	set_gas(t, 256, f->sleep_sts_space, 8, f->sleep_sts);
	t->len = f->len;
	sdt_seal(t);
}

static void make_dsdt(struct tbl *t, const uint8_t *aml, size_t n)
{
	sdt_begin(t, "DSDT", 2);
	putn(t, aml, n);
	sdt_seal(t);
}

/*
 * 20.2.5.1 DefName + 20.2.5.4 DefPackage: Name([\]_S5_, Package(count) {
 * elements }), followed by @pad zero bytes inside the package, with a
 * PkgLength (20.2.4) encoded in exactly @pkg_bytes bytes.
 */
static void aml_s5(struct tbl *t, int root, uint8_t count, const uint8_t *elems, size_t n,
		   unsigned pkg_bytes, size_t pad)
{
	size_t total = pkg_bytes + 1 + n + pad;

	put8(t, 0x08);
	if (root)
		put8(t, 0x5c);
	putn(t, "_S5_", 4);
	put8(t, 0x12);
	if (pkg_bytes == 1) {
		put8(t, (uint8_t)total);
	} else {
		put8(t, (uint8_t)((pkg_bytes - 1) << 6 | (total & 0x0f)));
		for (unsigned k = 1; k < pkg_bytes; k++)
			put8(t, (uint8_t)(total >> (4 + 8 * (k - 1))));
	}
	put8(t, count);
	putn(t, elems, n);
	zeros(t, pad);
}

/* ---- running the parser ---- */

/* Standard low addresses; HIGH_* sit above 4 GiB. */
#define RSDT_PHYS  0x000e0000u
#define XSDT_PHYS  0x000e1000u
#define MADT_PHYS  0x000e2000u
#define MADT2_PHYS 0x000e3000u
#define FADT_PHYS  0x000e4000u
#define DSDT_PHYS  0x000e8000u
#define HIGH_XSDT  (FOUR_GIB + 0x1000)
#define HIGH_MADT  0x200000000ull
#define HIGH_FADT  0x180000000ull
#define HIGH_DSDT  0x3fffff000ull

static struct acpi_info info;
static struct acpi_cpu *cpus;

/* Run acpi_parse on a copy of @rsdp in an exact-size buffer, CPU array of exactly @max. */
static int run(const uint8_t *rsdp, size_t rsdp_len, unsigned max)
{
	uint8_t *copy = malloc(rsdp_len ? rsdp_len : 1);
	int rc;

	memcpy(copy, rsdp, rsdp_len);
	free(cpus);
	cpus = max ? malloc(max * sizeof(*cpus)) : NULL;
	memset(&info, 0, sizeof(info));
	info.ncpus = 0x5a5a; /* must be overwritten */
	info.lapic_phys = 0x5a5a;
	info.cpus = cpus;
	info.max_cpus = max;
	nreports = 0;
	rc = acpi_parse(copy, rsdp_len, mem_map, NULL, &info, capture);
	free(copy);
	return rc;
}

/* Install RSDT (revision 0 RSDP) listing @n tables, run with room for @max CPUs. */
static int run_rsdt(const uint64_t *tables, unsigned n, unsigned max)
{
	struct tbl t;
	uint8_t rsdp[36];
	size_t len = make_rsdp(rsdp, 0, RSDT_PHYS, 0);

	make_rsdt(&t, tables, n);
	mem_add(RSDT_PHYS, t.b, t.len);
	return run(rsdp, len, max);
}

static void install(struct tbl *t, uint64_t phys)
{
	mem_add(phys, t->b, t->len);
}

/* The DSDT of a QEMU-like machine: Name(\_S5, Package(4) {5, 3, 0, 0}). */
static const uint8_t s5_byte_elems[] = {0x0a, 0x05, 0x0a, 0x03, 0x00, 0x00};

static void std_madt(struct tbl *t)
{
	madt_begin(t, 0xfee00000, 1);
	madt_lapic(t, 0, 0, 1);
	madt_lapic(t, 1, 1, 1);
	madt_ioapic(t, 0, 0xfec00000, 0);
	madt_override(t, 0, 2, 0);
	madt_override(t, 9, 9, 0x000d);
	sdt_seal(t);
}

static void std_fadt(struct tbl *t, uint32_t dsdt)
{
	struct fadt_spec f = {.len = 116,
			      .rev = 1,
			      .dsdt = dsdt,
			      .sci = 9,
			      .smi_cmd = 0xb2,
			      .acpi_enable = 0xf1,
			      .pm1a = 0x604,
			      .boot_arch = 0x0002};
	make_fadt(t, &f);
}

/* MADT, FADT and a DSDT holding @aml, behind an RSDT. */
static int run_dsdt(const uint8_t *aml, size_t n)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS, FADT_PHYS};

	std_madt(&t);
	install(&t, MADT_PHYS);
	std_fadt(&t, DSDT_PHYS);
	install(&t, FADT_PHYS);
	make_dsdt(&t, aml, n);
	install(&t, DSDT_PHYS);
	return run_rsdt(tables, 2, 8);
}

#define BEGIN(name)                                                                                \
	do {                                                                                       \
		current = name;                                                                    \
		mem_reset();                                                                       \
	} while (0)

/* ---- RSDP and root tables ---- */

static void test_rsdp_v0_rsdt(void)
{
	static struct tbl a;

	BEGIN("valid RSDP v0 -> RSDT -> MADT, FADT, DSDT");
	a.len = 0;
	aml_s5(&a, 1, 4, s5_byte_elems, sizeof(s5_byte_elems), 1, 0);
	CHECK_EQ(run_dsdt(a.b, a.len), ACPI_OK);
	CHECK_REPORTS(0);
	CHECK_EQ(info.rsdp_revision, 0);
	CHECK(!info.xsdt_used);
	CHECK_EQ(info.root_phys, RSDT_PHYS);
	CHECK(info.have_madt);
	CHECK_EQ(info.lapic_phys, 0xfee00000);
	CHECK(info.pcat_compat);
	CHECK_EQ(info.ncpus, 2);
	CHECK_EQ(info.cpus_usable, 2);
	CHECK_EQ(info.cpus_extra + info.cpus_disabled + info.cpus_duplicate + info.cpus_invalid, 0);
	CHECK_EQ(cpus[0].apic_id, 0);
	CHECK_EQ(cpus[1].apic_id, 1);
	CHECK_EQ(cpus[1].uid, 1);
	CHECK_EQ(cpus[1].flags, ACPI_LAPIC_ENABLED);
	CHECK_EQ(cpus[1].type, 0);
	CHECK_EQ(info.nioapics, 1);
	CHECK_EQ(info.ioapics[0].address, 0xfec00000);
	CHECK_EQ(info.ioapics[0].gsi_base, 0);
	CHECK_EQ(info.noverrides, 2);
	CHECK_EQ(info.overrides[0].source, 0);
	CHECK_EQ(info.overrides[0].gsi, 2);
	CHECK_EQ(info.overrides[1].source, 9);
	CHECK_EQ(info.overrides[1].gsi, 9);
	CHECK_EQ(info.overrides[1].flags, 0x000d);
	CHECK(info.have_fadt);
	CHECK_EQ(info.fadt_revision, 1);
	CHECK_EQ(info.pm1a_cnt, 0x604);
	CHECK_EQ(info.pm1b_cnt, 0);
	CHECK_EQ(info.smi_cmd, 0xb2);
	CHECK_EQ(info.acpi_enable, 0xf1);
	CHECK_EQ(info.sci_irq, 9);
	CHECK_EQ(info.iapc_boot_arch, 0x0002);
	CHECK_EQ(info.dsdt_phys, DSDT_PHYS);
	CHECK(!info.have_reset);
	CHECK(info.have_s5);
	CHECK_EQ(info.slp_typa, 5);
	CHECK_EQ(info.slp_typb, 3);
	CHECK(!info.have_hpet);
	CHECK_EQ(info.pm_timer, 0);
}

static void test_rsdp_v2_xsdt(void)
{
	static struct tbl t;
	uint8_t rsdp[36];
	uint64_t via_rsdt[] = {MADT_PHYS}, via_xsdt[] = {MADT2_PHYS};
	size_t len = make_rsdp(rsdp, 2, RSDT_PHYS, XSDT_PHYS);

	BEGIN("valid RSDP v2 prefers the XSDT");
	madt_begin(&t, 0xfee00000, 0);
	madt_lapic(&t, 0, 0, 1);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	madt_begin(&t, 0xfed00000, 0);
	madt_x2apic(&t, 0, 1, 0);
	madt_x2apic(&t, 1, 1, 1);
	madt_x2apic(&t, 2, 1, 2);
	sdt_seal(&t);
	install(&t, MADT2_PHYS);
	make_rsdt(&t, via_rsdt, 1);
	install(&t, RSDT_PHYS);
	make_xsdt(&t, via_xsdt, 1);
	install(&t, XSDT_PHYS);
	CHECK_EQ(run(rsdp, len, 8), ACPI_OK);
	CHECK_EQ(info.rsdp_revision, 2);
	CHECK(info.xsdt_used);
	CHECK_EQ(info.root_phys, XSDT_PHYS);
	CHECK_EQ(info.lapic_phys, 0xfed00000);
	CHECK(!info.pcat_compat);
	CHECK_EQ(info.ncpus, 3);
	CHECK_EQ(cpus[2].type, 9);
	/* Only the "no FACP" line: no FADT was installed. */
	CHECK_REPORTS(1);
	CHECK_REPORT("acpi: no usable FACP table (FADT): no power-off ports");
}

static void test_rsdp_rejected(void)
{
	uint8_t rsdp[36];
	size_t len;

	BEGIN("RSDP with bad checksum, signature or length is rejected");
	len = make_rsdp(rsdp, 0, RSDT_PHYS, 0);
	rsdp[8]++;
	CHECK_EQ(run(rsdp, len, 4), ACPI_ERR_RSDP);
	CHECK_REPORTS(1);
	CHECK_REPORT("acpi: RSDP checksum bad (sum 0x1)");
	CHECK(!info.have_madt);
	CHECK_EQ(info.ncpus, 0);

	/* Revision 0: bytes past 20 are not part of the RSDP, whatever they hold. */
	len = make_rsdp(rsdp, 0, RSDT_PHYS, 0);
	memset(rsdp + 20, 0xee, 16);
	CHECK_EQ(run(rsdp, 36, 4), ACPI_ERR_ROOT); /* checksum fine, no RSDT installed */
	CHECK_REPORTS(1);
	CHECK_REPORT("acpi: RSDT at 0xe0000 cannot be mapped, ignoring");

	len = make_rsdp(rsdp, 0, RSDT_PHYS, 0);
	rsdp[7] = '!';
	CHECK_EQ(run(rsdp, len, 4), ACPI_ERR_RSDP);
	CHECK_REPORT("acpi: RSDP signature is not \"RSD PTR \"");

	len = make_rsdp(rsdp, 0, RSDT_PHYS, 0);
	CHECK_EQ(run(rsdp, 19, 4), ACPI_ERR_RSDP);
	CHECK_REPORT("acpi: RSDP missing or too short (19 bytes, need 20)");

	CHECK_EQ(acpi_parse(NULL, 36, mem_map, NULL, &info, capture), ACPI_ERR_RSDP);
}

static void test_rsdp_v2_fallbacks(void)
{
	static struct tbl t;
	uint8_t rsdp[36];
	uint64_t tables[] = {MADT_PHYS};
	size_t len;

	BEGIN("RSDP v2 falls back to the RSDT when its 2.0 part or the XSDT is bad");
	std_madt(&t);
	install(&t, MADT_PHYS);
	make_rsdt(&t, tables, 1);
	install(&t, RSDT_PHYS);
	make_xsdt(&t, tables, 1);
	t.b[20] = (uint8_t)(t.b[20] + 0x40); /* XSDT checksum now off by 0x40 */
	install(&t, XSDT_PHYS);

	len = make_rsdp(rsdp, 2, RSDT_PHYS, XSDT_PHYS);
	rsdp[32] = (uint8_t)(rsdp[32] + 0x10);
	CHECK_EQ(run(rsdp, len, 4), ACPI_OK);
	CHECK_REPORT("acpi: RSDP extended checksum bad (sum 0x10), using the RSDT");
	CHECK(!info.xsdt_used);
	CHECK(info.have_madt);

	len = make_rsdp(rsdp, 2, RSDT_PHYS, XSDT_PHYS);
	CHECK_EQ(run(rsdp, 20, 4), ACPI_OK);
	CHECK_REPORT("acpi: RSDP revision 2 but only 20 bytes given, using the RSDT");
	CHECK(!info.xsdt_used);

	len = make_rsdp(rsdp, 2, RSDT_PHYS, 0);
	CHECK_EQ(run(rsdp, len, 4), ACPI_OK);
	CHECK(!info.xsdt_used);
	CHECK_REPORTS(1); /* only "no FACP" */

	/* Length field beyond the bytes given: the extended checksum cannot be computed. */
	len = make_rsdp(rsdp, 2, RSDT_PHYS, XSDT_PHYS);
	set_le(rsdp + 20, 40, 4);
	rsdp[32] = 0;
	rsdp[32] = (uint8_t)-sum8(rsdp, 36);
	CHECK_EQ(run(rsdp, len, 4), ACPI_OK);
	CHECK_REPORT("acpi: RSDP length 40 outside [36, 36], using the RSDT");

	len = make_rsdp(rsdp, 2, RSDT_PHYS, XSDT_PHYS);
	CHECK_EQ(run(rsdp, len, 4), ACPI_OK);
	CHECK_REPORT("acpi: XSDT checksum bad (sum 0x40), ignoring");
	CHECK_REPORT("acpi: XSDT unusable, falling back to the RSDT");
	CHECK(!info.xsdt_used);
	CHECK_EQ(info.root_phys, RSDT_PHYS);
	CHECK_EQ(info.ncpus, 2);

	len = make_rsdp(rsdp, 2, 0, XSDT_PHYS);
	CHECK_EQ(run(rsdp, len, 4), ACPI_ERR_ROOT);
	CHECK_REPORT("acpi: RSDP gives no RSDT address");
}

static void test_root_errors(void)
{
	static struct tbl t;
	uint8_t rsdp[36];
	size_t len = make_rsdp(rsdp, 0, RSDT_PHYS, 0);
	uint64_t tables[] = {0, 0x7000000, MADT_PHYS};

	BEGIN("root table: wrong signature, bad length, null and unmapped entries");
	sdt_begin(&t, "RSDX", 1);
	sdt_seal(&t);
	install(&t, RSDT_PHYS);
	CHECK_EQ(run(rsdp, len, 4), ACPI_ERR_ROOT);
	CHECK_REPORT("acpi: table at 0xe0000 is 'RSDX', expected RSDT, ignoring");

	BEGIN("root table length above the cap");
	make_rsdt(&t, tables, 3);
	set_le(t.b + 4, 2u << 20, 4);
	install(&t, RSDT_PHYS);
	CHECK_EQ(run(rsdp, len, 4), ACPI_ERR_ROOT);
	CHECK_REPORT("acpi: RSDT at 0xe0000 has length 2097152, outside [36, 1048576], ignoring");

	BEGIN("root table length below the header");
	make_rsdt(&t, tables, 3);
	set_le(t.b + 4, 35, 4);
	install(&t, RSDT_PHYS);
	CHECK_EQ(run(rsdp, len, 4), ACPI_ERR_ROOT);
	CHECK_REPORT("has length 35, outside [36, 1048576]");

	BEGIN("root table longer than the memory behind it");
	make_rsdt(&t, tables, 3);
	set_le(t.b + 4, 100, 4);
	install(&t, RSDT_PHYS);
	CHECK_EQ(run(rsdp, len, 4), ACPI_ERR_ROOT);
	CHECK_REPORT("acpi: RSDT at 0xe0000: its 100 bytes cannot be mapped, ignoring");

	BEGIN("null and unmapped root entries are skipped");
	std_madt(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 3, 4), ACPI_OK);
	CHECK_REPORT("acpi: RSDT entry 0 is a null address, skipped");
	CHECK_REPORT("acpi: RSDT entry 1 at 0x7000000 cannot be mapped, skipped");
	CHECK(info.have_madt);
	CHECK_EQ(info.ncpus, 2);

	BEGIN("root table with a partial entry");
	sdt_begin(&t, "RSDT", 1);
	put_le(&t, MADT_PHYS, 4);
	put_le(&t, 0, 2);
	sdt_seal(&t);
	install(&t, RSDT_PHYS);
	std_madt(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run(rsdp, len, 4), ACPI_OK);
	CHECK_REPORT("acpi: RSDT length 42 leaves a partial entry; its last 2 bytes ignored");
	CHECK(info.have_madt);
}

static void test_high_memory(void)
{
	static struct tbl t, a;
	uint8_t rsdp[36];
	uint64_t tables[] = {HIGH_MADT, HIGH_FADT};
	struct fadt_spec f = {.len = 244,
			      .rev = 5,
			      .x_dsdt = HIGH_DSDT,
			      .pm1a = 0x604,
			      .x_pm1a = 0x604,
			      .x_pm1a_space = ACPI_GAS_SYSTEM_IO};
	size_t len = make_rsdp(rsdp, 2, 0, HIGH_XSDT);

	BEGIN("XSDT, MADT, FADT and X_DSDT above 4 GiB");
	make_xsdt(&t, tables, 2);
	install(&t, HIGH_XSDT);
	std_madt(&t);
	install(&t, HIGH_MADT);
	make_fadt(&t, &f);
	install(&t, HIGH_FADT);
	a.len = 0;
	aml_s5(&a, 0, 2, s5_byte_elems, 4, 1, 0);
	make_dsdt(&t, a.b, a.len);
	install(&t, HIGH_DSDT);
	CHECK_EQ(run(rsdp, len, 4), ACPI_OK);
	CHECK_REPORTS(0);
	CHECK_EQ(low_maps, 0);
	CHECK(info.xsdt_used);
	CHECK_EQ(info.root_phys, HIGH_XSDT);
	CHECK(info.have_madt);
	CHECK_EQ(info.ncpus, 2);
	CHECK(info.have_fadt);
	CHECK_EQ(info.dsdt_phys, HIGH_DSDT);
	CHECK(info.have_s5);
	CHECK_EQ(info.slp_typa, 5);
	CHECK_EQ(info.slp_typb, 3);
}

/* ---- table validation ---- */

static void test_bad_table_checksum(void)
{
	static struct tbl t, a;
	uint64_t tables[] = {MADT_PHYS, FADT_PHYS, MADT2_PHYS};

	BEGIN("a MADT with a bad checksum is ignored; a later valid one is used");
	std_madt(&t);
	t.b[40] = (uint8_t)(t.b[40] + 0x3c);
	install(&t, MADT_PHYS);
	std_fadt(&t, DSDT_PHYS);
	install(&t, FADT_PHYS);
	a.len = 0;
	aml_s5(&a, 0, 2, s5_byte_elems, 4, 1, 0);
	make_dsdt(&t, a.b, a.len);
	install(&t, DSDT_PHYS);
	CHECK_EQ(run_rsdt(tables, 2, 4), ACPI_OK);
	CHECK_REPORT("acpi: APIC checksum bad (sum 0x3c), ignoring");
	CHECK_REPORT("acpi: no usable APIC table (MADT): CPU list unknown");
	CHECK_REPORTS(2);
	CHECK(!info.have_madt);
	CHECK_EQ(info.ncpus, 0);
	CHECK_EQ(info.lapic_phys, 0);
	CHECK(info.have_fadt);
	CHECK(info.have_s5);

	madt_begin(&t, 0xfee00000, 0);
	madt_lapic(&t, 0, 7, 1);
	sdt_seal(&t);
	install(&t, MADT2_PHYS);
	CHECK_EQ(run_rsdt(tables, 3, 4), ACPI_OK);
	CHECK_REPORTS(1);
	CHECK(info.have_madt);
	CHECK_EQ(info.ncpus, 1);
	CHECK_EQ(cpus[0].apic_id, 7);

	BEGIN("a second valid MADT is ignored");
	std_madt(&t);
	install(&t, MADT_PHYS);
	madt_begin(&t, 0xfee00000, 0);
	sdt_seal(&t);
	install(&t, MADT2_PHYS);
	CHECK_EQ(run_rsdt(tables + 2, 1, 4), ACPI_OK); /* the empty MADT alone is fine */
	CHECK_EQ(info.ncpus, 0);
	tables[1] = MADT2_PHYS;
	CHECK_EQ(run_rsdt(tables, 2, 4), ACPI_OK);
	CHECK_REPORT("acpi: second APIC (MADT) at 0xe3000 ignored");
	CHECK_EQ(info.ncpus, 2);

	BEGIN("a FADT or DSDT with a bad checksum is ignored");
	std_fadt(&t, DSDT_PHYS);
	t.b[64] ^= 0x01;
	install(&t, FADT_PHYS);
	tables[1] = FADT_PHYS;
	CHECK_EQ(run_rsdt(tables, 2, 4), ACPI_OK);
	CHECK_REPORT("acpi: FACP checksum bad (sum 0x1), ignoring");
	CHECK_REPORT("acpi: no usable FACP table (FADT): no power-off ports");
	CHECK(!info.have_fadt);
	CHECK_EQ(info.pm1a_cnt, 0);
	CHECK(!info.have_s5);

	BEGIN("a DSDT with a bad checksum is ignored");
	std_madt(&t);
	install(&t, MADT_PHYS);
	std_fadt(&t, DSDT_PHYS);
	install(&t, FADT_PHYS);
	make_dsdt(&t, a.b, a.len);
	t.b[t.len - 1] = (uint8_t)(t.b[t.len - 1] + 0x80);
	install(&t, DSDT_PHYS);
	CHECK_EQ(run_rsdt(tables, 2, 4), ACPI_OK);
	CHECK_REPORT("acpi: DSDT checksum bad (sum 0x80), ignoring");
	CHECK_REPORTS(1);
	CHECK(info.have_fadt);
	CHECK(!info.have_s5);
}

static void test_table_length(void)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS};

	BEGIN("MADT length above the cap");
	std_madt(&t);
	set_le(t.b + 4, (1u << 20) + 1, 4);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_REPORT("acpi: APIC at 0xe2000 has length 1048577, outside [36, 1048576], ignoring");
	CHECK(!info.have_madt);

	BEGIN("MADT length claims more than the memory behind it");
	std_madt(&t);
	set_le(t.b + 4, t.len + 8, 4);
	t.b[9] = (uint8_t)(t.b[9] - 8);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_REPORT("acpi: APIC at 0xe2000: its 100 bytes cannot be mapped, ignoring");
	CHECK(!info.have_madt);

	BEGIN("MADT shorter than its own 44-byte header");
	sdt_begin(&t, "APIC", 5);
	put_le(&t, 0xfee00000, 4);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_REPORT("acpi: APIC (MADT) length 40 is shorter than its 44-byte header, ignoring");
	CHECK(!info.have_madt);
	CHECK_EQ(info.lapic_phys, 0);
}

/* ---- MADT ---- */

static void test_madt_overflow(void)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS};

	BEGIN("more usable CPUs than max: extras counted and reported");
	madt_begin(&t, 0xfee00000, 1);
	for (uint8_t i = 0; i < 4; i++)
		madt_lapic(&t, i, i, 1);
	madt_x2apic(&t, 0x100, 1, 4);
	madt_x2apic(&t, 0x101, 1, 5);
	madt_lapic(&t, 6, 6, 0); /* disabled: not counted as an extra */
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.ncpus, 4);
	CHECK_EQ(info.cpus_usable, 6);
	CHECK_EQ(info.cpus_extra, 2);
	CHECK_EQ(info.cpus_disabled, 1);
	CHECK_EQ(cpus[3].apic_id, 3);
	CHECK_REPORT("acpi: MADT lists 6 usable CPUs, only 4 supported");

	current = "max_cpus 0 only counts (same tables)";
	CHECK_EQ(run_rsdt(tables, 1, 0), ACPI_OK);
	CHECK_EQ(info.ncpus, 0);
	CHECK_EQ(info.cpus_extra, 6);
	CHECK_REPORT("acpi: MADT lists 6 usable CPUs, only 0 supported");
}

static void test_madt_flags(void)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS};

	BEGIN("disabled and online-capable entries absent, broadcast ids refused");
	madt_begin(&t, 0xfee00000, 1);
	madt_lapic(&t, 0, 0, ACPI_LAPIC_ENABLED);
	madt_lapic(&t, 1, 1, 0);
	madt_lapic(&t, 2, 2, ACPI_LAPIC_ONLINE_CAPABLE);
	madt_lapic(&t, 3, 3, 0xfffffffc); /* only reserved bits */
	madt_lapic(&t, 4, 0xff, 0);	  /* unused slot: silently disabled */
	madt_lapic(&t, 5, 0xff, ACPI_LAPIC_ENABLED);
	madt_x2apic(&t, 0x200, 0, 6);
	madt_x2apic(&t, 0x201, ACPI_LAPIC_ONLINE_CAPABLE, 7);
	madt_x2apic(&t, 0xffffffff, ACPI_LAPIC_ENABLED, 8);
	/* Both bits: Online Capable is reserved when Enabled is set; the CPU is present. */
	madt_x2apic(&t, 0x202, ACPI_LAPIC_ENABLED | ACPI_LAPIC_ONLINE_CAPABLE, 9);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 8), ACPI_OK);
	CHECK_EQ(info.madt_revision, 5);
	CHECK_EQ(info.ncpus, 2);
	CHECK_EQ(info.cpus_usable, 2);
	CHECK_EQ(info.cpus_disabled, 4);
	CHECK_EQ(info.cpus_hotplug, 2);
	CHECK_EQ(info.cpus_invalid, 2);
	CHECK_EQ(cpus[0].apic_id, 0);
	CHECK_EQ(cpus[1].apic_id, 0x202);
	CHECK_EQ(cpus[1].uid, 9);
	CHECK_REPORT("acpi: MADT type 0 entry (uid 5) has the broadcast APIC id 0xff, skipped");
	CHECK_REPORT(
	    "acpi: MADT type 9 entry (uid 8) has the broadcast APIC id 0xffffffff, skipped");
	CHECK_REPORTS(3); /* the two above and "no FACP" */
}

/*
 * A server that can hot-add CPUs lists them with Enabled clear: ACPI 6.5
 * 5.2.12.2 says they are not present.  Starting one costs an INIT and a
 * timeout, and counting one makes the boot test fail, so none may reach
 * cpus[].  The Online Capable bit exists from MADT revision 5; in revision
 * 4 it is reserved, and the entries are plain disabled ones.
 */
static void test_madt_online_capable(void)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS};
	static const uint8_t revs[] = {4, 5};

	for (unsigned r = 0; r < 2; r++) {
		BEGIN(revs[r] == 5 ? "online-capable-only CPUs, MADT revision 5: absent"
				   : "online-capable bit in a revision 4 MADT: reserved, absent");
		madt_begin_rev(&t, revs[r], 0xfee00000, 1);
		madt_lapic(&t, 0, 0, ACPI_LAPIC_ENABLED);
		madt_lapic(&t, 1, 1, ACPI_LAPIC_ONLINE_CAPABLE);
		madt_lapic(&t, 2, 2, ACPI_LAPIC_ONLINE_CAPABLE);
		madt_x2apic(&t, 0x100, ACPI_LAPIC_ONLINE_CAPABLE, 3);
		sdt_seal(&t);
		install(&t, MADT_PHYS);
		CHECK_EQ(run_rsdt(tables, 1, 8), ACPI_OK);
		CHECK_EQ(info.madt_revision, revs[r]);
		CHECK_EQ(info.ncpus, 1);
		CHECK_EQ(info.cpus_usable, 1);
		CHECK_EQ(cpus[0].apic_id, 0);
		CHECK_EQ(info.cpus_hotplug, revs[r] == 5 ? 3 : 0);
		CHECK_EQ(info.cpus_disabled, revs[r] == 5 ? 0 : 3);
		CHECK_EQ(info.cpus_invalid + info.cpus_duplicate + info.cpus_extra, 0);
	}
}

static void test_madt_x2apic(void)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS};

	BEGIN("x2APIC-only MADT with 32-bit ids and uids");
	madt_begin(&t, 0xfee00000, 0);
	madt_x2apic(&t, 0x100, ACPI_LAPIC_ENABLED, 7);
	madt_x2apic(&t, 0x12345678, ACPI_LAPIC_ENABLED, 0xdeadbeef);
	madt_x2apic(&t, 2, ACPI_LAPIC_ENABLED, 3);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.ncpus, 3);
	CHECK_EQ(cpus[0].apic_id, 0x100);
	CHECK_EQ(cpus[0].uid, 7);
	CHECK_EQ(cpus[0].type, 9);
	CHECK_EQ(cpus[1].apic_id, 0x12345678);
	CHECK_EQ(cpus[1].uid, 0xdeadbeef);
	CHECK_EQ(cpus[1].flags, ACPI_LAPIC_ENABLED);
	CHECK_EQ(cpus[2].apic_id, 2);
	CHECK_EQ(cpus[2].uid, 3);
	CHECK_REPORTS(1); /* "no FACP" */
}

static void test_madt_duplicates(void)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS};

	BEGIN("an APIC id listed as type 0 and type 9 is kept once");
	madt_begin(&t, 0xfee00000, 0);
	madt_lapic(&t, 0, 3, 1);
	madt_x2apic(&t, 3, 1, 0);
	madt_x2apic(&t, 0x300, 1, 1);
	madt_x2apic(&t, 0x300, 1, 2);
	madt_lapic(&t, 9, 4, 1);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 8), ACPI_OK);
	CHECK_EQ(info.ncpus, 3);
	CHECK_EQ(info.cpus_usable, 3);
	CHECK_EQ(info.cpus_duplicate, 2);
	CHECK_EQ(cpus[0].apic_id, 3);
	CHECK_EQ(cpus[0].type, 0);
	CHECK_EQ(cpus[1].apic_id, 0x300);
	CHECK_EQ(cpus[1].uid, 1);
	CHECK_EQ(cpus[2].apic_id, 4);
	CHECK_REPORT("acpi: MADT lists APIC id 0x3 twice (types 0 and 9), keeping the first");
	CHECK_REPORT("acpi: MADT lists APIC id 0x300 twice (types 9 and 9), keeping the first");
}

static void test_madt_truncated(void)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS};

	BEGIN("entry running past the table end: stop there");
	madt_begin(&t, 0xfee00000, 0);
	madt_lapic(&t, 0, 0, 1);
	madt_lapic(&t, 1, 1, 1);
	t.len -= 1; /* the second entry claims 8 bytes, 7 remain */
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(info.have_madt);
	CHECK_EQ(info.ncpus, 1);
	CHECK_REPORT("acpi: MADT type 0 entry at offset 52 (length 8) runs past the table end "
		     "(59), stopping");

	BEGIN("entry of length 0: stop there");
	madt_begin(&t, 0xfee00000, 0);
	madt_lapic(&t, 0, 0, 1);
	put8(&t, 0);
	put8(&t, 0);
	madt_lapic(&t, 1, 1, 1);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.ncpus, 1);
	CHECK_REPORT("acpi: MADT type 0 entry at offset 52 has length 0, stopping");

	BEGIN("entry of length 1: stop there");
	madt_begin(&t, 0xfee00000, 0);
	put8(&t, 9);
	put8(&t, 1);
	madt_lapic(&t, 1, 1, 1);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.ncpus, 0);
	CHECK_REPORT("acpi: MADT type 9 entry at offset 44 has length 1, stopping");

	BEGIN("one stray byte at the end: stop there");
	madt_begin(&t, 0xfee00000, 0);
	madt_lapic(&t, 0, 0, 1);
	put8(&t, 0);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.ncpus, 1);
	CHECK_REPORT("acpi: MADT entry at offset 52 is cut off by the table end (53), stopping");

	BEGIN("entries shorter than their type: skipped, parsing goes on");
	madt_begin(&t, 0xfee00000, 0);
	put8(&t, 0); /* type 0 in 7 bytes instead of 8: flags cut short */
	put8(&t, 7);
	put8(&t, 0);
	put8(&t, 4);
	put_le(&t, ACPI_LAPIC_ENABLED, 3);
	put8(&t, 9); /* type 9 in 15 bytes instead of 16: UID cut short */
	put8(&t, 15);
	put_le(&t, 0, 2);
	put_le(&t, 0x400, 4);
	put_le(&t, ACPI_LAPIC_ENABLED, 4);
	put_le(&t, 1, 3);
	madt_lapic(&t, 5, 5, 1);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.ncpus, 1);
	CHECK_EQ(cpus[0].apic_id, 5);
	CHECK_EQ(info.cpus_invalid, 2);
	CHECK_REPORT("acpi: MADT type 0 entry at offset 44 is 7 bytes, need 8; skipped");
	CHECK_REPORT("acpi: MADT type 9 entry at offset 51 is 15 bytes, need 16; skipped");
}

static void test_madt_other_entries(void)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS};

	BEGIN("Local APIC Address Override, unknown types, I/O APIC overflow");
	madt_begin(&t, 0xfee00000, 0);
	put8(&t, 4); /* 5.2.12.7 Local APIC NMI: not used, skipped */
	put8(&t, 6);
	put8(&t, 0xff);
	put_le(&t, 0x0005, 2);
	put8(&t, 1);
	put8(&t, 0x7f); /* a type from the future, length 3 */
	put8(&t, 3);
	put8(&t, 0xaa);
	madt_lapic_addr(&t, 0x1fee00000ull);
	madt_lapic(&t, 0, 0, 1);
	for (uint8_t i = 0; i < ACPI_MAX_IOAPICS + 1; i++)
		madt_ioapic(&t, i, 0xfec00000u + i * 0x1000u, i * 24u);
	for (uint8_t i = 0; i < ACPI_MAX_OVERRIDES + 1; i++)
		madt_override(&t, i, 100u + i, 0x000f);
	sdt_seal(&t);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.lapic_phys, 0x1fee00000ull);
	CHECK_EQ(info.ncpus, 1);
	CHECK_EQ(info.nioapics, ACPI_MAX_IOAPICS);
	CHECK_EQ(info.ioapics[15].id, 15);
	CHECK_EQ(info.ioapics[15].address, 0xfec0f000u);
	CHECK_EQ(info.ioapics[15].gsi_base, 360);
	CHECK_EQ(info.noverrides, ACPI_MAX_OVERRIDES);
	CHECK_EQ(info.overrides[15].source, 15);
	CHECK_EQ(info.overrides[15].gsi, 115);
	CHECK_EQ(info.overrides[15].flags, 0x000f);
	CHECK_REPORT("acpi: MADT I/O APIC id 16 beyond the 16 recorded, ignored");
	CHECK_REPORT("acpi: MADT override of IRQ 16 beyond the 16 recorded, ignored");
	CHECK_REPORTS(3); /* those two and "no FACP" */
}

/* ---- FADT ---- */

static void test_fadt_legacy(void)
{
	static struct tbl t;
	uint64_t tables[] = {FADT_PHYS};
	struct fadt_spec f = {.len = 116,
			      .rev = 1,
			      .dsdt = 0,
			      .sci = 9,
			      .smi_cmd = 0xb2,
			      .acpi_enable = 0xf1,
			      .pm1a = 0x604,
			      .pm1b = 0x608,
			      .flags = ACPI_FADT_RESET_REG_SUP};

	BEGIN("ACPI 1.0 FADT (116 bytes, no X_ fields)");
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(info.have_fadt);
	CHECK_EQ(info.pm1a_cnt, 0x604);
	CHECK_EQ(info.pm1b_cnt, 0x608);
	CHECK_EQ(info.smi_cmd, 0xb2);
	CHECK_EQ(info.acpi_enable, 0xf1);
	CHECK_EQ(info.fadt_flags, ACPI_FADT_RESET_REG_SUP);
	CHECK(!info.have_reset); /* the flag is set but the register lies past the table */
	CHECK_EQ(info.dsdt_phys, 0);
	CHECK_REPORT("acpi: FACP gives no DSDT address: \\_S5 unknown");
	CHECK_REPORTS(2); /* that and "no APIC" */

	BEGIN("FADT shorter than ACPI 1.0's");
	f.len = 100;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(!info.have_fadt);
	CHECK_EQ(info.pm1a_cnt, 0);
	CHECK_REPORT("acpi: FACP length 100 is shorter than the 116-byte ACPI 1.0 FADT, ignoring");

	BEGIN("FADT ending right before RESET_VALUE");
	f.len = 128;
	f.rev = 3;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(info.have_fadt);
	CHECK(!info.have_reset);

	BEGIN("FADT ending right after RESET_VALUE");
	f.len = 129;
	f.rev = 3;
	f.reset_space = ACPI_GAS_SYSTEM_IO;
	f.reset_addr = 0xcf9;
	f.reset_value = 0x06;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(info.have_reset);
	CHECK_EQ(info.reset_reg.space, ACPI_GAS_SYSTEM_IO);
	CHECK_EQ(info.reset_reg.bit_width, 8);
	CHECK_EQ(info.reset_reg.access_size, 1);
	CHECK_EQ(info.reset_reg.address, 0xcf9);
	CHECK_EQ(info.reset_value, 0x06);
	CHECK_EQ(info.pm1a_cnt, 0x604);

	BEGIN("hardware-reduced FADT without PM1 blocks is not reported");
	f.pm1a = f.pm1b = 0;
	f.flags = ACPI_FADT_HW_REDUCED_ACPI;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(info.have_fadt);
	CHECK(!info.have_reset);
	CHECK_EQ(info.pm1a_cnt, 0);
	CHECK(!reported("no PM1a control block"));
}

static void test_fadt_x_fields(void)
{
	static struct tbl t;
	uint64_t tables[] = {FADT_PHYS};
	struct fadt_spec f = {.len = 276,
			      .rev = 6,
			      .dsdt = DSDT_PHYS,
			      .x_dsdt = DSDT_PHYS,
			      .sci = 9,
			      .smi_cmd = 0xb2,
			      .acpi_enable = 0xf1,
			      .pm1a = 0x604,
			      .x_pm1a = 0x604,
			      .x_pm1a_space = ACPI_GAS_SYSTEM_IO,
			      .flags = ACPI_FADT_RESET_REG_SUP,
			      .reset_space = ACPI_GAS_SYSTEM_IO,
			      .reset_addr = 0xcf9,
			      .reset_value = 0x0e};

	BEGIN("ACPI 6 FADT whose X_ fields agree with the 32-bit ones");
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(info.have_fadt);
	CHECK_EQ(info.fadt_revision, 6);
	CHECK_EQ(info.pm1a_cnt, 0x604);
	CHECK_EQ(info.pm1b_cnt, 0);
	CHECK_EQ(info.dsdt_phys, DSDT_PHYS);
	CHECK(info.have_reset);
	CHECK_EQ(info.reset_value, 0x0e);
	CHECK(!reported("FACP"));

	BEGIN("X_ fields win when they differ; memory-space X_PM1b falls back");
	f.x_pm1a = 0x1004;
	f.pm1b = 0x608;
	f.x_pm1b = 0xfed80000;
	f.x_pm1b_space = ACPI_GAS_SYSTEM_MEMORY;
	f.x_dsdt = 0x7fff0000;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.pm1a_cnt, 0x1004);
	CHECK_EQ(info.pm1b_cnt, 0x608);
	CHECK_EQ(info.dsdt_phys, 0x7fff0000);
	CHECK_REPORT(
	    "acpi: FACP PM1a_CNT_BLK 0x604 and X_PM1a_CNT_BLK 0x1004 differ, using X_PM1a_CNT_BLK");
	CHECK_REPORT("acpi: FACP X_PM1b_CNT_BLK is in address space 0, not System I/O; using "
		     "PM1b_CNT_BLK 0x608");
	CHECK_REPORT("acpi: FACP DSDT 0xe8000 and X_DSDT 0x7fff0000 differ, using X_DSDT");

	BEGIN("X_ fields alone (32-bit fields zero)");
	f.pm1a = f.pm1b = 0;
	f.x_pm1b = 0;
	f.dsdt = 0;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.pm1a_cnt, 0x1004);
	CHECK_EQ(info.pm1b_cnt, 0);
	CHECK_EQ(info.dsdt_phys, 0x7fff0000);
	CHECK(!reported("differ"));

	BEGIN("an X_PM1a address beyond the I/O space is refused");
	f.x_pm1a = 0x10000;
	f.smi_cmd = 0x12345;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.pm1a_cnt, 0);
	CHECK_EQ(info.smi_cmd, 0);
	CHECK_REPORT("acpi: FACP PM1a_CNT_BLK 0x10000 is not an I/O port, ignored");
	CHECK_REPORT("acpi: FACP SMI_CMD 0x12345 is not an I/O port, ignored");
	CHECK_REPORT("acpi: FACP gives no PM1a control block; ACPI power-off unavailable");
}

/* The PM timer, the PM1 event blocks and the hardware-reduced sleep registers. */
static void test_fadt_timer_and_sleep_regs(void)
{
	static struct tbl t;
	uint64_t tables[] = {FADT_PHYS};
	struct fadt_spec f = {.len = 276,
			      .rev = 6,
			      .pm1a_evt = 0x600,
			      .pm1a = 0x604,
			      .pm_tmr = 0x608,
			      .pm_tmr_len = 4,
			      .flags = ACPI_FADT_TMR_VAL_EXT};

	BEGIN("PM timer (32-bit) and PM1a event block");
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.pm_timer, 0x608);
	CHECK(info.pm_timer_32);
	CHECK_EQ(info.pm1a_evt, 0x600);
	CHECK_EQ(info.pm1b_evt, 0);
	CHECK_EQ(info.sleep_control.address, 0);
	CHECK(!reported("PM_TMR") && !reported("EVT_BLK"));

	BEGIN("24-bit PM timer whose X_PM_TMR_BLK differs: X_ wins");
	f.flags = 0;
	f.x_pm_tmr = 0x1008;
	f.x_pm_tmr_space = ACPI_GAS_SYSTEM_IO;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.pm_timer, 0x1008);
	CHECK(!info.pm_timer_32);
	CHECK_REPORT("acpi: FACP PM_TMR_BLK 0x608 and X_PM_TMR_BLK 0x1008 differ, using "
		     "X_PM_TMR_BLK");

	BEGIN("PM timer with PM_TMR_LEN 0 is ignored");
	f.x_pm_tmr = 0;
	f.pm_tmr_len = 0;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.pm_timer, 0);
	CHECK_REPORT("acpi: FACP PM_TMR_LEN is 0, expected 4; PM timer ignored");

	BEGIN("PM timer in an ACPI 1.0 FADT");
	f.len = 116;
	f.pm_tmr_len = 4;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.pm_timer, 0x608);
	CHECK_EQ(info.sleep_control.address, 0);

	BEGIN("hardware-reduced FADT: sleep registers read, PM timer ignored");
	f.len = 276;
	f.flags = ACPI_FADT_HW_REDUCED_ACPI;
	f.pm1a = 0;
	f.pm1a_evt = 0;
	f.sleep_ctl = 0xfe000104;
	f.sleep_ctl_space = ACPI_GAS_SYSTEM_MEMORY;
	f.sleep_sts = 0x1800;
	f.sleep_sts_space = ACPI_GAS_SYSTEM_IO;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_EQ(info.pm_timer, 0);
	CHECK_EQ(info.sleep_control.space, ACPI_GAS_SYSTEM_MEMORY);
	CHECK_EQ(info.sleep_control.address, 0xfe000104);
	CHECK_EQ(info.sleep_status.space, ACPI_GAS_SYSTEM_IO);
	CHECK_EQ(info.sleep_status.address, 0x1800);
	CHECK(!reported("PM_TMR") && !reported("sleep control"));

	BEGIN("hardware-reduced FADT without a sleep control register is reported");
	f.sleep_ctl = 0;
	make_fadt(&t, &f);
	install(&t, FADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK_REPORT("acpi: FACP is hardware-reduced but gives no sleep control register; ACPI "
		     "power-off unavailable");
}

/* IA-PC HPET Specification 1.0a 3.2.4: Event Timer Block ID, Base Address (GAS), ... */
static void make_hpet(struct tbl *t, uint8_t space, uint64_t addr, size_t len)
{
	sdt_begin(t, "HPET", 1);
	put_le(t, 0x8086a201, 4);
	zeros(t, 12);
	set_gas(t, 40, space, 64, addr);
	put8(t, 0);	    /* HPET Number */
	put_le(t, 0x80, 2); /* Main Counter Minimum Clock_tick in Periodic Mode */
	put8(t, 0);	    /* Page Protection */
	t->len = len;
	sdt_seal(t);
}

static void test_hpet(void)
{
	static struct tbl t;
	uint64_t tables[] = {MADT_PHYS, MADT2_PHYS};

	BEGIN("HPET table: the first timer block's address");
	make_hpet(&t, ACPI_GAS_SYSTEM_MEMORY, 0xfed00000, 56);
	install(&t, MADT_PHYS);
	make_hpet(&t, ACPI_GAS_SYSTEM_MEMORY, 0xfed01000, 56);
	install(&t, MADT2_PHYS);
	CHECK_EQ(run_rsdt(tables, 2, 4), ACPI_OK);
	CHECK(info.have_hpet);
	CHECK_EQ(info.hpet_phys, 0xfed00000);
	CHECK_REPORT("acpi: second HPET at 0xe3000 ignored (only the first timer block is used)");

	BEGIN("HPET block above 4 GiB");
	make_hpet(&t, ACPI_GAS_SYSTEM_MEMORY, 0x4000000000ull, 56);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(info.have_hpet);
	CHECK_EQ(info.hpet_phys, 0x4000000000ull);

	BEGIN("HPET block in I/O space is refused");
	make_hpet(&t, ACPI_GAS_SYSTEM_IO, 0x500, 56);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(!info.have_hpet);
	CHECK_REPORT("acpi: HPET base address 0x500 in address space 1, expected a nonzero System "
		     "Memory address; ignoring");

	BEGIN("HPET table too short");
	make_hpet(&t, ACPI_GAS_SYSTEM_MEMORY, 0xfed00000, 52);
	install(&t, MADT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(!info.have_hpet);
	CHECK_REPORT("acpi: HPET length 52 is shorter than its 56 bytes, ignoring");
}

/* ---- DSDT \_S5 ---- */

/* Name(\_S5) (or Name(_S5) when !@root) with these two elements, then run. */
static void s5_case(const char *name, int root, const uint8_t *elems, size_t n, uint8_t want_a,
		    uint8_t want_b)
{
	struct tbl a = {.len = 0};

	BEGIN(name);
	putn(&a, "\x10\x06\x5c\x5f\x53\x42\x5f", 7); /* Scope(\_SB_) {}: AML before _S5 */
	aml_s5(&a, root, 4, elems, n, 1, 2);
	CHECK_EQ(run_dsdt(a.b, a.len), ACPI_OK);
	CHECK(info.have_s5);
	CHECK_EQ(info.slp_typa, want_a);
	CHECK_EQ(info.slp_typb, want_b);
}

static void test_s5_integers(void)
{
	static const uint8_t zero_one[] = {0x00, 0x01};
	static const uint8_t bytes[] = {0x0a, 0x05, 0x0a, 0x07};
	static const uint8_t words[] = {0x0b, 0x06, 0x00, 0x0b, 0x02, 0x00};
	static const uint8_t dwords[] = {0x0c, 0x03, 0, 0, 0, 0x0c, 0x04, 0, 0, 0};
	static const uint8_t qwords[] = {0x0e, 1, 0, 0, 0, 0, 0, 0, 0,
					 0x0e, 7, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t ones[] = {0xff, 0x00};
	static const uint8_t wide[] = {0x0b, 0x05, 0x01, 0x0c, 0x02, 0x00, 0x00, 0x80};

	s5_case("\\_S5 as ZeroOp, OneOp", 1, zero_one, sizeof(zero_one), 0, 1);
	CHECK_REPORTS(0);
	s5_case("_S5 as BytePrefix", 0, bytes, sizeof(bytes), 5, 7);
	CHECK_REPORTS(0);
	s5_case("\\_S5 as WordPrefix", 1, words, sizeof(words), 6, 2);
	CHECK_REPORTS(0);
	s5_case("_S5 as DWordPrefix", 0, dwords, sizeof(dwords), 3, 4);
	CHECK_REPORTS(0);
	s5_case("\\_S5 as QWordPrefix", 1, qwords, sizeof(qwords), 1, 7);
	CHECK_REPORTS(0);
	s5_case("_S5 with OnesOp", 0, ones, sizeof(ones), 7, 0);
	CHECK_REPORT(
	    "acpi: DSDT \\_S5 SLP_TYPa 0xffffffffffffffff is wider than 3 bits, using 0x7");
	CHECK_REPORTS(1);
	s5_case("_S5 with values wider than 3 bits", 0, wide, sizeof(wide), 5, 2);
	CHECK_REPORT("acpi: DSDT \\_S5 SLP_TYPa 0x105 is wider than 3 bits, using 0x5");
	CHECK_REPORT("acpi: DSDT \\_S5 SLP_TYPb 0x80000002 is wider than 3 bits, using 0x2");
}

/*
 * ACPI 1.0's \_S5 is Package(1) { one integer }: SLP_TYPa in byte 0,
 * SLP_TYPb in byte 1 (ACPICA reads it so).  Some firmware still ships it.
 */
static void test_s5_one_element(void)
{
	static const struct {
		const char *name;
		uint8_t count;
		uint8_t elems[8];
		size_t n;
		uint8_t a, b;
	} cases[] = {
	    {"Package(1) { BytePrefix 0x05 }", 1, {0x0a, 0x05}, 2, 5, 0},
	    {"Package(1) { WordPrefix 0x0307 }", 1, {0x0b, 0x07, 0x03}, 3, 7, 3},
	    {"Package(1) { DWordPrefix 0x00000206 }", 1, {0x0c, 0x06, 0x02, 0, 0}, 5, 6, 2},
	    {"Package(1) { Zero }", 1, {0x00}, 1, 0, 0},
	    {"Package(2) { BytePrefix 5, WordPrefix 3 }",
	     2,
	     {0x0a, 0x05, 0x0b, 0x03, 0x00},
	     5,
	     5,
	     3},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tbl a = {.len = 0};

		BEGIN(cases[i].name);
		aml_s5(&a, 1, cases[i].count, cases[i].elems, cases[i].n, 1, 0);
		CHECK_EQ(run_dsdt(a.b, a.len), ACPI_OK);
		CHECK(info.have_s5);
		CHECK_EQ(info.slp_typa, cases[i].a);
		CHECK_EQ(info.slp_typb, cases[i].b);
		CHECK_REPORTS(0);
	}
}

static void test_s5_pkglength(void)
{
	static struct tbl a;
	static const uint8_t elems[] = {0x0a, 0x05, 0x0a, 0x03};
	static const unsigned bytes[] = {1, 2, 3, 4};
	static const size_t pads[] = {0, 0x120, 0x1230, 0x30};
	static const char *names[] = {"PkgLength in 1 byte", "PkgLength in 2 bytes",
				      "PkgLength in 3 bytes", "PkgLength in 4 bytes (top byte 0)"};

	for (unsigned i = 0; i < 4; i++) {
		BEGIN(names[i]);
		a.len = 0;
		aml_s5(&a, 1, 2, elems, sizeof(elems), bytes[i], pads[i]);
		CHECK_EQ(run_dsdt(a.b, a.len), ACPI_OK);
		CHECK(info.have_s5);
		CHECK_EQ(info.slp_typa, 5);
		CHECK_EQ(info.slp_typb, 3);
		CHECK_REPORTS(0);
	}

	BEGIN("PkgLength whose 4th byte makes it run past the table");
	a.len = 0;
	aml_s5(&a, 1, 2, elems, sizeof(elems), 4, 0x30);
	a.b[10] = 0x01; /* bits 20-27 of the length */
	CHECK_EQ(run_dsdt(a.b, a.len), ACPI_OK);
	CHECK(!info.have_s5);
	CHECK_REPORT("acpi: DSDT \\_S5 package at offset 0x2b (length 1048633) is truncated by the "
		     "table end (100)");

	BEGIN("PkgLength with reserved bits set");
	a.len = 0;
	aml_s5(&a, 0, 2, elems, sizeof(elems), 2, 0);
	a.b[6] |= 0x20;
	CHECK_EQ(run_dsdt(a.b, a.len), ACPI_OK);
	CHECK(!info.have_s5);
	CHECK_REPORT("acpi: DSDT \\_S5 package length at offset 0x2a has reserved bits 5-4 set");
}

/* Run a DSDT holding exactly these AML bytes; expect no \_S5 and the report @why. */
static void s5_bad(const char *name, const void *aml, size_t n, const char *why)
{
	BEGIN(name);
	CHECK_EQ(run_dsdt(aml, n), ACPI_OK);
	CHECK(info.have_fadt);
	CHECK(!info.have_s5);
	CHECK_EQ(info.slp_typa + info.slp_typb, 0);
	CHECK_REPORT(why);
	CHECK_REPORTS(1);
}

static void test_s5_malformed(void)
{
	static const uint8_t decoy[] = {
	    0x70, 0x5f, 0x53, 0x35, 0x5f, 0x60, /* Store(_S5_, Local0) */
	    0x08, 0x5f, 0x53, 0x35, 0x5f, 0x12, 0x06, 0x02, 0x0a, 0x04, 0x0a, 0x06};

	BEGIN("a _S5_ reference without NameOp is passed over");
	CHECK_EQ(run_dsdt(decoy, sizeof(decoy)), ACPI_OK);
	CHECK(info.have_s5);
	CHECK_EQ(info.slp_typa, 4);
	CHECK_EQ(info.slp_typb, 6);

	s5_bad("no _S5 at all", "\x08\x5f\x53\x34\x5f\x12\x04\x02\x00\x00", 10,
	       "acpi: DSDT has no Name(\\_S5, ...); ACPI power-off unavailable");
	s5_bad("only a reference to _S5", decoy, 6,
	       "acpi: DSDT has no Name(\\_S5, ...); ACPI power-off unavailable");
	s5_bad("package runs past the table", "\x08\x5f\x53\x35\x5f\x12\x20\x02\x0a\x05\x0a\x05",
	       12,
	       "acpi: DSDT \\_S5 package at offset 0x2a (length 32) is truncated by the table end "
	       "(48)");
	s5_bad("element cut off by the package end",
	       "\x08\x5f\x53\x35\x5f\x12\x06\x02\x0c\x05\x00\x00", 12,
	       "acpi: DSDT \\_S5 element 0 at offset 0x2c is cut off by the package end");
	s5_bad("package ends before element 1", "\x08\x5f\x53\x35\x5f\x12\x04\x02\x0a\x05\x0a\x05",
	       12, "acpi: DSDT \\_S5 element 1 at offset 0x2e is missing: the package ends first");
	s5_bad("package of no elements", "\x08\x5f\x53\x35\x5f\x12\x02\x00", 8,
	       "acpi: DSDT \\_S5 package has no elements, need 1 or 2");
	s5_bad("element that is a string", "\x08\x5f\x53\x35\x5f\x12\x07\x02\x0d\x41\x00\x00\x00",
	       13, "acpi: DSDT \\_S5 element 0 at offset 0x2c is not an integer constant");
	s5_bad("_S5 that is not a package", "\x08\x5f\x53\x35\x5f\x0a\x05", 7,
	       "acpi: DSDT \\_S5 at offset 0x29 is not a Package (opcode 0xa)");
	s5_bad("_S5 name at the very end", "\x00\x08\x5c\x5f\x53\x35\x5f", 7,
	       "acpi: DSDT \\_S5 name at the very end of the table has no value");
	s5_bad("_S5_ cut off by the table end", "\x00\x08\x5f\x53\x35", 5,
	       "acpi: DSDT has no Name(\\_S5, ...); ACPI power-off unavailable");
	s5_bad("package length at the very end", "\x08\x5f\x53\x35\x5f\x12", 6,
	       "acpi: DSDT \\_S5 package length at offset 0x2a is cut off by the table end");
	s5_bad("multi-byte package length cut off", "\x08\x5f\x53\x35\x5f\x12\x81\x00", 8,
	       "acpi: DSDT \\_S5 package length at offset 0x2a is cut off by the table end");
	s5_bad("package length shorter than its encoding", "\x08\x5f\x53\x35\x5f\x12\x01\x02", 8,
	       "acpi: DSDT \\_S5 package length at offset 0x2a is too short to hold NumElements");
}

static void test_dsdt_signature(void)
{
	static struct tbl t;
	uint64_t tables[] = {FADT_PHYS};

	BEGIN("the FADT's DSDT address points at something else");
	std_fadt(&t, DSDT_PHYS);
	install(&t, FADT_PHYS);
	sdt_begin(&t, "SSDT", 2);
	sdt_seal(&t);
	install(&t, DSDT_PHYS);
	CHECK_EQ(run_rsdt(tables, 1, 4), ACPI_OK);
	CHECK(info.have_fadt);
	CHECK(!info.have_s5);
	CHECK_REPORT("acpi: table at 0xe8000 is 'SSDT', expected DSDT, ignoring");
}

/* ---- arguments ---- */

static void test_arguments(void)
{
	static struct tbl t;
	uint8_t rsdp[36];
	size_t len = make_rsdp(rsdp, 0, RSDT_PHYS, 0);
	uint64_t tables[] = {MADT_PHYS};
	struct acpi_info bad = {.cpus = NULL, .max_cpus = 2};

	BEGIN("bad arguments are refused");
	nreports = 0;
	CHECK_EQ(acpi_parse(rsdp, len, NULL, NULL, &info, capture), ACPI_ERR_ARGS);
	CHECK_EQ(acpi_parse(rsdp, len, mem_map, NULL, &bad, capture), ACPI_ERR_ARGS);
	CHECK_EQ(acpi_parse(rsdp, len, mem_map, NULL, NULL, capture), ACPI_ERR_ARGS);
	CHECK_REPORTS(3);
	CHECK_REPORT("acpi: acpi_parse needs an output, a map function and room for CPUs");

	BEGIN("a NULL report function is allowed");
	std_madt(&t);
	t.b[40]++;
	install(&t, MADT_PHYS);
	make_rsdt(&t, tables, 1);
	install(&t, RSDT_PHYS);
	memset(&info, 0, sizeof(info));
	CHECK_EQ(acpi_parse(rsdp, len, mem_map, NULL, &info, NULL), ACPI_OK);
	CHECK(!info.have_madt);
	rsdp[8]++;
	CHECK_EQ(acpi_parse(rsdp, len, mem_map, NULL, &info, NULL), ACPI_ERR_RSDP);
}

int main(void)
{
	check_context = print_case;
	test_rsdp_v0_rsdt();
	test_rsdp_v2_xsdt();
	test_rsdp_rejected();
	test_rsdp_v2_fallbacks();
	test_root_errors();
	test_high_memory();
	test_bad_table_checksum();
	test_table_length();
	test_madt_overflow();
	test_madt_flags();
	test_madt_online_capable();
	test_madt_x2apic();
	test_madt_duplicates();
	test_madt_truncated();
	test_madt_other_entries();
	test_fadt_legacy();
	test_fadt_x_fields();
	test_fadt_timer_and_sleep_regs();
	test_hpet();
	test_s5_integers();
	test_s5_one_element();
	test_s5_pkglength();
	test_s5_malformed();
	test_dsdt_signature();
	test_arguments();
	mem_reset();
	free(cpus);
	return check_exit("test_acpi");
}
