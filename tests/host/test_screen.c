// SPDX-License-Identifier: MIT
/*
 * test_screen.c - the screen console drawn into ordinary memory and read back.
 *
 * screen.c only ever stores to the memory its screen_fb names, so here that
 * memory is a heap buffer with a guard zone behind it.  Each check writes
 * text, then decodes every cell back into a character (by matching the
 * glyph bitmaps, or reading EGA cells) and an ink colour, for each pixel
 * format GRUB may hand over and for EGA text.
 *
 *   test_screen               run the checks; exit status 1 on any failure
 *   test_screen --png FILE [SCALE]
 *                             render the font and a sample boot log into a
 *                             PNG, to look at (nearest-neighbour SCALE, 1)
 *   test_screen --bench       time drawing and scrolling on 1920x1080x32
 *
 * test_no_reads() also proves that scrolling never reads the framebuffer
 * (on real hardware such reads are uncached bus cycles): the memory is
 * mapped with no access at all, and every access traps; the trap handler
 * sorts reads from writes by the page-fault error code, lets the one
 * instruction through (single step) and closes the memory again.
 */
#define _GNU_SOURCE /* REG_ERR, REG_EFL in <ucontext.h> */
#include "check.h"
#include "screen.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define GUARD_BYTES 256
#define CANARY	    0xa5
/* What cell_read() reports for the box glyph (or the EGA box character). */
#define BOX 0x7f
/* What cell_read() reports for a cell that is no glyph at all. */
#define GARBAGE 0x80
#define EGA_BOX 0xfe

/* A pixel format and its three colours as screen.c must encode them. */
struct format {
	const char *name;
	uint8_t bpp, red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
	uint32_t grey, green, red;
};

static const struct format formats[] = {
    {"xrgb8888", 32, 16, 8, 8, 8, 0, 8, 0xc0c0c0, 0x55ff55, 0xff5555},
    {"xbgr8888", 32, 0, 8, 8, 8, 16, 8, 0xc0c0c0, 0x55ff55, 0x5555ff},
    {"rgb101010", 32, 20, 10, 10, 10, 0, 10, 0x300c0300, 0x154ff154, 0x3fc55154},
    {"rgb888", 24, 16, 8, 8, 8, 0, 8, 0xc0c0c0, 0x55ff55, 0xff5555},
    {"rgb565", 16, 11, 5, 5, 6, 0, 5, 0xc618, 0x57ea, 0xfaaa},
    {"rgb555", 15, 10, 5, 5, 5, 0, 5, 0x6318, 0x2bea, 0x7d4a},
};
#define XRGB (&formats[0])

/* The memory under test and the geometry screen.h promises for it. */
struct scr {
	struct screen_fb fb;
	uint8_t *mem; /* pitch * height bytes, then GUARD_BYTES of CANARY */
	size_t size;
	unsigned bytes_pp; /* 0 for EGA text */
	unsigned cols, rows, x0, y0;
};

static struct scr *scr_alloc(struct screen_fb fb)
{
	struct scr *s = calloc(1, sizeof(*s));

	if (s) {
		s->size = (size_t)fb.pitch * fb.height;
		s->mem = malloc(s->size + GUARD_BYTES);
	}
	if (!s || !s->mem) {
		perror("test_screen: malloc");
		exit(2);
	}
	memset(s->mem, CANARY, s->size + GUARD_BYTES);
	fb.addr = (uintptr_t)s->mem;
	s->fb = fb;
	return s;
}

/* The offset of the first of @n bytes at @p that is not @v, or @n. */
static size_t first_not(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i = 0;

	while (i < n && p[i] == v)
		i++;
	return i;
}

static void scr_free(struct scr *s)
{
	size_t i = first_not(s->mem + s->size, GUARD_BYTES, CANARY);

	CHECK(i == GUARD_BYTES, "store past the end of screen memory, at +%zu", i);
	free(s->mem);
	free(s);
}

/* The description of a @width x @height framebuffer in pixel format @f, rows @pitch bytes apart. */
static struct screen_fb fb_desc(const struct format *f, unsigned width, unsigned height,
				unsigned pitch)
{
	return (struct screen_fb){
	    .pitch = pitch,
	    .width = width,
	    .height = height,
	    .bpp = f->bpp,
	    .type = SCREEN_FB_RGB,
	    .red_pos = f->red_pos,
	    .red_size = f->red_size,
	    .green_pos = f->green_pos,
	    .green_size = f->green_size,
	    .blue_pos = f->blue_pos,
	    .blue_size = f->blue_size,
	};
}

/* A @width x @height framebuffer in @f with @pad bytes after each row; set up. */
static struct scr *open_fb(const struct format *f, unsigned width, unsigned height, unsigned pad)
{
	unsigned bytes_pp = (f->bpp + 7) / 8;
	struct screen_fb fb = fb_desc(f, width, height, width * bytes_pp + pad);
	struct scr *s = scr_alloc(fb);
	const char *why = NULL;

