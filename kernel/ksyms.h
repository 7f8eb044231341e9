// SPDX-License-Identifier: MIT
/*
 * ksyms.h - the kernel's table of its own functions, for reports that name
 * what they print (platform_symbol, lib/platform.h).
 *
 * The table is made at link time, as Linux's kallsyms is: a first link
 * without it gives every function's address (tools/boot/ksyms.py reads them
 * with nm), and the table written from those is linked into the second.
 * The table is read-only data, placed after all code (linker.ld), so no
 * function moves between the two links; tools/boot/ksyms.py --check proves it
 * on every build.
 */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>

/* One function: the kernel is linked below 4 GiB, so 32 bits hold an address. */
struct ksym {
	uint32_t start; /* its first byte */
	uint32_t size;	/* its length in bytes */
	uint32_t name;	/* offset of its name in ksym_names */
};

/* Sorted by start, no two overlapping (tools/boot/ksyms.py); ksyms_count entries. */
extern const struct ksym ksyms[];
extern const uint32_t ksyms_count;
extern const char ksym_names[];

#endif /* KERNEL_KSYMS_H */
