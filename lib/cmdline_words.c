// SPDX-License-Identifier: MIT
/*
 * cmdline_words.c - words, numbers, names and the closest of them, for the
 * command-line parser (cmdline_words.h).
 *
 * Three groups: splitting a line into words and showing a word safely
 * (is_space, next_word, escape); reading a value (a number, a name, a
 * comma list of names); and, for a word that is none of the known ones,
 * the closest known one.  Portable: the kernel, the native benchmark
 * program and the host tests run this same file.
 */
#include "cmdline_words.h"

#include "string.h"

/* --- Words: split in place, shown escaped ---------------------------------------------- */

bool cmdline_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool cmdline_is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

char *cmdline_next_word(char **p)
{
	char *word, *at = *p;

	while (cmdline_is_space(*at))
		at++;
	if (!*at) {
		*p = at;
		return NULL;
	}
	word = at;
	while (*at && !cmdline_is_space(*at))
		at++;
	if (*at)
		*at++ = '\0';
	*p = at;
	return word;
}

char *cmdline_escape(char *dst, size_t size, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (size < 4) { /* no room for "..." */
		if (size)
			dst[0] = '\0';
		return dst;
	}
	for (size_t i = 0; i < len; i++) {
		bool ctl = cmdline_is_control(src[i]);

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

/* --- Values: a number, a name, a comma list of names ---------------------------------- */

bool cmdline_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
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
		/* v * base + d would pass UINT64_MAX: not a number this parser keeps. */
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int cmdline_lookup(const char *s, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

bool cmdline_parse_word_list(const char *v, const char *const *names,
			     const struct word_mask *groups, unsigned *mask)
{
	char word[16]; /* longer than every name of every list */
	const char *list = v;
	unsigned bits = 0;

	if (!*v)
		return false;
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
		i = cmdline_lookup(word, names);
		while (i < 0 && g->word && strcmp(g->word, word) != 0)
			g++;
		if (i < 0 && !g->word)
			return false;
		/* A word for no bits ("off") stands alone: "off,spin" is no list. */
		if (i < 0 && !g->mask && (v != list || v[n]))
			return false;
		bits |= i >= 0 ? 1u << i : g->mask;
		v += n;
		if (*v == ',')
			v++;
	}
	*mask = bits;
	return true;
}

/* --- The closest known name to an unknown word ---------------------------------------- */

/*
 * Edit distance of @a and @b, both under CMDLINE_CLOSEST_MAX bytes: one row
 * of the dynamic-programming table at a time, so the stack holds 33 words.
 */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[CMDLINE_CLOSEST_MAX + 1];
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

int cmdline_closest(const char *word, const char *(*name)(unsigned i, const void *ctx),
		    const void *ctx, unsigned n)
{
	size_t len = strlen(word);
	unsigned limit = len / 3 ? (unsigned)(len / 3) : 1, best = limit + 1;
	int found = -1;

	if (len >= CMDLINE_CLOSEST_MAX)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		const char *known = name(i, ctx);
		unsigned d =
		    strlen(known) < CMDLINE_CLOSEST_MAX ? edit_distance(word, known) : best;

		if (d < best) {
			best = d;
			found = (int)i;
		}
	}
	return found;
}
