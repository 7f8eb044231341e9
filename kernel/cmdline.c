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
#include "fs.h"
#include "kcsan_watch.h"

#include "lockref.h"
#include "platform.h"
#include "printf.h"
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
static char shown_copy[CMDLINE_MAX * 4]; /* raw_copy with its control bytes as \xNN */

/*
 * The keys whose word, not carried out, leaves what is tested as asked:
 * lengths, table sizes and sampling rates, what is traced or shown, how the
 * machine is left.  Every other
 * key, and any key the table lacks (a misspelt one may be any), selects
 * what is tested: a run with such a word not carried out fails.
 */
static const char *const harmless_keys[] = {"quick",	     "torture.secs",	"bench.ms",
					    "bench.trials",  "console",		"exit",
					    "screen.dump",   "trace",		"trace.events",
					    "lockdep.panic", "lockdep.classes", "kcsan.skip",
					    "kcsan.delay",   "kcsan.slots",	NULL};

struct option;

/* A word not carried out as given, kept to be said again beside the verdict. */
#define NOTES_MAX     16
#define NOTE_WORD_MAX 64 /* of the word, escaped; a longer one is cut with "..." */
struct note {
	char word[NOTE_WORD_MAX];
	const char *what; /* what was done with it */
	bool selects;
	/*
	 * Why, said again beside the verdict: the option whose value did not
	 * parse (what it expects), or for an unknown key the closest known one.
	 */
	const struct option *expected, *closest;
};
static struct note notes[NOTES_MAX];
static unsigned notes_total, notes_selecting; /* past NOTES_MAX too */
static const struct note *first_selecting;    /* NULL: none kept */

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

static bool is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

/*
 * @len bytes of @src into @dst (@size bytes, terminated), each control
 * byte as \xNN so the line it goes in stays one printable line; cut with
 * "..." where it does not fit.  Returns @dst.
 */
static char *escape(char *dst, size_t size, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (size < 4) { /* no room for "..." */
		if (size)
			dst[0] = '\0';
		return dst;
	}
	for (size_t i = 0; i < len; i++) {
		bool ctl = is_control(src[i]);

		if (n + (ctl ? 4 : 1) + 4 > size) { /* room for "..." and the NUL */
			memcpy(dst + n, "...", 3);
			n += 3;
			break;
		}
		if (ctl) {
			dst[n++] = '\\';
			dst[n++] = 'x';
			dst[n++] = hex[(unsigned char)src[i] >> 4];
			dst[n++] = hex[src[i] & 0xf];
		} else {
			dst[n++] = src[i];
		}
	}
	dst[n] = '\0';
	return dst;
}

/* Whether a word of @key, not carried out, changes what is tested (harmless_keys). */
static bool key_selects(const char *key)
{
	return lookup(key, harmless_keys) < 0;
}

/*
 * Keep the word @key[=@value] (escaped) and @what was done with it, for the
 * verdict; @expected or @closest (or neither) say why (struct note).
 */
static void note_why(const char *key, const char *value, const char *what, bool selects,
		     const struct option *expected, const struct option *closest)
{
	notes_total++;
	notes_selecting += selects;
	if (notes_total > NOTES_MAX)
		return;
	struct note *n = &notes[notes_total - 1];
	size_t k = strlen(key);

	escape(n->word, sizeof(n->word), key, k);
	if (value && strlen(n->word) + 5 <= sizeof(n->word)) { /* "=" and at least "..." */
		size_t at = strlen(n->word);

		n->word[at++] = '=';
		escape(n->word + at, sizeof(n->word) - at, value, strlen(value));
	}
	n->what = what;
	n->selects = selects;
	n->expected = expected;
	n->closest = closest;
	if (selects && !first_selecting)
		first_selecting = n;
}

static void note(const char *key, const char *value, const char *what, bool selects)
{
	note_why(key, value, what, selects, NULL, NULL);
}

