// SPDX-License-Identifier: MIT
/*
 * fuzz_cmdline.c - libFuzzer harness for kernel/cmdline.c.
 *
 * The input, cut at its first newline, gives two command lines parsed one
 * after the other (the second call must not see the first: a stale tail
 * was a real bug).  After each parse, every option must hold a value its
 * table allows, opts.raw must be exactly the line (cut at 1023 bytes), and
 * every printed message must be one "cmdline: ..." line; then the lines
 * beside the verdict ("# cmdline: ...", "# FAIL: command line: ...", one
 * "# tally: ...") must be single lines too, without a control byte, and the
 * verdict must fail exactly when a selecting word was not carried out.
 */
#include "cmdline.h"
#include "console.h"
#include "fuzz_check.h"
#include "platform.h"
#include "spinlock.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The parser's limit: the line it keeps is at most this long (cmdline.c). */
#define KEPT_MAX 1023

static unsigned tally_lines;

/* The parser's only output: each message must be one "cmdline: " line (or one beside the verdict). */
void platform_log(const char *fmt, ...)
{
	char line[PLATFORM_LINE_MAX + 1];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	tally_lines += strncmp(line, "# tally: ", 9) == 0;
	FUZZ_CHECK(strncmp(line, "cmdline: ", 9) == 0 || strncmp(line, "# cmdline: ", 11) == 0 ||
		       strncmp(line, "# tally: ", 9) == 0 ||
		       strncmp(line, "# FAIL: command line: ", 22) == 0,
		   "printed '%s'", line);
	for (const char *c = line; *c; c++)
		FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f, "a control byte in '%s'", line);
	/* Longer than PLATFORM_LINE_MAX, the platform cuts it; else it is one whole line. */
	FUZZ_CHECK(n > PLATFORM_LINE_MAX || (n > 0 && !memchr(line, '\n', (size_t)n)),
		   "not one line: '%s'", line);
}

static int is_one_of(const char *s, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(s, *names) == 0)
			return 1;
	return 0;
}

static void parse_and_check(const char *line)
{
	static const char *const policies[] = {"mainline", "v7", "locked", NULL};
	size_t kept = strnlen(line, KEPT_MAX);

	cmdline_parse(line);
	FUZZ_CHECK(strlen(opts.raw) == kept && memcmp(opts.raw, line, kept) == 0,
		   "raw '%.40s' is not the line '%.40s'", opts.raw, line);
	FUZZ_CHECK(opts.run && !(opts.run & ~SUITES_NAMED), "run %#x", opts.run);
	FUZZ_CHECK(opts.torture_ms >= 1 && opts.torture_ms <= 3600 * 1000, "torture_ms %u",
		   opts.torture_ms);
	FUZZ_CHECK(opts.bench_ms >= 1 && opts.bench_ms <= 60000, "bench_ms %u", opts.bench_ms);
	FUZZ_CHECK(opts.bench_trials >= 1 && opts.bench_trials <= 101, "trials %u",
		   opts.bench_trials);
	FUZZ_CHECK(is_one_of(opts.lockref_policy, policies), "policy '%.16s'", opts.lockref_policy);
	FUZZ_CHECK(opts.lockref_retries == -1 ||
		       (opts.lockref_retries >= 1 && opts.lockref_retries <= 1000000),
		   "retries %d", opts.lockref_retries);
	FUZZ_CHECK(opts.lockref_wait >= -1 && opts.lockref_wait <= 1, "wait %d", opts.lockref_wait);
	FUZZ_CHECK(opts.smp_max >= 1 && opts.smp_max <= MAX_CPUS, "smp_max %u", opts.smp_max);
	FUZZ_CHECK(opts.busted <= BUSTED_LAST && opts.fault <= FAULT_LOCKDEP &&
		       opts.exit <= EXIT_POWEROFF && opts.spinlock_pv <= PV_OFF &&
		       opts.spinlock_kind < SPIN_KINDS,
		   "enum out of range: busted %d fault %d exit %d pv %d kind %u", opts.busted,
		   opts.fault, opts.exit, opts.spinlock_pv, opts.spinlock_kind);
	FUZZ_CHECK(!(opts.trace_groups & ~TRACE_GROUP_ALL), "trace groups %#x", opts.trace_groups);
	FUZZ_CHECK(opts.trace_events >= TRACE_EVENTS_MIN && opts.trace_events <= TRACE_EVENTS_MAX,
		   "trace events %u", opts.trace_events);
	FUZZ_CHECK(memchr(opts.trace_test, '\0', sizeof(opts.trace_test)) != NULL,
		   "trace.test name not terminated");
	FUZZ_CHECK(opts.console <= (CONSOLE_SERIAL | CONSOLE_SCREEN), /* 0: the default, both */
		   "console %u", opts.console);
	FUZZ_CHECK(opts.fs_walk == FS_WALK_RCU || opts.fs_walk == FS_WALK_REF, "fs_walk %u",
		   opts.fs_walk);

	struct run_tally t = {.started = true, .suites = 1, .planned = 1, .passed = 1};
	bool fails = cmdline_fails();

	tally_lines = 0;
	cmdline_fail_line();
	FUZZ_CHECK(cmdline_verdict(&t, true) == !fails, "verdict disagrees with cmdline_fails");
	FUZZ_CHECK(tally_lines == 1, "%u tally lines", tally_lines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	char *second;

	memcpy(buf, data, size);
	buf[size] = '\0';
	second = strchr(buf, '\n');
	if (second)
		*second++ = '\0';
	parse_and_check(buf);
	if (second)
		parse_and_check(second);
	free(buf);
	return 0;
}
