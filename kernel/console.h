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
void vprintk(const char *fmt, va_list ap);

/*
 * Prefix of the lines portable code logs (platform_log), "" by default.  The
 * test runner sets "    # " while a test runs, so those lines read as KTAP
 * diagnostics of that test; the console itself knows nothing of tests.
 */
void console_set_log_prefix(const char *prefix);
const char *console_log_prefix(void);

/*
 * From now on only the calling CPU prints, without the lock: the other CPUs
 * are being stopped and one of them may have died holding it.
 */
void console_enter_panic(void);

/* Let the UART finish sending before the machine goes away. */
void console_drain(void);

/*
 * Make the console's lock free under the spinlock kind just set
 * (spin_kind_set): a free ticket lock's word is head == tail, which the
 * queued kind would read as held.  CPU 0 alone, at boot, the lock free.
 */
void console_lock_reinit(void);

#endif /* KERNEL_CONSOLE_H */