	s->bytes_pp = bytes_pp;
	s->cols = width / FONT_WIDTH;
	s->rows = height / FONT_HEIGHT;
	s->x0 = (width - s->cols * FONT_WIDTH) / 2;
	s->y0 = (height - s->rows * FONT_HEIGHT) / 2;
	CHECK(screen_init(&s->fb, &why), "%s %ux%u: init refused: %s", f->name, width, height,
	      why ? why : "(no reason)");
	size_t dirty = first_not(s->mem, s->size, 0);

	CHECK(dirty == s->size, "%s: byte %zu not cleared by screen_init", f->name, dirty);
	return s;
}

/* An EGA text buffer of @cols x @rows cells, @pad bytes after each row; set up. */
static struct scr *open_ega(unsigned cols, unsigned rows, unsigned pad)
{
	struct screen_fb fb = {
	    .pitch = cols * 2 + pad,
	    .width = cols,
	    .height = rows,
	    .bpp = 16,
	    .type = SCREEN_FB_EGA_TEXT,
	};
	struct scr *s = scr_alloc(fb);
	const char *why = NULL;

	s->cols = cols;
	s->rows = rows;
	CHECK(screen_init(&s->fb, &why), "EGA %ux%u: init refused: %s", cols, rows,
	      why ? why : "(no reason)");
	return s;
}