#define SUITE_X_NAME(name, id, group, switches) #name,
const char *const suite_names[SUITE_COUNT + 1] = {SUITE_LIST(SUITE_X_NAME) NULL};
#undef SUITE_X_NAME
#define SUITE_X_SWITCHES(name, id, group, switches) SUITE_SWITCHES_##switches,
const enum suite_switches suite_switches[SUITE_COUNT] = {SUITE_LIST(SUITE_X_SWITCHES)};
#undef SUITE_X_SWITCHES

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

/* Room for a choice list's "a, b or c" (expected_text): torture.busted='s is the longest. */
#define CMDLINE_EXPECTED_MAX 512

struct option {
	const char *key;
	enum opt_kind kind;
	const char
	    *expected;	 /* for the error line; NULL: the choices, "a, b or c" (expected_text) */
	uint64_t lo, hi; /* OPT_NUMBER */
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
DEFINE_SETTER(set_trace_events, trace_events, unsigned, 0)
DEFINE_SETTER(set_lockdep, lockdep, int, 0)
DEFINE_SETTER(set_lockdep_panic, lockdep_panic, bool, 0)
DEFINE_SETTER(set_lockdep_classes, lockdep_classes, unsigned, 0)
DEFINE_SETTER(set_fs_walk, fs_walk, unsigned, 0)
DEFINE_SETTER(set_kcsan, kcsan, int, 0)
DEFINE_SETTER(set_kcsan_skip, kcsan_skip, unsigned, 0)
DEFINE_SETTER(set_kcsan_delay, kcsan_delay_us, unsigned, 0)
DEFINE_SETTER(set_kcsan_slots, kcsan_slots, unsigned, 0)

static void set_torture_s(uint64_t v)
{
	opts.torture_ms = (unsigned)v * 1000;
}

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
    {"lockref.policy", OPT_CHOICE, NULL, 0, 0, policy_names, set_policy},
    /* The library's own limit (lockref_set_policy refuses more): one range, checked here. */
    {"lockref.retries", OPT_NUMBER, "a count from 1 to 1000 (LOCKREF_RETRIES_MAX)", 1,
     LOCKREF_RETRIES_MAX, NULL, set_retries},
    {"lockref.wait", OPT_CHOICE, NULL, 0, 0, bool_names, set_wait},
    {"lockref.cas", OPT_CHOICE, NULL, 0, 0, lockref_cas_names, set_cas},
    {"smp.max", OPT_NUMBER, "a CPU count from 1 to 256", 1, MAX_CPUS, NULL, set_smp_max},
    {"torture.busted", OPT_CHOICE, NULL, 0, 0, busted_names, set_busted},
    {"selftest.fault", OPT_CHOICE, NULL, 0, 0, fault_names, set_fault},
    {"console", OPT_CHOICE, NULL, 0, 0, console_names, set_console},
    {"exit", OPT_CHOICE, NULL, 0, 0, exit_names, set_exit},
    {"spinlock.pv", OPT_CHOICE, NULL, 0, 0, pv_names, set_spinlock_pv},
    {"screen.dump", OPT_CHOICE, NULL, 0, 0, bool_names, set_screen_dump},
    {"spinlock.kind", OPT_CHOICE, NULL, 0, 0, spin_kind_names, set_spinlock_kind},
    {"trace", OPT_SPECIAL, "off, all, or a comma list of spin, lockref, pv, barrier, test", 0, 0,
     NULL, NULL},
    {"trace.events", OPT_NUMBER, "events per CPU from 16 to 65536", TRACE_EVENTS_MIN,
     TRACE_EVENTS_MAX, NULL, set_trace_events},
    {"trace.test", OPT_SPECIAL, "a test's name (up to 39 characters)", 0, 0, NULL, NULL},
    {"lockdep", OPT_CHOICE, "on or off", 0, 0, on_off_names, set_lockdep},
    {"lockdep.panic", OPT_CHOICE, "on or off", 0, 0, on_off_names, set_lockdep_panic},
    {"lockdep.classes", OPT_NUMBER, "a class count from 4 to 511", LOCKDEP_CLASSES_MIN,
     LOCKDEP_CLASSES - 1, NULL, set_lockdep_classes},
    {"fs.walk", OPT_CHOICE, NULL, 0, 0, fs_walk_names, set_fs_walk},
    {"selftest.stall", OPT_SPECIAL,
     "CPU:MS[:where]: a CPU from 1 to 255, milliseconds from 1 to 60000, where start, fs-start "
     "or deadline",
     0, 0, NULL, NULL},
    {"bench.place", OPT_CHOICE, NULL, 0, 0, place_names, set_bench_place},
    {"bench.cpus", OPT_SPECIAL, "geo, all, or a comma list of CPU counts from 1 to 256", 0, 0, NULL,
     NULL},
    {"bench.plan", OPT_CHOICE, NULL, 0, 0, bool_names, set_bench_plan},
    {"kcsan", OPT_CHOICE, "on or off", 0, 0, on_off_names, set_kcsan},
    {"kcsan.skip", OPT_NUMBER, "a count from 1 to 1000000", 1, KCSAN_SKIP_MAX, NULL,
     set_kcsan_skip},
    {"kcsan.delay", OPT_NUMBER, "microseconds from 8 to 10000", 8, KCSAN_DELAY_MAX, NULL,
     set_kcsan_delay},
    {"kcsan.slots", OPT_NUMBER, "a count from 1 to 64", 1, KCSAN_SLOTS_MAX, NULL, set_kcsan_slots},
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

/*
 * The last line's words, split in place, kept past the parse: given[i] is
 * the value of the word that set options[i] ("" for a flag), NULL if none
 * did (cmdline_given).
 */
static char words[CMDLINE_MAX];
static const char *given[NOPTIONS];

/*
 * What an option expects, for its error line: its text, or for a choice
 * without one its choices as "a, b or c", so a list derived from another
 * (spinlock.kind= from the lock kinds) is named as it is.
 */
static const char *expected_text(const struct option *o)
{
	static char text[CMDLINE_EXPECTED_MAX];
	size_t len = 0;

	if (o->expected || !o->choices)
		return o->expected ? o->expected : "a value";
	text[0] = '\0';
	for (unsigned i = 0; o->choices[i]; i++) {
		const char *parts[2] = {i == 0		    ? ""
					: o->choices[i + 1] ? ", "
							    : " or ",
					o->choices[i]};

		for (unsigned p = 0; p < 2; p++) {
			size_t n = strlen(parts[p]);

			if (len + n >= sizeof(text))
				return text; /* cut short, still a string */
			memcpy(text + len, parts[p], n);
			len += n;
			text[len] = '\0';
		}
	}
	return text;
}

/* Every key of options[], space-separated and sorted, for the unknown-option line. */
static const char *known_keys(void)
{
	static char keys[NOPTIONS * 20];
	const char *sorted[NOPTIONS];
	size_t len = 0;

	/* Insertion sort: a few dozen keys, once per unknown word. */
	for (size_t i = 0; i < NOPTIONS; i++) {
		size_t at = i;

		for (; at > 0 && strcmp(sorted[at - 1], options[i].key) > 0; at--)
			sorted[at] = sorted[at - 1];
		sorted[at] = options[i].key;
	}
	for (size_t i = 0; i < NOPTIONS; i++) {
		size_t n = strlen(sorted[i]);

		if (len + 1 + n >= sizeof(keys))
			break;
		keys[len++] = ' ';
		memcpy(keys + len, sorted[i], n);
		len += n;
	}
	keys[len] = '\0';
	return keys;
}

/* Keys longer than this are nobody's misspelling of a known one (the longest is 15). */
#define CLOSEST_KEY_MAX 32

/*
 * Edit distance (insertions, deletions, substitutions; Levenshtein) of @a
 * and @b, both under CLOSEST_KEY_MAX bytes: one row of the table at a time.
 */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[CLOSEST_KEY_MAX + 1];
	size_t nb = strlen(b);

