// SPDX-License-Identifier: MIT
/*
 * screen.c - the console on the screen, for machines without a serial port.
 *
 * Users boot the ISO on real machines and read the results off the display,
 * so everything printed also lands here.  GRUB leaves either a linear
 * framebuffer (drawn on with the built-in 8x16 font, font8x16.c) or the EGA
 * text buffer (character/attribute cells); screen_fb describes which
 * (Multiboot2 spec 3.6.12).  Both become one grid of text cells with a
 * cursor; only the "put a character in a cell" and "clear" steps differ.
 *
 * The framebuffer is never read.  On a real GPU it is uncached or
 * write-combined: reads cost a bus round trip each, and scrolling by
 * copying VRAM to VRAM moved megabytes that way per line, with the console
 * lock held and interrupts off.  So a shadow of the text cells says what
 * is on the screen; scrolling moves the shadow and redraws the cells whose
 * content changed (Linux's fbcon redraws from its text buffer likewise).
 * The only hardware access is stores to the memory the tag names, so the
 * host tests run this very file against a buffer, read it back, and check
 * that a scroll made no read of it.
 *
 * Lines that start with a KTAP verdict, a panic or the final result are
 * coloured: the colour is decided from the first characters of the line,
 * which are then redrawn in it.
 */
#include "screen.h"

#include "string.h"

/* The colours a line can have; the background is always black. */
enum colour {
	COLOUR_TEXT,
	COLOUR_PASS,
	COLOUR_FAIL,
	COLOUR_STATUS,
	COLOUR_COUNT,
};

/* EGA attribute byte: background in the high nibble, foreground in the low. */
#define EGA_LIGHT_GREY	0x07
#define EGA_LIGHT_GREEN 0x0a
#define EGA_LIGHT_RED	0x0c
#define EGA_LIGHT_CYAN	0x0b
/* Code page 437 "black square", shown for bytes that are not printable ASCII. */
#define EGA_BOX 0xfe

static const struct {
	uint8_t red, green, blue; /* 8-bit intensities, scaled to each field */
	uint8_t ega_attr;
} colours[COLOUR_COUNT] = {
    [COLOUR_TEXT] = {0xc0, 0xc0, 0xc0, EGA_LIGHT_GREY},
    [COLOUR_PASS] = {0x55, 0xff, 0x55, EGA_LIGHT_GREEN},
    [COLOUR_FAIL] = {0xff, 0x55, 0x55, EGA_LIGHT_RED},
    [COLOUR_STATUS] = {0x55, 0xff, 0xff, EGA_LIGHT_CYAN},
};

/* How a line must start, after its indentation, to get a colour. */
static const struct {
	const char *head;
	enum colour colour;
} line_colours[] = {
    {"ok ", COLOUR_PASS},	    /* KTAP: a test passed (or was skipped) */
    {"not ok ", COLOUR_FAIL},	    /* KTAP: a test failed */
    {"PANIC:", COLOUR_FAIL},	    /* the panic report */
    {"# RESULT pass", COLOUR_PASS}, /* the last line of a run */
    {"# RESULT fail", COLOUR_FAIL},
};
#define HEAD_MAX 13 /* the longest head above; a longer one would never match */

#define STR_(x) #x
#define STR(x)	STR_(x)
#define TOO_SMALL                                                                                  \
	"screen smaller than " STR(SCREEN_MIN_COLS) " x " STR(SCREEN_MIN_ROWS) " characters"

/* Widest colour field accepted (real ones have 5 to 10 bits): keeps the shifts defined. */
#define FIELD_MAX_BITS 16
#define EGA_CELL_BYTES 2

/*
 * Screen memory is a device's: every access is volatile, so the compiler
 * neither drops nor merges stores, nor turns a loop into a call to the
 * kernel's byte-at-a-time memset.  It is accessed in words of several sizes,
 * hence may_alias.
 */
