// SPDX-License-Identifier: MIT
/*
 * cmdline.c - parse "key=value" words and bare flags into `opts`.
 *
 * Table-driven: each option names its key, how to parse its value, and
 * what it expects, so the error line for a bad word can say exactly that.
 * Pure C on lib/: the native benchmark program (tests/bench) parses its
 * arguments with this same file, so both take the same words.
 */
#include "cmdline.h"

#include "lockref.h"
#include "platform.h"
#include "spinlock.h"
#include "string.h"

#define DEFAULT_SEED	   1
#define DEFAULT_TORTURE_MS 2000
#define QUICK_TORTURE_MS   300
#define DEFAULT_BENCH_MS   50
#define QUICK_BENCH_MS	   10
#define DEFAULT_TRIALS	   5
#define QUICK_TRIALS	   3
#define MAX_SECONDS	   3600

struct kernel_options opts;
static char raw_copy[CMDLINE_MAX];

/*
 * Words are separated by any ASCII white space, as Linux separates its
 * command line: a newline inside a word would otherwise break the one
 * line its error message must be (found by tests/fuzz/fuzz_cmdline.c).
 */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Parse a decimal or 0x-hex number in [lo, hi]. */
static bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Index of @s in the NULL-terminated @names, or -1. */
static int lookup(const char *s, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static const char *const suite_names[] = {"boot",  "spinlock", "lockref", "fs",
					  "bench", "lockdep",  NULL};

/* A word of a comma list that stands for several bits at once ("all"). */
struct word_mask {
	const char *word;
	unsigned mask;
};

/*
 * A comma list of words, each one of @names (names[i] sets bit i) or of
 * @groups (its mask): the union in *@mask.  False, *@mask unchanged, on an
 * unknown or empty word or when the union is empty.
 */
static bool parse_word_list(const char *v, const char *const *names, const struct word_mask *groups,
			    unsigned *mask)
{
	char word[16];
	unsigned bits = 0;

	while (*v) {
		const struct word_mask *g = groups;
		size_t n = 0;
		int i;

		while (v[n] && v[n] != ',')
			n++;
		if (n == 0 || n >= sizeof(word))
			return false;
		memcpy(word, v, n);
		word[n] = '\0';
		i = lookup(word, names);
		while (i < 0 && g->word && strcmp(g->word, word) != 0)
			g++;
		if (i < 0 && !g->word)
			return false;
		bits |= i >= 0 ? 1u << i : g->mask;
		v += n;
		if (*v == ',')
			v++;
	}
	if (!bits)
		return false;
	*mask = bits;
	return true;
}

static const struct word_mask suite_groups[] = {
    {"tests", SUITES_TESTS},
    {"all", SUITES_ALL},
    {NULL, 0},
};

static bool parse_run(const char *v)
{
	return parse_word_list(v, suite_names, suite_groups, &opts.run);
}

enum opt_kind { OPT_FLAG, OPT_NUMBER, OPT_CHOICE, OPT_SPECIAL };

struct option {
	const char *key;
	enum opt_kind kind;
	const char *expected;	    /* for the error line */
	uint64_t lo, hi;	    /* OPT_NUMBER */
	const char *const *choices; /* OPT_CHOICE: value index stored */
	void (*store)(uint64_t v);
};

/*
 * An option's store: opts.field = (type)(v + offset), v being the number or the
 * choice's index.  Offset 1 is for fields whose 0 means "not given".
 */
#define DEFINE_SETTER(name, field, type, offset)                                                   \
	static void name(uint64_t v)                                                               \
	{                                                                                          \
		opts.field = (type)(v + (offset));                                                 \
	}

DEFINE_SETTER(set_seed, seed, uint64_t, 0)
DEFINE_SETTER(set_bench_ms, bench_ms, unsigned, 0)
DEFINE_SETTER(set_trials, bench_trials, unsigned, 0)
DEFINE_SETTER(set_retries, lockref_retries, int, 0)
DEFINE_SETTER(set_wait, lockref_wait, int, 0)
DEFINE_SETTER(set_cas, lockref_cas, unsigned, 0)
DEFINE_SETTER(set_smp_max, smp_max, unsigned, 0)
DEFINE_SETTER(set_busted, busted, enum busted_kind, 1)
DEFINE_SETTER(set_fault, fault, enum fault_kind, 1)
DEFINE_SETTER(set_exit, exit, enum exit_kind, 0)
DEFINE_SETTER(set_spinlock_pv, spinlock_pv, enum pv_kind, 0)
DEFINE_SETTER(set_console, console, unsigned, 1)
DEFINE_SETTER(set_screen_dump, screen_dump, bool, 0)
DEFINE_SETTER(set_spinlock_kind, spinlock_kind, unsigned, 0)

static void set_torture_s(uint64_t v)
{
	opts.torture_ms = (unsigned)v * 1000;
}

static const char *const busted_names[] = {"lockref",
					   "spinlock",
					   "qspinlock",
					   "abba",
					   "unfair",
					   "qspinlock-lost-kick",
					   "spinlock-lost-kick",
					   "qspinlock-skip-head",
					   "qspinlock-early-handoff",
					   "qspinlock-plain-tail",
					   NULL};
static const char *const fault_names[] = {"ud", "gp", "pf", NULL};
/* Indexed by enum exit_kind; power.c names the choice in its last line. */
const char *const exit_names[] = {
    [EXIT_AUTO] = "auto",
    [EXIT_HALT] = "halt",
    [EXIT_REBOOT] = "reboot",
    [EXIT_POWEROFF] = "poweroff",
    NULL,
};
/* In enum pv_kind order. */
static const char *const pv_names[] = {"auto", "on", "off", NULL};
/* Indices + 1 are CONSOLE_SERIAL, CONSOLE_SCREEN and both. */
static const char *const console_names[] = {"serial", "screen", "both", NULL};
static const char *const policy_names[] = {"mainline", "v7", "locked", NULL};
static const char *const bool_names[] = {"0", "1", NULL};
/* lockdep= and lockdep.panic=: index 1 is on. */
static const char *const on_off_names[] = {"off", "on", NULL};
/* Indexed by enum lockref_cas (lib/lockref.h); the boot log and # ENV use it too. */
const char *const lockref_cas_names[] = {
    [LOCKREF_CAS_CMPXCHG8B] = "cmpxchg8b",
    [LOCKREF_CAS_CMPXCHGQ] = "cmpxchgq",
    NULL,
};

DEFINE_SETTER(set_trace_events, trace_events, unsigned, 0)
DEFINE_SETTER(set_lockdep, lockdep, int, 0)
DEFINE_SETTER(set_lockdep_panic, lockdep_panic, bool, 0)
DEFINE_SETTER(set_lockdep_classes, lockdep_classes, unsigned, 0)
DEFINE_SETTER(set_fs_walk, fs_walk, unsigned, 0)

/* fs.walk=: RCU-walk (the default) or a reference on every component (fs/fs.h). */
const char *const fs_walk_names[] = {"rcu", "ref", NULL};

/* The groups of trace=, in TRACE_GROUP_* bit order. */
static const char *const trace_group_names[] = {"spin", "lockref", "pv", "barrier", "test", NULL};

static const struct word_mask trace_all[] = {{"all", TRACE_GROUP_ALL}, {NULL, 0}};

/* trace=off, or a comma list of trace_group_names and "all". */
static bool parse_trace(const char *v)
{
	if (strcmp(v, "off") == 0) {
		opts.trace_groups = 0;
		return true;
	}
	return parse_word_list(v, trace_group_names, trace_all, &opts.trace_groups);
}

/* trace.test=NAME: a test's name, one that fits. */
static bool parse_trace_test(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= sizeof(opts.trace_test))
		return false;
	memcpy(opts.trace_test, v, n + 1);
	return true;
}

