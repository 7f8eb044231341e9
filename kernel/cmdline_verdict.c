// SPDX-License-Identifier: MIT
/*
 * cmdline_verdict.c - the words of the command line not carried out as
 * given, kept from the parse to the end of the run and said again beside
 * its verdict (cmdline.h: cmdline_verdict).
 *
 * Why kept: the parser's "cmdline: ..." lines scroll away at the top of a
 * long run, and a word that selects what is tested (a misspelt
 * torture.busted=, a refused spinlock.kind=) would let a run pass that did
 * not test what was asked.  Two groups: keeping a word (cmdline_note, from
 * the parser, and cmdline_not_done, from whoever finds later that a word
 * cannot be carried out), and saying them again (the verdict's lines, the
 * run's first failure line).  The tally of the run goes on the same line.
 */
#include "cmdline.h"
#include "cmdline_table.h"

#include "platform.h"
#include "printf.h"
#include "string.h"

/* --- Keeping the words --------------------------------------------------------------- */

/* Words kept whole; past this only counted (their lines are at the top). */
#define NOTES_MAX 16

/* A word not carried out as given, kept to be said again beside the verdict. */
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

void cmdline_notes_reset(void)
{
	notes_total = notes_selecting = 0;
	first_selecting = NULL;
}

void cmdline_note(const char *key, const char *value, const char *what, bool selects,
		  const struct option *expected, const struct option *closest)
{
	notes_total++;
	notes_selecting += selects;
	if (notes_total > NOTES_MAX)
		return;
	struct note *n = &notes[notes_total - 1];
	size_t k = strlen(key);

	cmdline_escape(n->word, sizeof(n->word), key, k);
	if (value && strlen(n->word) + 5 <= sizeof(n->word)) { /* "=" and at least "..." */
		size_t at = strlen(n->word);

		n->word[at++] = '=';
		cmdline_escape(n->word + at, sizeof(n->word) - at, value, strlen(value));
	}
	n->what = what;
	n->selects = selects;
	n->expected = expected;
	n->closest = closest;
	if (selects && !first_selecting)
		first_selecting = n;
}

void cmdline_not_done(const char *key, const char *value, const char *what)
{
	cmdline_note(key, value, what, cmdline_key_selects(key), NULL, NULL);
}

bool cmdline_fails(void)
{
	return notes_selecting > 0;
}

/* --- Saying them again ------------------------------------------------------------------ */

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

/* One kept word's line: what was done, whether it fails the run, and why. */
static void say_note(const struct note *n)
{
	platform_log("# cmdline: '%s': %s%s%s%s", n->word, n->what,
		     n->selects ? "; it selects what is tested, so the run fails"
				: " (harmless: it does not select what is tested)",
		     n->expected  ? "; expected "
		     : n->closest ? "; the closest known key: "
				  : "",
		     n->expected  ? option_expected(n->expected)
		     : n->closest ? n->closest->key
				  : "");
}

bool cmdline_verdict(const struct run_tally *t, bool pass)
{
	unsigned kept = notes_total < NOTES_MAX ? notes_total : NOTES_MAX;

	for (unsigned i = 0; i < kept; i++)
		say_note(&notes[i]);
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
