// SPDX-License-Identifier: MIT
/*
 * console.h - printk: formatted output to the serial port and the screen.
 *
 * One printk call is written whole under the console lock, so lines from
 * different CPUs never interleave mid-line as long as each call prints whole
 * lines.  Which devices get output is chosen by console= (docs/interface.md).
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

struct screen_fb;

#define CONSOLE_SERIAL 1u
#define CONSOLE_SCREEN 2u

/* Longest single printk; longer output is cut and ends with "...". */
#define PRINTK_MAX 1024

/* Serial first: it works before anything else is known about the machine. */
void console_init(void);

/* Add the screen (framebuffer or VGA text); prints why when it cannot. */
void console_attach_screen(const struct screen_fb *fb);

/* Restrict output to a mask of CONSOLE_SERIAL | CONSOLE_SCREEN. */
void console_select(unsigned targets);

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* printk of one line, the newline added: the log of the table parsers (acpi_tables.c, mptable.c). */
void printk_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vprintk(const char *fmt, va_list ap);

/*
 * What goes before the lines portable code prints, "" and "" by default.
 * While a test runs the test runner sets @log_prefix (before platform_log
 * lines: "  # ", a KTAP diagnostic of that test) and @print_indent (before
 * platform_print lines such as "# BENCH {...}": the test's nesting, "  "),
 * so every line of a subtest sits at its level; the console itself knows
 * nothing of tests.
 */
void console_set_test_prefixes(const char *log_prefix, const char *print_indent);
const char *console_log_prefix(void);
const char *console_print_indent(void);

/*
 * From now on only the calling CPU prints, without the lock: the other CPUs
 * are being stopped and one of them may have died holding it.
 */
void console_enter_panic(void);

/* Let the UART finish sending before the machine goes away. */
void console_drain(void);

/*
 * The screen's status line (progress.c keeps time): test @number, @name,
 * starts at @now_ms and should take @expected_ms (0: not known).  Draws
 * the status row, taking it from the text on first use; returns whether
 * the screen shows it (false with console=serial or no screen).
 */
bool console_test_start(const char *name, unsigned number, uint64_t now_ms, uint64_t expected_ms);

/* Redraw the status row for @now_ms, unless another CPU is printing (from a tick). */
void console_status_tick(uint64_t now_ms);

/* The results page is at most this wide, even on a wider screen. */
#define RESULTS_PAGE_COLS 100

/*
 * Replace the screen with the results page (results.h) and keep it: no
 * later output reaches the screen.  @dump: also send what the screen shows
 * over serial, "# SCREEN R x C" then "# SCREEN NN |text" per row (or
 * "# SCREEN none" without a screen).  Does nothing during a panic, whose
 * report stays on the screen.
 */
void console_show_results(bool pass, const char *footer, bool dump);

/*
 * Make the console's lock free under the spinlock kind just set
 * (spin_kind_set): a free ticket lock's word is head == tail, which the
 * queued kind would read as held.  CPU 0 alone, at boot, the lock free.
 * From then on every spin_kind_set does it (spin_init_global).
 */
void console_lock_reinit(void);

/*
 * Give the console's lock its name in a trace ("kernel:console"); after
 * cmdline_apply_trace (it does nothing before), e.g. just before the dump.
 */
void console_lock_name(void);

#endif /* KERNEL_CONSOLE_H */
