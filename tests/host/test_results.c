// SPDX-License-Identifier: MIT
/*
 * test_results.c - the results' reader and page (lib/results_read.c,
 * kernel/results.c) on the lines a kernel run prints.
 *
 * A run with a passing suite, a failing one (a broken invariant) and the
 * benchmarks is fed in awkward pieces (a line split across calls, CR LF,
 * a line longer than the buffer); then the results page must show each
 * suite's verdict and counts, the first failure with its invariant and
 * seed, and the benchmark table with the lockref/spinlock ratio, all in
 * 80 x 25; and the status line's bar must move while a test runs.
 */
#include "results.h"

#include "check.h"
#include "string.h" /* lib/string.h: the str_* helpers results_read.c reads lines with */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 25
#define COLS 80

static struct results r;
static char page[ROWS * (COLS + 1)];

static void feed(const char *s)
{
	results_observe(&r, s, strlen(s));
}

static const char *row(unsigned i)
{
	return page + i * (COLS + 1);
}

/* The page row containing @text, or -1. */
static int find_row(const char *text)
{
	for (unsigned i = 0; i < ROWS; i++)
		if (strstr(row(i), text))
			return (int)i;
	return -1;
}

static void show_page(void)
{
	for (unsigned i = 0; i < ROWS; i++)
		printf("  |%s|\n", row(i));
}

static void bench_line(const char *bench, const char *impl, unsigned cpus, unsigned long ops)
{
	char line[256];

	snprintf(line, sizeof(line),
		 "  # BENCH {\"bench\":\"%s\",\"impl\":\"%s\",%s\"cpus\":%u,\"trials\":3,"
		 "\"ops_per_sec\":%lu,\"ns_per_op\":12,\"path\":\"%s\"}\n",
		 bench, impl, strcmp(bench, "pathwalk") ? "" : "\"op\":\"stat-same-path\",", cpus,
		 ops, strcmp(bench, "pathwalk") ? "bare" : "switched");
	feed(line);
}

