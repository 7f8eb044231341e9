// SPDX-License-Identifier: MIT
/*
 * console.c - printk, shared by every CPU.
 *
 * Each call formats into a stack buffer first and only then takes the
 * console lock to copy the bytes out, so the lock is held for output only
 * and a whole call appears as one unbroken piece on every device.
 *
 * The screen is for a person: machine-readable lines (# ENV, # BENCH,
 * # TRACE, # KEYS JSON) go to the serial port only, the bottom row shows the run's
 * progress, and at the end one page of results replaces the scrolling text
 * (lib/results_read.c reads the lines printed here, serial unchanged, and
 * results.c draws both).
 */
#include "console.h"

#include "cpu.h"
#include "percpu.h"
#include "printf.h"
#include "results.h"
#include "screen.h"
#include "serial.h"
#include "spinlock.h"
#include "trace.h"
#include "string.h"

#define PANIC_CPU_NONE (-1)

static spinlock_t console_lock = SPINLOCK_INIT;
static unsigned console_targets = CONSOLE_SERIAL;
static bool screen_ready;
static volatile int panic_cpu = PANIC_CPU_NONE;
static const char *volatile log_prefix = "";
static const char *volatile print_indent = "";
static struct results run;    /* what the lines printed so far say; under console_lock */
static bool screen_frozen;    /* the results page is up: nothing more goes on the screen */
static bool screen_status_on; /* the bottom row shows progress */

/* Lines that start so (after indentation) are for programs: serial only. */
static const char *const serial_only[] = {"# ENV ", "# BENCH ", "# TRACE ", "# KEYS "};

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

static bool screen_wanted(void)
{
	return (console_targets & CONSOLE_SCREEN) && screen_ready && !screen_frozen;
}

static bool for_programs(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && s[i] == ' ')
		i++;
	for (size_t k = 0; k < sizeof(serial_only) / sizeof(serial_only[0]); k++) {
		size_t n = strlen(serial_only[k]);

		if (len - i >= n && memcmp(s + i, serial_only[k], n) == 0)
			return true;
	}
	return false;
}

static void console_emit(const char *s, size_t len)
{
	results_observe(&run, s, len);
	if (console_targets & CONSOLE_SERIAL)
		serial_write(s, len);
	if (screen_wanted() && !for_programs(s, len))
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
	spin_init_global_named(&console_lock, "kernel:console");
	/* A lockdep report made while this CPU holds it waits for its release (lib/lockdep.h). */
	lockdep_set_print_lock(&console_lock);
}

void console_lock_name(void)
{
	trace_name(&console_lock, "kernel:console");
}

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}

void printk_line(const char *fmt, ...)
{
	char line[PRINTK_MAX];

	KSNPRINTF_ARGS(line, fmt);
	printk("%s\n", line);
}

void console_set_test_prefixes(const char *log_prefix_, const char *print_indent_)
{
	log_prefix = log_prefix_;
	print_indent = print_indent_;
}

const char *console_log_prefix(void)
{
	return log_prefix;
}

const char *console_print_indent(void)
{
	return print_indent;
}

void console_enter_panic(void)
{
	panic_cpu = (int)this_cpu_index();
}

void console_drain(void)
{
	serial_drain();
}

/*
 * The console lock with interrupts off; @try: give up at once if it is
 * taken.  Returns true with the lock held; false (interrupts as they were)
 * after a panic, or when @try found it taken.
 */
static MUST_CHECK bool lock(uint64_t *flags, bool try) TRY_ACQUIRES(true, console_lock)
{
	*flags = read_rflags();
	cli();
	if (panic_cpu == PANIC_CPU_NONE) {
		if (!try) {
			spin_lock(&console_lock);
			return true;
		}
		if (spin_trylock(&console_lock))
			return true;
	}
	if (*flags & RFLAGS_IF)
		sti();
	return false;
}

static void unlock(uint64_t flags) RELEASES(console_lock)
{
	spin_unlock(&console_lock);
	if (flags & RFLAGS_IF)
		sti();
}

static bool draw_status(uint64_t now_ms)
{
	char line[SCREEN_MAX_COLS + 1];
	unsigned cols = screen_cols();

	if (!screen_wanted() || !cols)
		return false;
	results_status(&run, now_ms, line, cols);
	screen_status(line);
	screen_status_on = true;
	return true;
}

bool console_test_start(const char *name, unsigned number, uint64_t now_ms, uint64_t expected_ms)
{
	uint64_t flags;
	bool shown;

	if (!lock(&flags, false))
		return false;
	results_test_start(&run, name, number, now_ms, expected_ms);
	shown = draw_status(now_ms);
	unlock(flags);
	return shown;
}

void console_status_tick(uint64_t now_ms)
{
	uint64_t flags;

	if (!lock(&flags, true))
		return; /* someone is printing: the next tick draws */
	if (screen_status_on)
		draw_status(now_ms);
	unlock(flags);
}

/* The page, as big as the largest screen; drawn under console_lock. */
static char page[SCREEN_MAX_ROWS * (SCREEN_MAX_COLS + 1)];

static void dump_row(unsigned row, const char *text)
{
	char line[SCREEN_MAX_COLS + 24];
	int n = ksnprintf(line, sizeof(line), "# SCREEN %02u |%s\n", row, text);

	serial_write(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

void console_show_results(bool pass, const char *footer, bool dump)
{
	unsigned rows = screen_rows(), cols = screen_cols();
	uint64_t flags;

	if (!lock(&flags, false))
		return; /* a panic: its report stays on the screen */
	if (screen_wanted() && rows) {
		/* Wider screens get the page at a width that still reads as a table. */
		if (cols > RESULTS_PAGE_COLS)
			cols = RESULTS_PAGE_COLS;
		results_page(&run, pass, footer, page, rows, cols);
		screen_page(page, rows, cols + 1);
		screen_frozen = true;
		if (dump) {
			char head[64];
			int n = ksnprintf(head, sizeof(head), "# SCREEN %u x %u\n", rows,
					  screen_cols());

			serial_write(head, (size_t)n);
			screen_dump(dump_row);
		}
	} else if (dump) {
		serial_write("# SCREEN none\n", 14);
	}
	unlock(flags);
}