	for (size_t j = 0; j <= nb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; a[i - 1]; i++) {
		unsigned diagonal = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= nb; j++) {
			unsigned above = row[j];
			unsigned best = diagonal + (a[i - 1] != b[j - 1]);

			if (above + 1 < best)
				best = above + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diagonal = above;
			row[j] = best;
		}
	}
	return row[nb];
}

/*
 * The known key closest to the unknown @key, or NULL when none is close:
 * at most a third of the key's letters wrong (at least one), so "bogus"
 * names nothing and "spinlok.kind" names spinlock.kind.  The first of
 * equally close keys, in options[] order.
 */
static const struct option *closest_key(const char *key)
{
	size_t len = strlen(key);
	unsigned limit = len / 3 ? (unsigned)(len / 3) : 1, best = limit + 1;
	const struct option *found = NULL;

	if (len >= CLOSEST_KEY_MAX)
		return NULL;
	for (size_t i = 0; i < NOPTIONS; i++) {
		unsigned d = strlen(options[i].key) < CLOSEST_KEY_MAX
				 ? edit_distance(key, options[i].key)
				 : best;

		if (d < best) {
			best = d;
			found = &options[i];
		}
	}
	return found;
}

/*
 * One word.  @seen[i] is the value (or "" for a flag) of the word that set
 * options[i] earlier in this line, NULL if none did: a second word of a key
 * is used, and the one it overrides is said (and kept for the verdict).
 */
