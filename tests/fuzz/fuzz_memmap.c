// SPDX-License-Identifier: MIT
/*
 * fuzz_memmap.c - libFuzzer harness for kernel/memmap.c.
 *
 * Input: floor (8 bytes), ceiling (8), two reserved ranges (4 x 8), then
 * memory-map entries of 24 bytes (base, length, type, reserved), the
 * Multiboot2 layout, in an exact-size buffer.  Short inputs take the
 * heap's own floor and ceiling.  Reserved ranges come from the kernel, so
 * they are put in order first.  Checks the result against the contract
 * (fuzz_check.h), for the given bounds and for memmap_heap_range.
 */
#include "fuzz_check.h"
#include "memmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER (2 * 8 + 4 * 8)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t w[HEADER / 8] = {HEAP_FLOOR, HEAP_CEILING, 0, 0, 0, 0};
	struct boot_info bi = {0};
	size_t n;
	uint8_t *entries;

	if (size >= HEADER) {
		memcpy(w, data, HEADER);
		data += HEADER;
		size -= HEADER;
	}
	n = size / sizeof(struct mb2_mmap_entry);
	entries = malloc(n ? n * sizeof(struct mb2_mmap_entry) : 1);
	memcpy(entries, data, n * sizeof(struct mb2_mmap_entry));
	bi.mmap = entries;
	bi.mmap_entry_size = sizeof(struct mb2_mmap_entry);
	bi.mmap_count = (uint32_t)n;

	const struct mem_range reserved[2] = {
	    {w[2] < w[3] ? w[2] : w[3], w[2] < w[3] ? w[3] : w[2]},
	    {w[4] < w[5] ? w[4] : w[5], w[4] < w[5] ? w[5] : w[4]}};
	struct mem_range r = memmap_largest_free(&bi, w[0], w[1], reserved, 2);

	if (w[0] <= w[1])
		fuzz_check_range(&bi, r, w[0], w[1], reserved, 2);
	r = memmap_heap_range(&bi, reserved[0], reserved[1]);
	fuzz_check_range(&bi, r, HEAP_FLOOR, HEAP_CEILING, reserved, 2);
	free(entries);
	return 0;
}
