// SPDX-License-Identifier: MIT
/*
 * check.h - the one assertion of the host tests: report and count, keep going.
 *
 * A failed check prints one line, "not ok: file:line: cond: message", counts
 * itself in `failures` and lets the test run on, so one run shows every
 * broken expectation.  A test ends with `return check_exit("test_foo");`,
 * which prints the tally and gives main() its exit status.
 *
 *   CHECK(cond)                   message-less; the condition's text says it
 *   CHECK(cond, "fmt", ...)       printf-style message (format-checked)
 *   CHECK_EQ(got, want)           integers: also prints both values, hex and decimal
 *   CHECK_EQ(got, want, "fmt", ...)
 *
 * The message is optional because the macros paste " " in front of it: the
 * format is then never empty (no -Wformat-zero-length), and a message, when
 * given, must be a string literal.  Each argument is evaluated once.
 *
 * A test that keeps state worth seeing after a failure (the case being run,
 * lines it captured) points `check_context` at a function that prints it;
 * it is called after each "not ok" line.
 *
 * Checks may run on any thread: the counters are updated atomically (a
 * plain ++ would be a data race under ThreadSanitizer).  Read them once the
 * threads have been joined.
 */
#ifndef TESTS_HOST_CHECK_H
#define TESTS_HOST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static unsigned checks, failures;
static void (*check_context)(void);

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		__atomic_add_fetch(&checks, 1, __ATOMIC_RELAXED);                                  \
		if (!(cond))                                                                       \
			check_failed(__FILE__, __LINE__, #cond, " " __VA_ARGS__);                  \
	} while (0)

#define CHECK_EQ(got, want, ...)                                                                   \
	check_eq(__FILE__, __LINE__, #got " == " #want, (unsigned long long)(got),                 \
		 (unsigned long long)(want), " " __VA_ARGS__)

/* Report the failure of @cond at @file:@line; @fmt starts with the space the macros add. */
__attribute__((format(printf, 4, 5), unused)) static void
check_failed(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
	printf("not ok: %s:%d: %s", file, line, cond);
	if (fmt[1]) { /* more than the pasted space: there is a message */
		putchar(':');
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	if (check_context)
		check_context();
	fflush(stdout);
}

/* CHECK_EQ: if @got != @want, report both values and the message @fmt. */
__attribute__((format(printf, 6, 7), unused)) static void
check_eq(const char *file, int line, const char *cond, unsigned long long got,
	 unsigned long long want, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	__atomic_add_fetch(&checks, 1, __ATOMIC_RELAXED);
	if (got == want)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	check_failed(file, line, cond, " got 0x%llx (%llu), want 0x%llx (%llu)%s%s", got, got, want,
		     want, msg[1] ? ";" : "", msg[1] ? msg : "");
}

/* The tally line for @name, and main()'s exit status: 0 when every check held. */
__attribute__((unused)) static int check_exit(const char *name)
{
	printf("%s: %s (%u checks, %u failed)\n", name, failures ? "FAIL" : "pass", checks,
	       failures);
	return failures ? 1 : 0;
}

#endif /* TESTS_HOST_CHECK_H */
