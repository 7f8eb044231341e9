// SPDX-License-Identifier: MIT
/*
 * test_multiboot2.c - kernel/multiboot2.c fed good and malformed tag lists.
 *
 * Each list is built in an exact-size heap buffer, so under ASan a parser
 * that reads one byte past total_size is caught, not just a wrong answer.
 */
#include "multiboot2.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct builder {
	uint8_t buf[4096];
	uint32_t len;
};

static void begin(struct builder *b)
{
	memset(b, 0, sizeof(*b));
	b->len = 8;
}

static void tag(struct builder *b, uint32_t type, uint32_t size, const void *body,
		uint32_t body_len)
{
	memcpy(b->buf + b->len, &type, 4);
	memcpy(b->buf + b->len + 4, &size, 4);
	if (body_len)
		memcpy(b->buf + b->len + 8, body, body_len);
	b->len += (8 + body_len + 7) & ~7u;
}

/* Copy into an exactly sized, 8-aligned allocation with total_size = @total. */
static uint8_t *finish(struct builder *b, uint32_t total)
{
	uint8_t *p = aligned_alloc(8, (b->len + 7) & ~7u);

	memcpy(b->buf, &total, 4);
	memcpy(p, b->buf, b->len);
	return p;
}

static void expect(const char *name, uint32_t magic, uint8_t *info, const char *want_substr,
		   struct boot_info *bi)
{
	const char *err = mb2_parse(magic, info, bi);

	if (want_substr)
		CHECK(err && strstr(err, want_substr),
		      "%s: wanted an error containing \"%s\", got \"%s\"", name, want_substr,
		      err ? err : "(none)");
	else
		CHECK(!err, "%s: unexpected error \"%s\"", name, err);
}

/* A check named by the case it belongs to. */
#define CHECK_NAMED(name, cond) CHECK(cond, "%s", name)

static unsigned map_calls;
static bool map_fails(uint64_t phys, uint64_t len)
{
	(void)phys, (void)len;
	map_calls++;
	return false;
}
static bool map_works(uint64_t phys, uint64_t len)
{
	(void)phys, (void)len;
	map_calls++;
	return true;
}

/*
 * mb2_screen: a framebuffer past the identity map whose mapping fails is no
 * screen (the boot once drew through the unmapped address and page-faulted).
 */
static void test_screen_choice(void)
{
	struct boot_info bi = {.has_fb = true};
	const uint64_t limit = 4ull << 30;

	bi.fb.addr = 0xfd000000, bi.fb.pitch = 4096, bi.fb.height = 768;
	CHECK_NAMED("fb below the limit, not mapped",
		    mb2_screen(&bi, limit, map_fails) == &bi.fb && map_calls == 0);
	bi.fb.addr = 0x800000000ull;
	CHECK_NAMED("fb above, mapped",
		    mb2_screen(&bi, limit, map_works) == &bi.fb && map_calls == 1);
	CHECK_NAMED("fb above, mapping fails: no screen",
		    mb2_screen(&bi, limit, map_fails) == NULL && map_calls == 2);
	bi.fb.addr = limit - 4096; /* straddles the limit */
	CHECK_NAMED("fb straddling, mapping fails: no screen",
		    mb2_screen(&bi, limit, map_fails) == NULL);
	bi.has_fb = false;
	const struct screen_fb *vga = mb2_screen(&bi, limit, map_fails);
	CHECK_NAMED("BIOS text mode",
		    vga && vga->type == SCREEN_FB_EGA_TEXT && vga->addr == 0xb8000);
	bi.efi = true;
	CHECK_NAMED("UEFI without a framebuffer", mb2_screen(&bi, limit, map_fails) == NULL);
}