typedef volatile uint64_t __attribute__((may_alias)) fb_u64;
typedef volatile uint32_t __attribute__((may_alias)) fb_u32;
typedef volatile uint16_t __attribute__((may_alias)) fb_u16;
typedef volatile uint8_t fb_u8;

enum kind {
	KIND_OFF,
	KIND_PIXELS,
	KIND_EGA,
};

/* What one text cell shows: the byte written there and its colour. */
struct cell {
	uint8_t ch;
	uint8_t colour; /* enum colour */
};

/* The shadow of the screen, row by row, con.cols cells a row. */
static struct cell shadow[SCREEN_MAX_COLS * SCREEN_MAX_ROWS];

static struct {
	enum kind kind;
	fb_u8 *base;		      /* fb->addr */
	size_t pitch;		      /* bytes from one pixel row (or text row) to the next */
	size_t bytes_pp;	      /* pixels: bytes per pixel */
	size_t x0, y0;		      /* pixels: top-left pixel of cell (0, 0) */
	uint32_t pixel[COLOUR_COUNT]; /* pixels: each colour in this pixel format */
	unsigned cols, rows;
	unsigned text_rows; /* rows the text scrolls in: all but the status row, if shown */
	/* The next character goes to (row, col); col == cols: wrap first. */
	unsigned row, col;
	/* The line being written: its colour, and whether that is final yet. */
	enum colour colour;
	bool decided;
	char head[HEAD_MAX]; /* its characters after leading spaces, while undecided */
	unsigned head_len;
} con;

/* @value (0..255) scaled to a @size-bit field at bit @pos. */
static uint32_t field(uint8_t value, uint8_t pos, uint8_t size)
{
	uint32_t v = size >= 8 ? (uint32_t)value << (size - 8) : (uint32_t)value >> (8 - size);

	return v << pos;
}

static uint32_t field_mask(uint8_t pos, uint8_t size)
{
	return ((1u << size) - 1) << pos;
}

/* Check an RGB framebuffer and set up for it; returns NULL or why not. */
static const char *setup_pixels(const struct screen_fb *fb)
{
	const uint8_t pos[3] = {fb->red_pos, fb->green_pos, fb->blue_pos};
	const uint8_t size[3] = {fb->red_size, fb->green_size, fb->blue_size};

	if (fb->bpp != 15 && fb->bpp != 16 && fb->bpp != 24 && fb->bpp != 32)
		return "framebuffer bits per pixel not 15, 16, 24 or 32";
	for (int i = 0; i < 3; i++)
		if (size[i] == 0 || size[i] > FIELD_MAX_BITS || pos[i] + size[i] > fb->bpp)
			return "framebuffer colour field empty, too wide or outside the pixel";
	if ((field_mask(pos[0], size[0]) & field_mask(pos[1], size[1])) ||
	    (field_mask(pos[0], size[0]) & field_mask(pos[2], size[2])) ||
	    (field_mask(pos[1], size[1]) & field_mask(pos[2], size[2])))
		return "framebuffer colour fields overlap";
	con.bytes_pp = (fb->bpp + 7) / 8;
	if ((uint64_t)fb->width * con.bytes_pp > fb->pitch)
		return "framebuffer pitch shorter than a row of pixels";
	/* Pixels are stored as whole 16- or 32-bit words: they must be aligned. */
	if (con.bytes_pp != 3 && (fb->addr % con.bytes_pp || fb->pitch % con.bytes_pp))
		return "framebuffer address or pitch not a multiple of the pixel size";
	con.cols = fb->width / FONT_WIDTH;
	con.rows = fb->height / FONT_HEIGHT;
	if (con.cols > SCREEN_MAX_COLS)
		con.cols = SCREEN_MAX_COLS;
	if (con.rows > SCREEN_MAX_ROWS)
		con.rows = SCREEN_MAX_ROWS;
	con.x0 = (fb->width - (size_t)con.cols * FONT_WIDTH) / 2;
	con.y0 = (fb->height - (size_t)con.rows * FONT_HEIGHT) / 2;
	for (int c = 0; c < COLOUR_COUNT; c++)
		con.pixel[c] = field(colours[c].red, pos[0], size[0]) |
			       field(colours[c].green, pos[1], size[1]) |
			       field(colours[c].blue, pos[2], size[2]);
	return NULL;
}

