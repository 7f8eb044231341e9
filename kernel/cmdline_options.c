// SPDX-License-Identifier: MIT
/*
 * cmdline_options.c - every command-line option, one row each (options[]),
 * and what reads and stores its value.
 *
 * A new option is one row here plus its field in struct kernel_options and
 * its row in docs/interface.md (docs/howto.md, "An option");
 * tools/house/cmdline_doc_check.py holds the page to this table.  The
 * groups below: the choice lists (each declared once, most of them derived
 * from the list they name); the store, which writes a value into its
 * row's field by offset and size, so a row names its field and no setter
 * is written per option (lockref.policy='s name aside); the parsers of the
 * values no row kind reads (a CPU:MS[:where] triple, a list of counts, a
 * test's name); the table; and its look-ups.  Pure C on lib/, as the
 * parser is.
 */
#include "cmdline.h"
#include "cmdline_table.h"
#include "fs.h"
#include "kcsan_watch.h"

#include "lockdep.h"
#include "lockref.h"
#include "spinlock.h"
#include "string.h"

#define MAX_SECONDS 3600

/* What the rows below fill in (cmdline.h); the parser's other files only read it. */
struct kernel_options opts;

/* --- The choice lists --------------------------------------------------------------- */

#define SUITE_X_NAME(name, ...) #name,
const char *const suite_names[SUITE_COUNT + 1] = {SUITE_LIST(SUITE_X_NAME) NULL};
#undef SUITE_X_NAME
#define SUITE_X_SWITCHES(name, id, group, switches, ...) SUITE_SWITCHES_##switches,
const enum suite_switches suite_switches[SUITE_COUNT] = {SUITE_LIST(SUITE_X_SWITCHES)};
#undef SUITE_X_SWITCHES

/* The suite a torture.busted= word is planted in: the on column of its row (busted_list.h). */
unsigned busted_suite(enum busted_kind busted)
{
	switch (busted_on(busted)) {
	case BUSTED_ON_SPIN:
	case BUSTED_ON_QSPIN:
	case BUSTED_ON_BOTH:
		return SUITE_SPINLOCK; /* kernel/test/torture_spinlock.c */
	case BUSTED_ON_LOCKREF:
		return SUITE_LOCKREF; /* kernel/test/torture_lockref.c */
	case BUSTED_ON_BOOT:
		return SUITE_BOOT; /* kernel/test/test_race.c */
	case BUSTED_ON_KEYS:
		return SUITE_KEYS; /* kernel/test/test_static_key.c */
	}
	return 0; /* BUSTED_NONE */
}

/* run='s words for several suites at once (suite_names are the single ones). */
static const struct word_mask suite_groups[] = {
    {"tests", SUITES_TESTS},
    {"all", SUITES_ALL},
    {NULL, 0},
};

/* The groups of trace=, in TRACE_GROUP_* bit order, and its words for none or all of them. */
static const char *const trace_group_names[] = {"spin", "lockref", "pv", "barrier", "test", NULL};
static const struct word_mask trace_words[] = {
    {"off", 0},
    {"all", TRACE_GROUP_ALL},
    {NULL, 0},
};

static const char *const fault_names[] = {"ud", "gp", "pf", "lockdep", NULL};
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
/*
 * lockdep=, lockdep.panic= and kcsan=: index 1 is on.  Their options
 * write "on or off", the words' usual order, which this one cannot have.
 */
static const char *const on_off_names[] = {"off", "on", NULL};
/* Indexed by enum lockref_cas (lib/lockref.h); the boot log and # ENV use it too. */
const char *const lockref_cas_names[] = {
    [LOCKREF_CAS_CMPXCHG8B] = "cmpxchg8b",
    [LOCKREF_CAS_CMPXCHGQ] = "cmpxchgq",
    NULL,
};

/* fs.walk=: RCU-walk (the default) or a reference on every component (fs/fs.h). */
#define FS_X_WALK_NAME(id, name) #name,
const char *const fs_walk_names[] = {FS_WALK_LIST(FS_X_WALK_NAME) NULL};
#undef FS_X_WALK_NAME

/* Indexed by enum stall_where (cmdline.h); ktest.c names the point in its lines. */
const char *const stall_where_names[] = {
    [STALL_NONE] = "",
    [STALL_START] = "start",
    [STALL_FS_START] = "fs-start",
    [STALL_DEADLINE] = "deadline",
    NULL,
};

/* bench.place=: lib/topology.h's list, NULL-terminated for the parser. */
static const char *const place_names[] = {TOPO_PLACE_LIST(TOPO_X_PLACE_NAME) NULL};

