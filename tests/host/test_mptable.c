// SPDX-License-Identifier: MIT
/*
 * test_mptable.c - kernel/mptable.c on crafted Intel MP tables.
 *
 * A good table like SeaBIOS's, then each way firmware gets it wrong: a bad
 * floating pointer checksum or length, a default configuration, a null or
 * unreadable table, a bad signature or checksum, a length shorter than the
 * header, an entry count past the end, an unknown entry type, more CPUs
 * than fit, disabled, broadcast and repeated ids.  Each rejection or clamp
 * must print exactly one line naming the problem.
 */
#include "mptable.h"

#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TABLE_PHYS 0x9fc00u
#define TABLE_MAX  1024

static uint8_t table[TABLE_MAX];
static size_t table_len;
static char last[256];
static unsigned lines;

static void report(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last, sizeof(last), fmt, ap);
	va_end(ap);
	lines++;
}

/* The table at TABLE_PHYS, exactly table_len bytes long; nothing else is readable. */
static const void *map(uint64_t phys, size_t len, void *ctx)
{
	(void)ctx;
	if (phys != TABLE_PHYS || len > table_len)
		return NULL;
	return table;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

/* Set p[@at] so that the @len bytes at @p sum to 0 mod 256 (MultiProcessor Spec 1.4, 4.1). */
static void fix_checksum(uint8_t *p, size_t len, size_t at)
{
	unsigned sum = 0;

	p[at] = 0;
	while (len)
		sum += p[--len];
	p[at] = (uint8_t)(0x100 - sum % 0x100);
}

static void fps_make(uint8_t *fps, uint32_t phys)
{
	memset(fps, 0, MP_FPS_LEN);
	memcpy(fps, "_MP_", 4);
	put32(fps + 4, phys);
	fps[8] = 1;
	fps[9] = 4;
	fix_checksum(fps, MP_FPS_LEN, 10);
}

/* A header, then @n entries appended by add_*(); finish() sets length, count, checksum. */
static unsigned nentries;

static void start(void)
{
	memset(table, 0, sizeof(table));
	memcpy(table, "PCMP", 4);
	table[6] = 4;
	memcpy(table + 8, "QEMUCPU ", 8);
	put32(table + 36, 0xfee00000u);
	table_len = MP_HEADER_LEN;
	nentries = 0;
}

static void add_cpu(uint8_t id, uint8_t flags)
{
	uint8_t *e = table + table_len;

	e[0] = 0;
	e[1] = id;
	e[2] = 0x14;
	e[3] = flags;
	table_len += 20;
	nentries++;
}

static void add_other(uint8_t type)
{
	table[table_len] = type;
	table_len += 8;
	nentries++;
}

static void finish(void)
{
	put16(table + 4, (uint16_t)table_len);
	put16(table + 34, (uint16_t)nentries);
	fix_checksum(table, table_len, 7);
}

static bool parse(struct mp_info *out, struct mp_cpu *cpus, unsigned max)
{
	uint8_t fps[MP_FPS_LEN];

	fps_make(fps, TABLE_PHYS);
	out->cpus = cpus;
	out->max_cpus = max;
	lines = 0;
	last[0] = '\0';
	return mp_parse(fps, map, NULL, out, report);
}

/* A SeaBIOS-like table: 4 CPUs, a bus, an I/O APIC, interrupt entries. */
static void good_table(void)
{
	start();
	add_cpu(0, 0x3);
	add_cpu(1, 0x1);
	add_cpu(2, 0x1);
	add_cpu(3, 0x1);
	add_other(1);
	add_other(2);
	add_other(3);
	add_other(4);
	finish();
}

static void test_good(void)
{
	struct mp_cpu cpus[8];
	struct mp_info info;

	good_table();
	CHECK(parse(&info, cpus, 8));
	CHECK_EQ(info.ncpus, 4);
	CHECK_EQ(lines, 0, "no line for a good table: '%s'", last);
	CHECK(cpus[0].apic_id == 0 && cpus[0].bsp && cpus[3].apic_id == 3 && !cpus[3].bsp);
	CHECK_EQ(info.lapic_phys, 0xfee00000u);
	CHECK_EQ(info.spec_rev, 4);
	CHECK_EQ(info.entries_read, 8);
}

/* @what must be rejected (false) with one line containing @expect. */
static void expect_rejected(const char *what, const char *expect)
{
	struct mp_cpu cpus[8];
	struct mp_info info;
	bool ok = parse(&info, cpus, 8);

	CHECK(!ok, "%s: accepted", what);
	CHECK(lines == 1 && strstr(last, expect), "%s: %u lines, last '%s', want '%s'", what, lines,
	      last, expect);
}

static void test_rejected(void)
{
	uint8_t fps[MP_FPS_LEN];

	good_table();
	table[40] ^= 1; /* checksum now off */
	expect_rejected("bad table checksum", "checksum");

	good_table();
	memcpy(table, "PCMQ", 4);
	fix_checksum(table, table_len, 7);
	expect_rejected("bad signature", "'PCMP'");

	good_table();
	put16(table + 4, 40);
	fix_checksum(table, table_len, 7);
	expect_rejected("length shorter than the header", "shorter than its 44-byte header");

	good_table();
	put16(table + 4, (uint16_t)(table_len + 16)); /* past what can be read */
	fix_checksum(table, table_len, 7);
	expect_rejected("length past the readable bytes", "cannot read");

	start();
	add_cpu(0, 0x2); /* EN clear */
	finish();
	expect_rejected("no enabled processor", "no usable processor entry (1 disabled");

	/* The floating pointer: a checksum that does not sum to 0, a wrong length. */
	fps_make(fps, TABLE_PHYS);
	CHECK(mp_find_fps(fps, sizeof(fps)) == fps);
	fps[4] ^= 0x10;
	CHECK(mp_find_fps(fps, sizeof(fps)) == NULL, "bad FPS checksum found");
	fps_make(fps, TABLE_PHYS);
	fps[8] = 2;
	fix_checksum(fps, MP_FPS_LEN, 10);
	CHECK(mp_find_fps(fps, sizeof(fps)) == NULL, "FPS length 2 found");

	struct mp_cpu cpus[8];
	struct mp_info info = {.cpus = cpus, .max_cpus = 8};

	fps_make(fps, TABLE_PHYS);
	fps[11] = 5; /* default configuration 5 */
	fix_checksum(fps, MP_FPS_LEN, 10);
	lines = 0;
	CHECK(!mp_parse(fps, map, NULL, &info, report) && lines == 1 &&
	      strstr(last, "default configuration 5"));
	fps_make(fps, 0);
	lines = 0;
	CHECK(!mp_parse(fps, map, NULL, &info, report) && lines == 1 && strstr(last, "null"));
	fps_make(fps, 0x1000);
	lines = 0;
	CHECK(!mp_parse(fps, map, NULL, &info, report) && lines == 1 &&
	      strstr(last, "not readable"));
}

static void test_clamped(void)
{
	struct mp_cpu cpus[8];
	struct mp_info info;

	/* More CPUs than fit. */
	start();
	for (unsigned i = 0; i < 6; i++)
		add_cpu((uint8_t)i, 1);
	finish();
	CHECK(parse(&info, cpus, 4));
	CHECK(info.ncpus == 4 && info.cpus_extra == 2 && lines == 1 &&
		  strstr(last, "2 more enabled processors than the 4"),
	      "max_cpus: %u stored, %u extra, '%s'", info.ncpus, info.cpus_extra, last);

	/* An unknown entry type: reading stops there, the CPUs before it stay. */
	start();
	add_cpu(0, 3);
	add_other(9);
	add_cpu(1, 1);
	finish();
	CHECK(parse(&info, cpus, 8));
	CHECK(info.ncpus == 1 && lines == 1 && strstr(last, "type 9") &&
		  strstr(last, "the other 1 entries are not read"),
	      "unknown type: %u CPUs, '%s'", info.ncpus, last);

	/* An entry count past the table's length. */
	good_table();
	put16(table + 34, 12);
	fix_checksum(table, table_len, 7);
	CHECK(parse(&info, cpus, 8));
	CHECK(info.ncpus == 4 && info.entries_read == 8 && lines == 1 &&
		  strstr(last, "end inside entry 8 of the 12"),
	      "count past the end: '%s'", last);

	/* Disabled, broadcast and repeated ids: counted, skipped, one line each for the bad. */
	start();
	add_cpu(0, 3);
	add_cpu(1, 0);
	add_cpu(0xff, 1);
	add_cpu(0, 1);
	add_cpu(2, 1);
	finish();
	CHECK(parse(&info, cpus, 8));
	CHECK(info.ncpus == 2 && info.cpus_disabled == 1 && info.cpus_invalid == 2 && lines == 2,
	      "%u CPUs, %u disabled, %u invalid, %u lines", info.ncpus, info.cpus_disabled,
	      info.cpus_invalid, lines);
}

/* The search: on 16-byte boundaries only, the first valid one. */
static void test_find(void)
{
	uint8_t area[256] = {0};

	fps_make(area + 40, TABLE_PHYS); /* not 16-byte aligned */
	CHECK(mp_find_fps(area, sizeof(area)) == NULL);
	memset(area, 0, sizeof(area));
	fps_make(area + 240, TABLE_PHYS);
	CHECK(mp_find_fps(area, sizeof(area)) == area + 240);
	CHECK(mp_find_fps(area, sizeof(area) - 1) == NULL, "a paragraph past the end is not read");
}

int main(void)
{
	test_good();
	test_rejected();
	test_clamped();
	test_find();
	return check_exit("test_mptable");
}
