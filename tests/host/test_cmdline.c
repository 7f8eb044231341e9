// SPDX-License-Identifier: MIT
/*
 * test_cmdline.c - kernel/cmdline.c on good, bad and repeated command lines.
 *
 * platform_log goes to a recorder, so the test can check that a bad word
 * gets its one line naming the word and what was expected.  The parser is
 * called several times in a row on purpose: each call must start from the
 * defaults and from an empty copy of the line (a second, shorter line once
 * inherited the first one's tail).
 */
#include "check.h"
#include "cmdline.h"
#include "kcsan_watch.h"
#include "platform.h"
#include "platform_host.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char last_line[PLATFORM_LINE_MAX + 1];
static unsigned lines;
static char all_lines[16384]; /* every line since the last parse, one per "\n" */

static void record(const char *line)
{
	size_t n = strlen(all_lines);

	snprintf(last_line, sizeof(last_line), "%s", line);
	snprintf(all_lines + n, sizeof(all_lines) - n, "%s\n", line);
	lines++;
}

/* Parse @line; return how many lines it printed. */
static unsigned parse(const char *line)
{
	unsigned before = lines;

	last_line[0] = '\0';
	all_lines[0] = '\0';
	cmdline_parse(line);
	return lines - before;
}

/* The lines cmdline_verdict prints after parsing @line, into all_lines; returns its verdict. */
static bool verdict_of(const char *line, bool pass)
{
	struct run_tally t = {.started = true,
			      .suites = 2,
			      .planned = 7,
			      .passed = 5,
			      .failed = 1,
			      .skipped = 1,
			      .ms = 4420};

	parse(line);
	all_lines[0] = '\0';
	return cmdline_verdict(&t, pass);
}

/*
 * Every word not carried out is said again beside the verdict, with what
 * was done; one of a key that selects what is tested fails the run, a
 * harmless one does not; then one tally line, plurals right.
 */
