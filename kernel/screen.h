// SPDX-License-Identifier: MIT
/*
 * screen.h - the console on the screen, for machines without a serial port.
 *
 * GRUB describes the display it left behind in the Multiboot2 framebuffer
 * tag: a linear RGB framebuffer (UEFI GOP, or a VESA mode under BIOS) or the
 * legacy EGA text buffer.  screen.c writes text on either, touching nothing
 * but the memory the tag names, so the host tests run it on a plain buffer.
 */
#ifndef KERNEL_SCREEN_H
#define KERNEL_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* framebuffer_type values (Multiboot2 spec 3.6.12). */
#define SCREEN_FB_INDEXED  0 /* palette colours: not supported */
#define SCREEN_FB_RGB	   1 /* direct colour, field positions and sizes given */
#define SCREEN_FB_EGA_TEXT 2 /* character/attribute cells; width and height in characters */

/* Decoded Multiboot2 framebuffer tag (Multiboot2 spec 3.6.12). */
struct screen_fb {
	uint64_t addr;		/* physical = virtual (identity-mapped by the kernel) */
	uint32_t pitch;		/* bytes per row (pixels) or per text row */
	uint32_t width, height; /* pixels, or characters for EGA text */
	uint8_t bpp;		/* bits per pixel (16 for EGA text) */
	uint8_t type;		/* SCREEN_FB_* */
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

/*
 * Set up the screen console on @fb and clear the screen.  Returns true if
 * usable.  Returns false when @fb is NULL (no tag) or describes something
 * this console cannot draw on; the reason, a static string, then goes to
 * *@why (when @why is not NULL) and the console stays off until a later
 * successful call.
 *
 * Framebuffers: 15, 16, 24 or 32 bits per pixel, each colour field 1..16
 * bits inside the pixel and not overlapping the others.  The text grid is
 * width/8 x height/16 cells of FONT_WIDTH x FONT_HEIGHT pixels, centred: the
 * leftover pixels form equal margins (the odd pixel goes right and bottom).
 * EGA text: 16-bit cells, the grid is width x height.  Either way the grid
 * must hold at least SCREEN_MIN_COLS x SCREEN_MIN_ROWS characters, and is
 * cut to at most SCREEN_MAX_COLS x SCREEN_MAX_ROWS (the leftover becomes
 * margin).
 */
bool screen_init(const struct screen_fb *fb, const char **why);

/*
 * Draw @len bytes at the cursor: printable ASCII as itself, '\n' starts a
 * new line, '\r' returns to the start of the line, '\t' advances to the next
 * multiple of SCREEN_TAB_WIDTH columns, every other byte shows as a box.  A
 * line longer than the screen wraps; the screen scrolls up one line when a
 * new line is needed below the last one.  Lines whose text (after leading
 * spaces) starts with "ok ", "# RESULT pass" are green; "not ok ", "PANIC:",
 * "# RESULT fail" red; the rest light grey, all on black.
 * Only ever stores to the framebuffer, never reads it (not even to scroll).
 * Does nothing while the console is off.  Not reentrant: callers serialize
 * (the kernel holds its console lock).
 */
void screen_write(const char *s, size_t len);

/* The text grid's size (0 while the console is off). */
unsigned screen_rows(void);
unsigned screen_cols(void);

/*
 * Show @text on the bottom row, in the status colour, cut or padded to the
 * width.  The first call takes that row from the scrolling text, which from
 * then on scrolls above it.
 */
void screen_status(const char *text);

/*
 * Replace the whole screen with @rows lines of text, line r at @page + r *
 * @stride (NUL-terminated; rows past @rows are blank), dropping the status
 * row.  A line naming a failure ("FAIL") is red, "RESULT PASS" green.
 * Writing afterwards continues below the last row (and scrolls the page).
 */
void screen_page(const char *page, unsigned rows, unsigned stride);

/*
 * What the screen shows, from the shadow: @emit(row, text) for every row,
 * text without trailing blanks, bytes outside printable ASCII as '?'.
 */
void screen_dump(void (*emit)(unsigned row, const char *text));

#define SCREEN_MIN_COLS 40
#define SCREEN_MIN_ROWS 10
/* The text grid kept in the shadow: a 3840 x 2160 screen in 8 x 16 cells. */
#define SCREEN_MAX_COLS	 480
#define SCREEN_MAX_ROWS	 135
#define SCREEN_TAB_WIDTH 8

/*
 * The built-in font (font8x16.c): one glyph per printable ASCII character
 * FONT_FIRST..FONT_LAST at index (c - FONT_FIRST), then the box at FONT_BOX.
 * Each glyph is FONT_HEIGHT rows from the top, one byte per row, the most
 * significant bit the leftmost pixel.  Exposed for the host tests.
 */
#define FONT_WIDTH  8
#define FONT_HEIGHT 16
#define FONT_FIRST  0x20
#define FONT_LAST   0x7e
#define FONT_BOX    (FONT_LAST - FONT_FIRST + 1)
#define FONT_GLYPHS (FONT_BOX + 1)

extern const uint8_t font8x16[FONT_GLYPHS][FONT_HEIGHT];

#endif /* KERNEL_SCREEN_H */