int main(void)
{
	struct builder b;
	struct boot_info bi;
	uint8_t *info;

	/* A good list: cmdline, memory map, framebuffer, both ACPI tags. */
	begin(&b);
	tag(&b, 1, 8 + 10, "quick s=1", 10);
	struct mb2_mmap_entry mm[2] = {{0, 0x9f000, 1, 0}, {0x100000, 0x1f00000, 1, 0}};
	uint8_t mmap_body[8 + sizeof(mm)];
	uint32_t esize = sizeof(mm[0]), ever = 0;
	memcpy(mmap_body, &esize, 4);
	memcpy(mmap_body + 4, &ever, 4);
	memcpy(mmap_body + 8, mm, sizeof(mm));
	tag(&b, 6, 8 + sizeof(mmap_body), mmap_body, sizeof(mmap_body));
	uint8_t fb[30] = {0};
	uint64_t fbaddr = 0xfd000000;
	uint32_t pitch = 4096, w = 1024, h = 768;
	memcpy(fb, &fbaddr, 8);
	memcpy(fb + 8, &pitch, 4);
	memcpy(fb + 12, &w, 4);
	memcpy(fb + 16, &h, 4);
	fb[20] = 32;
	fb[21] = 1;
	fb[24] = 16, fb[25] = 8, fb[26] = 8, fb[27] = 8, fb[28] = 0, fb[29] = 8;
	tag(&b, 8, 8 + sizeof(fb), fb, sizeof(fb));
	uint8_t rsdp1[20] = "RSD PTR ", rsdp2[36] = "RSD PTR ";
	tag(&b, 15, 8 + sizeof(rsdp2), rsdp2, sizeof(rsdp2));
	tag(&b, 14, 8 + sizeof(rsdp1), rsdp1, sizeof(rsdp1));
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, b.len);
	expect("good list", MB2_BOOT_MAGIC, info, NULL, &bi);
	CHECK_NAMED("cmdline", strcmp(bi.cmdline, "quick s=1") == 0);
	CHECK_NAMED("mmap count", bi.mmap_count == 2 && mb2_mmap_at(&bi, 1)->base == 0x100000);
	CHECK_NAMED("framebuffer", bi.has_fb && bi.fb.addr == fbaddr && bi.fb.width == 1024 &&
				       bi.fb.bpp == 32 && bi.fb.red_pos == 16 &&
				       bi.fb.blue_size == 8);
	CHECK_NAMED("acpi new preferred", bi.rsdp_is_v2 && bi.rsdp_len == 36);
	free(info);

	/* An empty but valid list: no tags at all is not an error (callers warn). */
	begin(&b);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, b.len);
	expect("only end tag", MB2_BOOT_MAGIC, info, NULL, &bi);
	CHECK_NAMED("defaults", bi.cmdline[0] == 0 && !bi.mmap && !bi.rsdp && !bi.has_fb);
	expect("bad magic", 0x2badb002, info, "magic", &bi);
	free(info);

	/* No end tag: the list just stops at total_size. */
	begin(&b);
	tag(&b, 1, 8 + 4, "abc", 4);
	info = finish(&b, b.len);
	expect("missing end tag", MB2_BOOT_MAGIC, info, "no end tag", &bi);
	free(info);

	/* A zero-size tag would make a naive parser loop forever. */
	begin(&b);
	tag(&b, 1, 0, "abcdefgh", 8);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, b.len);
	expect("zero-size tag", MB2_BOOT_MAGIC, info, "size below 8", &bi);
	free(info);

	/* A tag claiming more bytes than the list holds. */
	begin(&b);
	tag(&b, 1, 4000, "abc", 4);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, b.len);
	expect("tag past total", MB2_BOOT_MAGIC, info, "past total_size", &bi);
	free(info);

	/* total_size smaller than the tags actually present: the first tag crosses it. */
	begin(&b);
	tag(&b, 1, 8 + 4, "abc", 4);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, 16);
	expect("total too small", MB2_BOOT_MAGIC, info, "past total_size", &bi);
	free(info);

	/* total_size ends exactly after a whole tag: the end tag is missing. */
	begin(&b);
	tag(&b, 1, 8 + 8, "abcdefg", 8);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, 24);
	expect("total cuts end tag", MB2_BOOT_MAGIC, info, "no end tag", &bi);
	free(info);

	/* Absurd total_size. */
	begin(&b);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, 0x7fffffff);
	expect("huge total", MB2_BOOT_MAGIC, info, "total_size out of range", &bi);
	free(info);

	/* Command line without its NUL. */
	begin(&b);
	tag(&b, 1, 8 + 8, "abcdefgh", 8);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, b.len);
	expect("unterminated cmdline", MB2_BOOT_MAGIC, info, "NUL", &bi);
	free(info);

	/* Memory map with an impossible entry size. */
	begin(&b);
	uint32_t bad_esize[2] = {3, 0};
	tag(&b, 6, 16, bad_esize, 8);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, b.len);
	expect("bad mmap entry size", MB2_BOOT_MAGIC, info, "entry_size", &bi);
	free(info);

	/* A memory map tag with zero entries is legal: the count is 0. */
	begin(&b);
	uint32_t empty_mmap[2] = {24, 0};
	tag(&b, 6, 16, empty_mmap, 8);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, b.len);
	expect("empty mmap", MB2_BOOT_MAGIC, info, NULL, &bi);
	CHECK_NAMED("empty mmap count", bi.mmap && bi.mmap_count == 0);
	free(info);

	/* A truncated RGB framebuffer tag. */
	begin(&b);
	tag(&b, 8, 8 + 24, fb, 24);
	tag(&b, 0, 8, NULL, 0);
	info = finish(&b, b.len);
	expect("short framebuffer", MB2_BOOT_MAGIC, info, "framebuffer", &bi);
	free(info);

	test_screen_choice();
	return check_exit("test_multiboot2");
}
