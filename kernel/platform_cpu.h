// SPDX-License-Identifier: MIT
/*
 * platform_cpu.h - the kernel's platform_cpu_id(): one GS-relative load.
 *
 * Why a header of its own: lib/platform.h includes <platform_cpu.h> and the
 * kernel build's include path (-I kernel) finds this one, so lockref's fast
 * path reads the CPU index inline, with no call and no frame, while lib/
 * names no kernel header.  Every CPU points its GS base at its own struct
 * cpu (percpu.h, which asserts the offset below) before it runs any
 * portable code.
 */
#ifndef KERNEL_PLATFORM_CPU_H
#define KERNEL_PLATFORM_CPU_H

/* Where struct cpu keeps the dense index, from the GS base. */
#define PLATFORM_CPU_INDEX_GS_OFFSET 8

/*
 * volatile: the index never changes on a CPU, but the read goes through the
 * GS base, which percpu_install sets; the compiler must not move or merge
 * the read across that.
 */
static inline unsigned platform_cpu_id(void)
{
	unsigned v;

	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(v) : "i"(PLATFORM_CPU_INDEX_GS_OFFSET));
	return v;
}

#endif /* KERNEL_PLATFORM_CPU_H */
