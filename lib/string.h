// SPDX-License-Identifier: MIT
/*
 * string.h - the few <string.h> routines freestanding code needs.
 *
 * The kernel has no libc.  GCC may also emit calls to memcpy, memmove,
 * memset and memcmp on its own (struct copies, zeroing), so these four keep
 * their standard names and contracts.  Host tests get libc's.
 */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);

#endif /* LIB_STRING_H */