static void run_log(void)
{
	char long_line[1200];

	feed("# ENV {\"platform\":\"kernel\",\"cpus_found\":4,\"cpus_online\":4,\"packages\":2,"
	     "\"cores_per_package\":2,\"threads_per_core\":1,\"llc_groups\":2,\"apic\":\"xapic\","
	     "\"tsc_khz\":2095937,\"tsc_source\":\"pit\",\"invariant_tsc\":false,\"hypervisor\":"
	     "\"tcg\",\"cx16\":true,\"cmdline\":\"run=all\",\"seed\":7,\"cpu_model\":"
	     "\"QEMU Virtual CPU version 2.5+\"}\n");
	feed("KTAP version 1\n1..3\n");
	feed("  KTAP version 1\n  # Subtest: boot\n  1..2\n");
	feed("  ok 1 cpus_online\n  ok 2 ipi_all # SKIP one CPU\n");
	feed("ok 1 boot\n");
	feed("  KTAP version 1\r\n  # Subtest: lockref\r\n  1..3\r\n");
	feed("  ok 1 basic\n");
	/* Split mid-line, as two printk calls might. */
	feed("  # FAIL cpu 1: invariant conser");
	feed("vation broken: count 3, expected 4 (seed=7)\n");
	feed("  not ok 2 torture_get_put\n  ok 3 after\n");
	feed("not ok 2 lockref\n");
	/* A line longer than the assembly buffer still counts by its first bytes. */
	memset(long_line, 'x', sizeof(long_line));
	memcpy(long_line, "  # diag ", 9);
	long_line[sizeof(long_line) - 2] = '\n';
	long_line[sizeof(long_line) - 1] = '\0';
	feed(long_line);
	feed("  KTAP version 1\n  # Subtest: bench\n  1..2\n");
	/* More figures than the page keeps, before the ones it tables: they must not crowd them out. */
	for (unsigned k = 0; k < 2 * RESULTS_BENCH_MAX; k++)
		bench_line("uncontended", "lockref", 1, 1000);
	/* c2c pairs: min/median/max per relation, the fraction dropped. */
	feed("  # BENCH {\"bench\":\"c2c\",\"impl\":\"cas\",\"op\":\"0-1\",\"cpus\":2,"
	     "\"oneway_ns\":52.5000,\"relation\":\"same-llc\"}\n");
	feed("  # BENCH {\"bench\":\"c2c\",\"impl\":\"cas\",\"op\":\"0-2\",\"cpus\":2,"
	     "\"oneway_ns\":61.0000,\"relation\":\"same-llc\"}\n");
	feed("  # BENCH {\"bench\":\"c2c\",\"impl\":\"cas\",\"op\":\"1-2\",\"cpus\":2,"
	     "\"oneway_ns\":40.9000,\"relation\":\"same-llc\"}\n");
	feed("  # BENCH {\"bench\":\"c2c\",\"impl\":\"cas\",\"op\":\"0-3\",\"cpus\":2,"
	     "\"oneway_ns\":130.1000,\"relation\":\"other-package\"}\n");
	feed("# BENCH {\"bench\":\"pathwalk\",\"impl\":\"lockref\",\"op\":\"stat-own-file\","
	     "\"cpus\":1,\"ops_per_sec\":999}\n");
	for (unsigned cpus = 1; cpus <= 4; cpus *= 2) {
		bench_line("refcount", "xadd", cpus, 90000000ul / cpus);
		bench_line("refcount", "spinlock", cpus, 20000000ul / cpus);
		bench_line("refcount", "lockref", cpus, 30000000ul / cpus);
		bench_line("pathwalk", "spinlock", cpus, 1000000ul);
		bench_line("pathwalk", "lockref", cpus, 2500000ul);
		bench_line("convoy", "lockref", cpus, 5);
	}
	feed("  ok 1 refcount\n  ok 2 pathwalk\nok 3 bench\n");
}

static void test_page(void)
{
	int i;

	run_log();
	results_page(&r, false, " exit=auto: halted", page, ROWS, COLS);
	for (unsigned k = 0; k < ROWS; k++)
		CHECK(strlen(row(k)) == COLS, "row %u is %zu wide", k, strlen(row(k)));
	CHECK(find_row("RESULT FAIL") == 0);
	CHECK(find_row("QEMU Virtual CPU version 2.5+") > 0);
	CHECK(find_row("4 of 4 CPUs online, xapic, TSC 2095.937 MHz from pit, hypervisor tcg") > 0);
	CHECK(find_row("2 packages x 2 cores x 1 thread, 2 LLC groups") > 0);
	CHECK(find_row("c2c ns min/med/max: LLC 40/52/61 (emulator)") > 0);
	CHECK(find_row("c2c ns min/med/max: other package 130/130/130 (emulator)") > 0);
	i = find_row(" boot    ");
	CHECK(i > 0 && strstr(row(i), "ok") && strstr(row(i), "      2       1       0       1"),
	      "boot: 2 tests, 1 passed, 0 failed, 1 skipped");
	i = find_row(" lockref    ");
	CHECK(i > 0 && strstr(row(i), "FAILED") &&
		  strstr(row(i), "      3       2       1       0"),
	      "lockref: FAILED, 3 tests, 2 passed, 1 failed");
	CHECK(find_row("first failure: lockref/torture_get_put (seed 7)") > 0);
	CHECK(find_row("invariant conservation broken: count 3, expected 4 (seed=7)") > 0);
	i = find_row(" refcount ");
	CHECK(i > 0 && strstr(row(i), "lockref/spinlock"));
	/* 1 CPU: 90M, 20M, 30M, ratio 1.50. */
	CHECK(i > 0 && strstr(row(i + 1), "   1 ") && strstr(row(i + 1), "90.0M") &&
		  strstr(row(i + 1), "20.0M") && strstr(row(i + 1), "30.0M") &&
		  strstr(row(i + 1), "1.50"),
	      "refcount at 1 CPU: '%s'", i > 0 ? row(i + 1) : "");
	CHECK(i > 0 && strstr(row(i + 3), "   4 ") && strstr(row(i + 3), "22.5M"));
	/* Each row names the lock path its BENCH lines timed. */
	CHECK(i > 0 && strstr(row(i + 1), " bare    1 "), "refcount's path: '%s'",
	      i > 0 ? row(i + 1) : "");
	i = find_row(" pathwalk ");
	/* pathwalk has no xadd figure: a dash, and 2.5M / 1.0M = 2.50. */
	CHECK(i > 0 && strstr(row(i + 1), " - ") && strstr(row(i + 1), "2.50"));
	CHECK(i > 0 && strstr(row(i + 1), " switched "), "pathwalk's path: '%s'",
	      i > 0 ? row(i + 1) : "");
	CHECK(find_row("convoy") < 0, "only refcount and pathwalk are tabled");
	CHECK(strstr(row(ROWS - 1), "exit=auto: halted") != NULL);
	if (failures)
		show_page();
}

