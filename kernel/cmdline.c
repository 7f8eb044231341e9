// SPDX-License-Identifier: MIT
/*
 * cmdline.c - parse "key=value" words and bare flags into `opts`.
 *
 * Table-driven: each option is one row of options[] (cmdline_options.c)
 * naming its key, how its value is read, and what it expects, so the error
 * line for a bad word can say exactly that.  Three groups here: the
 * defaults and the walk over the line's words (cmdline_parse); one word,
 * from its key to its value, with the one line a word not carried out gets
 * (parse_word); and what a program that takes only some keys asks of the
 * last parse (cmdline_given).  The words are split and read by
 * lib/cmdline_words.c; those not carried out are kept for the verdict by
 * cmdline_verdict.c.  Pure C on lib/: the native benchmark program
 * (tests/bench) parses its arguments with these same files, so both take
 * the same words.
 */
#include "cmdline.h"
#include "cmdline_table.h"
#include "kcsan_watch.h"

#include "lockdep.h"
#include "lockref.h"
#include "platform.h"
#include "string.h"

#define DEFAULT_TORTURE_MS 2000
#define QUICK_TORTURE_MS   300
#define DEFAULT_BENCH_MS   50
#define QUICK_BENCH_MS	   10
#define DEFAULT_TRIALS	   5
#define QUICK_TRIALS	   3

static char raw_copy[CMDLINE_MAX];
static char shown_copy[CMDLINE_MAX * 4]; /* raw_copy with its control bytes as \xNN */

/*
 * The last line's words, split in place, kept past the parse: given[i] is
 * the value of the word that set options[i] ("" for a flag), NULL if none
 * did (cmdline_given).
 */
static char words[CMDLINE_MAX];
static const char *given[CMDLINE_OPTIONS_MAX];

/* --- One word ------------------------------------------------------------------------------ */

