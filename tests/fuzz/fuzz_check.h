// SPDX-License-Identifier: MIT
/*
 * fuzz_check.h - what the libFuzzer harnesses share: a result check that
 * aborts (libFuzzer saves the input as a crash), and the heap-range
 * invariants of kernel/memmap.h checked from the map itself.
 *
 * A harness that only waits for a crash proves little: a parser can return
 * nonsense without touching a byte out of bounds.  So each harness checks
 * what the parser promises, with code written independently of it.
 */
#ifndef TESTS_FUZZ_FUZZ_CHECK_H
#define TESTS_FUZZ_FUZZ_CHECK_H

#include "memmap.h"

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_PAGE 4096u

#define FUZZ_CHECK(cond, ...)                                                                      \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz check failed: %s: ", #cond);                         \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, "\n");                                                     \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* Do [a0, a1) and [b0, b1) share a byte? */
static inline int fuzz_overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	return a0 < b1 && b0 < a1;
}

/*
 * memmap_largest_free's contract (memmap.h): {0, 0}, or a page-aligned
 * range inside [floor, ceiling), inside one available entry that does not
 * wrap, clear of every reserved range.
 */
static inline void fuzz_check_range(const struct boot_info *bi, struct mem_range r, uint64_t floor,
				    uint64_t ceiling, const struct mem_range *reserved,
				    unsigned nreserved)
{
	int inside = 0;

	if (r.start == r.end) {
		FUZZ_CHECK(r.start == 0, "empty range at %llx", (unsigned long long)r.start);
		return;
	}
	FUZZ_CHECK(r.start < r.end, "[%llx, %llx)", (unsigned long long)r.start,
		   (unsigned long long)r.end);
	FUZZ_CHECK(r.start % FUZZ_PAGE == 0 && r.end % FUZZ_PAGE == 0, "[%llx, %llx) unaligned",
		   (unsigned long long)r.start, (unsigned long long)r.end);
	FUZZ_CHECK(r.start >= floor && r.end <= ceiling, "[%llx, %llx) outside [%llx, %llx)",
		   (unsigned long long)r.start, (unsigned long long)r.end,
		   (unsigned long long)floor, (unsigned long long)ceiling);
	for (uint32_t i = 0; bi->mmap && i < bi->mmap_count; i++) {
		const struct mb2_mmap_entry *e = mb2_mmap_at(bi, i);
		uint64_t end = e->base + e->length;

		if (e->type == MB2_MEM_AVAILABLE && end > e->base && r.start >= e->base &&
		    r.end <= end)
			inside = 1;
	}
	FUZZ_CHECK(inside, "[%llx, %llx) lies in no single available entry",
		   (unsigned long long)r.start, (unsigned long long)r.end);
	for (unsigned i = 0; i < nreserved; i++)
		FUZZ_CHECK(!fuzz_overlap(r.start, r.end, reserved[i].start, reserved[i].end),
			   "[%llx, %llx) overlaps reserved [%llx, %llx)",
			   (unsigned long long)r.start, (unsigned long long)r.end,
			   (unsigned long long)reserved[i].start,
			   (unsigned long long)reserved[i].end);
}

#endif /* TESTS_FUZZ_FUZZ_CHECK_H */