/* Check an EGA text buffer and set up for it; returns NULL or why not. */
static const char *setup_ega(const struct screen_fb *fb)
{
	if (fb->bpp != 8 * EGA_CELL_BYTES)
		return "EGA text framebuffer cells not 16 bits";
	if ((uint64_t)fb->width * EGA_CELL_BYTES > fb->pitch)
		return "EGA text pitch shorter than a row of cells";
	if (fb->addr % EGA_CELL_BYTES || fb->pitch % EGA_CELL_BYTES)
		return "EGA text address or pitch not a multiple of the cell size";
	con.cols = fb->width < SCREEN_MAX_COLS ? fb->width : SCREEN_MAX_COLS;
	con.rows = fb->height < SCREEN_MAX_ROWS ? fb->height : SCREEN_MAX_ROWS;
	return NULL;
}

/* Start of the pixel row @y (pixels) or text row @y (EGA). */
static fb_u8 *row_at(size_t y)
{
	return con.base + y * con.pitch;
}

/* One row of a glyph: @bits (MSB leftmost) as @ink or black, at @p. */
static void store_row(fb_u8 *p, uint8_t bits, uint32_t ink)
{
	switch (con.bytes_pp) {
	case 4:
		for (int x = 0; x < FONT_WIDTH; x++)
			((fb_u32 *)p)[x] = bits & (0x80 >> x) ? ink : 0;
		break;
	case 3:
		for (int x = 0; x < FONT_WIDTH; x++, p += 3) {
			uint32_t v = bits & (0x80 >> x) ? ink : 0;
			p[0] = (uint8_t)v;
			p[1] = (uint8_t)(v >> 8);
			p[2] = (uint8_t)(v >> 16);
		}
		break;
	default:
		for (int x = 0; x < FONT_WIDTH; x++)
			((fb_u16 *)p)[x] = (uint16_t)(bits & (0x80 >> x) ? ink : 0);
		break;
	}
}

/* Store character @c in colour @colour into cell (@row, @col) of the framebuffer. */
static void paint_cell(unsigned row, unsigned col, unsigned char c, enum colour colour)
{
	bool printable = c >= FONT_FIRST && c <= FONT_LAST;

	if (con.kind == KIND_EGA) {
		fb_u16 *cell = (fb_u16 *)(row_at(row) + (size_t)col * EGA_CELL_BYTES);
		*cell = (uint16_t)((printable ? c : EGA_BOX) | colours[colour].ega_attr << 8);
		return;
	}
	const uint8_t *glyph = font8x16[printable ? c - FONT_FIRST : FONT_BOX];
	fb_u8 *line = row_at(con.y0 + (size_t)row * FONT_HEIGHT) +
		      (con.x0 + (size_t)col * FONT_WIDTH) * con.bytes_pp;
	for (int y = 0; y < FONT_HEIGHT; y++, line += con.pitch)
		store_row(line, glyph[y], con.pixel[colour]);
}

static struct cell *cell_at(unsigned row, unsigned col)
{
	return &shadow[(size_t)row * con.cols + col];
}

/*
 * Show @c in colour @colour in cell (@row, @col), painting only if the
 * shadow says the cell shows something else.  A blank looks the same in
 * every colour, so blanks are all kept as plain text: fewer repaints.
 */
static void draw_cell(unsigned row, unsigned col, unsigned char c, enum colour colour)
{
	struct cell *cell = cell_at(row, col);

	if (c == ' ')
		colour = COLOUR_TEXT;
	if (cell->ch == c && cell->colour == colour)
		return;
	cell->ch = c;
	cell->colour = (uint8_t)colour;
	paint_cell(row, col, c, colour);
}

