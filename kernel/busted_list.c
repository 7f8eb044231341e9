// SPDX-License-Identifier: MIT
/*
 * busted_list.c - what BUSTED_LIST's rows (busted_list.h) give the rest of
 * the kernel: the words, by enum busted_kind, for the parser and the log
 * lines; where each is planted; the must-fail control of a torture.
 * Apart from the parser (cmdline.c) so the host torture
 * (tests/host/test_torture.c), which keeps its own `opts`, links it alone.
 */
#include "busted_list.h"

#include "string.h"

/*
 * torture.busted='s words, in BUSTED_LIST's order, each its own object with
 * the symbol "torture.busted=<word>": two rows with one word are two
 * definitions of one symbol, a build error that names the word.
 */
#define BUSTED_X_WORD(word, id, ...)                                                               \
	static const char busted_word_##id[] __asm__("\"torture.busted=" word "\"") = word;
BUSTED_LIST(BUSTED_X_WORD)
#undef BUSTED_X_WORD
#define BUSTED_X_NAME(word, id, ...) busted_word_##id,
const char *const busted_names[BUSTED_COUNT] = {BUSTED_LIST(BUSTED_X_NAME) NULL};
#undef BUSTED_X_NAME

/* The on, kind and breaks columns, indexed by enum busted_kind (BUSTED_NONE: none). */
#define BUSTED_X_ON(word, id, on, ...) [BUSTED_##id] = on,
static const enum busted_on busted_ons[BUSTED_COUNT] = {BUSTED_LIST(BUSTED_X_ON)};
#undef BUSTED_X_ON
#define BUSTED_X_KIND(word, id, on, kind, ...) [BUSTED_##id] = kind,
static const unsigned busted_kinds[BUSTED_COUNT] = {BUSTED_LIST(BUSTED_X_KIND)};
#undef BUSTED_X_KIND
#define BUSTED_X_BREAKS(word, id, on, kind, breaks, ...) [BUSTED_##id] = breaks,
static const enum busted_breaks busted_breaks[BUSTED_COUNT] = {BUSTED_LIST(BUSTED_X_BREAKS)};
#undef BUSTED_X_BREAKS

enum busted_on busted_on(enum busted_kind busted)
{
	return busted > BUSTED_NONE && busted < BUSTED_COUNT ? busted_ons[busted] : 0;
}

const char *busted_name(enum busted_kind busted)
{
	return busted > BUSTED_NONE && busted < BUSTED_COUNT ? busted_names[busted - 1] : "none";
}

enum busted_kind busted_control(enum busted_on on)
{
	for (unsigned b = BUSTED_NONE + 1; b < BUSTED_COUNT; b++)
		if ((busted_ons[b] & on) && busted_breaks[b] == BUSTED_BREAKS_EXCLUSION)
			return (enum busted_kind)b;
	return BUSTED_NONE;
}

const char *busted_closest(const char *word)
{
	for (unsigned b = BUSTED_NONE + 1; b < BUSTED_COUNT; b++)
		if (busted_breaks[b] == BUSTED_BREAKS_EXCLUSION && busted_kinds[b] < SPIN_KINDS &&
		    strcmp(spin_kind_names[busted_kinds[b]], word) == 0)
			return busted_names[b - 1];
	return NULL;
}
