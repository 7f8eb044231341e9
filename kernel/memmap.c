/*
 * memmap.c - pick the largest usable piece of the memory map.
 */
#include "memmap.h"

#define PAGE_SIZE 4096u

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
		for (unsigned r = 0; r < nreserved && start < end; r++)
			cut_out(&start, &end, &reserved[r]);
		start = (start + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
		end &= ~(uint64_t)(PAGE_SIZE - 1);
		if (start < end && end - start > best.end - best.start)
			best = (struct mem_range){start, end};
	}
	return best;
}
