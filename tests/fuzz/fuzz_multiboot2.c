// SPDX-License-Identifier: MIT
/*
 * fuzz_multiboot2.c - libFuzzer harness for kernel/multiboot2.c, and the
 * boot path from it to the heap range (kernel/memmap.c).
 *
 * The input is the boot information list itself, copied into an exact-size
 * 8-aligned allocation; its total_size word is clamped to the input's
 * length (a loader never hands over a list larger than its memory), so a
 * read past total_size is an ASan error.  After a successful parse every
 * pointer must lie inside the list, strings must end inside it, and the
 * heap range chosen from its memory map must keep memmap.h's contract.
 */
#include "fuzz_check.h"
#include "memmap.h"
#include "multiboot2.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Is [p, p + len) inside [base, base + size)? */
static int within(const void *p, size_t len, const uint8_t *base, size_t size)
{
	const uint8_t *q = p;

	return q >= base && q <= base + size && len <= (size_t)(base + size - q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct boot_info bi;
	uint8_t *info;
	uint32_t total;
	const char *err;

	if (size < sizeof(total) || size > MB2_INFO_MAX)
		return 0;
	/* aligned_alloc wants a multiple of the alignment: round up, then the tail is never read. */
	info = aligned_alloc(8, (size + 7) & ~(size_t)7);
	memcpy(info, data, size);
	memcpy(&total, info, sizeof(total));
	if (total > size) {
		total = (uint32_t)size;
		memcpy(info, &total, sizeof(total));
	}
	err = mb2_parse(MB2_BOOT_MAGIC, info, &bi);
	if (err) {
		FUZZ_CHECK(strncmp(err, "multiboot2: ", 12) == 0, "error '%s' does not say where",
			   err);
		free(info);
		return 0;
	}
	FUZZ_CHECK(bi.cmdline && bi.loader, "strings must default to \"\"");
	if (*bi.cmdline)
		FUZZ_CHECK(within(bi.cmdline, strlen(bi.cmdline) + 1, info, total),
			   "cmdline outside the list");
	if (*bi.loader)
		FUZZ_CHECK(within(bi.loader, strlen(bi.loader) + 1, info, total),
			   "loader name outside the list");
	if (bi.mmap) {
		FUZZ_CHECK(bi.mmap_entry_size >= sizeof(struct mb2_mmap_entry), "entry size %u",
			   bi.mmap_entry_size);
		FUZZ_CHECK(within(bi.mmap, (size_t)bi.mmap_count * bi.mmap_entry_size, info, total),
			   "memory map (%u x %u) outside the list", bi.mmap_count,
			   bi.mmap_entry_size);
	}
	if (bi.rsdp)
		FUZZ_CHECK(within(bi.rsdp, bi.rsdp_len, info, total), "RSDP outside the list");

	/* The heap's choice as heap_init makes it: kernel at 1-3 MiB, the list itself reserved. */
	const struct mem_range reserved[2] = {{1u << 20, 3u << 20},
					      {(uintptr_t)info, (uintptr_t)info + total}};
	struct mem_range r = memmap_heap_range(&bi, reserved[0], reserved[1]);

	fuzz_check_range(&bi, r, HEAP_FLOOR, HEAP_CEILING, reserved, 2);
	free(info);
	return 0;
}
