// SPDX-License-Identifier: MIT
/*
 * cmdline_table.h - what the command line's three files share, and no
 * other file: the option table (cmdline_options.c), the parser that walks
 * it (cmdline.c) and the words kept for the verdict (cmdline_verdict.c).
 *
 * One option is one row of options[]: its key, how its value is read, where
 * it goes, whether a word of it not carried out fails the run, and what it
 * expects, which is the error line's text (derived from its choices or its
 * list where it has them, so the text cannot drift from what is taken).
 */
#ifndef KERNEL_CMDLINE_TABLE_H
#define KERNEL_CMDLINE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline_words.h"

/*
 * How a row reads its value: a bare word (no value), a number in [lo, hi],
 * one of its choices (the index stored), a comma list of its choices and
 * its groups (the union of their bits stored), or a parser of its own.
 */
enum opt_kind { OPT_FLAG, OPT_NUMBER, OPT_CHOICE, OPT_LIST, OPT_PARSED };

struct option {
	const char *key;
	enum opt_kind kind;
	/*
	 * A word of this key not carried out leaves what is tested as asked
	 * (lengths, table sizes and sampling rates, what is traced or shown,
	 * how the machine is left).  Every other key, and any key the table
	 * lacks (a misspelt one may be any), selects what is tested: a run
	 * with such a word not carried out fails.
	 */
	bool harmless;
	/* For the error line; NULL: derived from choices and groups (option_expected). */
	const char *expected;
	uint64_t lo, hi;		/* OPT_NUMBER */
	const char *const *choices;	/* OPT_CHOICE, OPT_LIST: NULL-terminated */
	const struct word_mask *groups; /* OPT_LIST: words for several bits ("all"), or none */
	/*
	 * Where the value (the number, the choice's index, the list's bits)
	 * goes: the field at .field (offsetof) in `opts`, .size bytes, as value
	 * * .scale (0: 1) + .first (1 for a field whose 0 means "not given");
	 * or .store, for a field that is no number (lockref.policy='s name).
	 */
	size_t field, size;
	unsigned scale, first;
	void (*store)(uint64_t v);
	bool (*parse)(const char *value); /* OPT_PARSED: false if @value does not parse */
	/* Stored before the words, when the row has a default (cmdline_options.c). */
	bool has_default;
	uint64_t default_value;
	/* The known value meant by the bad @value, or NULL (default: the closest choice). */
	const char *(*closest)(const char *value);
};

/* Rows the table may have (the parser keeps one given word per row); more fail its build. */
#define CMDLINE_OPTIONS_MAX 64

/* The table (cmdline_options.c), in the order a key is looked up and the closest is named. */
extern const struct option options[];
extern const unsigned options_count;

/* Store @v, a value of @o's kind, in @o's field (struct option). */
void option_store(const struct option *o, uint64_t v);

/* The row of @key, or NULL. */
const struct option *option_of(const char *key);

/*
 * What @o expects, for its error line: its text, or its choices as "a, b
 * or c", or a list's groups and choices as "x, y, or a comma list of a, b,
 * c".  A static buffer, good until the next call.
 */
const char *option_expected(const struct option *o);

/* The longest "a, b or c" option_expected builds; torture.busted='s is the longest. */
#define CMDLINE_EXPECTED_MAX 512

/* Room for a word said again beside the verdict, escaped; a longer one is cut with "...". */
#define NOTE_WORD_MAX 64

/* Whether a word of @key, not carried out, changes what is tested (struct option's harmless). */
bool cmdline_key_selects(const char *key);

/*
 * Keep the word @key[=@value] and @what was done with it, for the verdict;
 * @expected (the row whose value did not parse) or @closest (for an unknown
 * key, the closest known row), or neither, say why.
 */
void cmdline_note(const char *key, const char *value, const char *what, bool selects,
		  const struct option *expected, const struct option *closest);

/* Forget the words kept: a new line is being parsed. */
void cmdline_notes_reset(void);

#endif /* KERNEL_CMDLINE_TABLE_H */