/* Indexed by enum stall_where (cmdline.h); ktest.c names the point in its lines. */
const char *const stall_where_names[] = {
    [STALL_NONE] = "",
    [STALL_START] = "start",
    [STALL_FS_START] = "fs-start",
    [STALL_DEADLINE] = "deadline",
    NULL,
};

/*
 * selftest.stall=CPU:MS[:where]: CPU 1 .. MAX_CPUS-1 (the boot CPU runs
 * the runner; whether the CPU is online is checked once the CPUs are
 * counted), MS 1 .. STALL_MS_MAX, where one of stall_where_names (start
 * if left out).  All or nothing: a bad part keeps the default, no stall.
 */
static bool parse_stall(const char *v)
{
	char num[24];
	uint64_t cpu, ms;
	int where = STALL_START;
	const char *colon = strchr(v, ':'), *second;
	size_t n;

	if (!colon || (size_t)(colon - v) >= sizeof(num))
		return false;
	memcpy(num, v, (size_t)(colon - v));
	num[colon - v] = '\0';
	if (!parse_u64(num, 1, MAX_CPUS - 1, &cpu))
		return false;
	second = strchr(colon + 1, ':');
	n = second ? (size_t)(second - colon - 1) : strlen(colon + 1);
	if (n >= sizeof(num))
		return false;
	memcpy(num, colon + 1, n);
	num[n] = '\0';
	if (!parse_u64(num, 1, STALL_MS_MAX, &ms))
		return false;
	if (second && ((where = lookup(second + 1, stall_where_names)) <= STALL_NONE))
		return false;
	opts.stall_cpu = (unsigned)cpu;
	opts.stall_ms = (unsigned)ms;
	opts.stall_where = (enum stall_where)where;
	return true;
}

