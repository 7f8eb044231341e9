// SPDX-License-Identifier: MIT
/*
 * test_memmap.c - kernel/memmap.c on crafted Multiboot2 memory maps.
 *
 * Maps as firmware really sends them, and as it should not: missing,
 * empty, zero-length entries, entries that wrap around 2^64, reserved
 * types, and the kernel image sitting in the middle of the best region.
 * Last, the same through the boot path: a memory-map tag in a Multiboot2
 * information list, decoded by mb2_parse, then memmap_heap_range.
 */
#include "memmap.h"

#include "check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static struct boot_info map_of(const struct mb2_mmap_entry *e, uint32_t n)
{
	struct boot_info bi;

	memset(&bi, 0, sizeof(bi));
	bi.mmap = (const uint8_t *)e;
	bi.mmap_entry_size = sizeof(*e);
	bi.mmap_count = n;
	return bi;
}

static void expect(const char *name, struct mem_range got, uint64_t start, uint64_t end)
{
	CHECK(got.start == start && got.end == end, "%s: got [%llx, %llx), want [%llx, %llx)", name,
	      (unsigned long long)got.start, (unsigned long long)got.end, (unsigned long long)start,
	      (unsigned long long)end);
}

/* An 8-aligned Multiboot2 information list: a memory-map tag with @n entries, then the end tag. */
static uint8_t *mb2_info_with_map(const struct mb2_mmap_entry *e, uint32_t n)
{
	uint32_t map_size = 16 + n * (uint32_t)sizeof(*e);
	uint32_t total = 8 + ((map_size + 7) & ~7u) + 8;
	uint32_t words[] = {total, 0, 6, map_size, sizeof(*e), 0};
	uint8_t *p = aligned_alloc(8, total);

	memset(p, 0, total);
	memcpy(p, words, sizeof(words));
	memcpy(p + sizeof(words), e, n * sizeof(*e));
	/* The end tag (type 0, size 8) is the zeroed type plus this size. */
	p[total - 4] = 8;
	return p;
}

/*
 * The boot path on a crafted list: mb2_parse, then the heap's own choice
 * (memmap_heap_range) with the kernel image at 1-3 MiB and the list itself
 * reserved.  The entry near 2^64 must not move the heap to 0.
 */
static void boot_path(void)
{
	const struct mb2_mmap_entry map[] = {
	    {0, 0x9fc00, 1, 0},
	    {0xffffffffffffff00ull, 0x17, 1, 0},
	    {MiB, 127 * MiB, 1, 0},
	    {0xfffc0000, 0x40000, 2, 0},
	};
	const struct mem_range kernel = {1 * MiB, 3 * MiB}, info = {96 * MiB, 96 * MiB + 4096};
	struct boot_info bi;
	uint8_t *list = mb2_info_with_map(map, 4);
	const char *err = mb2_parse(MB2_BOOT_MAGIC, list, &bi);

	bool parsed = !err && bi.mmap_count == 4;

	CHECK(parsed, "boot path: mb2_parse: %s, %u entries", err ? err : "no error",
	      bi.mmap_count);
	if (parsed) {
		expect("boot path: heap below the boot info, not at 0",
		       memmap_heap_range(&bi, kernel, info), 3 * MiB, 96 * MiB);
	}
	free(list);

	const struct mb2_mmap_entry only_bogus[] = {{0xffffffffffffff00ull, 0x17, 1, 0}};
	list = mb2_info_with_map(only_bogus, 1);
	err = mb2_parse(MB2_BOOT_MAGIC, list, &bi);
	CHECK(!err, "boot path, bogus entry only: mb2_parse: %s", err);
	if (!err) {
		expect("boot path: only a bogus entry gives no range (the built-in pool)",
		       memmap_heap_range(&bi, kernel, info), 0, 0);
	}
	free(list);
}

/*
 * The APs' start-up page: below 1 MiB, never page 0, inside an available
 * entry, clear of the boot information; none at all is {0, 0}, which
 * smp.c turns into a panic before any AP starts.
 */
static void low_page(void)
{
	const struct mem_range no_info = {0, 0};
	struct boot_info bi;

	const struct mb2_mmap_entry qemu[] = {
	    {0, 0x9fc00, 1, 0},
	    {0xf0000, 0x10000, 2, 0},
	    {MiB, 511 * MiB, 1, 0},
	};
	bi = map_of(qemu, 3);
	expect("low page, QEMU's map: page 1", memmap_low_page(&bi, no_info), 0x1000, 0x2000);
	expect("low page, boot information at 0x1000..0x3800: after it",
	       memmap_low_page(&bi, (struct mem_range){0x1000, 0x3800}), 0x4000, 0x5000);

	const struct mb2_mmap_entry only_page0[] = {
	    {0, 0x1000, 1, 0},
	    {0x1000, 0x9f000, 2, 0},
	    {MiB, 511 * MiB, 1, 0},
	};
	bi = map_of(only_page0, 3);
	expect("low page, only page 0 usable: none", memmap_low_page(&bi, no_info), 0, 0);

	const struct mb2_mmap_entry island[] = {
	    {0, 0x800, 1, 0},
	    {0x58000, 0x1800, 1, 0}, /* one whole page after rounding: 0x59000 is not whole */
	    {0x60400, 0x1000, 1, 0}, /* no whole page inside */
	    {0xfff00, 0x2000, 1, 0}, /* crosses 1 MiB: only below counts, no whole page */
	};
	bi = map_of(island, 4);
	expect("low page, one whole page at 0x58000", memmap_low_page(&bi, no_info), 0x58000,
	       0x59000);

	const struct mb2_mmap_entry high_only[] = {{MiB, 511 * MiB, 1, 0}};
	bi = map_of(high_only, 1);
	expect("low page, nothing below 1 MiB: none", memmap_low_page(&bi, no_info), 0, 0);
	memset(&bi, 0, sizeof(bi));
	expect("low page, no map: none", memmap_low_page(&bi, no_info), 0, 0);
}

