// SPDX-License-Identifier: MIT
/*
 * printf.h - a small, allocation-free formatter for kernel and tests.
 *
 * Conversions: %d %i %u %x %X %p %s %c %%, with the length modifiers l, ll
 * and z, the flags '-' (left-justify), '0' (zero-pad) and '#' (0x prefix), a field width
 * (digits or '*') and, for %s, a precision ('.N' or '.*').  No floating
 * point: the kernel is built without SSE.  Unknown conversions are printed
 * verbatim so a bad format is visible, never silently dropped.
 *
 * %pS prints a code address and, when the platform knows the function
 * holding it (platform_symbol), " (name+0xoff/0xsize)" after it; %pB the
 * same for a return address (the function of the call before it).
 */
#ifndef LIB_PRINTF_H
#define LIB_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Format into @buf of @size bytes, always NUL-terminated when @size > 0.
 * Returns the length the full result would have had (as C99 vsnprintf), so
 * a return >= @size means it was truncated.
 */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Copy @s into @out (@size bytes, NUL-terminated) as the inside of a JSON
 * string: '"' and '\\' escaped, control characters dropped, cut whole if
 * @out is too small.  For free text inside a "# ENV {...}" line.
 */
void json_escape(char *out, size_t size, const char *s);

/* "s" unless @n is 1, for counted nouns: ("%u CPU%s", n, plural(n)), never "1 CPUs". */
static inline const char *plural(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

/*
 * In a variadic function whose last named parameter is @fmt: format its own
 * arguments into the array @buf (kvsnprintf, so cut to fit and terminated).
 * A macro because va_start must run in the variadic function itself.
 */
#define KSNPRINTF_ARGS(buf, fmt)                                                                   \
	do {                                                                                       \
		va_list ap_;                                                                       \
		va_start(ap_, fmt);                                                                \
		kvsnprintf(buf, sizeof(buf), fmt, ap_);                                            \
		va_end(ap_);                                                                       \
	} while (0)

#endif /* LIB_PRINTF_H */