static uint32_t pixel(const struct scr *s, unsigned x, unsigned y)
{
	const uint8_t *p = s->mem + (size_t)y * s->fb.pitch + (size_t)x * s->bytes_pp;
	uint32_t v = 0;

	for (unsigned i = 0; i < s->bytes_pp; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

/*
 * The character in cell (@row, @col): its glyph looked up in the font (BOX
 * for the box, GARBAGE when none matches or the ink is not one colour).  The
 * ink goes to *@ink: a pixel value (0 for a blank cell) or the EGA attribute.
 */
static int cell_read(const struct scr *s, unsigned row, unsigned col, uint32_t *ink)
{
	if (!s->bytes_pp) {
		const uint8_t *cell = s->mem + (size_t)row * s->fb.pitch + (size_t)col * 2;

		*ink = cell[1];
		return cell[0] == EGA_BOX ? BOX : cell[0];
	}
	uint8_t bits[FONT_HEIGHT] = {0};

	*ink = 0;
	for (unsigned y = 0; y < FONT_HEIGHT; y++)
		for (unsigned x = 0; x < FONT_WIDTH; x++) {
			uint32_t v =
			    pixel(s, s->x0 + col * FONT_WIDTH + x, s->y0 + row * FONT_HEIGHT + y);
			if (!v)
				continue;
			if (*ink && v != *ink)
				return GARBAGE;
			*ink = v;
			bits[y] |= 0x80 >> x;
		}
	for (int g = 0; g < FONT_GLYPHS; g++)
		if (!memcmp(bits, font8x16[g], FONT_HEIGHT))
			return g == FONT_BOX ? BOX : FONT_FIRST + g;
	return GARBAGE;
}

/* Text of row @row, trailing blanks dropped, into @out (cols + 1 bytes). */
static const char *row_text(const struct scr *s, unsigned row, char *out)
{
	uint32_t ink;
	unsigned n = 0;

	for (unsigned c = 0; c < s->cols; c++)
		out[n++] = (char)cell_read(s, row, c, &ink);
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = 0;
	return out;
}

/* Ink of every non-blank cell of row @row if they all agree, else 0xffffffff. */
static uint32_t row_ink(const struct scr *s, unsigned row)
{
	uint32_t common = 0, ink;

	for (unsigned c = 0; c < s->cols; c++) {
		if (cell_read(s, row, c, &ink) == ' ')
			continue;
		if (common && ink != common)
			return 0xffffffff;
		common = ink;
	}
	return common;
}

#define ROW_IS(s, row, want)                                                                       \
	do {                                                                                       \
		char got_[512];                                                                    \
		row_text(s, row, got_);                                                            \
		CHECK(!strcmp(got_, want), "row %u is \"%s\", want \"%s\"", (unsigned)(row), got_, \
		      want);                                                                       \
	} while (0)

static void put(const char *text)
{
	screen_write(text, strlen(text));
}

/* The font itself: blank space, inked glyphs, no two alike, spacing column clear. */
static void test_font(void)
{
	for (int g = 0; g < FONT_GLYPHS; g++) {
		unsigned ink = 0, spacing = 0;

		for (int y = 0; y < FONT_HEIGHT; y++) {
			ink += font8x16[g][y] != 0;
			spacing |= font8x16[g][y] & 1;
		}
		if (g == ' ' - FONT_FIRST)
			CHECK(!ink, "the space glyph has ink");
		else
			CHECK(ink, "glyph %d is blank", g);
		CHECK(!spacing, "glyph %d inks column 7, which keeps glyphs apart", g);
		for (int h = 0; h < g; h++)
			CHECK(memcmp(font8x16[g], font8x16[h], FONT_HEIGHT),
			      "glyphs %d and %d are the same", h, g);
	}
}

/* Bad tags are refused with a reason and leave the memory alone. */
static void test_reject(void)
{
	static const struct {
		const char *what;
		struct screen_fb fb;
		unsigned addr; /* index in where[] below */
	} bad[] = {
	    {"indexed", {.pitch = 640, .width = 640, .height = 480, .bpp = 8, .type = 0}, 0},
	    {"type 3", {.pitch = 2560, .width = 640, .height = 480, .bpp = 32, .type = 3}, 0},
	    {"8 bpp RGB",
	     {.pitch = 640, .width = 640, .height = 480, .bpp = 8, .type = 1, 5, 3, 2, 3, 0, 2},
	     0},
	    {"12 bpp",
	     {.pitch = 1280, .width = 640, .height = 480, .bpp = 12, .type = 1, 8, 4, 4, 4, 0, 4},
	     0},
	    {"empty red",
	     {.pitch = 2560, .width = 640, .height = 480, .bpp = 32, .type = 1, 16, 0, 8, 8, 0, 8},
	     0},
	    {"17-bit red",
	     {.pitch = 2560,
	      .width = 640,
	      .height = 480,
	      .bpp = 32,
	      .type = 1,
	      0,
	      17,
	      17,
	      8,
	      25,
	      7},
	     0},
	    {"green outside",
	     {.pitch = 2560, .width = 640, .height = 480, .bpp = 32, .type = 1, 16, 8, 28, 8, 0, 8},
	     0},
	    {"overlap",
	     {.pitch = 2560, .width = 640, .height = 480, .bpp = 32, .type = 1, 8, 8, 8, 8, 0, 8},
	     0},
	    {"short pitch",
	     {.pitch = 2556, .width = 640, .height = 480, .bpp = 32, .type = 1, 16, 8, 8, 8, 0, 8},
	     0},
	    {"odd pitch",
	     {.pitch = 2562, .width = 640, .height = 480, .bpp = 32, .type = 1, 16, 8, 8, 8, 0, 8},
	     0},
	    {"39 columns",
	     {.pitch = 2560, .width = 319, .height = 480, .bpp = 32, .type = 1, 16, 8, 8, 8, 0, 8},
	     0},
	    {"9 rows",
	     {.pitch = 2560, .width = 640, .height = 159, .bpp = 32, .type = 1, 16, 8, 8, 8, 0, 8},
	     0},
	    {"address zero",
	     {.pitch = 2560, .width = 640, .height = 480, .bpp = 32, .type = 1, 16, 8, 8, 8, 0, 8},
	     1},
	    {"misaligned",
	     {.pitch = 2560, .width = 640, .height = 480, .bpp = 32, .type = 1, 16, 8, 8, 8, 0, 8},
	     2},
	    {"past the end",
	     {.pitch = 2560, .width = 640, .height = 480, .bpp = 32, .type = 1, 16, 8, 8, 8, 0, 8},
	     3},
	    {"EGA 8 bpp", {.pitch = 160, .width = 80, .height = 25, .bpp = 8, .type = 2}, 0},
	    {"EGA short pitch", {.pitch = 158, .width = 80, .height = 25, .bpp = 16, .type = 2}, 0},
	    {"EGA 39 columns", {.pitch = 160, .width = 39, .height = 25, .bpp = 16, .type = 2}, 0},
	    {"EGA 9 rows", {.pitch = 160, .width = 80, .height = 9, .bpp = 16, .type = 2}, 0},
	    {"EGA odd address", {.pitch = 160, .width = 80, .height = 25, .bpp = 16, .type = 2}, 4},
	};
	const char *why = "unset";

	CHECK(!screen_init(NULL, &why), "NULL accepted");
	CHECK(why && strcmp(why, "unset"), "NULL refused without a reason");

	/* A working console first: a refused init must switch it off. */
	struct scr *live = open_fb(XRGB, 640, 480, 0);
	struct screen_fb probe = {.pitch = 2560, .width = 640, .height = 480};
	struct scr *s = scr_alloc(probe);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct screen_fb fb = bad[i].fb;
		uint64_t where[] = {(uintptr_t)s->mem, 0, (uintptr_t)s->mem + 2, UINT64_MAX - 4096,
				    (uintptr_t)s->mem + 1};

		fb.addr = where[bad[i].addr];
		why = NULL;
		CHECK(!screen_init(&fb, &why), "%s: accepted", bad[i].what);
		CHECK(why && *why, "%s: refused without a reason", bad[i].what);
	}
	put("after a refused init, nothing is drawn");
	size_t written = first_not(s->mem, s->size, CANARY);

	CHECK(written == s->size, "a refused init wrote to its memory at %zu", written);
	CHECK(first_not(live->mem, live->size, 0) == live->size,
	      "screen_write after a refused init drew on the old console");
	scr_free(s);
	scr_free(live);

	/* The smallest screens allowed, in pixels and in text. */
	scr_free(open_fb(XRGB, SCREEN_MIN_COLS * FONT_WIDTH, SCREEN_MIN_ROWS * FONT_HEIGHT, 0));
	scr_free(open_ega(SCREEN_MIN_COLS, SCREEN_MIN_ROWS, 0));
}

/* One pixel format: exact pixels, every glyph, colours, scrolling. */
static void test_format(const struct format *f)
{
	char want[128];
	uint32_t ink;
	/* 50 x 12 cells, with 5 and 3 pixels left over and padding after each row. */
	struct scr *s = open_fb(f, 50 * FONT_WIDTH + 5, 12 * FONT_HEIGHT + 3, 12);

	CHECK(s->cols == 50 && s->rows == 12 && s->x0 == 2 && s->y0 == 1, "%s: geometry", f->name);

	/* 'A' in cell (0, 0): every pixel of the cell, and the margin around it. */
	put("A");
	for (unsigned y = 0; y < FONT_HEIGHT; y++)
		for (unsigned x = 0; x < FONT_WIDTH; x++) {
			uint32_t v = pixel(s, s->x0 + x, s->y0 + y);
			uint32_t want_v = font8x16['A' - FONT_FIRST][y] & (0x80 >> x) ? f->grey : 0;
			CHECK(v == want_v, "%s: 'A' pixel (%u, %u) is %#x, want %#x", f->name, x, y,
			      v, want_v);
		}
	for (unsigned y = 0; y < s->y0 + FONT_HEIGHT; y++)
		for (unsigned x = 0; x < s->x0 + FONT_WIDTH; x++)
			if (x < s->x0 || y < s->y0)
				CHECK(!pixel(s, x, y), "%s: margin pixel (%u, %u) drawn", f->name,
				      x, y);

	/* Every glyph, wrapping at 50 columns; the last three bytes are boxes. */
	put("\r");
	for (int c = FONT_FIRST; c <= FONT_LAST; c++)
		screen_write((const char *)&(char){(char)c}, 1);
	put("\x01\x7f\xff\n");
	for (int c = FONT_FIRST; c < FONT_FIRST + 50; c++)
		want[c - FONT_FIRST] = (char)c;
	want[50] = 0;
	ROW_IS(s, 0, want);
	for (int c = FONT_FIRST + 50; c <= FONT_LAST; c++)
		want[c - FONT_FIRST - 50] = (char)c;
	memcpy(want + FONT_LAST - FONT_FIRST - 49, "\x7f\x7f\x7f", 4);
	ROW_IS(s, 1, want);
	CHECK(row_ink(s, 0) == f->grey && row_ink(s, 1) == f->grey, "%s: plain text not grey",
	      f->name);

	/* The three colours, each encoded for this format. */
	put("ok 1 boot\nnot ok 2 lockref\nPANIC: #GP\n");
	CHECK(row_ink(s, 2) == f->green, "%s: 'ok' ink %#x, want %#x", f->name, row_ink(s, 2),
	      f->green);
	CHECK(row_ink(s, 3) == f->red, "%s: 'not ok' ink %#x, want %#x", f->name, row_ink(s, 3),
	      f->red);
	CHECK(row_ink(s, 4) == f->red, "%s: 'PANIC:' ink %#x, want %#x", f->name, row_ink(s, 4),
	      f->red);

	/* Fill the screen and more: the top lines scroll away, the last row is blank. */
	for (unsigned i = 5; i < s->rows + 8; i++) {
		snprintf(want, sizeof(want), "line %u\n", i);
		put(want);
	}
	ROW_IS(s, 0, "line 9");
	snprintf(want, sizeof(want), "line %u", s->rows + 7);
	ROW_IS(s, s->rows - 2, want);
	ROW_IS(s, s->rows - 1, "");
	CHECK(cell_read(s, s->rows - 1, 0, &ink) == ' ' && ink == 0, "%s: last row not blank",
	      f->name);
	/* Scrolling moved whole pixel rows: the margins are still black. */
	for (unsigned y = 0; y < s->fb.height; y++)
		for (unsigned x = 0; x < s->fb.width; x++)
			if ((x < s->x0 || x >= s->x0 + s->cols * FONT_WIDTH || y < s->y0 ||
			     y >= s->y0 + s->rows * FONT_HEIGHT) &&
			    pixel(s, x, y)) {
				CHECK(0, "%s: margin pixel (%u, %u) drawn", f->name, x, y);
				y = s->fb.height;
				break;
			}
	scr_free(s);
}

/* '\r', '\t', wrapping at the right edge, and a full line followed by '\n'. */
static void test_controls(void)
{
	/* 44 columns: not a multiple of the tab width. */
	struct scr *s = open_fb(XRGB, 44 * FONT_WIDTH, 12 * FONT_HEIGHT, 0);
	uint32_t ink;

	put("a\tb\n");
	ROW_IS(s, 0, "a       b");
	put("abcdefgh\tX\n");
	ROW_IS(s, 1, "abcdefgh        X");
	put("0123456789\rAB\n");
	ROW_IS(s, 2, "AB23456789");
	/* A tab blanks the cells it passes over. */
	put("0123456789\r\tZ\n");
	ROW_IS(s, 3, "        Z9");
	/* 50 characters wrap after 44. */
	put("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX\n");
	ROW_IS(s, 4, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQR");
	ROW_IS(s, 5, "STUVWX");
	/* Exactly 44 then '\n': one line, not one and an empty one. */
	put("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqr\nnext\n");
	ROW_IS(s, 6, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqr");
	ROW_IS(s, 7, "next");
	/* A tab near the right edge stops there; the next character wraps. */
	put("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP\tQ\n");
	ROW_IS(s, 8, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP");
	ROW_IS(s, 9, "Q");
	/* Nothing to write changes nothing; output resumes where it was. */
	screen_write("", 0);
	put("end");
	ROW_IS(s, 10, "end");
	CHECK(cell_read(s, 10, 3, &ink) == ' ' && !ink, "a cell past the cursor was drawn");
	scr_free(s);
}

/* Which lines get which colour, including heads split across writes. */
static void test_colours(void)
{
	static const struct {
		const char *line;
		char colour; /* g green, r red, w grey */
	} lines[] = {
	    {"ok 1 boot", 'g'},
	    {"not ok 2 lockref", 'r'},
	    {"    ok 3 subtest", 'g'},
	    {"    not ok 4 subtest", 'r'},
	    {"okay", 'w'},
	    {"ok", 'w'},
	    {"PANIC: #PF at 0x0", 'r'},
	    {"# RESULT pass", 'g'},
	    {"# RESULT fail", 'r'},
	    {"# RESULT", 'w'},
	    {"# ENV {\"cpus_found\":4}", 'w'},
	    {"notok", 'w'},
	    {"xx\rok 5 after a carriage return", 'g'},
	};
	const struct format *f = XRGB;
	struct scr *s = open_fb(f, 60 * FONT_WIDTH, 20 * FONT_HEIGHT, 0);
	unsigned n = sizeof(lines) / sizeof(lines[0]);

	for (unsigned i = 0; i < n; i++) {
		put(lines[i].line);
		put("\n");
		uint32_t want = lines[i].colour == 'g'	 ? f->green
				: lines[i].colour == 'r' ? f->red
							 : f->grey;
		CHECK(row_ink(s, i) == want, "\"%s\": ink %#x, want %#x", lines[i].line,
		      row_ink(s, i), want);
	}
	/* The head arrives in pieces: the decision waits for it. */
	put("no");
	put("t o");
	put("k 6 split\n");
	CHECK(row_ink(s, n) == f->red, "split 'not ok': ink %#x", row_ink(s, n));
	ROW_IS(s, n, "not ok 6 split");
	/* A wrapped line keeps its colour on the next row. */
	put("not ok 7 a result long enough to wrap past the right-hand edge\n");
	CHECK(row_ink(s, n + 1) == f->red && row_ink(s, n + 2) == f->red,
	      "wrapped 'not ok' rows: ink %#x, %#x", row_ink(s, n + 1), row_ink(s, n + 2));
	/* A head cut by the right edge is not a verdict: it stays grey. */
	for (unsigned c = 0; c < s->cols - 2; c++)
		put(" ");
	put("not ok 8 wrapped head\n");
	ROW_IS(s, n + 4, "t ok 8 wrapped head");
	CHECK(row_ink(s, n + 3) == f->grey && row_ink(s, n + 4) == f->grey,
	      "head cut by the edge: ink %#x, %#x", row_ink(s, n + 3), row_ink(s, n + 4));
	scr_free(s);
}

/* EGA text: cells, attributes, the box, clearing, scrolling, padding. */
static void test_ega(void)
{
	/* 8 bytes of padding after each 80-cell row. */
	struct scr *s = open_ega(80, 25, 8);
	uint32_t ink;
	char line[32];

	for (unsigned r = 0; r < 25; r++) {
		for (unsigned c = 0; c < 80; c++)
			CHECK(cell_read(s, r, c, &ink) == ' ' && ink == 0x07,
			      "EGA cell (%u, %u) not cleared", r, c);
		for (unsigned p = 0; p < 8; p++)
			CHECK(s->mem[r * s->fb.pitch + 160 + p] == CANARY,
			      "EGA row %u padding written", r);
	}
	put("ok 1 a\nnot ok 2 b\nplain\x01\tx\n");
	ROW_IS(s, 0, "ok 1 a");
	ROW_IS(s, 1, "not ok 2 b");
	ROW_IS(s, 2, "plain\x7f  x");
	CHECK(row_ink(s, 0) == 0x0a && row_ink(s, 1) == 0x0c && row_ink(s, 2) == 0x07,
	      "EGA attributes %#x %#x %#x, want 0xa 0xc 0x7", row_ink(s, 0), row_ink(s, 1),
	      row_ink(s, 2));
	for (unsigned i = 3; i < 30; i++) {
		snprintf(line, sizeof(line), "line %u\n", i);
		put(line);
	}
	ROW_IS(s, 0, "line 6");
	ROW_IS(s, 23, "line 29");
	for (unsigned c = 0; c < 80; c++)
		CHECK(cell_read(s, 24, c, &ink) == ' ' && ink == 0x07,
		      "EGA last row cell %u not blank after scrolling", c);
	for (unsigned r = 0; r < 25; r++)
		CHECK(s->mem[r * s->fb.pitch + 160] == CANARY, "EGA row %u padding written", r);
	scr_free(s);
}

/* ---- a framebuffer that counts reads ---- */

#define PF_ERR_WRITE (1u << 1) /* x86 page-fault error code: the access was a write */
#define EFLAGS_TF    (1u << 8) /* trap flag: a debug trap after the next instruction */

static struct {
	uint8_t *base;
	size_t len;
	volatile unsigned reads, writes;
} watch;

/* An access to the closed framebuffer: count it, open up for one instruction. */
static void on_fault(int sig, siginfo_t *si, void *ucontext)
{
	ucontext_t *uc = ucontext;
	uint8_t *addr = si->si_addr;

	if (!watch.base || addr < watch.base || addr >= watch.base + watch.len) {
		/* Not ours: a real crash.  Let it happen with the default action. */
		signal(sig, SIG_DFL);
		return;
	}
	if (uc->uc_mcontext.gregs[REG_ERR] & PF_ERR_WRITE)
		watch.writes++;
	else
		watch.reads++;
	mprotect(watch.base, watch.len, PROT_READ | PROT_WRITE);
	uc->uc_mcontext.gregs[REG_EFL] |= EFLAGS_TF;
}

/* The instruction ran: close the framebuffer again. */
static void on_step(int sig, siginfo_t *si, void *ucontext)
{
	ucontext_t *uc = ucontext;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)EFLAGS_TF;
	mprotect(watch.base, watch.len, PROT_NONE);
}

/* Start (or with @on false, stop) counting accesses to @s's memory. */
static void watch_fb(struct scr *s, int on)
{
	struct sigaction fault = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO};
	struct sigaction step = {.sa_sigaction = on_step, .sa_flags = SA_SIGINFO};

	if (on) {
		sigaction(SIGSEGV, &fault, NULL);
		sigaction(SIGTRAP, &step, NULL);
		watch.base = s->mem;
		watch.len = s->size;
		watch.reads = watch.writes = 0;
		mprotect(watch.base, watch.len, PROT_NONE);
	} else {
		mprotect(watch.base, watch.len, PROT_READ | PROT_WRITE);
		watch.base = NULL;
		signal(SIGSEGV, SIG_DFL);
		signal(SIGTRAP, SIG_DFL);
	}
}

/* Like scr_alloc, but whole pages of their own (mprotect works on pages), no guard. */
static struct scr *scr_map(struct screen_fb fb)
{
	struct scr *s = calloc(1, sizeof(*s));
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!s) {
		perror("test_screen: calloc");
		exit(2);
	}
	s->size = ((size_t)fb.pitch * fb.height + page - 1) / page * page;
	s->mem = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->mem == MAP_FAILED) {
		perror("test_screen: mmap");
		exit(2);
	}
	fb.addr = (uintptr_t)s->mem;
	s->fb = fb;
	return s;
}

