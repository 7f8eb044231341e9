// SPDX-License-Identifier: MIT
/*
 * multiboot2.h - what the boot loader told us, decoded defensively.
 *
 * The tag list comes from outside the kernel, so the parser trusts nothing
 * in it: every size is checked against the total before a byte is read.
 * Pure code (no hardware access): tests/host/test_multiboot2.c feeds it
 * malformed lists.
 */
#ifndef KERNEL_MULTIBOOT2_H
#define KERNEL_MULTIBOOT2_H

#include "screen.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB2_BOOT_MAGIC 0x36d76289u
/* Far more than any loader produces; a bigger total_size is corruption. */
#define MB2_INFO_MAX (1u << 20)

/* Multiboot2 3.6.8 memory map entry types. */
#define MB2_MEM_AVAILABLE 1

struct mb2_mmap_entry {
	uint64_t base;
	uint64_t length;
	uint32_t type;
	uint32_t reserved;
};

struct boot_info {
	const char *cmdline;	  /* NUL-terminated, "" when absent */
	const uint8_t *mmap;	  /* first entry, NULL when absent */
	uint32_t mmap_entry_size; /* stride between entries */
	uint32_t mmap_count;
	const void *rsdp; /* copy of the RSDP in the tag, or NULL */
	uint32_t rsdp_len;
	bool rsdp_is_v2; /* from the "new" ACPI tag (type 15) */
	bool has_fb;
	struct screen_fb fb;
	const char *loader;    /* boot loader name, "" when absent */
	bool efi;	       /* EFI system table tag: booted by UEFI firmware */
	uint32_t tags_ignored; /* tag types we do not use */
};

/*
 * Decode the tag list at @info (whose first word is its total size), after
 * checking @magic.  Returns NULL on success, else a one-line description of
 * what is wrong; @out is then partly filled and must not be trusted.
 */
const char *mb2_parse(uint32_t magic, const void *info, struct boot_info *out);

/*
 * The screen to draw on: the framebuffer of @bi, if it ends within
 * @identity_limit (the boot's identity map) or @map makes it addressable;
 * NULL when @map fails (the run is then serial-only), or on UEFI without a
 * framebuffer; the VGA text buffer on a BIOS machine left in text mode.
 */
const struct screen_fb *mb2_screen(const struct boot_info *bi, uint64_t identity_limit,
				   bool (*map)(uint64_t phys, uint64_t len));

/* Entry @i of the memory map (i < mmap_count). */
static inline const struct mb2_mmap_entry *mb2_mmap_at(const struct boot_info *bi, uint32_t i)
{
	return (const struct mb2_mmap_entry *)(bi->mmap + (size_t)i * bi->mmap_entry_size);
}

#endif /* KERNEL_MULTIBOOT2_H */
