// SPDX-License-Identifier: MIT
/*
 * cmdline_words.h - the portable half of the command-line parser: words,
 * numbers, names and the closest of them.
 *
 * Nothing here knows an option or touches the machine, so the kernel's
 * parser (kernel/cmdline.c), the native benchmark program and the host tests
 * (tests/host/test_cmdline_words.c) share one copy.  Every function takes
 * NUL-terminated strings and returns without side effects beyond its
 * output arguments.
 */
#ifndef LIB_CMDLINE_WORDS_H
#define LIB_CMDLINE_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether @c separates words: any ASCII white space, as Linux separates
 * its command line (a newline inside a word would otherwise break the one
 * line its error message must be; found by tests/fuzz/fuzz_cmdline.c).
 */
bool cmdline_is_space(char c);

/* Whether @c is a control byte (below 0x20, or DEL), shown as \xNN in log lines. */
bool cmdline_is_control(char c);

/*
 * The next word of the line at *@p, NUL-terminated in place, *@p moved past
 * it and its separator; NULL when only white space is left.
 */
char *cmdline_next_word(char **p);

/*
 * A decimal or 0x-hex number in [@lo, @hi] into *@out: true, or false with
 * *@out untouched (not a number, an overflow, out of range).
 */
bool cmdline_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* The index of @s in the NULL-terminated @names, or -1. */
int cmdline_lookup(const char *s, const char *const *names);

/*
 * @len bytes of @src into @dst (@size bytes, always terminated when @size
 * is not 0), each control byte as \xNN so the line it goes in stays one
 * printable line; cut with "..." where it does not fit.  Returns @dst.
 */
char *cmdline_escape(char *dst, size_t size, const char *src, size_t len);

/* A word of a comma list that stands for several bits at once ("all"). */
struct word_mask {
	const char *word;
	unsigned mask;
};

/*
 * A comma list of words, each one of @names (names[i] sets bit i) or of
 * @groups (its mask; the array ends with a NULL word): the union in
 * *@mask.  A group of no bits ("off") must be the whole list.  False,
 * *@mask unchanged, on an empty list, an unknown or empty word, or a
 * group of no bits among others.
 */
bool cmdline_parse_word_list(const char *v, const char *const *names,
			     const struct word_mask *groups, unsigned *mask);

/* Words longer than this are nobody's misspelling of a known one. */
#define CMDLINE_CLOSEST_MAX 32

/*
 * The index of the name closest to the unknown @word among @n names
 * (@name(i, @ctx) the i-th), or -1 when none is close: at most a third of
 * the word's letters wrong (at least one), by edit distance (insertions,
 * deletions, substitutions; Levenshtein), so "bogus" names nothing and
 * "spinlok.kind" names spinlock.kind.  The first of equally close names.
 */
int cmdline_closest(const char *word, const char *(*name)(unsigned i, const void *ctx),
		    const void *ctx, unsigned n);

#endif /* LIB_CMDLINE_WORDS_H */