/*
 * Fill the screen with full lines, then write @watched more, each
 * scrolling the whole screen, while every framebuffer access is counted:
 * not one may be a read.  (Each trapped access costs a few microseconds,
 * so the pixel case watches one scroll, which moves every row.)
 */
static void no_reads_case(const char *name, struct scr *s, unsigned watched)
{
	char line[SCREEN_MAX_COLS + 2], want[SCREEN_MAX_COLS + 1];
	const char *why = NULL;
	unsigned total = s->rows + watched;

	CHECK(screen_init(&s->fb, &why), "%s: init refused: %s", name, why ? why : "?");
	/* Every cell inked, and each line differs from the next: every cell changes. */
	for (unsigned i = 0; i < total; i++) {
		for (unsigned c = 0; c < s->cols; c++)
			line[c] = (char)('A' + (i + c) % 26);
		line[s->cols] = '\n';
		if (i == s->rows)
			watch_fb(s, 1);
		screen_write(line, s->cols + 1);
	}
	watch_fb(s, 0);
	CHECK(watch.writes > 0, "%s: no framebuffer write seen: the watch is broken", name);
	CHECK(watch.reads == 0, "%s: scrolling a full screen read the framebuffer %u times", name,
	      watch.reads);
	/* And the picture is right: the last rows - 1 lines, then a blank row. */
	for (unsigned r = 0; r + 1 < s->rows; r++) {
		unsigned i = total - (s->rows - 1) + r;
		for (unsigned c = 0; c < s->cols; c++)
			want[c] = (char)('A' + (i + c) % 26);
		want[s->cols] = 0;
		ROW_IS(s, r, want);
	}
	ROW_IS(s, s->rows - 1, "");
	printf("%s: %u framebuffer writes, %u reads for %u full-screen scrolls\n", name,
	       watch.writes, watch.reads, watched);
}

