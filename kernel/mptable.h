// SPDX-License-Identifier: MIT
/*
 * mptable.h - the Intel MultiProcessor Specification 1.4 tables: which CPUs
 * a machine has when its ACPI tables have no MADT (older boards, and
 * SeaBIOS with ACPI off).
 *
 * Pure code, host-tested and fuzzed (tests/host/test_mptable.c,
 * tests/fuzz/fuzz_mptable.c): the tables come from firmware, so every
 * length, count and checksum is checked before it is believed, and every
 * rejection or clamp says what was wrong in one line.
 */
#ifndef KERNEL_MPTABLE_H
#define KERNEL_MPTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MP_FPS_LEN    16 /* MP spec 4.1: the floating pointer structure, one 16-byte paragraph */
#define MP_HEADER_LEN 44 /* MP spec 4.2: the configuration table header */

/* Return a pointer through which @len bytes at physical @phys can be read, or NULL. */
typedef const void *(*mp_map_fn)(uint64_t phys, size_t len, void *ctx);

/* One line (no trailing newline in @fmt); formats use %s, %u and %x only. May be NULL. */
typedef void (*mp_report_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct mp_cpu {
	uint8_t apic_id;
	bool bsp; /* the bootstrap processor, by the entry's BP flag */
};

struct mp_info {
	/* In: room for the CPUs found. */
	struct mp_cpu *cpus;
	unsigned max_cpus;
	/* Out. */
	unsigned ncpus;		/* enabled, valid, distinct processors stored */
	unsigned cpus_disabled; /* entries with the EN flag clear (MP spec 4.3.1) */
	unsigned cpus_extra;	/* enabled ones beyond max_cpus, not stored */
	unsigned cpus_invalid;	/* the broadcast APIC id 0xff, or a repeated id */
	uint32_t lapic_phys;	/* the header's local APIC address */
	uint8_t spec_rev;	/* 1 (MP 1.1) or 4 (MP 1.4) */
	unsigned entries_read;	/* of the header's entry count */
};

/*
 * The floating pointer structure in @len bytes at @area: the first 16-byte
 * aligned "_MP_" paragraph whose length field is 1 and whose bytes sum to
 * zero (MP spec 4.1).  NULL if there is none.
 */
const uint8_t *mp_find_fps(const uint8_t *area, size_t len);

/*
 * Read the configuration table that @fps (16 bytes) points to, through
 * @map, into @out.  Returns true when at least one usable processor was
 * found.  Rejected, with one @report line naming what and why: a default
 * configuration (feature byte 1 set: no table to read CPUs from), a null
 * table pointer, a bad signature, a length shorter than the header, a bad
 * checksum, no usable processor.  Clamped, with one line: entries past the
 * table's length, an entry type this spec does not define (its length is
 * unknown, so reading stops there), more processors than @out->max_cpus.
 * Processor entries with EN clear are counted, not stored; the broadcast
 * id 0xff and repeated ids are skipped with a line.
 */
bool mp_parse(const uint8_t *fps, mp_map_fn map, void *ctx, struct mp_info *out,
	      mp_report_fn report);

#endif /* KERNEL_MPTABLE_H */
