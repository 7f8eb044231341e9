// SPDX-License-Identifier: MIT
/*
 * fuzz_mptable.c - libFuzzer harness for kernel/mptable.c.
 *
 * Input: a flags byte, the room for CPUs (1..16), the 16-byte floating
 * pointer, then the configuration table's bytes, readable (exact-size
 * buffer) only at the address the pointer names and only as long as the
 * input.  Flag bit 0 recomputes the table checksum, so the fuzzer gets past
 * it to the entries.  mp_find_fps also scans the whole input.  Checks the
 * contract of mptable.h on success: at least one CPU, no more than the
 * room, no broadcast id, no id twice, no more entries read than counted.
 */
#include "fuzz_check.h"
#include "mptable.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEAD		  (2 + MP_FPS_LEN)
#define FLAG_FIX_CHECKSUM 1u
#define MAX_ROOM	  16

struct table {
	uint32_t phys;
	const uint8_t *bytes;
	size_t len;
};

static const void *map(uint64_t phys, size_t len, void *ctx)
{
	const struct table *t = ctx;

	return phys == t->phys && len <= t->len ? t->bytes : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mp_cpu cpus[MAX_ROOM];
	struct mp_info info = {.cpus = cpus};
	const uint8_t *fps = data + 2;
	uint8_t *copy;
	struct table t;

	if (size < HEAD)
		return 0;
	info.max_cpus = 1 + data[1] % MAX_ROOM;
	t.len = size - HEAD;
	copy = malloc(t.len ? t.len : 1);
	memcpy(copy, data + HEAD, t.len);
	if ((data[0] & FLAG_FIX_CHECKSUM) && t.len >= MP_HEADER_LEN) {
		size_t n = (size_t)(copy[4] | copy[5] << 8);
		uint8_t sum = 0;

		copy[7] = 0;
		for (size_t i = 0; i < n && i < t.len; i++)
			sum += copy[i];
		copy[7] = (uint8_t)-sum;
	}
	t.bytes = copy;
	t.phys = (uint32_t)(fps[4] | fps[5] << 8 | fps[6] << 16 | (uint32_t)fps[7] << 24);
	(void)mp_find_fps(data, size);
	if (mp_parse(fps, map, &t, &info, NULL)) {
		unsigned count = t.len >= MP_HEADER_LEN ? (unsigned)(copy[34] | copy[35] << 8) : 0;

		FUZZ_CHECK(info.ncpus >= 1 && info.ncpus <= info.max_cpus, "%u CPUs, room %u",
			   info.ncpus, info.max_cpus);
		FUZZ_CHECK(info.entries_read <= count, "%u entries read of %u", info.entries_read,
			   count);
		for (unsigned i = 0; i < info.ncpus; i++) {
			FUZZ_CHECK(cpus[i].apic_id != 0xff, "broadcast id stored at %u", i);
			for (unsigned k = 0; k < i; k++)
				FUZZ_CHECK(cpus[k].apic_id != cpus[i].apic_id, "id 0x%x twice",
					   cpus[i].apic_id);
		}
	}
	free(copy);
	return 0;
}