/* Zero @len bytes at @dst: black pixels. */
static void zero(fb_u8 *dst, size_t len)
{
	for (; len && (uintptr_t)dst % sizeof(uint64_t); len--)
		*dst++ = 0;
	for (; len >= sizeof(uint64_t); len -= sizeof(uint64_t), dst += sizeof(uint64_t))
		*(fb_u64 *)dst = 0;
	for (; len; len--)
		*dst++ = 0;
}

/* Blank the whole screen, margins included, whatever it showed; the shadow with it. */
static void clear_screen(const struct screen_fb *fb)
{
	for (unsigned r = 0; r < con.rows; r++)
		for (unsigned c = 0; c < con.cols; c++) {
			*cell_at(r, c) = (struct cell){' ', COLOUR_TEXT};
			if (con.kind == KIND_EGA)
				paint_cell(r, c, ' ', COLOUR_TEXT);
		}
	if (con.kind == KIND_PIXELS)
		zero(con.base, (size_t)fb->pitch * fb->height);
}

/*
 * Move every text row up by one, dropping the top one; blank the last.
 * The shadow is the source: each cell takes the content of the cell below
 * it, and is repainted only where that differs.
 */
static void scroll(void)
{
	for (unsigned r = 0; r + 1 < con.text_rows; r++)
		for (unsigned c = 0; c < con.cols; c++) {
			struct cell below = *cell_at(r + 1, c);
			draw_cell(r, c, below.ch, below.colour);
		}
	for (unsigned c = 0; c < con.cols; c++)
		draw_cell(con.text_rows - 1, c, ' ', COLOUR_TEXT);
}

/* Move the cursor to the start of the next row, scrolling at the bottom. */
static void next_row(void)
{
	con.col = 0;
	if (con.row + 1 < con.text_rows)
		con.row++;
	else
		scroll();
}

/* A new line starts at the cursor: its colour is not known yet. */
static void start_line(void)
{
	con.colour = COLOUR_TEXT;
	con.decided = false;
	con.head_len = 0;
}

/*
 * Feed @c, the next character of an undecided line, to the colour choice.
 * When the head completes one of line_colours, the head already on screen
 * (the cells just left of the cursor) is redrawn in its colour.
 */
static void choose_colour(unsigned char c)
{
	bool possible = false;

	if (c == ' ' && con.head_len == 0)
		return; /* indentation (KTAP subtests) */
	if (con.head_len == HEAD_MAX) {
		con.decided = true;
		return;
	}
	con.head[con.head_len++] = (char)c;
	for (size_t i = 0; i < sizeof(line_colours) / sizeof(line_colours[0]); i++) {
		const char *want = line_colours[i].head;
		size_t len = strlen(want);

		if (con.head_len > len || memcmp(want, con.head, con.head_len) != 0)
			continue;
		if (con.head_len < len) {
			possible = true;
			continue;
		}
		con.colour = line_colours[i].colour;
		/* The head's last character is @c, which the caller draws. */
		for (unsigned k = 0; k + 1 < con.head_len; k++)
			draw_cell(con.row, con.col - (con.head_len - 1) + k,
				  (unsigned char)con.head[k], con.colour);
		break;
	}
	con.decided = con.colour != COLOUR_TEXT || !possible;
}

/* Draw @c at the cursor and advance it, wrapping a full row first. */
static void put_visible(unsigned char c)
{
	if (con.col == con.cols) {
		next_row();
		/* A wrapped head is too long to be coloured: keep the colour. */
		con.decided = true;
	}
	if (!con.decided)
		choose_colour(c);
	draw_cell(con.row, con.col, c, con.colour);
	con.col++;
}