DEFINE_SETTER(set_bench_place, bench_place, unsigned, 0)
DEFINE_SETTER(set_bench_plan, bench_plan, bool, 0)
/* In enum topo_place order (lib/topology.h). */
static const char *const place_names[] = {"cores", "compact", "spread", NULL};

/* bench.cpus=geo, all, or a comma list of CPU counts from 1 to MAX_CPUS, kept ascending. */
static bool parse_bench_cpus(const char *v)
{
	uint16_t list[BENCH_CPUS_LIST_MAX];
	unsigned n = 0;

	if (strcmp(v, "geo") == 0 || strcmp(v, "all") == 0) {
		opts.bench_cpus = v[0] == 'g' ? BENCH_CPUS_GEO : BENCH_CPUS_ALL;
		return true;
	}
	while (*v) {
		char num[8];
		size_t len = 0;
		uint64_t c;
		unsigned at;

		while (v[len] && v[len] != ',')
			len++;
		if (len == 0 || len >= sizeof(num) || n == BENCH_CPUS_LIST_MAX)
			return false;
		memcpy(num, v, len);
		num[len] = '\0';
		if (!parse_u64(num, 1, MAX_CPUS, &c))
			return false;
		for (at = 0; at < n && list[at] < c; at++)
			;
		if (at == n || list[at] != c) {
			memmove(&list[at + 1], &list[at], (n - at) * sizeof(list[0]));
			list[at] = (uint16_t)c;
			n++;
		}
		v += len + (v[len] == ',');
	}
	if (n == 0)
		return false;
	opts.bench_cpus = BENCH_CPUS_LIST;
	opts.bench_cpus_n = n;
	memcpy(opts.bench_cpus_list, list, sizeof(list));
	return true;
}

static void set_policy(uint64_t v)
{
	memcpy(opts.lockref_policy, policy_names[v], strlen(policy_names[v]) + 1);
}

