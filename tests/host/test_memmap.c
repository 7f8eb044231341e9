/*
 * test_memmap.c - kernel/memmap.c on crafted Multiboot2 memory maps.
 *
 * Maps as firmware really sends them, and as it should not: missing,
 * empty, zero-length entries, entries that wrap around 2^64, reserved
 * types, and the kernel image sitting in the middle of the best region.
 */
#include "memmap.h"

#include <stdio.h>
#include <string.h>

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static int failures;

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
	if (got.start != start || got.end != end) {
		printf("not ok %s: got [%llx, %llx), want [%llx, %llx)\n", name,
		       (unsigned long long)got.start, (unsigned long long)got.end,
		       (unsigned long long)start, (unsigned long long)end);
		failures++;
	} else {
		printf("ok %s\n", name);
	}
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

	printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
	return failures != 0;
}
