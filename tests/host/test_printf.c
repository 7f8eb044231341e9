/*
 * test_printf.c - lib/printf.c against the C library's printf.
 *
 * Every case is formatted by both and must match byte for byte, including
 * the "would have written" return value when the buffer is too small.
 */
#include "printf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(fmt, ...)                                                                            \
	do {                                                                                       \
		char ours[64], libc[64];                                                           \
		int n1 = ksnprintf(ours, sizeof(ours), fmt, __VA_ARGS__);                          \
		int n2 = snprintf(libc, sizeof(libc), fmt, __VA_ARGS__);                           \
		if (n1 != n2 || strcmp(ours, libc) != 0) {                                         \
			printf("not ok: format \"%s\": got \"%s\" (%d), libc \"%s\" (%d)\n", fmt,  \
			       ours, n1, libc, n2);                                                \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

int main(void)
{
	char small[8];
	int n;

	CHECK("%d", 0);
	CHECK("%d", -42);
	CHECK("%d", INT32_MIN);
	CHECK("%u", 4294967295u);
	CHECK("%5d|%-5d|%05d", 42, 42, -42);
	CHECK("%x %X %08x", 0xbeefu, 0xbeefu, 0xbeefu);
	CHECK("%lx", 0xffffffffffffffffUL);
	CHECK("%ld %lu", (long)INT64_MIN, (unsigned long)UINT64_MAX);
	CHECK("%lld", -1234567890123LL);
	CHECK("%zu", (size_t)123456);
	CHECK("%p", (void *)0x1000);
	CHECK("%s|%10s|%-10s|", "abc", "abc", "abc");
	CHECK("%.2s|%.*s", "abcdef", 3, "abcdef");
	CHECK("%c%c%c", 'o', 'k', '!');
	CHECK("%*d|%-*d", 6, 7, 6, 7);
	CHECK("100%% %s", "done");
	CHECK("%016lx", 0x12345UL);
	CHECK("%#x|%#lx|%#X|%#x", 0x1fu, 0xabcUL, 0xabcu, 0u);
	CHECK("%#10x|%#010x|%-#8x|", 0x1fu, 0x1fu, 0x1fu);

	/* Truncation: stored part NUL-terminated, return value is the full length. */
	n = ksnprintf(small, sizeof(small), "%s", "0123456789");
	if (n != 10 || strcmp(small, "0123456") != 0) {
		printf("not ok: truncation gave \"%s\" (%d)\n", small, n);
		failures++;
	}
	/* A zero-sized buffer is never written. */
	small[0] = 'x';
	n = ksnprintf(small, 0, "%d", 12345);
	if (n != 5 || small[0] != 'x') {
		printf("not ok: size 0 wrote or returned %d\n", n);
		failures++;
	}
	printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
	return failures != 0;
}
