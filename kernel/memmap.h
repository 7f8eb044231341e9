/*
 * memmap.h - choose the heap's memory from the Multiboot2 memory map.
 *
 * Pure code (host-tested with crafted maps in tests/host/test_memmap.c):
 * the map comes from firmware and may hold zero-length, overlapping or
 * absurd entries.
 */
#ifndef KERNEL_MEMMAP_H
#define KERNEL_MEMMAP_H

#include "multiboot2.h"

#include <stdint.h>

struct mem_range {
	uint64_t start, end; /* [start, end) */
};

/*
 * The largest available (type 1) range of @bi's memory map inside
 * [@floor, @ceiling), after cutting out each of the @nreserved ranges
 * (keeping the larger side of each cut), page-aligned.  Zero-length and
 * wrapping entries are skipped.  Returns an empty range (start == end)
 * when there is no map or nothing usable.
 */
struct mem_range memmap_largest_free(const struct boot_info *bi, uint64_t floor, uint64_t ceiling,
				     const struct mem_range *reserved, unsigned nreserved);

#endif /* KERNEL_MEMMAP_H */