/* --- The store: a row's value into its field ---------------------------------------- */

void option_store(const struct option *o, uint64_t v)
{
	unsigned char *at = (unsigned char *)&opts + o->field;
	uint64_t value = v * (o->scale ? o->scale : 1) + o->first;
	uint32_t word = (uint32_t)value;
	uint8_t byte = (uint8_t)value;

	if (o->store) {
		o->store(v);
		return;
	}
	/* By the field's size: bool, a 32-bit number or enum, a 64-bit number (FIELD below). */
	if (o->size == sizeof(value))
		memcpy(at, &value, sizeof(value));
	else if (o->size == sizeof(word))
		memcpy(at, &word, sizeof(word));
	else if (o->size == sizeof(byte))
		memcpy(at, &byte, sizeof(byte));
}

/* lockref.policy=: the name itself, which cmdline_apply_lockref replaces with the library's. */
static void set_policy(uint64_t v)
{
	memcpy(opts.lockref_policy, policy_names[v], strlen(policy_names[v]) + 1);
}

/* --- The values no row kind reads ------------------------------------------------------- */

/* trace.test=NAME: a test's name, one that fits. */
static bool parse_trace_test(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= sizeof(opts.trace_test))
		return false;
	memcpy(opts.trace_test, v, n + 1);
	return true;
}

/* The number before @end (or the NUL) in [@lo, @hi]: a part of a colon-separated value. */
static bool parse_part(const char *v, const char *end, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char num[24];
	size_t n = end ? (size_t)(end - v) : strlen(v);

	if (n >= sizeof(num))
		return false;
	memcpy(num, v, n);
	num[n] = '\0';
	return cmdline_parse_u64(num, lo, hi, out);
}

/*
 * selftest.stall=CPU:MS[:where]: CPU 1 .. MAX_CPUS-1 (the boot CPU runs
 * the runner; whether the CPU is online is checked once the CPUs are
 * counted), MS 1 .. STALL_MS_MAX, where one of stall_where_names (start
 * if left out).  All or nothing: a bad part keeps the default, no stall.
 */
static bool parse_stall(const char *v)
{
	uint64_t cpu, ms;
	int where = STALL_START;
	const char *colon = strchr(v, ':'), *second;

	if (!colon || !parse_part(v, colon, 1, MAX_CPUS - 1, &cpu))
		return false;
	second = strchr(colon + 1, ':');
	if (!parse_part(colon + 1, second, 1, STALL_MS_MAX, &ms))
		return false;
	if (second && ((where = cmdline_lookup(second + 1, stall_where_names)) <= STALL_NONE))
		return false;
	opts.stall_cpu = (unsigned)cpu;
	opts.stall_ms = (unsigned)ms;
	opts.stall_where = (enum stall_where)where;
	return true;
}

/* @c into the ascending @list of *@n counts, once. */
static void insert_count(uint16_t *list, unsigned *n, uint16_t c)
{
	unsigned at = 0;

	while (at < *n && list[at] < c)
		at++;
	if (at < *n && list[at] == c)
		return;
	memmove(&list[at + 1], &list[at], (*n - at) * sizeof(list[0]));
	list[at] = c;
	(*n)++;
}

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
		const char *comma = strchr(v, ',');
		uint64_t c;

		if (comma == v || n == BENCH_CPUS_LIST_MAX ||
		    !parse_part(v, comma, 1, MAX_CPUS, &c))
			return false;
		insert_count(list, &n, (uint16_t)c);
		v = comma ? comma + 1 : v + strlen(v);
	}
	if (n == 0)
		return false;
	opts.bench_cpus = BENCH_CPUS_LIST;
	opts.bench_cpus_n = n;
	memcpy(opts.bench_cpus_list, list, sizeof(list));
	return true;
}

/* --- The table -------------------------------------------------------------------------- */

/*
 * One row per option, by kind (struct option): the key, the choices or the
 * range, the default, then the row's other fields.  The default is the
 * value the row's store is given before the words (a number, a choice's
 * index, a list's bits); one outside the row's range fails the build
 * naming the row.  _UNSET rows have none: their field keeps set_defaults'
 * "not given" (kernel/cmdline.c), which a value after the parse decides.
 */
