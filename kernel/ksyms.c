// SPDX-License-Identifier: MIT
/*
 * ksyms.c - the function holding a code address, from the table linked into
 * the image (ksyms.h), for the names every report prints beside its raw
 * addresses (panic backtraces, lockdep, the race detector).
 *
 * Not instrumented in the race-detecting build (Makefile, KCSAN_EXEMPT):
 * its reports call it.  Reads only constant data, so it is safe from any
 * CPU, an interrupt or a panic.
 */
#include "ksyms.h"

#include "platform.h"

bool platform_symbol(uintptr_t addr, const char **name, uintptr_t *start, size_t *size)
{
	uint32_t lo = 0, hi = ksyms_count;

	if (addr > UINT32_MAX)
		return false;
	/* The last entry starting at or before addr: binary search over [lo, hi). */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ksyms[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (hi == 0 || addr < ksyms[lo].start || addr - ksyms[lo].start >= ksyms[lo].size)
		return false; /* before the first function, or in padding between two */
	*name = &ksym_names[ksyms[lo].name];
	*start = ksyms[lo].start;
	*size = ksyms[lo].size;
	return true;
}