static void check_verdict(void)
{
	char longline[1500];

	CHECK(verdict_of("run=tests quick", true) && !cmdline_fails() &&
		  strcmp(all_lines, "# tally: 2 suites, 7 tests: 5 passed, 1 failed, 1 skipped in "
				    "4.4 s\n") == 0,
	      "clean line: '%s'", all_lines);
	CHECK(!verdict_of("", false), "a failed run stays failed");
	CHECK(!verdict_of("spinlock.kind=mcs quick", true) && cmdline_fails() &&
		  strstr(all_lines, "# cmdline: 'spinlock.kind=mcs': not understood; the default "
				    "used; it selects what is tested, so the run fails; expected "
				    "ticket, qspinlock or tas\n") &&
		  strstr(all_lines, "; 1 command-line word ignored or not understood, 1 of them "
				    "failing the run\n"),
	      "spinlock.kind typo: '%s'", all_lines);
	CHECK(!verdict_of("run=lockrefs", true) &&
		  strstr(all_lines, "'run=lockrefs': not understood"),
	      "run= typo: '%s'", all_lines);
	CHECK(!verdict_of("torture.busted=lockrf", true), "torture.busted= typo passed");
	CHECK(!verdict_of("spinlock.knid=qspinlock", true) &&
		  strstr(all_lines, "'spinlock.knid=qspinlock': unknown key; ignored; it selects "
				    "what is tested, so the run fails; the closest known key: "
				    "spinlock.kind\n"),
	      "unknown key: '%s'", all_lines);
	/* Why a value was refused, said again beside the verdict (a range, as worded at boot). */
	CHECK(!verdict_of("smp.max=0", true) &&
		  strstr(all_lines,
			 "# cmdline: 'smp.max=0': not understood; the default used; it "
			 "selects what is tested, so the run fails; expected a CPU count "
			 "from 1 to 256\n"),
	      "smp.max=0: '%s'", all_lines);
	/* Harmless: said again, counted, and the run keeps its verdict. */
	CHECK(verdict_of("trace=sometimes console=tv exit=later torture.secs=0", true) &&
		  !cmdline_fails() &&
		  strstr(all_lines,
			 "# cmdline: 'console=tv': not understood; the default used "
			 "(harmless: it does not select what is tested); expected serial, "
			 "screen or both\n") &&
		  strstr(all_lines, "; 4 command-line words ignored or not understood, 0 of them"),
	      "harmless words: '%s'", all_lines);
	/* The same key twice: the later word is used; the overridden one is named. */
	CHECK(!verdict_of("spinlock.kind=ticket spinlock.kind=qspinlock", true) &&
		  opts.spinlock_kind == 1 &&
		  strstr(all_lines,
			 "'spinlock.kind=ticket': overridden by a later word of the same "
			 "key; it selects"),
	      "repeated key: kind %u '%s'", opts.spinlock_kind, all_lines);
	CHECK(verdict_of("seed=7 seed=7", true) && strstr(all_lines, "'seed=7': given twice; "),
	      "the same word twice: '%s'", all_lines);
	CHECK(
	    !verdict_of("spinlock.kind=qspinlock spinlock.kind=mcs", true) &&
		opts.spinlock_kind == 1 &&
		strstr(all_lines, "'spinlock.kind=mcs': not understood; the earlier word's value"),
	    "a bad second word keeps the first: kind %u '%s'", opts.spinlock_kind, all_lines);
	/* A control byte: the word is ignored and shown escaped, on one line. */
	CHECK(parse("run=bo\x01ot quick") == 1 &&
		  strstr(last_line,
			 "cmdline: 'run=bo\\x01ot': a control byte in the word; ignored") &&
		  opts.run == SUITES_ALL && opts.quick &&
		  strcmp(opts.shown, "run=bo\\x01ot quick") == 0,
	      "control byte: '%s' shown '%s'", last_line, opts.shown);
	CHECK(!verdict_of("run=bo\x01ot", true) && !strchr(all_lines, '\x01'),
	      "control byte beside the verdict: '%s'", all_lines);
	CHECK(verdict_of("trace=o\x7f-f", true),
	      "a control byte in a harmless word failed the run");
	/* Over the limit: the tail is named, and it fails the run (it may have selected). */
	memset(longline, 'q', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	memcpy(longline, "quick ", 6);
	memcpy(longline + 1200, " run=boot ", 10);
	CHECK(!verdict_of(longline, true) && strstr(all_lines, "past the length limit; ignored"),
	      "long line: '%s'", all_lines);
	/* More words than are kept: the rest counted in one line. */
	CHECK(verdict_of("a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1 j=1 k=1 l=1 m=1 n=1 o=1 p=1 q=1 r=1",
			 false) == false &&
		  strstr(all_lines, "# cmdline: 2 more words ignored or not understood") &&
		  strstr(all_lines, "18 command-line words ignored or not understood, 18 of them"),
	      "many words: '%s'", all_lines);
	/* Plurals: one suite, one test; and a run that never reached its tests. */
	struct run_tally one = {.started = true, .suites = 1, .planned = 1, .passed = 1, .ms = 999};
	parse("");
	all_lines[0] = '\0';
	CHECK(cmdline_verdict(&one, true) &&
		  strcmp(all_lines,
			 "# tally: 1 suite, 1 test: 1 passed, 0 failed, 0 skipped in 0.9 "
			 "s\n") == 0,
	      "singular: '%s'", all_lines);
	struct run_tally none = {0};
	all_lines[0] = '\0';
	CHECK(!cmdline_verdict(&none, false) && strstr(all_lines, "# tally: no test ran"),
	      "no runner: '%s'", all_lines);
}

/*
 * One suite of SUITE_LIST: run=<name> sets its bit alone, and its group
 * says whether run=tests and run=all (the default) hold it.
 */
static void check_suite(const char *name, unsigned bit, enum suite_group group)
{
	char word[32];

	snprintf(word, sizeof(word), "run=%s", name);
	CHECK(parse(word) == 0 && opts.run == bit, "%s: run %#x, want %#x", word, opts.run, bit);
	CHECK(!(SUITES_TESTS & bit) == (group != SUITE_GROUP_TESTS), "%s: run=tests is %#x", name,
	      SUITES_TESTS);
	CHECK(!(SUITES_ALL & bit) == (group == SUITE_GROUP_NAMED), "%s: run=all is %#x", name,
	      SUITES_ALL);
}

static void test_suites(void)
{
#define TEST_X_SUITE(name, id, group, ...) check_suite(#name, SUITE_##id, SUITE_GROUP_##group);
	SUITE_LIST(TEST_X_SUITE)
#undef TEST_X_SUITE
	/* docs/interface.md: lockdep's planted mistakes run only when named. */
	CHECK(!(SUITES_ALL & SUITE_LOCKDEP), "run=all %#x holds lockdep", SUITES_ALL);
	CHECK(parse("run=lockref,lockdep") == 0 && opts.run == (SUITE_LOCKREF | SUITE_LOCKDEP),
	      "run=lockref,lockdep: run %#x", opts.run);
	CHECK(parse("run=lockdeps") == 1 && strstr(last_line, "'run=lockdeps'"),
	      "an unknown suite: '%s'", last_line);
}

int main(void)
{
	char longline[1500];

	host_set_log_hook(record);
	CHECK(parse("") == 0, "empty line printed: %s", last_line);
	CHECK(opts.run == SUITES_ALL && opts.seed == 1 && !opts.quick && opts.raw[0] == '\0',
	      "defaults: run %#x seed %llu raw '%s'", opts.run, (unsigned long long)opts.seed,
	      opts.raw);

	test_suites();

	/* Regression: the second, shorter line used to read "seed=7 quick". */
	parse("run=fs quick");
	CHECK(opts.run == SUITE_FS && opts.quick, "first line: run %#x", opts.run);
	CHECK(parse("seed=7") == 0, "printed: %s", last_line);
	CHECK(strcmp(opts.raw, "seed=7") == 0, "raw is '%s', want 'seed=7'", opts.raw);
	CHECK(!opts.quick, "quick inherited from the previous line");
	CHECK(opts.run == SUITES_ALL && opts.seed == 7, "run %#x seed %llu", opts.run,
	      (unsigned long long)opts.seed);

	parse(" \trun=boot,lockref\tseed=0x10  lockref.policy=v7 smp.max=2 ");
	CHECK(opts.run == (SUITE_BOOT | SUITE_LOCKREF) && opts.seed == 16 &&
		  strcmp(opts.lockref_policy, "v7") == 0 && opts.smp_max == 2,
	      "run %#x seed %llu policy %s smp.max %u", opts.run, (unsigned long long)opts.seed,
	      opts.lockref_policy, opts.smp_max);

	CHECK(parse("seed=12x") == 1 && strstr(last_line, "'seed=12x': expected a number"),
	      "bad number: '%s'", last_line);
	CHECK(opts.seed == 1, "bad seed changed it to %llu", (unsigned long long)opts.seed);
	CHECK(parse("seed=18446744073709551616") == 1, "overflowing seed accepted");
	CHECK(parse("bogus=1") == 1 &&
		  strstr(last_line, "unknown option 'bogus=1' (known: bench") &&
		  !strstr(last_line, "closest"),
	      "'%s'", last_line);
	/* A misspelt key: the closest known key named first, the known keys sorted. */
	CHECK(parse("spinlok.kind=tas") == 1 &&
		  strstr(last_line, "unknown option 'spinlok.kind=tas' (the closest known key: "
				    "spinlock.kind; known: bench.cpus bench.ms bench.place") &&
		  strstr(last_line, " trace trace.events trace.test); ignored"),
	      "'%s'", last_line);
	CHECK(parse("kcsan.slot=3") == 1 && strstr(last_line, "closest known key: kcsan.slots;"),
	      "'%s'", last_line);
	/* cmdline_given: the value of the word that parsed, "" for a flag, NULL otherwise. */
	CHECK(parse("kcsan=on quick smp.max=0") == 1 && cmdline_given("kcsan") &&
		  strcmp(cmdline_given("kcsan"), "on") == 0 && cmdline_given("quick") &&
		  !*cmdline_given("quick") && !cmdline_given("smp.max") && !cmdline_given("seed") &&
		  !cmdline_given("nosuchkey"),
	      "cmdline_given after 'kcsan=on quick smp.max=0'");
	CHECK(parse("quick=1") == 1 && !opts.quick, "flag with a value: '%s'", last_line);
	CHECK(parse("run=") == 1 && parse("run=,") == 1 && parse("run=boot,,fs") == 1 &&
		  parse("run=nothing") == 1,
	      "bad run= lists accepted");
	CHECK(parse("run=tests,bench") == 0 && opts.run == (SUITES_TESTS | SUITE_BENCH),
	      "run=tests,bench: run %#x", opts.run);

	/* fs.walk=: rcu by default, ref on request, a bad value one line and the default. */
	CHECK(parse("") == 0 && opts.fs_walk == FS_WALK_RCU, "default fs.walk: %u", opts.fs_walk);
	CHECK(parse("fs.walk=ref") == 0 && opts.fs_walk == FS_WALK_REF, "fs.walk=ref: %u",
	      opts.fs_walk);
	CHECK(parse("fs.walk=rcu") == 0 && opts.fs_walk == FS_WALK_RCU, "fs.walk=rcu: %u",
	      opts.fs_walk);
	CHECK(parse("fs.walk=fast") == 1 &&
		  strstr(last_line,
			 "cmdline: 'fs.walk=fast': expected rcu or ref; keeping the default") &&
		  opts.fs_walk == FS_WALK_RCU,
	      "bad fs.walk: '%s' (walk %u)", last_line, opts.fs_walk);

	/* trace= is the same kind of list, with off alone and all among its words. */
	CHECK(parse("trace=spin,pv") == 0 &&
		  opts.trace_groups == (TRACE_GROUP_SPIN | TRACE_GROUP_PV),
	      "trace=spin,pv: groups %#x", opts.trace_groups);
	CHECK(parse("trace=all") == 0 && opts.trace_groups == TRACE_GROUP_ALL, "trace=all: %#x",
	      opts.trace_groups);
	CHECK(parse("trace=off") == 0 && opts.trace_groups == 0, "trace=off: %#x",
	      opts.trace_groups);
	CHECK(parse("trace=") == 1 && parse("trace=spin,,pv") == 1 &&
		  parse("trace=off,spin") == 1 && parse("trace=sometimes") == 1 &&
		  opts.trace_groups == 0,
	      "bad trace= lists accepted: groups %#x", opts.trace_groups);
	CHECK(parse("torture.secs=0") == 1 && parse("torture.secs=3601") == 1,
	      "out-of-range seconds accepted");
	CHECK(parse("bench.cpus=8,2,4,2 bench.place=spread bench.plan=1") == 0 &&
		  opts.bench_cpus == BENCH_CPUS_LIST && opts.bench_cpus_n == 3 &&
		  opts.bench_cpus_list[0] == 2 && opts.bench_cpus_list[2] == 8 &&
		  opts.bench_place == 2 && opts.bench_plan,
	      "bench.cpus list kept ascending, once each: %u counts", opts.bench_cpus_n);
	CHECK(parse("bench.cpus=all") == 0 && opts.bench_cpus == BENCH_CPUS_ALL);
	CHECK(parse("bench.cpus=0,3") == 1 && strstr(last_line, "'bench.cpus=0,3': expected geo") &&
		  parse("bench.cpus=") == 1 && parse("bench.cpus=2,,4") == 1 &&
		  parse("bench.cpus=257") == 1 && opts.bench_cpus == BENCH_CPUS_GEO,
	      "bad bench.cpus= accepted: '%s'", last_line);
	CHECK(parse("bench.place=far") == 1 &&
		  strstr(last_line, "expected cores, compact or spread") && opts.bench_place == 0,
	      "bad bench.place= accepted: '%s'", last_line);

	/* kcsan= and its options: not given is -1 (on where built in); each bound exact. */
	CHECK(parse("") == 0 && opts.kcsan == -1 && opts.kcsan_skip == KCSAN_SKIP_DEFAULT &&
		  opts.kcsan_delay_us == KCSAN_DELAY_DEFAULT && opts.kcsan_slots == KCSAN_SLOTS_MAX,
	      "kcsan defaults: %d %u %u %u", opts.kcsan, opts.kcsan_skip, opts.kcsan_delay_us,
	      opts.kcsan_slots);
	CHECK(parse("kcsan=off kcsan.skip=1 kcsan.delay=8 kcsan.slots=1") == 0 && opts.kcsan == 0 &&
		  opts.kcsan_skip == 1 && opts.kcsan_delay_us == 8 && opts.kcsan_slots == 1,
	      "kcsan lower bounds: %d %u %u %u", opts.kcsan, opts.kcsan_skip, opts.kcsan_delay_us,
	      opts.kcsan_slots);
	CHECK(parse("kcsan=on kcsan.skip=1000000 kcsan.delay=10000 kcsan.slots=64") == 0 &&
		  opts.kcsan == 1 && opts.kcsan_skip == KCSAN_SKIP_MAX &&
		  opts.kcsan_delay_us == KCSAN_DELAY_MAX && opts.kcsan_slots == KCSAN_SLOTS_MAX,
	      "kcsan upper bounds");
	CHECK(parse("kcsan.skip=0") == 1 &&
		  strstr(last_line, "cmdline: 'kcsan.skip=0': expected a count from 1 to 1000000; "
				    "keeping the default") &&
		  opts.kcsan_skip == KCSAN_SKIP_DEFAULT,
	      "kcsan.skip=0: '%s'", last_line);
	CHECK(parse("kcsan.skip=1000001 kcsan.delay=7 kcsan.delay=10001 kcsan.slots=0 "
		    "kcsan.slots=65 kcsan=yes") == 6 &&
		  opts.kcsan == -1 && opts.kcsan_skip == KCSAN_SKIP_DEFAULT &&
		  opts.kcsan_delay_us == KCSAN_DELAY_DEFAULT && opts.kcsan_slots == KCSAN_SLOTS_MAX,
	      "out-of-range kcsan words: '%s'", last_line);

	/* selftest.stall=CPU:MS[:where]: all or nothing, one line for each bad word. */
	CHECK(parse("selftest.stall=1:3000:deadline") == 0 && opts.stall_cpu == 1 &&
		  opts.stall_ms == 3000 && opts.stall_where == STALL_DEADLINE,
	      "stall: cpu %u ms %u where %d", opts.stall_cpu, opts.stall_ms, opts.stall_where);
	CHECK(parse("selftest.stall=3:1") == 0 && opts.stall_where == STALL_START,
	      "stall without where: %d", opts.stall_where);
	CHECK(parse("selftest.stall=2:50:fs-start") == 0 && opts.stall_where == STALL_FS_START,
	      "stall at fs-start: %d", opts.stall_where);
	const char *const bad_stalls[] = {"1:3000:nowhere", "1:0", "1:60001:start", "0:100",
					  "256:100",	    "1",   "x:1",	    "1:",
					  "1:5:",	    ":5",  "1:5:start:x"};
	for (unsigned i = 0; i < sizeof(bad_stalls) / sizeof(bad_stalls[0]); i++) {
		char word[64];

		snprintf(word, sizeof(word), "selftest.stall=%s", bad_stalls[i]);
		CHECK(parse(word) == 1 && strstr(last_line, word) &&
			  strstr(last_line, "expected CPU:MS[:where]") &&
			  opts.stall_where == STALL_NONE,
		      "%s: '%s'", word, last_line);
	}

	/* Any white space separates words: a newline in a word made a two-line message. */
	CHECK(parse("seed=7\nquick\r\n") == 0 && opts.seed == 7 && opts.quick,
	      "newline-separated words: '%s'", last_line);
	CHECK(parse("bogus\nword") == 2 && !strchr(last_line, '\n'),
	      "each bad word gets one line: '%s'", last_line);

	/* Over the limit: cut at 1023 bytes, said once, and still terminated. */
	memset(longline, 'q', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	memcpy(longline, "quick ", 6);
	CHECK(parse(longline) == 2 && strlen(opts.raw) == 1023 && opts.quick,
	      "long line: raw %zu bytes, last '%s'", strlen(opts.raw), last_line);
	CHECK(parse("quick") == 0 && strcmp(opts.raw, "quick") == 0,
	      "after the long line raw is %zu bytes", strlen(opts.raw));

	check_verdict();
	return check_exit("test_cmdline");
}