#define CHOICES(names) (sizeof(names) / sizeof((names)[0]) - 1) /* less the NULL */
#define DEFAULT_IN(key, d, lo, hi)                                                                 \
	((d) + 0 * sizeof(struct {                                                                 \
		       _Static_assert((lo) <= (d) && (d) <= (hi),                                  \
				      "options[] row '" key "': default " #d " is outside " #lo    \
				      " to " #hi " (kernel/cmdline_options.c)");                   \
		       char c;                                                                     \
	       }))
/* Where a row's value goes: a field of struct kernel_options, by its offset and size. */
#define FIELD(f) .field = offsetof(struct kernel_options, f), .size = sizeof(opts.f)
#define FLAG_ROW(k, f, ...)                                                                        \
	{                                                                                          \
		.key = k, .kind = OPT_FLAG, FIELD(f), .expected = "no value", __VA_ARGS__          \
	}
#define NUMBER_ROW(k, f, l, h, d, ...)                                                             \
	{                                                                                          \
		.key = k, .kind = OPT_NUMBER, FIELD(f), .lo = l, .hi = h, .has_default = true,     \
		.default_value = DEFAULT_IN(k, d, l, h), __VA_ARGS__                               \
	}
#define NUMBER_UNSET_ROW(k, f, l, h, ...)                                                          \
	{                                                                                          \
		.key = k, .kind = OPT_NUMBER, FIELD(f), .lo = l, .hi = h, __VA_ARGS__              \
	}
#define CHOICE_ROW(k, f, names, d, ...)                                                            \
	{                                                                                          \
		.key = k, .kind = OPT_CHOICE, FIELD(f), .choices = names, .has_default = true,     \
		.default_value = DEFAULT_IN(k, d, 0, CHOICES(names) - 1), __VA_ARGS__              \
	}
#define CHOICE_UNSET_ROW(k, f, names, ...)                                                         \
	{                                                                                          \
		.key = k, .kind = OPT_CHOICE, FIELD(f), .choices = names, __VA_ARGS__              \
	}
#define LIST_ROW(k, f, names, group_words, d, ...)                                                 \
	{                                                                                          \
		.key = k, .kind = OPT_LIST, FIELD(f), .choices = names, .groups = group_words,     \
		.has_default = true,                                                               \
		.default_value = DEFAULT_IN(k, d, 0, (1ull << CHOICES(names)) - 1), __VA_ARGS__    \
	}
#define PARSED_ROW(k, parser, ...)                                                                 \
	{                                                                                          \
		.key = k, .kind = OPT_PARSED, .parse = parser, __VA_ARGS__                         \
	}

const struct option options[] = {
    LIST_ROW("run", run, suite_names, suite_groups, SUITES_ALL),
    FLAG_ROW("quick", quick, .first = 1, .harmless = true),
    NUMBER_ROW("seed", seed, 0, UINT64_MAX, 1, .expected = "a number"),
    NUMBER_UNSET_ROW("torture.secs", torture_ms, 1, MAX_SECONDS, .scale = 1000, .harmless = true,
		     .expected = "seconds from 1 to 3600"),
    NUMBER_UNSET_ROW("bench.ms", bench_ms, 1, 60000, .harmless = true,
		     .expected = "milliseconds from 1 to 60000"),
    NUMBER_UNSET_ROW("bench.trials", bench_trials, 1, 101, .harmless = true,
		     .expected = "a count from 1 to 101"),
    CHOICE_ROW("lockref.policy", lockref_policy, policy_names, 0, .store = set_policy),
    /* The library's own limit (lockref_set_policy refuses more): one range, checked here. */
    NUMBER_UNSET_ROW("lockref.retries", lockref_retries, 1, LOCKREF_RETRIES_MAX,
		     .expected = "a count from 1 to 1000 (LOCKREF_RETRIES_MAX)"),
    CHOICE_UNSET_ROW("lockref.wait", lockref_wait, bool_names),
    CHOICE_ROW("lockref.cas", lockref_cas, lockref_cas_names, LOCKREF_CAS_CMPXCHG8B),
    NUMBER_ROW("smp.max", smp_max, 1, MAX_CPUS, MAX_CPUS, .expected = "a CPU count from 1 to 256"),
    CHOICE_UNSET_ROW("torture.busted", busted, busted_names, .first = 1, .closest = busted_closest),
    CHOICE_UNSET_ROW("selftest.fault", fault, fault_names, .first = 1),
    CHOICE_UNSET_ROW("console", console, console_names, .first = 1, .harmless = true),
    CHOICE_ROW("exit", exit, exit_names, EXIT_AUTO, .harmless = true),
    CHOICE_ROW("spinlock.pv", spinlock_pv, pv_names, PV_AUTO),
    CHOICE_ROW("screen.dump", screen_dump, bool_names, 0, .harmless = true),
    CHOICE_ROW("spinlock.kind", spinlock_kind, spin_kind_names, SPIN_KIND_TICKET),
    LIST_ROW("trace", trace_groups, trace_group_names, trace_words, 0, .harmless = true),
    NUMBER_ROW("trace.events", trace_events, TRACE_EVENTS_MIN, TRACE_EVENTS_MAX,
	       TRACE_EVENTS_DEFAULT, .harmless = true,
	       .expected = "events per CPU from 16 to 65536"),
    PARSED_ROW("trace.test", parse_trace_test, .expected = "a test's name (up to 39 characters)"),
    CHOICE_UNSET_ROW("lockdep", lockdep, on_off_names, .expected = "on or off"),
    CHOICE_ROW("lockdep.panic", lockdep_panic, on_off_names, 0, .harmless = true,
	       .expected = "on or off"),
    NUMBER_ROW("lockdep.classes", lockdep_classes, LOCKDEP_CLASSES_MIN, LOCKDEP_CLASSES - 1,
	       LOCKDEP_CLASSES - 1, .harmless = true, .expected = "a class count from 4 to 511"),
    CHOICE_ROW("fs.walk", fs_walk, fs_walk_names, 0, .first = FS_WALK_FIRST),
    PARSED_ROW("selftest.stall", parse_stall,
	       .expected = "CPU:MS[:where]: a CPU from 1 to 255, milliseconds from 1 to 60000, "
			   "where start, fs-start or deadline"),
    CHOICE_ROW("bench.place", bench_place, place_names, TOPO_PLACE_CORES),
    PARSED_ROW("bench.cpus", parse_bench_cpus,
	       .expected = "geo, all, or a comma list of CPU counts from 1 to 256"),
    CHOICE_ROW("bench.plan", bench_plan, bool_names, 0),
    CHOICE_UNSET_ROW("kcsan", kcsan, on_off_names, .expected = "on or off"),
    NUMBER_ROW("kcsan.skip", kcsan_skip, 1, KCSAN_SKIP_MAX, KCSAN_SKIP_DEFAULT, .harmless = true,
	       .expected = "a count from 1 to 1000000"),
    NUMBER_ROW("kcsan.delay", kcsan_delay_us, 8, KCSAN_DELAY_MAX, KCSAN_DELAY_DEFAULT,
	       .harmless = true, .expected = "microseconds from 8 to 10000"),
    NUMBER_ROW("kcsan.slots", kcsan_slots, 1, KCSAN_SLOTS_MAX, KCSAN_SLOTS_MAX, .harmless = true,
	       .expected = "a count from 1 to 64"),
};

const unsigned options_count = sizeof(options) / sizeof(options[0]);
_Static_assert(sizeof(options) / sizeof(options[0]) <= CMDLINE_OPTIONS_MAX,
	       "options[] has more rows than CMDLINE_OPTIONS_MAX (kernel/cmdline_table.h)");

/* --- Look-ups ---------------------------------------------------------------------------- */

const struct option *option_of(const char *key)
{
	for (unsigned i = 0; i < options_count; i++)
		if (strcmp(options[i].key, key) == 0)
			return &options[i];
	return NULL;
}

bool cmdline_key_selects(const char *key)
{
	const struct option *o = option_of(key);

	return !o || !o->harmless;
}

/* Append @s to @text (@len used of CMDLINE_EXPECTED_MAX); false once it is full. */
static bool append(char *text, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= CMDLINE_EXPECTED_MAX)
		return false; /* cut short, still a string */
	memcpy(text + *len, s, n + 1);
	*len += n;
	return true;
}

/* @names as "a, b or c" (@last " or "), or as "a, b, c" (@last ", "), after @text's @len. */
static bool append_names(char *text, size_t *len, const char *const *names, const char *last)
{
	for (unsigned i = 0; names[i]; i++) {
		const char *sep = i == 0 ? "" : names[i + 1] ? ", " : last;

		if (!append(text, len, sep) || !append(text, len, names[i]))
			return false;
	}
	return true;
}

const char *option_expected(const struct option *o)
{
	static char text[CMDLINE_EXPECTED_MAX];
	size_t len = 0;

	text[0] = '\0';
	if (o->expected || !o->choices)
		return o->expected ? o->expected : "a value";
	if (o->kind != OPT_LIST) {
		append_names(text, &len, o->choices, " or ");
		return text;
	}
	/* A list: its group words first ("off, all, "), then its single names. */
	for (const struct word_mask *g = o->groups; g && g->word; g++)
		if (!append(text, &len, g->word) || !append(text, &len, ", "))
			return text;
	if (append(text, &len,
		   o->groups && o->groups->word ? "or a comma list of " : "a comma list of "))
		append_names(text, &len, o->choices, ", ");
	return text;
}