static void parse_word(char *word, const char **seen)
{
	char *eq = strchr(word, '=');
	const char *value = eq ? eq + 1 : NULL;
	char shown[NOTE_WORD_MAX];

	for (const char *c = word; *c; c++) {
		if (is_control(*c)) {
			platform_log("cmdline: '%s': a control byte in the word; ignored",
				     escape(shown, sizeof(shown), word, strlen(word)));
			if (eq)
				*eq = '\0';
			note(word, value, "a control byte in the word; ignored", key_selects(word));
			return;
		}
	}
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
		if (!ok) {
			platform_log("cmdline: '%s%s%s': expected %s; keeping the %s", word,
				     value ? "=" : "", value ? value : "", expected_text(o),
				     seen[i] ? "earlier word's value" : "default");
			note_why(word, value,
				 seen[i] ? "not understood; the earlier word's value used"
					 : "not understood; the default used",
				 key_selects(word), o, NULL);
			return;
		}
		if (seen[i] && strcmp(seen[i], value ? value : "") == 0) {
			platform_log("cmdline: '%s%s%s': given twice; the same either way", word,
				     value ? "=" : "", value ? value : "");
			note(word, value, "given twice; the same either way", false);
		} else if (seen[i]) {
			platform_log("cmdline: '%s=%s': overridden by the later '%s=%s'", word,
				     seen[i], word, value);
			note(word, seen[i], "overridden by a later word of the same key",
			     key_selects(word));
		}
		seen[i] = value ? value : "";
		return;
	}
	const struct option *closest = closest_key(word);

	if (closest)
		platform_log(
		    "cmdline: unknown option '%s%s%s' (the closest known key: %s; known:%s); "
		    "ignored",
		    word, value ? "=" : "", value ? value : "", closest->key, known_keys());
	else
		platform_log("cmdline: unknown option '%s%s%s' (known:%s); ignored", word,
			     value ? "=" : "", value ? value : "", known_keys());
	note_why(word, value, "unknown key; ignored", true, NULL, closest);
}

