// SPDX-License-Identifier: MIT
/*
 * memmap.c - pick the largest usable piece of the memory map.
 *
 * Every entry comes from firmware, so every step is overflow-safe: an entry
 * near 2^64 must not wrap, a range clamped to nothing must stay nothing
 * (not be "cut" or rounded into a huge one), and rounding a start up to a
 * page must not carry past 2^64 to 0, the kernel's own address.
 */
#include "memmap.h"

#define PAGE_SIZE 4096u

/* Bytes from @v up to the next page boundary (0 if @v is on one). */
static uint64_t to_next_page(uint64_t v)
{
	return (PAGE_SIZE - (v & (PAGE_SIZE - 1))) & (PAGE_SIZE - 1);
}

/* Shrink [*start, *end) to the larger side left after removing @cut. */
static void cut_out(uint64_t *start, uint64_t *end, const struct mem_range *cut)
{
	if (cut->end <= *start || cut->start >= *end)
		return;
	uint64_t below = cut->start > *start ? cut->start - *start : 0;
	uint64_t above = *end > cut->end ? *end - cut->end : 0;

	if (below >= above)
		*end = *start + below;
	else
		*start = cut->end;
}

struct mem_range memmap_largest_free(const struct boot_info *bi, uint64_t floor, uint64_t ceiling,
				     const struct mem_range *reserved, unsigned nreserved)
{
	struct mem_range best = {0, 0};

	for (uint32_t i = 0; bi->mmap && i < bi->mmap_count; i++) {
		const struct mb2_mmap_entry *e = mb2_mmap_at(bi, i);
		uint64_t start = e->base, end = e->base + e->length;

		if (e->type != MB2_MEM_AVAILABLE || e->length == 0 || end < start)
			continue;
		if (start < floor)
			start = floor;
		if (end > ceiling)
			end = ceiling;
		/* Wholly outside [floor, ceiling): clamping left start >= end. */
		if (start >= end)
			continue;
		for (unsigned r = 0; r < nreserved && start < end; r++)
			cut_out(&start, &end, &reserved[r]);
		end &= ~(uint64_t)(PAGE_SIZE - 1);
		/* Round start up only if a page boundary lies before end: never past 2^64. */
		if (start >= end || end - start < to_next_page(start))
			continue;
		start += to_next_page(start);
		if (start < end && end - start > best.end - best.start)
			best = (struct mem_range){start, end};
	}
	return best;
}

struct mem_range memmap_heap_range(const struct boot_info *bi, struct mem_range kernel,
				   struct mem_range info)
{
	const struct mem_range reserved[] = {kernel, info};

	return memmap_largest_free(bi, HEAP_FLOOR, HEAP_CEILING, reserved, 2);
}

struct mem_range memmap_low_page(const struct boot_info *bi, struct mem_range info)
{
	struct mem_range r = memmap_largest_free(bi, LOW_PAGE_FLOOR, LOW_PAGE_CEILING, &info, 1);

	if (r.end - r.start < PAGE_SIZE)
		return (struct mem_range){0, 0};
	return (struct mem_range){r.start, r.start + PAGE_SIZE};
}
