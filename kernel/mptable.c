// SPDX-License-Identifier: MIT
/*
 * mptable.c - read the Intel MP configuration table; see mptable.h.
 *
 * Layout (Intel MultiProcessor Specification 1.4, chapter 4): a 16-byte
 * floating pointer structure "_MP_" points to a table "PCMP" with a 44-byte
 * header and a count of variable-length entries: processor (type 0, 20
 * bytes), bus, I/O APIC, I/O interrupt and local interrupt assignment
 * (types 1-4, 8 bytes each).  Only processors are used here; the other
 * types are stepped over.  An entry type outside 0-4 has no known length,
 * so nothing after it can be found: reading stops there.
 */
#include "mptable.h"

#include "string.h"

#define FPS_ALIGN	  16
#define FPS_SIGNATURE	  "_MP_"
#define FPS_PHYSPTR	  4 /* u32: the configuration table's address */
#define FPS_LENGTH	  8 /* u8: in 16-byte paragraphs, always 1 */
#define FPS_SPEC_REV	  9
#define FPS_FEATURE1	  11 /* nonzero: a default configuration, no table (MP spec 4.1) */
#define CT_SIGNATURE	  "PCMP"
#define CT_BASE_LENGTH	  4 /* u16 */
#define CT_SPEC_REV	  6
#define CT_ENTRY_COUNT	  34 /* u16 */
#define CT_LAPIC	  36 /* u32 */
#define ENTRY_PROCESSOR	  0
#define ENTRY_LAST_TYPE	  4 /* local interrupt assignment: the last type MP 1.4 defines */
#define PROCESSOR_LEN	  20
#define OTHER_ENTRY_LEN	  8
#define PROC_APIC_ID	  1
#define PROC_FLAGS	  3
#define PROC_FLAG_EN	  0x01 /* MP spec 4.3.1: usable */
#define PROC_FLAG_BP	  0x02 /* the bootstrap processor */
#define APIC_ID_BROADCAST 0xff

static uint16_t u16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t u32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool sums_to_zero(const uint8_t *p, size_t len)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += p[i];
	return sum == 0;
}

const uint8_t *mp_find_fps(const uint8_t *area, size_t len)
{
	for (size_t off = 0; off + MP_FPS_LEN <= len; off += FPS_ALIGN) {
		const uint8_t *p = area + off;

		if (memcmp(p, FPS_SIGNATURE, 4) == 0 && p[FPS_LENGTH] == 1 &&
		    sums_to_zero(p, MP_FPS_LEN))
			return p;
	}
	return NULL;
}

#define REPORT(...)                                                                                \
	do {                                                                                       \
		if (report)                                                                        \
			report(__VA_ARGS__);                                                       \
	} while (0)

static void add_processor(const uint8_t *e, struct mp_info *out, mp_report_fn report)
{
	uint8_t id = e[PROC_APIC_ID], flags = e[PROC_FLAGS];

	if (!(flags & PROC_FLAG_EN)) {
		out->cpus_disabled++;
		return;
	}
	if (id == APIC_ID_BROADCAST) {
		out->cpus_invalid++;
		REPORT("mptable: a processor entry has the broadcast APIC id 0x%x, skipped", id);
		return;
	}
	for (unsigned i = 0; i < out->ncpus; i++) {
		if (out->cpus[i].apic_id == id) {
			out->cpus_invalid++;
			REPORT("mptable: APIC id 0x%x is listed twice, keeping the first", id);
			return;
		}
	}
	if (out->ncpus == out->max_cpus) {
		out->cpus_extra++;
		return;
	}
	out->cpus[out->ncpus++] = (struct mp_cpu){.apic_id = id, .bsp = flags & PROC_FLAG_BP};
}

/* Step over the entries of @t (@len bytes, @count entries), storing processors. */
static void read_entries(const uint8_t *t, size_t len, unsigned count, struct mp_info *out,
			 mp_report_fn report)
{
	size_t off = MP_HEADER_LEN;

	for (; out->entries_read < count; out->entries_read++) {
		uint8_t type = off < len ? t[off] : 0;
		size_t elen = type == ENTRY_PROCESSOR ? PROCESSOR_LEN : OTHER_ENTRY_LEN;

		if (off < len && type > ENTRY_LAST_TYPE) {
			REPORT("mptable: entry %u has type %u, which MP 1.4 does not define (0-4): "
			       "its length is unknown, so the other %u entries are not read",
			       out->entries_read, type, count - out->entries_read - 1);
			return;
		}
		if (off + elen > len) {
			REPORT("mptable: the table's %u bytes end inside entry %u of the %u it "
			       "counts: reading %u",
			       (unsigned)len, out->entries_read, count, out->entries_read);
			return;
		}
		if (type == ENTRY_PROCESSOR)
			add_processor(t + off, out, report);
		off += elen;
	}
}

bool mp_parse(const uint8_t *fps, mp_map_fn map, void *ctx, struct mp_info *out,
	      mp_report_fn report)
{
	const uint8_t *t;
	uint32_t phys;
	uint16_t len;

	*out = (struct mp_info){.cpus = out->cpus, .max_cpus = out->max_cpus};
	if (fps[FPS_FEATURE1]) {
		REPORT("mptable: MP default configuration %u (no table to list the CPUs); not "
		       "supported",
		       fps[FPS_FEATURE1]);
		return false;
	}
	phys = u32_at(fps + FPS_PHYSPTR);
	t = phys ? map(phys, MP_HEADER_LEN, ctx) : NULL;
	if (!t) {
		REPORT("mptable: the floating pointer's table address 0x%x is %s", phys,
		       phys ? "not readable" : "null");
		return false;
	}
	if (memcmp(t, CT_SIGNATURE, 4) != 0) {
		REPORT("mptable: no 'PCMP' signature at 0x%x; table rejected", phys);
		return false;
	}
	len = u16_at(t + CT_BASE_LENGTH);
	if (len < MP_HEADER_LEN) {
		REPORT("mptable: base table length %u is shorter than its %u-byte header; table "
		       "rejected",
		       len, MP_HEADER_LEN);
		return false;
	}
	t = map(phys, len, ctx);
	if (!t || !sums_to_zero(t, len)) {
		REPORT("mptable: %s over the table's %u bytes; table rejected",
		       t ? "the checksum does not sum to zero" : "cannot read", len);
		return false;
	}
	out->spec_rev = t[CT_SPEC_REV];
	out->lapic_phys = u32_at(t + CT_LAPIC);
	read_entries(t, len, u16_at(t + CT_ENTRY_COUNT), out, report);
	if (out->cpus_extra)
		REPORT("mptable: %u more enabled processors than the %u this kernel supports "
		       "(MAX_CPUS): ignored",
		       out->cpus_extra, out->max_cpus);
	if (!out->ncpus) {
		REPORT("mptable: no usable processor entry (%u disabled, %u invalid)",
		       out->cpus_disabled, out->cpus_invalid);
		return false;
	}
	return true;
}