void cmdline_parse(const char *line)
{
	char *buf = words;
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
	    .kcsan = -1,
	    .kcsan_skip = KCSAN_SKIP_DEFAULT,
	    .kcsan_delay_us = KCSAN_DELAY_DEFAULT,
	    .kcsan_slots = KCSAN_SLOTS_MAX,
	    .lockdep_classes = LOCKDEP_CLASSES - 1,
	};
	const char **seen = given;

	memset(given, 0, sizeof(given));
	notes_total = notes_selecting = 0;
	first_selecting = NULL;
	const char *tail = NULL; /* past the limit, noted after the words it follows */

	if (len == CMDLINE_MAX) {
		char shown[NOTE_WORD_MAX];

		tail = line + CMDLINE_MAX - 1;
		platform_log("cmdline: longer than %u bytes; the rest ('%s') is ignored",
			     CMDLINE_MAX - 1, escape(shown, sizeof(shown), tail, strlen(tail)));
		len = CMDLINE_MAX - 1;
	}
	/* Terminated here: an earlier, longer line's tail must not show through. */
	memcpy(raw_copy, line, len);
	raw_copy[len] = '\0';
	opts.raw = raw_copy;
	escape(shown_copy, sizeof(shown_copy), raw_copy, len);
	opts.shown = shown_copy;
	memcpy(buf, raw_copy, sizeof(words));

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
		parse_word(word, seen);
	}
	/* Whatever the tail held is not done; it may have selected what is tested. */
	for (const char *c = tail; c && *c; c++)
		if (!is_space(*c)) {
			note(tail, NULL, "past the length limit; ignored", true);
			break;
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

const char *cmdline_given(const char *key)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (strcmp(options[i].key, key) == 0)
			return given[i];
	return NULL;
}

void cmdline_not_done(const char *key, const char *value, const char *what)
{
	note(key, value, what, key_selects(key));
}

bool cmdline_fails(void)
{
	return notes_selecting > 0;
}

void cmdline_fail_line(void)
{
	if (!notes_selecting)
		return;
	if (first_selecting)
		platform_log(
		    "# FAIL: command line: '%s': %s; it selects what is tested, so the run "
		    "fails (%u such word%s, repeated before the verdict)",
		    first_selecting->word, first_selecting->what, notes_selecting,
		    plural(notes_selecting));
	else
		platform_log("# FAIL: command line: %u word%s that select%s what is tested ignored "
			     "or not understood (the 'cmdline:' lines at the top): the run fails",
			     notes_selecting, plural(notes_selecting),
			     notes_selecting == 1 ? "s" : "");
}

/* The tally's words, then its figures; the command line's count only when it has one. */
#define TALLY_FORMAT "# tally: %u suite%s, %u test%s: %u passed, %u failed, %u skipped in %u.%u s"
#define TALLY_ARGS(t)                                                                              \
	(t)->suites, plural((t)->suites), (t)->planned, plural((t)->planned), (t)->passed,         \
	    (t)->failed, (t)->skipped, (unsigned)((t)->ms / 1000),                                 \
	    (unsigned)((t)->ms % 1000 / 100)
#define WORDS_FORMAT                                                                               \
	"; %u command-line word%s ignored or not understood, %u of them failing the run"
#define WORDS_ARGS notes_total, plural(notes_total), notes_selecting

bool cmdline_verdict(const struct run_tally *t, bool pass)
{
	unsigned kept = notes_total < NOTES_MAX ? notes_total : NOTES_MAX;

	for (unsigned i = 0; i < kept; i++) {
		const struct note *n = &notes[i];

		platform_log("# cmdline: '%s': %s%s%s%s", n->word, n->what,
			     n->selects ? "; it selects what is tested, so the run fails"
					: " (harmless: it does not select what is tested)",
			     n->expected  ? "; expected "
			     : n->closest ? "; the closest known key: "
					  : "",
			     n->expected  ? expected_text(n->expected)
			     : n->closest ? n->closest->key
					  : "");
	}
	if (notes_total > kept)
		platform_log(
		    "# cmdline: %u more word%s ignored or not understood (their lines are at the "
		    "top)",
		    notes_total - kept, plural(notes_total - kept));
	if (!t->started && notes_total)
		platform_log("# tally: no test ran (the run ended before its test runner "
			     "started)" WORDS_FORMAT,
			     WORDS_ARGS);
	else if (!t->started)
		platform_log("# tally: no test ran (the run ended before its test runner started)");
	else if (notes_total)
		platform_log(TALLY_FORMAT WORDS_FORMAT, TALLY_ARGS(t), WORDS_ARGS);
	else
		platform_log(TALLY_FORMAT, TALLY_ARGS(t));
	return pass && !cmdline_fails();
}
