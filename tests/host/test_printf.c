// SPDX-License-Identifier: MIT
/*
 * test_printf.c - lib/printf.c against the C library's printf.
 *
 * Every case is formatted by both and must match byte for byte, including
 * the "would have written" return value when the buffer is too small.
 */
#include "printf.h"

#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Format with both; the text and the returned length must match. */
#define CHECK_FORMAT(fmt, ...)                                                                     \
	do {                                                                                       \
		char ours[64], libc[64];                                                           \
		int n1 = ksnprintf(ours, sizeof(ours), fmt, __VA_ARGS__);                          \
		int n2 = snprintf(libc, sizeof(libc), fmt, __VA_ARGS__);                           \
		CHECK(n1 == n2 && strcmp(ours, libc) == 0,                                         \
		      "format \"%s\": got \"%s\" (%d), libc \"%s\" (%d)", fmt, ours, n1, libc,     \
		      n2);                                                                         \
	} while (0)

int main(void)
{
	char small[8];
	int n;

	CHECK_FORMAT("%d", 0);
	CHECK_FORMAT("%d", -42);
	CHECK_FORMAT("%d", INT32_MIN);
	CHECK_FORMAT("%u", 4294967295u);
	CHECK_FORMAT("%5d|%-5d|%05d", 42, 42, -42);
	CHECK_FORMAT("%x %X %08x", 0xbeefu, 0xbeefu, 0xbeefu);
	CHECK_FORMAT("%lx", 0xffffffffffffffffUL);
	CHECK_FORMAT("%ld %lu", (long)INT64_MIN, (unsigned long)UINT64_MAX);
	CHECK_FORMAT("%lld", -1234567890123LL);
	CHECK_FORMAT("%zu", (size_t)123456);
	CHECK_FORMAT("%p", (void *)0x1000);
	{
		/* %pS, %pB: the address, then the function holding it where the platform knows
		 * one (platform_symbol; a host program knows none): the letter is consumed. */
		char named[32];

		n = ksnprintf(named, sizeof(named), "%pS|%pB|%pX", (void *)0x1000, (void *)0x1000,
			      (void *)0x10);
		CHECK(n == 19 && strcmp(named, "0x1000|0x1000|0x10X") == 0, "got \"%s\" (%d)",
		      named, n);
	}
	CHECK_FORMAT("%s|%10s|%-10s|", "abc", "abc", "abc");
	CHECK_FORMAT("%.2s|%.*s", "abcdef", 3, "abcdef");
	CHECK_FORMAT("%c%c%c", 'o', 'k', '!');
	CHECK_FORMAT("%*d|%-*d", 6, 7, 6, 7);
	CHECK_FORMAT("100%% %s", "done");
	CHECK_FORMAT("%016lx", 0x12345UL);
	CHECK_FORMAT("%#x|%#lx|%#X|%#x", 0x1fu, 0xabcUL, 0xabcu, 0u);
	CHECK_FORMAT("%#10x|%#010x|%-#8x|", 0x1fu, 0x1fu, 0x1fu);

	/* Truncation: stored part NUL-terminated, return value is the full length. */
	n = ksnprintf(small, sizeof(small), "%s", "0123456789");
	CHECK(n == 10 && strcmp(small, "0123456") == 0, "truncation gave \"%s\" (%d)", small, n);
	/* A zero-sized buffer is never written. */
	small[0] = 'x';
	n = ksnprintf(small, 0, "%d", 12345);
	CHECK(n == 5 && small[0] == 'x', "size 0 wrote or returned %d", n);
	/* JSON strings: quote and backslash escaped, control bytes dropped, cut whole. */
	char json[16];

	json_escape(json, sizeof(json), "a\"b\\c\nd");
	CHECK(strcmp(json, "a\\\"b\\\\cd") == 0, "json_escape gave %s", json);
	json_escape(json, 4, "\"\"\"");
	CHECK(strcmp(json, "\\\"") == 0, "json_escape cut an escape in half: %s", json);
	return check_exit("test_printf");
}