static void test_no_reads(void)
{
	/* The watch itself: a read must be seen. */
	struct scr *s = scr_map((struct screen_fb){.pitch = 4096, .height = 1});
	watch_fb(s, 1);
	CHECK(((volatile uint8_t *)s->mem)[17] == 0, "fresh memory not zero");
	((volatile uint8_t *)s->mem)[18] = 1;
	watch_fb(s, 0);
	CHECK(watch.reads == 1 && watch.writes == 1, "the watch saw %u reads, %u writes; want 1, 1",
	      watch.reads, watch.writes);
	munmap(s->mem, s->size);
	free(s);

	/* The smallest pixel screen (the traps make every access cost microseconds). */
	const struct format *f = XRGB;
	unsigned w = SCREEN_MIN_COLS * FONT_WIDTH + 3, h = SCREEN_MIN_ROWS * FONT_HEIGHT + 5;
	s = scr_map(fb_desc(f, w, h, w * 4));
	s->bytes_pp = 4;
	s->cols = SCREEN_MIN_COLS;
	s->rows = SCREEN_MIN_ROWS;
	s->x0 = 1;
	s->y0 = 2;
	no_reads_case("xrgb8888 framebuffer", s, 1);
	munmap(s->mem, s->size);
	free(s);

	s = scr_map((struct screen_fb){
	    .pitch = 160, .width = 80, .height = 25, .bpp = 16, .type = SCREEN_FB_EGA_TEXT});
	s->cols = 80;
	s->rows = 25;
	no_reads_case("EGA text", s, 3);
	munmap(s->mem, s->size);
	free(s);
}

