// SPDX-License-Identifier: MIT
/*
 * string.c - byte-at-a-time string and memory routines for the kernel.
 *
 * Simple on purpose: nothing on a hot path copies much memory, and simple
 * loops are easy to trust.  The <string.h> routines are the kernel's own; a
 * host program (HOST_TEST) keeps libc's and builds only the str_* helpers
 * at the end, which libc does not have.
 */
#include "string.h"

#ifndef HOST_TEST

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d < s) {
		while (n--)
			*d++ = *s++;
	} else {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strstr(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s; s++)
		if (strncmp(s, needle, n) == 0)
			return (char *)s;
	return n ? NULL : (char *)s;
}
#endif /* HOST_TEST */

bool str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

void str_copy(char *dst, size_t size, const char *s)
{
	size_t n = strnlen(s, size - 1);

	memcpy(dst, s, n);
	dst[n] = '\0';
}

uint64_t str_decimal(const char *s, bool *ok)
{
	uint64_t v = 0;

	*ok = *s >= '0' && *s <= '9';
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	return v;
}
