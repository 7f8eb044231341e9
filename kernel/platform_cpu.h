// SPDX-License-Identifier: MIT
/*
 * platform_cpu.h - the kernel's platform_cpu_id(): percpu.h's this_cpu_index().
 *
 * Why a header of its own: lib/platform.h includes <platform_cpu.h> and the
 * kernel build's include path (-I kernel) finds this one, so lockref's fast
 * path reads the CPU index inline (one GS-relative load, no call and no
 * frame), while lib/ names no kernel header.  The load itself belongs to
 * percpu.h, which owns struct cpu and the GS base; this only forwards.
 */
#ifndef KERNEL_PLATFORM_CPU_H
#define KERNEL_PLATFORM_CPU_H

#include "percpu.h"

/* Static keys are patched text here (lib/static_key.h, kernel/static_key.c). */
#define PLATFORM_STATIC_KEYS_PATCHED 1

static inline unsigned platform_cpu_id(void)
{
	return this_cpu_index();
}

#endif /* KERNEL_PLATFORM_CPU_H */