static const struct option options[] = {
    {"run", OPT_SPECIAL, "a comma list of boot, spinlock, lockref, fs, bench, tests, all", 0, 0,
     NULL, NULL},
    {"quick", OPT_FLAG, "no value", 0, 0, NULL, NULL},
    {"seed", OPT_NUMBER, "a number", 0, UINT64_MAX, NULL, set_seed},
    {"torture.secs", OPT_NUMBER, "seconds from 1 to 3600", 1, MAX_SECONDS, NULL, set_torture_s},
    {"bench.ms", OPT_NUMBER, "milliseconds from 1 to 60000", 1, 60000, NULL, set_bench_ms},
    {"bench.trials", OPT_NUMBER, "a count from 1 to 101", 1, 101, NULL, set_trials},
    {"lockref.policy", OPT_CHOICE, "mainline, v7 or locked", 0, 0, policy_names, set_policy},
    /* The library's own limit (lockref_set_policy refuses more): one range, checked here. */
    {"lockref.retries", OPT_NUMBER, "a count from 1 to 1000 (LOCKREF_RETRIES_MAX)", 1,
     LOCKREF_RETRIES_MAX, NULL, set_retries},
    {"lockref.wait", OPT_CHOICE, "0 or 1", 0, 0, bool_names, set_wait},
    {"lockref.cas", OPT_CHOICE, "cmpxchg8b or cmpxchgq", 0, 0, lockref_cas_names, set_cas},
    {"smp.max", OPT_NUMBER, "a CPU count from 1 to 256", 1, MAX_CPUS, NULL, set_smp_max},
    {"torture.busted", OPT_CHOICE,
     "lockref, spinlock, qspinlock, abba, unfair, qspinlock-lost-kick, spinlock-lost-kick, "
     "qspinlock-skip-head, qspinlock-early-handoff or qspinlock-plain-tail",
     0, 0, busted_names, set_busted},
    {"selftest.fault", OPT_CHOICE, "ud, gp or pf", 0, 0, fault_names, set_fault},
    {"console", OPT_CHOICE, "serial, screen or both", 0, 0, console_names, set_console},
    {"exit", OPT_CHOICE, "auto, halt, reboot or poweroff", 0, 0, exit_names, set_exit},
    {"spinlock.pv", OPT_CHOICE, "auto, on or off", 0, 0, pv_names, set_spinlock_pv},
    {"screen.dump", OPT_CHOICE, "0 or 1", 0, 0, bool_names, set_screen_dump},
    {"spinlock.kind", OPT_CHOICE, "ticket or qspinlock", 0, 0, spin_kind_names, set_spinlock_kind},
    {"trace", OPT_SPECIAL, "off, all, or a comma list of spin, lockref, pv, barrier, test", 0, 0,
     NULL, NULL},
    {"trace.events", OPT_NUMBER, "events per CPU from 16 to 65536", TRACE_EVENTS_MIN,
     TRACE_EVENTS_MAX, NULL, set_trace_events},
    {"trace.test", OPT_SPECIAL, "a test's name (up to 39 characters)", 0, 0, NULL, NULL},
    {"lockdep", OPT_CHOICE, "on or off", 0, 0, on_off_names, set_lockdep},
    {"lockdep.panic", OPT_CHOICE, "on or off", 0, 0, on_off_names, set_lockdep_panic},
    {"lockdep.classes", OPT_NUMBER, "a class count from 4 to 511", LOCKDEP_CLASSES_MIN,
     LOCKDEP_CLASSES - 1, NULL, set_lockdep_classes},
    {"fs.walk", OPT_CHOICE, "rcu or ref", 0, 0, fs_walk_names, set_fs_walk},
    {"selftest.stall", OPT_SPECIAL,
     "CPU:MS[:where]: a CPU from 1 to 255, milliseconds from 1 to 60000, where start, fs-start "
     "or deadline",
     0, 0, NULL, NULL},
    {"bench.place", OPT_CHOICE, "cores, compact or spread", 0, 0, place_names, set_bench_place},
    {"bench.cpus", OPT_SPECIAL, "geo, all, or a comma list of CPU counts from 1 to 256", 0, 0, NULL,
     NULL},
    {"bench.plan", OPT_CHOICE, "0 or 1", 0, 0, bool_names, set_bench_plan},
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

/* Every key of options[], space-separated, for the unknown-option line. */
static const char *known_keys(void)
{
	static char keys[NOPTIONS * 20];
	size_t len = 0;

	for (size_t i = 0; i < NOPTIONS; i++) {
		size_t n = strlen(options[i].key);

		if (len + 1 + n >= sizeof(keys))
			break;
		keys[len++] = ' ';
		memcpy(keys + len, options[i].key, n);
		len += n;
	}
	keys[len] = '\0';
	return keys;
}

static void parse_word(char *word)
{
	char *eq = strchr(word, '=');
	const char *value = eq ? eq + 1 : NULL;

	if (eq)
		*eq = '\0';
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option *o = &options[i];
		uint64_t v;
		bool ok = false;

		if (strcmp(word, o->key) != 0)
			continue;
		switch (o->kind) {
		case OPT_FLAG:
			ok = !value;
			if (ok)
				opts.quick = true;
			break;
		case OPT_SPECIAL:
			ok = value && (strcmp(o->key, "trace") == 0	   ? parse_trace(value)
				       : strcmp(o->key, "trace.test") == 0 ? parse_trace_test(value)
				       : strcmp(o->key, "selftest.stall") == 0 ? parse_stall(value)
				       : strcmp(o->key, "bench.cpus") == 0 ? parse_bench_cpus(value)
									   : parse_run(value));
			break;
		case OPT_NUMBER:
			ok = value && parse_u64(value, o->lo, o->hi, &v);
			if (ok)
				o->store(v);
			break;
		case OPT_CHOICE: {
			int idx = value ? lookup(value, o->choices) : -1;
			ok = idx >= 0;
			if (ok)
				o->store((uint64_t)idx);
			break;
		}
		}
		if (!ok)
			platform_log("cmdline: '%s%s%s': expected %s; keeping the default", word,
				     value ? "=" : "", value ? value : "", o->expected);
		return;
	}
	platform_log("cmdline: unknown option '%s%s%s' (known:%s); ignored", word, value ? "=" : "",
		     value ? value : "", known_keys());
}

