// SPDX-License-Identifier: MIT
/*
 * string.h - the few <string.h> routines freestanding code needs.
 *
 * The kernel has no libc.  GCC may also emit calls to memcpy, memmove,
 * memset and memcmp on its own (struct copies, zeroing), so these four keep
 * their standard names and contracts.  Host tests get libc's, and the
 * str_* helpers below, which libc lacks, from lib/string.c.
 */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *s, const char *needle);

/* Whether @s begins with @prefix. */
bool str_starts(const char *s, const char *prefix);

/* Copy @s into @dst (@size bytes with the NUL, @size >= 1), cutting it to fit. */
void str_copy(char *dst, size_t size, const char *s);

/* The decimal number at the start of @s (digits only, no sign); @ok false if none. */
uint64_t str_decimal(const char *s, bool *ok);

#endif /* LIB_STRING_H */
