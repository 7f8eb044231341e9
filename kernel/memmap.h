// SPDX-License-Identifier: MIT
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

/* The heap stays above real-mode memory (firmware's, the AP trampoline's)... */
#define HEAP_FLOOR (1ull << 20)
/* ...and below the end of the identity map boot/entry.asm builds. */
#define HEAP_CEILING (4ull << 30)

/*
 * The largest available (type 1) range of @bi's memory map inside
 * [@floor, @ceiling), after cutting out each of the @nreserved ranges
 * (keeping the larger side of each cut), page-aligned.  Zero-length and
 * wrapping entries are skipped, and so is anything no whole page of fits.
 * A non-empty result always lies inside one available entry, inside
 * [@floor, @ceiling), clear of every reserved range, with page-aligned
 * ends, whatever the entries say (bases near 2^64 included).  Returns
 * {0, 0} when there is no map or nothing usable.
 */
struct mem_range memmap_largest_free(const struct boot_info *bi, uint64_t floor, uint64_t ceiling,
				     const struct mem_range *reserved, unsigned nreserved);

/*
 * The heap's range as heap_init picks it: the largest free range in
 * [HEAP_FLOOR, HEAP_CEILING) clear of the kernel image and the boot
 * information.  Same contract as memmap_largest_free.
 */
struct mem_range memmap_heap_range(const struct boot_info *bi, struct mem_range kernel,
				   struct mem_range info);

/*
 * Where the APs' start-up code can go: a Startup IPI starts a CPU in real
 * mode at a page boundary below 1 MiB (Intel SDM Vol. 3A 9.4.4.1), and
 * page 0 holds the real-mode interrupt vectors and BIOS data.  The page is
 * the first one of the largest available range of @bi's map inside
 * [LOW_PAGE_FLOOR, LOW_PAGE_CEILING) clear of @info (the boot information,
 * which may lie down there too).  Returns the 4 KiB range, or {0, 0} when
 * the map has no such page (or there is no map).
 */
#define LOW_PAGE_FLOOR	 0x1000ull
#define LOW_PAGE_CEILING (1ull << 20)
struct mem_range memmap_low_page(const struct boot_info *bi, struct mem_range info);

#endif /* KERNEL_MEMMAP_H */
