// SPDX-License-Identifier: MIT
/*
 * multiboot2.c - the Multiboot2 boot information parser (Multiboot2 spec 3.6).
 *
 * Layout: u32 total_size, u32 reserved, then tags, each u32 type, u32 size
 * (header included), padded to 8 bytes, ending with a tag of type 0 and
 * size 8.  We stop with an error on a size that is too small or runs past
 * the total, and on a list with no end tag.  Never walk off the end.
 */
#include "multiboot2.h"

#include "string.h"

#define MB2_TAG_ALIGN	    8
#define MB2_TAG_HEADER	    8
#define MB2_TAG_END	    0
#define MB2_TAG_CMDLINE	    1
#define MB2_TAG_LOADER_NAME 2
#define MB2_TAG_MMAP	    6
#define MB2_TAG_FRAMEBUFFER 8
#define MB2_TAG_ACPI_OLD    14
#define MB2_TAG_ACPI_NEW    15
#define MB2_TAG_EFI32	    11
#define MB2_TAG_EFI64	    12

/* Fixed part of the memory map tag (3.6.8): header, entry_size, entry_version. */
#define MB2_MMAP_HEADER 16
/* Framebuffer tag (3.6.12): common part; RGB field info follows at 32. */
#define MB2_FB_COMMON 31
#define MB2_FB_RGB    38
#define MB2_FB_RGB_AT 32
#define RSDP_V1_LEN   20

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A string tag must hold a NUL inside its own bytes. */
static const char *tag_string(const uint8_t *tag, uint32_t size)
{
	const char *s = (const char *)tag + MB2_TAG_HEADER;
	size_t room = size - MB2_TAG_HEADER;

	return strnlen(s, room) < room ? s : NULL;
}

static const char *parse_mmap(const uint8_t *tag, uint32_t size, struct boot_info *out)
{
	if (size < MB2_MMAP_HEADER)
		return "multiboot2: memory map tag shorter than its 16-byte header";
	uint32_t entry_size = rd32(tag + 8);
	if (entry_size < sizeof(struct mb2_mmap_entry) || entry_size % 8)
		return "multiboot2: memory map entry_size is not a multiple of 8 of at least 24";
	out->mmap = tag + MB2_MMAP_HEADER;
	out->mmap_entry_size = entry_size;
	out->mmap_count = (size - MB2_MMAP_HEADER) / entry_size;
	return NULL;
}

static const char *parse_framebuffer(const uint8_t *tag, uint32_t size, struct boot_info *out)
{
	struct screen_fb *fb = &out->fb;

	if (size < MB2_FB_COMMON)
		return "multiboot2: framebuffer tag shorter than its 31-byte common part";
	fb->addr = rd64(tag + 8);
	fb->pitch = rd32(tag + 16);
	fb->width = rd32(tag + 20);
	fb->height = rd32(tag + 24);
	fb->bpp = tag[28];
	fb->type = tag[29];
	if (fb->type == SCREEN_FB_RGB) {
		if (size < MB2_FB_RGB)
			return "multiboot2: RGB framebuffer tag lacks its colour field info";
		fb->red_pos = tag[MB2_FB_RGB_AT + 0];
		fb->red_size = tag[MB2_FB_RGB_AT + 1];
		fb->green_pos = tag[MB2_FB_RGB_AT + 2];
		fb->green_size = tag[MB2_FB_RGB_AT + 3];
		fb->blue_pos = tag[MB2_FB_RGB_AT + 4];
		fb->blue_size = tag[MB2_FB_RGB_AT + 5];
	}
	out->has_fb = true;
	return NULL;
}

const char *mb2_parse(uint32_t magic, const void *info, struct boot_info *out)
{
	const uint8_t *base = info;

	memset(out, 0, sizeof(*out));
	out->cmdline = "";
	out->loader = "";
	if (magic != MB2_BOOT_MAGIC)
		return "multiboot2: bad boot magic (expected 0x36d76289): not loaded by a "
		       "Multiboot2 loader";
	if (!info || ((uintptr_t)info % MB2_TAG_ALIGN))
		return "multiboot2: boot information pointer is null or not 8-byte aligned";
	uint32_t total = rd32(base);
	if (total < 2 * MB2_TAG_HEADER || total > MB2_INFO_MAX)
		return "multiboot2: boot information total_size out of range (16 .. 1 MiB)";

	for (uint32_t off = MB2_TAG_HEADER;;) {
		if (off + MB2_TAG_HEADER > total)
			return "multiboot2: tag list has no end tag before total_size";
		const uint8_t *tag = base + off;
		uint32_t type = rd32(tag), size = rd32(tag + 4);
		const char *err = NULL;

		if (size < MB2_TAG_HEADER)
			return "multiboot2: tag with size below 8 (a zero-size tag would loop)";
		if (size > total - off)
			return "multiboot2: tag runs past total_size";
		switch (type) {
		case MB2_TAG_END:
			return NULL;
		case MB2_TAG_CMDLINE:
			out->cmdline = tag_string(tag, size);
			if (!out->cmdline)
				err = "multiboot2: command line tag is not NUL-terminated";
			break;
		case MB2_TAG_LOADER_NAME:
			out->loader = tag_string(tag, size);
			if (!out->loader)
				err = "multiboot2: loader name tag is not NUL-terminated";
			break;
		case MB2_TAG_MMAP:
			err = parse_mmap(tag, size, out);
			break;
		case MB2_TAG_FRAMEBUFFER:
			err = parse_framebuffer(tag, size, out);
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			if (size < MB2_TAG_HEADER + RSDP_V1_LEN) {
				err = "multiboot2: ACPI tag too short for an RSDP";
				break;
			}
			/* Prefer the new (ACPI 2.0+) copy whichever order they come in. */
			if (type == MB2_TAG_ACPI_NEW || !out->rsdp_is_v2) {
				out->rsdp = tag + MB2_TAG_HEADER;
				out->rsdp_len = size - MB2_TAG_HEADER;
				out->rsdp_is_v2 = type == MB2_TAG_ACPI_NEW;
			}
			break;
		case MB2_TAG_EFI32:
		case MB2_TAG_EFI64:
			out->efi = true;
			break;
		default:
			out->tags_ignored++;
			break;
		}
		if (err)
			return err;
		off += (size + MB2_TAG_ALIGN - 1) & ~(uint32_t)(MB2_TAG_ALIGN - 1);
	}
}

/*
 * GRUB gives no framebuffer tag when it leaves a BIOS machine in text mode
 * (gfxpayload=text, or no VBE): the screen is then the standard VGA text
 * buffer.  UEFI has no text mode, so there this is never assumed.
 */
static const struct screen_fb vga_text_mode = {
    .addr = 0xb8000,
    .pitch = 160,
    .width = 80,
    .height = 25,
    .bpp = 16,
    .type = SCREEN_FB_EGA_TEXT,
};

const struct screen_fb *mb2_screen(const struct boot_info *bi, uint64_t identity_limit,
				   bool (*map)(uint64_t phys, uint64_t len))
{
	uint64_t len;

	if (!bi->has_fb)
		return bi->efi ? NULL : &vga_text_mode;
	len = (uint64_t)bi->fb.pitch * bi->fb.height;
	/* Not the VGA text buffer either: the machine shows the framebuffer, which is out of reach. */
	if (bi->fb.addr + len > identity_limit && !map(bi->fb.addr, len))
		return NULL;
	return &bi->fb;
}