/* A page too short for the table says how much it left out. */
static void test_page_short(void)
{
	char small[16 * (COLS + 1)];

	results_page(&r, false, "footer", small, 16, COLS);
	CHECK(strstr(small + 14 * (COLS + 1), "more CPU counts in the serial log") ||
		  strstr(small + 13 * (COLS + 1), "more CPU counts in the serial log"),
	      "the cut table is announced");
	CHECK(strstr(small + 15 * (COLS + 1), "footer") != NULL);
}

static void test_status(void)
{
	char line[COLS + 1];
	const char *bar;
	unsigned before, after;

	memset(&r, 0, sizeof(r));
	results_status(&r, 0, line, COLS);
	CHECK(strstr(line, "starting") != NULL);
	feed("KTAP version 1\n1..2\n  KTAP version 1\n  # Subtest: spinlock\n  1..2\n");
	results_test_start(&r, "torture", 1, 1000, 10000);
	results_status(&r, 1000, line, COLS);
	CHECK(strstr(line, "suite 1/2 spinlock") && strstr(line, "1/2 torture") &&
		  strstr(line, "0 s of ~10 s"),
	      "'%s'", line);
	bar = strchr(line, '[');
	before = bar ? (unsigned)strspn(bar + 1, "#") : 99;
	results_status(&r, 9000, line, COLS);
	CHECK(strstr(line, "8 s of ~10 s") != NULL, "'%s'", line);
	bar = strchr(line, '[');
	after = bar ? (unsigned)strspn(bar + 1, "#") : 0;
	CHECK(after > before, "the bar moves within a test: %u then %u", before, after);
	CHECK(strlen(line) == COLS);
	/* Overdue: the bar stops short of the next test's share. */
	results_status(&r, 60000, line, COLS);
	bar = strchr(line, '[');
	CHECK(bar && strspn(bar + 1, "#") < 10, "'%s'", line);
}

/* lib/string.c's helpers, at their edges: a cut copy, a prefix, a number or none. */
static void test_string_helpers(void)
{
	char small[4];
	bool ok;

	str_copy(small, sizeof(small), "lockref");
	CHECK(strcmp(small, "loc") == 0, "cut to fit with its NUL: '%s'", small);
	str_copy(small, sizeof(small), "ok");
	CHECK(strcmp(small, "ok") == 0, "'%s'", small);
	CHECK(str_starts("not ok 2 torture", "not ok ") && !str_starts("ok", "ok 1"));
	CHECK(str_decimal("1234,", &ok) == 1234 && ok);
	CHECK(str_decimal("x1", &ok) == 0 && !ok);
}

int main(void)
{
	test_string_helpers();
	test_page();
	test_page_short();
	test_status();
	return check_exit("test_results");
}