static uint32_t crc_table[256];

static uint32_t crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	if (!crc_table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
			crc_table[i] = c;
		}
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void png_chunk(FILE *out, const char *type, const uint8_t *data, size_t len)
{
	uint8_t head[8], tail[4];
	uint32_t crc = crc32(crc32(0, (const uint8_t *)type, 4), data, len);

	be32(head, (uint32_t)len);
	memcpy(head + 4, type, 4);
	be32(tail, crc);
	fwrite(head, 1, 8, out);
	fwrite(data, 1, len, out);
	fwrite(tail, 1, 4, out);
}

/* Write @rgb (@w x @h, 3 bytes a pixel) as a PNG: zlib "stored" blocks, no compression. */
static int write_png(const char *path, const uint8_t *rgb, unsigned w, unsigned h)
{
	size_t raw_len = (size_t)h * (1 + 3 * (size_t)w), max_block = 65535;
	size_t z_len = 2 + raw_len + 5 * (raw_len / max_block + 1) + 4, at = 0;
	uint8_t *raw = malloc(raw_len), *z = malloc(z_len), ihdr[13] = {0};
	uint32_t a = 1, b = 0;
	FILE *out = fopen(path, "wb");

	if (!raw || !z || !out) {
		perror(path);
		return -1;
	}
	for (unsigned y = 0; y < h; y++) {
		raw[y * (1 + 3 * (size_t)w)] = 0; /* filter: none */
		memcpy(raw + y * (1 + 3 * (size_t)w) + 1, rgb + y * 3 * (size_t)w, 3 * (size_t)w);
	}
	z[at++] = 0x78; /* deflate, 32 KiB window */
	z[at++] = 0x01; /* no preset dictionary; header check bits */
	for (size_t off = 0; off < raw_len; off += max_block) {
		size_t n = raw_len - off < max_block ? raw_len - off : max_block;
		z[at++] = off + n == raw_len; /* BFINAL, BTYPE 00 (stored) */
		z[at++] = (uint8_t)n;
		z[at++] = (uint8_t)(n >> 8);
		z[at++] = (uint8_t)~n;
		z[at++] = (uint8_t)(~n >> 8);
		memcpy(z + at, raw + off, n);
		at += n;
	}
	for (size_t i = 0; i < raw_len; i++) {
		a = (a + raw[i]) % 65521;
		b = (b + a) % 65521;
	}
	be32(z + at, b << 16 | a);
	at += 4;
	be32(ihdr, w);
	be32(ihdr + 4, h);
	ihdr[8] = 8; /* bits per channel */
	ihdr[9] = 2; /* truecolour RGB */
	fwrite("\x89PNG\r\n\x1a\n", 1, 8, out);
	png_chunk(out, "IHDR", ihdr, sizeof(ihdr));
	png_chunk(out, "IDAT", z, at);
	png_chunk(out, "IEND", NULL, 0);
	free(raw);
	free(z);
	return fclose(out);
}

