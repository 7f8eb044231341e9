// SPDX-License-Identifier: MIT
/*
 * test_cmdline_words.c - lib/cmdline_words.c alone: words, numbers, names
 * and the closest of them, with no option table behind them.
 *
 * The kernel's parser (tests/host/test_cmdline.c) reaches these through its
 * options; here each edge is taken directly: white space of every kind, a
 * number one past its range or past 64 bits, a list with an empty word or
 * a word for no bits among others, an escape cut where it must not split
 * a \xNN, and a misspelling a third wrong against one half wrong.
 */
#include "check.h"
#include "cmdline_words.h"

#include <string.h>

static const char *const names[] = {"boot", "spinlock", "lockref", NULL};
static const struct word_mask groups[] = {{"off", 0}, {"all", 7}, {NULL, 0}};

static const char *name_of(unsigned i, const void *ctx)
{
	return ((const char *const *)ctx)[i];
}

static void test_words(void)
{
	char line[] = " \tseed=7\nquick\r\v\fx ";
	char *at = line, *w1 = cmdline_next_word(&at), *w2 = cmdline_next_word(&at);
	char *w3 = cmdline_next_word(&at);

	CHECK(w1 && strcmp(w1, "seed=7") == 0 && w2 && strcmp(w2, "quick") == 0 && w3 &&
	      strcmp(w3, "x") == 0 && !cmdline_next_word(&at));
	CHECK(cmdline_is_control('\x01') && cmdline_is_control('\x7f') && !cmdline_is_control(' '));
}

static void test_escape(void)
{
	char out[16];

	CHECK(strcmp(cmdline_escape(out, sizeof(out), "a\x01z", 3), "a\\x01z") == 0, "%s", out);
	/* 20 letters into 16 bytes: 12 kept, then "..." and the NUL. */
	cmdline_escape(out, sizeof(out), "abcdefghijklmnopqrst", 20);
	CHECK(strcmp(out, "abcdefghijkl...") == 0, "%s", out);
	/* A control byte that does not fit whole is left out, never split. */
	cmdline_escape(out, 8, "abc\x02", 4);
	CHECK(strcmp(out, "abc...") == 0, "%s", out);
	CHECK(cmdline_escape(out, 3, "abc", 3)[0] == '\0');
}

static void test_numbers(void)
{
	uint64_t v = 42;

	CHECK(cmdline_parse_u64("0x10", 0, 100, &v) && v == 16);
	CHECK(cmdline_parse_u64("18446744073709551615", 0, UINT64_MAX, &v) && v == UINT64_MAX);
	v = 42;
	CHECK(!cmdline_parse_u64("18446744073709551616", 0, UINT64_MAX, &v) && v == 42);
	CHECK(!cmdline_parse_u64("101", 1, 100, &v) && !cmdline_parse_u64("0", 1, 100, &v));
	CHECK(!cmdline_parse_u64("", 0, 9, &v) && !cmdline_parse_u64("0x", 0, 9, &v) &&
	      !cmdline_parse_u64("12x", 0, 99, &v) && v == 42);
}

static void test_lists(void)
{
	unsigned mask = 99;

	CHECK(cmdline_lookup("lockref", names) == 2 && cmdline_lookup("lock", names) == -1);
	CHECK(cmdline_parse_word_list("boot,lockref", names, groups, &mask) && mask == 5);
	CHECK(cmdline_parse_word_list("all", names, groups, &mask) && mask == 7);
	CHECK(cmdline_parse_word_list("off", names, groups, &mask) && mask == 0);
	mask = 99;
	CHECK(!cmdline_parse_word_list("off,boot", names, groups, &mask) &&
	      !cmdline_parse_word_list("boot,off", names, groups, &mask) &&
	      !cmdline_parse_word_list("", names, groups, &mask) &&
	      !cmdline_parse_word_list("boot,,lockref", names, groups, &mask) &&
	      !cmdline_parse_word_list("bot", names, groups, &mask) && mask == 99);
}

static void test_closest(void)
{
	CHECK(cmdline_closest("spinlok", name_of, names, 3) == 1);
	CHECK(cmdline_closest("lockrf", name_of, names, 3) == 2);
	CHECK(cmdline_closest("bogus", name_of, names, 3) == -1);
	CHECK(cmdline_closest("bt", name_of, names, 3) == -1, "two letters of four wrong");
}

int main(void)
{
	test_words();
	test_escape();
	test_numbers();
	test_lists();
	test_closest();
	return check_exit("test_cmdline_words");
}
