// SPDX-License-Identifier: MIT
/*
 * console.c - printk, shared by every CPU.
 *
 * Each call formats into a stack buffer first and only then takes the
 * console lock to copy the bytes out, so the lock is held for output only
 * and a whole call appears as one unbroken piece on every device.
 */
#include "console.h"

#include "cpu.h"
#include "percpu.h"
#include "printf.h"
#include "screen.h"
#include "serial.h"
#include "spinlock.h"
#include "string.h"

#define PANIC_CPU_NONE (-1)

static spinlock_t console_lock = SPINLOCK_INIT;
static unsigned console_targets = CONSOLE_SERIAL;
static bool screen_ready;
static volatile int panic_cpu = PANIC_CPU_NONE;
static const char *volatile log_prefix = "";

void console_init(void)
{
	serial_init();
	/* GRUB leaves terminal escape codes on the line (docs/tools.md): start afresh. */
	serial_write("\n", 1);
}

void console_attach_screen(const struct screen_fb *fb)
{
	const char *why = "no framebuffer tag from the boot loader";

	screen_ready = fb && screen_init(fb, &why);
	if (screen_ready)
		console_targets |= CONSOLE_SCREEN;
	else
		printk("console: no screen output: %s\n", why);
}

void console_select(unsigned targets)
{
	if (targets == CONSOLE_SCREEN && !screen_ready) {
		printk("console: console=screen, but there is no screen; keeping serial\n");
		targets = CONSOLE_SERIAL;
	}
	console_targets = targets;
}

static void console_emit(const char *s, size_t len)
{
	if (console_targets & CONSOLE_SERIAL)
		serial_write(s, len);
	if ((console_targets & CONSOLE_SCREEN) && screen_ready)
		screen_write(s, len);
}

void vprintk(const char *fmt, va_list ap)
{
	char buf[PRINTK_MAX];
	int n = kvsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1;

	if (n >= (int)sizeof(buf))
		memcpy(buf + sizeof(buf) - 5, "...\n", 4);

	if (panic_cpu != PANIC_CPU_NONE) {
		if (panic_cpu == (int)this_cpu_index())
			console_emit(buf, len);
		return;
	}
	uint64_t flags = read_rflags();
	cli(); /* an interrupt on this CPU must not wait for the lock it holds */
	spin_lock(&console_lock);
	console_emit(buf, len);
	spin_unlock(&console_lock);
	if (flags & RFLAGS_IF)
		sti();
}

void console_lock_reinit(void)
{
	spin_init(&console_lock);
}

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}

void console_set_log_prefix(const char *prefix)
{
	log_prefix = prefix;
}

const char *console_log_prefix(void)
{
	return log_prefix;
}

void console_enter_panic(void)
{
	panic_cpu = (int)this_cpu_index();
}

void console_drain(void)
{
	serial_drain();
}