/* The whole font and a boot log as the user would see them, to look at. */
static int render_png(const char *path, unsigned scale)
{
	static const char *const sample[] = {
	    "\nlockref demo kernel, booted by GRUB 2.06\n",
	    "cpu: 4 CPUs found, 4 online, x2apic; tsc 2994 MHz from cpuid 0x15\n",
	    "bytes that are not ASCII: [\x01\x1b\x7f\xc3\xa9] tabs:\ta\tbc\tdef|\n",
	    "KTAP version 1\n1..4\n",
	    "    KTAP version 1\n    1..2\n    ok 1 ticket_order\n    ok 2 torture_4cpus\n",
	    "ok 1 spinlock\n",
	    "# lockref: 4 cpus, 10000000 get/put pairs, 1234 fallbacks\n",
	    "not ok 2 lockref # count 3 != 0 after the torture\n",
	    "ok 3 fs # SKIP no initrd\n",
	    "# BENCH "
	    "{\"bench\":\"refcount\",\"impl\":\"lockref\",\"cpus\":4,\"ops_per_sec\":81234567}\n",
	    "PANIC: #PF (page fault) at rip=0xffffffff80101234 cr2=0x0000000000000008\n",
	    "# RESULT fail\n",
	};
	const unsigned w = 800, h = 512;
	struct scr *s = open_fb(XRGB, w, h, 0);
	uint8_t *rgb = malloc((size_t)w * h * 3 * scale * scale);

	if (!rgb) {
		perror("render_png");
		return -1;
	}
	for (int c = FONT_FIRST; c <= FONT_LAST; c++) {
		screen_write((const char *)&(char){(char)c}, 1);
		if ((c - FONT_FIRST) % 32 == 31)
			put("\n");
	}
	put("\x80\n\nThe quick brown fox jumps over the lazy dog. 0123456789\n");
	put("THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG! {[(<0O 1lI|>)]} @#$%&*~^`'\"\n");
	put("mmm www WWW MMM iii jjj ggg yyy qqq ppp 0x7ffd_dead_beef 8B0D\n");
	for (size_t i = 0; i < sizeof(sample) / sizeof(sample[0]); i++)
		put(sample[i]);
	for (unsigned y = 0; y < h * scale; y++)
		for (unsigned x = 0; x < w * scale; x++) {
			uint32_t v = pixel(s, x / scale, y / scale);
			uint8_t *p = rgb + ((size_t)y * w * scale + x) * 3;
			p[0] = (uint8_t)(v >> 16);
			p[1] = (uint8_t)(v >> 8);
			p[2] = (uint8_t)v;
		}
	int err = write_png(path, rgb, w * scale, h * scale);
	free(rgb);
	scr_free(s);
	return err;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Cost of a character and of a scroll on a common full-HD 32-bit screen. */
static void bench(void)
{
	enum { LINES = 200, CHARS = 20000 };
	struct scr *s = open_fb(XRGB, 1920, 1080, 0);
	double t0 = now_s();

	/* One row, written over and over: no scrolling in this part. */
	for (int i = 0; i < CHARS; i++)
		screen_write(i % 200 ? "x" : "\r", 1);
	double t1 = now_s();
	for (int i = 0; i < LINES; i++)
		screen_write("\n", 1);
	double t2 = now_s();
	printf("1920x1080x32: %.1f ns per character, %.0f us per scroll (%.1f MB moved)\n",
	       (t1 - t0) / CHARS * 1e9, (t2 - t1) / LINES * 1e6, s->size / 1e6);
	scr_free(s);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--png"))
		return render_png(argv[2], argc > 3 ? (unsigned)atoi(argv[3]) : 1) ? 1 : 0;
	if (argc == 2 && !strcmp(argv[1], "--bench")) {
		bench();
		return failures ? 1 : 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: test_screen [--png FILE [SCALE] | --bench]\n");
		return 2;
	}
	test_font();
	test_reject();
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		test_format(&formats[i]);
	test_controls();
	test_colours();
	test_ega();
	test_no_reads();
	return check_exit("test_screen");
}