int main(void)
{
	const struct mem_range kernel[] = {{1 * MiB, 3 * MiB}};
	struct boot_info bi;

	memset(&bi, 0, sizeof(bi));
	expect("no map at all", memmap_largest_free(&bi, MiB, 4 * GiB, NULL, 0), 0, 0);

	const struct mb2_mmap_entry qemu[] = {
	    {0, 0x9fc00, 1, 0},
	    {0xf0000, 0x10000, 2, 0},
	    {MiB, 511 * MiB, 1, 0},
	    {0xfffc0000, 0x40000, 2, 0},
	};
	bi = map_of(qemu, 4);
	expect("typical map, kernel at 1 MiB", memmap_largest_free(&bi, MiB, 4 * GiB, kernel, 1),
	       3 * MiB, 512 * MiB);

	bi = map_of(qemu, 0);
	expect("map with zero entries", memmap_largest_free(&bi, MiB, 4 * GiB, NULL, 0), 0, 0);

	const struct mb2_mmap_entry zero_len[] = {
	    {MiB, 0, 1, 0},
	    {64 * MiB, 8 * MiB, 1, 0},
	};
	bi = map_of(zero_len, 2);
	expect("zero-length entry skipped", memmap_largest_free(&bi, MiB, 4 * GiB, NULL, 0),
	       64 * MiB, 72 * MiB);

	const struct mb2_mmap_entry wrapping[] = {
	    {0xfffffffffffff000ull, 0x2000, 1, 0},
	    {16 * MiB, MiB, 1, 0},
	};
	bi = map_of(wrapping, 2);
	expect("entry wrapping past 2^64 skipped", memmap_largest_free(&bi, MiB, 4 * GiB, NULL, 0),
	       16 * MiB, 17 * MiB);

	const struct mb2_mmap_entry high[] = {
	    {MiB, 100 * MiB, 1, 0},
	    {4 * GiB, 60 * GiB, 1, 0},
	};
	bi = map_of(high, 2);
	expect("memory above the ceiling ignored", memmap_largest_free(&bi, MiB, 4 * GiB, NULL, 0),
	       MiB, 101 * MiB);

	const struct mb2_mmap_entry unaligned[] = {{MiB + 123, 10 * MiB, 1, 0}};
	bi = map_of(unaligned, 1);
	expect("page-aligned inward", memmap_largest_free(&bi, MiB, 4 * GiB, NULL, 0), MiB + 4096,
	       11 * MiB);

	/* The reserved range splits the region: the larger side wins. */
	const struct mem_range middle[] = {{10 * MiB, 12 * MiB}, {13 * MiB, 14 * MiB}};
	const struct mb2_mmap_entry one[] = {{MiB, 99 * MiB, 1, 0}};
	bi = map_of(one, 1);
	expect("two cuts keep the largest side", memmap_largest_free(&bi, MiB, 4 * GiB, middle, 2),
	       14 * MiB, 100 * MiB);

	const struct mb2_mmap_entry reserved_only[] = {{MiB, 99 * MiB, 2, 0}};
	bi = map_of(reserved_only, 1);
	expect("only reserved memory", memmap_largest_free(&bi, MiB, 4 * GiB, NULL, 0), 0, 0);

	/*
	 * Regression (found by fuzzing): an entry just below 2^64 passes the
	 * wrap check; clamped to the ceiling it is empty, and rounding its start
	 * up to a page used to carry to 0, giving [0, ceiling): the heap over
	 * the kernel.
	 */
	const struct mb2_mmap_entry near_top[] = {{0xffffffffffffff00ull, 0x17, 1, 0}};
	bi = map_of(near_top, 1);
	expect("entry just below 2^64 gives nothing",
	       memmap_largest_free(&bi, MiB, 4 * GiB, kernel, 1), 0, 0);
	expect("same with no reserved range", memmap_largest_free(&bi, MiB, 4 * GiB, NULL, 0), 0,
	       0);

	const struct mb2_mmap_entry near_top_and_ram[] = {
	    {0xffffffffffffff00ull, 0x17, 1, 0},
	    {MiB, 63 * MiB, 1, 0},
	};
	bi = map_of(near_top_and_ram, 2);
	expect("entry below 2^64 beside real RAM",
	       memmap_largest_free(&bi, MiB, 4 * GiB, kernel, 1), 3 * MiB, 64 * MiB);

	/* With no ceiling to clamp to, rounding a start near 2^64 must not wrap either. */
	const struct mb2_mmap_entry top_page[] = {{0xfffffffffffff001ull, 0xffe, 1, 0}};
	bi = map_of(top_page, 1);
	expect("no whole page below 2^64", memmap_largest_free(&bi, 0, UINT64_MAX, NULL, 0), 0, 0);

	/* Below the floor entirely: clamping makes start > end; nothing, not [floor, ...). */
	const struct mb2_mmap_entry low_only[] = {{0x1000, 0x9e000, 1, 0}};
	bi = map_of(low_only, 1);
	expect("entry wholly below the floor", memmap_largest_free(&bi, MiB, 4 * GiB, kernel, 1), 0,
	       0);

	/* Less than a page after the cut: rounding must not produce start > end. */
	const struct mb2_mmap_entry sliver[] = {{3 * MiB - 0x800, 0x1000, 1, 0}};
	bi = map_of(sliver, 1);
	expect("sliver beside the kernel", memmap_largest_free(&bi, MiB, 4 * GiB, kernel, 1), 0, 0);

	boot_path();

	low_page();
	return check_exit("test_memmap");
}