bool screen_init(const struct screen_fb *fb, const char **why)
{
	const char *err;

	con.kind = KIND_OFF;
	if (!fb)
		err = "no framebuffer tag from the boot loader";
	else if (fb->addr == 0)
		err = "framebuffer address is zero";
	else if (fb->type == SCREEN_FB_RGB)
		err = setup_pixels(fb);
	else if (fb->type == SCREEN_FB_EGA_TEXT)
		err = setup_ega(fb);
	else if (fb->type == SCREEN_FB_INDEXED)
		err = "indexed-colour framebuffer not supported";
	else
		err = "unknown framebuffer type";
	if (!err && (con.cols < SCREEN_MIN_COLS || con.rows < SCREEN_MIN_ROWS))
		err = TOO_SMALL;
	if (!err && fb->addr > UINTPTR_MAX - (uint64_t)fb->pitch * fb->height)
		err = "framebuffer runs past the end of the address space";
	if (err) {
		if (why)
			*why = err;
		return false;
	}
	con.base = (fb_u8 *)(uintptr_t)fb->addr;
	con.pitch = fb->pitch;
	con.kind = fb->type == SCREEN_FB_RGB ? KIND_PIXELS : KIND_EGA;
	/* GRUB's menu is still on the screen: start on a blank one. */
	clear_screen(fb);
	con.text_rows = con.rows;
	con.row = 0;
	con.col = 0;
	start_line();
	return true;
}

void screen_write(const char *s, size_t len)
{
	if (con.kind == KIND_OFF)
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '\n':
			next_row();
			start_line();
			break;
		case '\r':
			con.col = 0;
			start_line();
			break;
		case '\t':
			/* Blank up to the next stop: a tab may land on old text after '\r'. */
			do
				put_visible(' ');
			while (con.col % SCREEN_TAB_WIDTH && con.col < con.cols);
			break;
		default:
			put_visible(c);
			break;
		}
	}
}

unsigned screen_rows(void)
{
	return con.kind == KIND_OFF ? 0 : con.rows;
}

unsigned screen_cols(void)
{
	return con.kind == KIND_OFF ? 0 : con.cols;
}

/* Row @row shows @text (cut or blank-padded to the width) in @colour. */
static void draw_row(unsigned row, const char *text, enum colour colour)
{
	unsigned c = 0;

	for (; c < con.cols && text[c]; c++)
		draw_cell(row, c, (unsigned char)text[c], colour);
	for (; c < con.cols; c++)
		draw_cell(row, c, ' ', COLOUR_TEXT);
}

void screen_status(const char *text)
{
	if (con.kind == KIND_OFF)
		return;
	if (con.text_rows == con.rows) {
		/* Take the bottom row from the text: lift the text if the cursor is there. */
		if (con.row == con.rows - 1) {
			scroll();
			con.row--;
		}
		con.text_rows = con.rows - 1;
	}
	draw_row(con.rows - 1, text, COLOUR_STATUS);
}

/* A page row's colour: its verdict words, as a line's head decides it in the text. */
static enum colour page_colour(const char *text)
{
	for (const char *p = text; *p; p++)
		if (!strncmp(p, "FAIL", 4))
			return COLOUR_FAIL;
	for (const char *p = text; *p; p++)
		if (!strncmp(p, "RESULT PASS", 11))
			return COLOUR_PASS;
	return COLOUR_TEXT;
}

void screen_page(const char *page, unsigned rows, unsigned stride)
{
	if (con.kind == KIND_OFF)
		return;
	con.text_rows = con.rows;
	for (unsigned r = 0; r < con.rows; r++) {
		const char *text = r < rows ? page + (size_t)r * stride : "";

		draw_row(r, text, page_colour(text));
	}
	con.row = con.rows - 1;
	con.col = con.cols;
	start_line();
}

void screen_dump(void (*emit)(unsigned row, const char *text))
{
	char text[SCREEN_MAX_COLS + 1];

	for (unsigned r = 0; r < con.rows && con.kind != KIND_OFF; r++) {
		unsigned n = 0;

		for (unsigned c = 0; c < con.cols; c++) {
			unsigned char ch = cell_at(r, c)->ch;

			text[c] = ch >= FONT_FIRST && ch <= FONT_LAST ? (char)ch : '?';
			if (ch != ' ')
				n = c + 1;
		}
		text[n] = '\0';
		emit(r, text);
	}
}