/* Every key of options[], space-separated and sorted, for the unknown-option line. */
static const char *known_keys(void)
{
	static char keys[CMDLINE_OPTIONS_MAX * 20];
	const char *sorted[CMDLINE_OPTIONS_MAX];
	size_t len = 0;

	/* Insertion sort: a few dozen keys, once per unknown word. */
	for (unsigned i = 0; i < options_count; i++) {
		unsigned at = i;

		for (; at > 0 && strcmp(sorted[at - 1], options[i].key) > 0; at--)
			sorted[at] = sorted[at - 1];
		sorted[at] = options[i].key;
	}
	for (unsigned i = 0; i < options_count; i++) {
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

static const char *option_key(unsigned i, const void *ctx)
{
	(void)ctx;
	return options[i].key;
}

/* An unknown key: its line, with the closest known key when one is close, and kept. */
static void unknown_key(const char *word, const char *value)
{
	int at = cmdline_closest(word, option_key, NULL, options_count);
	const struct option *closest = at >= 0 ? &options[at] : NULL;

	if (closest)
		platform_log(
		    "cmdline: unknown option '%s%s%s' (the closest known key: %s; known:%s); "
		    "ignored",
		    word, value ? "=" : "", value ? value : "", closest->key, known_keys());
	else
		platform_log("cmdline: unknown option '%s%s%s' (known:%s); ignored", word,
			     value ? "=" : "", value ? value : "", known_keys());
	cmdline_note(word, value, "unknown key; ignored", true, NULL, closest);
}

/* A word with a control byte: shown escaped on its one line, and kept. */
static bool control_byte(char *word, char *eq, const char *value)
{
	char shown[NOTE_WORD_MAX];

	for (const char *c = word; *c; c++) {
		if (!cmdline_is_control(*c))
			continue;
		platform_log("cmdline: '%s': a control byte in the word; ignored",
			     cmdline_escape(shown, sizeof(shown), word, strlen(word)));
		if (eq)
			*eq = '\0';
		cmdline_note(word, value, "a control byte in the word; ignored",
			     cmdline_key_selects(word), NULL, NULL);
		return true;
	}
	return false;
}

/* Read @value (NULL for a bare word) as @o's row says and store it: false if it does not parse. */
static bool parse_value(const struct option *o, const char *value)
{
	uint64_t v = 0;
	unsigned bits;
	int index;

	switch (o->kind) {
	case OPT_FLAG:
		if (value)
			return false;
		break;
	case OPT_NUMBER:
		if (!value || !cmdline_parse_u64(value, o->lo, o->hi, &v))
			return false;
		break;
	case OPT_CHOICE:
		if (!value || (index = cmdline_lookup(value, o->choices)) < 0)
			return false;
		v = (uint64_t)index;
		break;
	case OPT_LIST:
		if (!value || !cmdline_parse_word_list(value, o->choices, o->groups, &bits))
			return false;
		v = bits;
		break;
	case OPT_PARSED:
		return value && o->parse(value);
	}
	option_store(o, v);
	return true;
}

static const char *choice_of(unsigned i, const void *o)
{
	return ((const struct option *)o)->choices[i];
}

/*
 * The known value closest to @value, for a choice's error line, or NULL:
 * the row's own answer if it has one (torture.busted=ticket names the
 * ticket lock's broken twin), else the closest choice by spelling.
 */
static const char *closest_value(const struct option *o, const char *value)
{
	const char *found = o->closest ? o->closest(value) : NULL;
	unsigned n = 0;
	int at;

	if (found || o->kind != OPT_CHOICE || !value)
		return found;
	while (o->choices[n])
		n++;
	at = cmdline_closest(value, choice_of, o, n);
	return at >= 0 ? o->choices[at] : NULL;
}

/* A value that does not parse: its one line, with the closest known value, and kept. */
static void not_understood(const struct option *o, const char *word, const char *value,
			   const char *earlier)
{
	const char *closest = closest_value(o, value);

	platform_log("cmdline: '%s%s%s': expected %s; keeping the %s%s%s%s", word, value ? "=" : "",
		     value ? value : "", option_expected(o),
		     earlier ? "earlier word's value" : "default",
		     closest ? " (the closest known value: " : "", closest ? closest : "",
		     closest ? ")" : "");
	cmdline_note(word, value,
		     earlier ? "not understood; the earlier word's value used"
			     : "not understood; the default used",
		     cmdline_key_selects(word), o, NULL);
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
	const struct option *o;

	if (control_byte(word, eq, value))
		return;
	if (eq)
		*eq = '\0';
	o = option_of(word);
	if (!o) {
		unknown_key(word, value);
		return;
	}
	const char **earlier = &seen[o - options];

	if (!parse_value(o, value)) {
		not_understood(o, word, value, *earlier);
		return;
	}
	if (*earlier && strcmp(*earlier, value ? value : "") == 0) {
		platform_log("cmdline: '%s%s%s': given twice; the same either way", word,
			     value ? "=" : "", value ? value : "");
		cmdline_note(word, value, "given twice; the same either way", false, NULL, NULL);
	} else if (*earlier) {
		platform_log("cmdline: '%s=%s': overridden by the later '%s=%s'", word, *earlier,
			     word, value);
		cmdline_note(word, *earlier, "overridden by a later word of the same key",
			     cmdline_key_selects(word), NULL, NULL);
	}
	*earlier = value ? value : "";
}

/* --- The line ------------------------------------------------------------------------------ */

/*
 * Every field "not given" (0, or -1 where 0 is a value), then each row's
 * default; the rows without one (cmdline_options.c's
 * _UNSET rows) are decided after the words (set_derived_defaults) or by
 * whoever reads them (-1: the policy's own, on where built in).
 */
static void set_defaults(void)
{
	opts = (struct kernel_options){
	    .lockref_retries = -1,
	    .lockref_wait = -1,
	    .lockdep = -1,
	    .kcsan = -1,
	};
	for (unsigned i = 0; i < options_count; i++)
		if (options[i].has_default)
			option_store(&options[i], options[i].default_value);
}

/*
 * The defaults that depend on other words, once every word is read:
 * durations not given, shorter under quick; lockdep= not given.
 */
static void set_derived_defaults(void)
{
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

void cmdline_parse(const char *line)
{
	size_t len = strnlen(line, CMDLINE_MAX);
	const char *tail = NULL; /* past the limit, noted after the words it follows */
	char *word, *at = words;

	set_defaults();
	memset(given, 0, sizeof(given));
	cmdline_notes_reset();
	if (len == CMDLINE_MAX) {
		char shown[NOTE_WORD_MAX];

		tail = line + CMDLINE_MAX - 1;
		platform_log("cmdline: longer than %u bytes; the rest ('%s') is ignored",
			     CMDLINE_MAX - 1,
			     cmdline_escape(shown, sizeof(shown), tail, strlen(tail)));
		len = CMDLINE_MAX - 1;
	}
	/* Terminated here: an earlier, longer line's tail must not show through. */
	memcpy(raw_copy, line, len);
	raw_copy[len] = '\0';
	opts.raw = raw_copy;
	cmdline_escape(shown_copy, sizeof(shown_copy), raw_copy, len);
	opts.shown = shown_copy;
	memcpy(words, raw_copy, sizeof(words));
	while ((word = cmdline_next_word(&at)))
		parse_word(word, given);
	/* Whatever the tail held is not done; it may have selected what is tested. */
	for (const char *c = tail; c && *c; c++)
		if (!cmdline_is_space(*c)) {
			cmdline_note(tail, NULL, "past the length limit; ignored", true, NULL,
				     NULL);
			break;
		}
	set_derived_defaults();
}

/* --- What the last parse was given ------------------------------------------------------ */

const char *cmdline_given(const char *key)
{
	const struct option *o = option_of(key);

	return o ? given[o - options] : NULL;
}