void cmdline_parse(const char *line)
{
	char buf[CMDLINE_MAX];
	size_t len = strnlen(line, CMDLINE_MAX);

	opts = (struct kernel_options){
	    .run = SUITES_ALL,
	    .seed = DEFAULT_SEED,
	    .torture_ms = 0,
	    .bench_ms = 0,
	    .bench_trials = 0,
	    .lockref_policy = "mainline",
	    .lockref_retries = -1,
	    .lockref_wait = -1,
	    .lockref_cas = LOCKREF_CAS_CMPXCHG8B,
	    .smp_max = MAX_CPUS,
	    .exit = EXIT_AUTO,
	    .spinlock_pv = PV_AUTO,
	    .spinlock_kind = SPIN_KIND_TICKET,
	    .trace_events = TRACE_EVENTS_DEFAULT,
	    .lockdep = -1,
	    .lockdep_classes = LOCKDEP_CLASSES - 1,
	};
	if (len == CMDLINE_MAX) {
		platform_log("cmdline: longer than %u bytes; the rest is ignored", CMDLINE_MAX - 1);
		len = CMDLINE_MAX - 1;
	}
	/* Terminated here: an earlier, longer line's tail must not show through. */
	memcpy(raw_copy, line, len);
	raw_copy[len] = '\0';
	opts.raw = raw_copy;
	memcpy(buf, raw_copy, sizeof(buf));

	for (char *p = buf; *p;) {
		while (is_space(*p))
			p++;
		if (!*p)
			break;
		char *word = p;
		while (*p && !is_space(*p))
			p++;
		if (*p)
			*p++ = '\0';
		parse_word(word);
	}
	/* Durations not given take the defaults, shorter under quick. */
	if (!opts.torture_ms)
		opts.torture_ms = opts.quick ? QUICK_TORTURE_MS : DEFAULT_TORTURE_MS;
	if (!opts.bench_ms)
		opts.bench_ms = opts.quick ? QUICK_BENCH_MS : DEFAULT_BENCH_MS;
	if (!opts.bench_trials)
		opts.bench_trials = opts.quick ? QUICK_TRIALS : DEFAULT_TRIALS;
	/* Checking locks while measuring them would measure the checker: off for bench alone. */
	if (opts.lockdep < 0)
		opts.lockdep = opts.run != SUITE_BENCH;
}
