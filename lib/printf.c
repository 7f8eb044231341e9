// SPDX-License-Identifier: MIT
/*
 * printf.c - the formatter behind printk and every result line.
 *
 * Writes through a bounded cursor: output past the buffer is counted but
 * never stored, which gives snprintf's "would have written" return value.
 */
#include "printf.h"

#include <stdbool.h>
#include <stdint.h>

#include "platform.h"

struct out {
	char *buf;
	size_t size;
	size_t len; /* characters produced so far, stored or not */
};

static void emit(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void emit_padding(struct out *o, char c, int count)
{
	while (count-- > 0)
		emit(o, c);
}

/* Emit @s (@n bytes) in a field of @width, padded with @pad on the chosen side. */
static void emit_field(struct out *o, const char *s, int n, int width, bool left, char pad)
{
	if (!left)
		emit_padding(o, pad, width - n);
	for (int i = 0; i < n; i++)
		emit(o, s[i]);
	if (left)
		emit_padding(o, ' ', width - n);
}

/* Digits of @v in @base into the end of @tmp; returns the first digit. */
static char *to_digits(char *end, uint64_t v, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;

	do {
		*--p = digits[v % base];
		v /= base;
	} while (v);
	return p;
}

static void emit_number(struct out *o, uint64_t v, bool negative, unsigned base, bool upper,
			int width, bool left, bool zero, const char *prefix)
{
	char tmp[24];
	char *p = to_digits(tmp + sizeof(tmp), v, base, upper);
	int ndigits = (int)(tmp + sizeof(tmp) - p);
	int nprefix = negative ? 1 : 0;

	for (const char *q = prefix; q && *q; q++)
		nprefix++;
	if (zero && !left) {
		/* Sign and prefix go before the zeros: -0042, 0x00ff. */
		if (negative)
			emit(o, '-');
		for (const char *q = prefix; q && *q; q++)
			emit(o, *q);
		emit_padding(o, '0', width - nprefix - ndigits);
		emit_field(o, p, ndigits, 0, false, ' ');
		return;
	}
	if (!left)
		emit_padding(o, ' ', width - nprefix - ndigits);
	if (negative)
		emit(o, '-');
	for (const char *q = prefix; q && *q; q++)
		emit(o, *q);
	emit_field(o, p, ndigits, 0, false, ' ');
	if (left)
		emit_padding(o, ' ', width - nprefix - ndigits);
}

static void emit_string(struct out *o, const char *s)
{
	while (*s)
		emit(o, *s++);
}

/*
 * %pS and %pB: " (name+0xoff/0xsize)" after the address, when the platform
 * knows the function.  A return address (%pB) is the byte after its call,
 * which may be the first byte of the next function when the call was the
 * last instruction (a call to a function that never returns): the function
 * is looked up one byte before it, and the offset is still the address's.
 */
static void emit_symbol(struct out *o, uintptr_t addr, bool return_address)
{
	const char *name;
	uintptr_t start;
	size_t size;

	if (!addr || !platform_symbol(addr - return_address, &name, &start, &size))
		return;
	emit_string(o, " (");
	emit_string(o, name);
	emit_number(o, addr - start, false, 16, false, 0, false, false, "+0x");
	emit_number(o, size, false, 16, false, 0, false, false, "/0x");
	emit(o, ')');
}

/* One conversion's flags, width, precision and length, as written between '%' and its letter. */
struct spec {
	bool left, zero, alt;
	int width, precision; /* precision -1: none given */
	int longs;	      /* how many 'l' */
	bool size_t_arg;      /* 'z' */
};

/*
 * Read the spec starting at @f (just past the '%') into @sp, taking a '*'
 * width or precision from @ap.  Returns the conversion letter's place.
 */
static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	*sp = (struct spec){.precision = -1};
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else if (*f == '#')
			sp->alt = true;
		else
			break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->left = true;
			sp->width = -sp->width;
		}
		f++;
	}
	while (*f >= '0' && *f <= '9')
		sp->width = sp->width * 10 + (*f++ - '0');
	if (*f == '.') {
		f++;
		sp->precision = 0;
		if (*f == '*') {
			sp->precision = va_arg(*ap, int);
			f++;
		}
		while (*f >= '0' && *f <= '9')
			sp->precision = sp->precision * 10 + (*f++ - '0');
	}
	for (; *f == 'l'; f++)
		sp->longs++;
	if (*f == 'z') {
		sp->size_t_arg = true;
		f++;
	}
	return f;
}

/* %d %i %u %x %X (@conv): the argument at its width ('l', 'll' and 'z' are 64-bit here). */
static void emit_integer(struct out *o, char conv, const struct spec *sp, va_list *ap)
{
	if (conv == 'd' || conv == 'i') {
		int64_t v =
		    (sp->size_t_arg || sp->longs) ? (int64_t)va_arg(*ap, long) : va_arg(*ap, int);
		uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
		emit_number(o, mag, v < 0, 10, false, sp->width, sp->left, sp->zero, NULL);
		return;
	}
	uint64_t v =
	    (sp->size_t_arg || sp->longs) ? va_arg(*ap, unsigned long) : va_arg(*ap, unsigned int);
	const char *prefix = NULL;

	if (sp->alt && v && conv != 'u')
		prefix = conv == 'X' ? "0X" : "0x";
	emit_number(o, v, false, conv == 'u' ? 10 : 16, conv == 'X', sp->width, sp->left, sp->zero,
		    prefix);
}

/*
 * The conversion at @f (its spec @sp, the whole of it from @start, the
 * '%'), with its argument from @ap.  Returns the last character it used.
 */
static const char *emit_conversion(struct out *o, const char *start, const char *f,
				   const struct spec *sp, va_list *ap)
{
	switch (*f) {
	case 'd':
	case 'i':
	case 'u':
	case 'x':
	case 'X':
		emit_integer(o, *f, sp, ap);
		break;
	case 'p': {
		uintptr_t v = (uintptr_t)va_arg(*ap, void *);

		emit_number(o, v, false, 16, false, sp->width, sp->left, sp->zero, "0x");
		if (f[1] == 'S' || f[1] == 'B')
			emit_symbol(o, v, *++f == 'B');
		break;
	}
	case 's': {
		const char *s = va_arg(*ap, const char *);
		int n = 0;

		if (!s)
			s = "(null)";
		while (s[n] && (sp->precision < 0 || n < sp->precision))
			n++;
		emit_field(o, s, n, sp->width, sp->left, ' ');
		break;
	}
	case 'c': {
		char c = (char)va_arg(*ap, int);
		emit_field(o, &c, 1, sp->width, sp->left, ' ');
		break;
	}
	case '%':
		emit(o, '%');
		break;
	default:
		/* Unknown or truncated conversion: show it as written. */
		for (const char *q = start; q <= f && *q; q++)
			emit(o, *q);
		if (!*f)
			f--;
		break;
	}
	return f;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = {buf, size, 0};
	va_list args; /* a copy, so the helpers can share it by address (va_list may be an array) */

	va_copy(args, ap);
	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			emit(&o, *f);
			continue;
		}
		const char *start = f;
		struct spec sp;

		f = parse_spec(f + 1, &sp, &args);
		f = emit_conversion(&o, start, f, &sp, &args);
	}
	va_end(args);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

void json_escape(char *out, size_t size, const char *s)
{
	size_t n = 0;

	if (size == 0)
		return;
	for (; *s && n + 2 < size; s++) {
		if (*s == '"' || *s == '\\')
			out[n++] = '\\';
		if ((unsigned char)*s >= ' ')
			out[n++] = *s;
	}
	out[n] = '\0';
}
