// SPDX-License-Identifier: MIT
/*
 * fuzz_acpi.c - libFuzzer harness for kernel/acpi_tables.c.
 *
 * The input describes "physical memory": byte 0 holds flags, byte 1 the
 * room for CPUs the caller gives (an exact-size array), then chunks of
 * (u64 address, u16 length, bytes).  The first chunk is the RSDP; every
 * chunk lives in its own exact-size allocation and the map function hands
 * out a range only if it lies inside one chunk, so a read past any table
 * is an ASan error.  With flag bit 0 the harness fixes every checksum
 * first (RSDP, extended RSDP, each table), so the fuzzer gets past them.
 *
 * Checked after each parse: the CPU array bookkeeping adds up, no APIC id
 * twice, every stored CPU usable and valid, counts within their arrays,
 * 3-bit sleep types, nothing found when the parse failed, and every
 * warning a single line naming ACPI.
 */
#include "acpi_tables.h"
#include "fuzz_check.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHUNKS	 16
#define FLAG_FIX_SUMS	 1u
#define CHUNK_HEADER	 10 /* u64 address, u16 length */
#define TABLE_LEN_AT	 4  /* ACPI 6.5 5.2.6: Length, then Revision, then Checksum */
#define TABLE_SUM_AT	 9
#define TABLE_HEADER_LEN 36
#define RSDP_SUM_AT	 8 /* ACPI 6.5 5.2.5.3 */
#define RSDP_V1_LEN	 20
#define RSDP_REV_AT	 15
#define RSDP_LEN_AT	 20
#define RSDP_XSUM_AT	 32
#define RSDP_V2_LEN	 36

struct chunk {
	uint64_t phys;
	size_t len;
	uint8_t *bytes;
};

struct memory {
	struct chunk c[MAX_CHUNKS];
	unsigned n;
};

static const void *map(uint64_t phys, size_t len, void *ctx)
{
	struct memory *m = ctx;

	for (unsigned i = 0; i < m->n; i++) {
		const struct chunk *c = &m->c[i];

		if (phys >= c->phys && phys - c->phys <= c->len && len <= c->len - (phys - c->phys))
			return c->bytes + (phys - c->phys);
	}
	return NULL;
}

__attribute__((format(printf, 1, 2))) static void report(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	FUZZ_CHECK(strncmp(line, "acpi: ", 6) == 0 && !strchr(line, '\n'), "warning '%s'", line);
}

/* Make the bytes [0, n) of @b sum to 0 by setting b[at]. */
static void fix_sum(uint8_t *b, size_t n, size_t at)
{
	uint8_t sum = 0;

	b[at] = 0;
	for (size_t i = 0; i < n; i++)
		sum += b[i];
	b[at] = (uint8_t)-sum;
}

static void fix_sums(struct memory *m)
{
	for (unsigned i = 0; i < m->n; i++) {
		struct chunk *c = &m->c[i];
		uint32_t len;

		if (i == 0 && c->len >= RSDP_V1_LEN) {
			fix_sum(c->bytes, RSDP_V1_LEN, RSDP_SUM_AT);
			if (c->len >= RSDP_V2_LEN && c->bytes[RSDP_REV_AT] >= 2) {
				memcpy(&len, c->bytes + RSDP_LEN_AT, 4);
				fix_sum(c->bytes, len <= c->len ? len : c->len, RSDP_XSUM_AT);
			}
		} else if (i > 0 && c->len >= TABLE_HEADER_LEN) {
			memcpy(&len, c->bytes + TABLE_LEN_AT, 4);
			fix_sum(c->bytes, len <= c->len ? len : c->len, TABLE_SUM_AT);
		}
	}
}

static void check_info(const struct acpi_info *a, int rc)
{
	if (rc != ACPI_OK) {
		FUZZ_CHECK(!a->have_madt && !a->have_fadt && !a->have_s5 && a->ncpus == 0,
			   "parse failed (%d) but tables were used", rc);
		return;
	}
	FUZZ_CHECK(a->ncpus <= a->max_cpus, "%u CPUs stored in room for %u", a->ncpus, a->max_cpus);
	FUZZ_CHECK(a->cpus_usable == a->ncpus + a->cpus_extra, "usable %u != %u stored + %u extra",
		   a->cpus_usable, a->ncpus, a->cpus_extra);
	for (unsigned i = 0; i < a->ncpus; i++) {
		const struct acpi_cpu *c = &a->cpus[i];

		FUZZ_CHECK(c->type == 0 || c->type == 9, "CPU %u from type %u", i, c->type);
		FUZZ_CHECK(c->flags & (ACPI_LAPIC_ENABLED | ACPI_LAPIC_ONLINE_CAPABLE),
			   "CPU %u not usable", i);
		FUZZ_CHECK(c->apic_id != (c->type == 0 ? 0xffu : 0xffffffffu),
			   "CPU %u has the broadcast id", i);
		FUZZ_CHECK(c->type != 0 || c->apic_id <= 0xff, "CPU %u: 8-bit id %x", i,
			   c->apic_id);
		for (unsigned j = 0; j < i; j++)
			FUZZ_CHECK(a->cpus[j].apic_id != c->apic_id, "APIC id %x twice",
				   c->apic_id);
	}
	FUZZ_CHECK(a->nioapics <= ACPI_MAX_IOAPICS && a->noverrides <= ACPI_MAX_OVERRIDES,
		   "%u I/O APICs, %u overrides", a->nioapics, a->noverrides);
	FUZZ_CHECK(!a->have_s5 || (a->slp_typa <= 7 && a->slp_typb <= 7), "SLP_TYP %u %u",
		   a->slp_typa, a->slp_typb);
	FUZZ_CHECK(!a->have_s5 || a->have_fadt, "\\_S5 without a FADT");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memory m = {.n = 0};
	struct acpi_info info;
	unsigned flags, max_cpus;
	int rc;

	if (size < 2)
		return 0;
	flags = data[0];
	max_cpus = data[1];
	data += 2;
	size -= 2;
	while (size >= CHUNK_HEADER && m.n < MAX_CHUNKS) {
		struct chunk *c = &m.c[m.n++];
		uint16_t len;

		memcpy(&c->phys, data, 8);
		memcpy(&len, data + 8, 2);
		data += CHUNK_HEADER;
		size -= CHUNK_HEADER;
		c->len = len < size ? len : size;
		c->bytes = malloc(c->len ? c->len : 1);
		memcpy(c->bytes, data, c->len);
		data += c->len;
		size -= c->len;
	}
	if (m.n == 0)
		return 0;
	if (flags & FLAG_FIX_SUMS)
		fix_sums(&m);
	info.max_cpus = max_cpus;
	info.cpus = max_cpus ? malloc(max_cpus * sizeof(*info.cpus)) : NULL;
	rc = acpi_parse(m.c[0].bytes, m.c[0].len, map, &m, &info, report);
	check_info(&info, rc);
	free(info.cpus);
	for (unsigned i = 0; i < m.n; i++)
		free(m.c[i].bytes);
	return 0;
}
