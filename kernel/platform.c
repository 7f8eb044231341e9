// SPDX-License-Identifier: MIT
/*
 * platform.c - lib/platform.h on bare metal.
 *
 * The portable code in lib/ and fs/ reaches the machine only through
 * these functions (the CPU number is inline: platform_cpu.h): PAUSE,
 * the kernel heap, the TSC, CPUID facts, RFLAGS.IF, printk and panic, and
 * sleeping waits: HLT, ended by a kick IPI or the local APIC timer; and
 * a fence on every other CPU, by NMI (fence.c).
 */
#include "platform.h"

#include "apic.h"
#include "console.h"
#include "cpu.h"
#include "cpuinfo.h"
#include "fence.h"
#include "heap.h"
#include "printf.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"
#include "tsc.h"

unsigned platform_cpu_count(void)
{
	return smp_cpus_online();
}

void platform_relax(void)
{
	cpu_relax();
}

void platform_cpu_wait(const uint32_t *addr, uint32_t expected)
{
	smp_wait(addr, expected);
}

void platform_cpu_kick(unsigned cpu)
{
	smp_kick(cpu);
}

uint64_t platform_kicks_received(void)
{
	/* One arrived but not yet taken (interrupts off since the halt) counts too. */
	return this_cpu()->kicks_seen + apic_vector_requested(VEC_KICK);
}

bool platform_fence_others(void)
{
	fence_others();
	return true;
}

void *platform_alloc(size_t size, size_t align)
{
	return heap_alloc(size, align);
}

void platform_free(void *ptr, size_t size)
{
	heap_free(ptr, size);
}

bool platform_static_data(const void *p)
{
	extern char kernel_start[], kernel_end[]; /* linker.ld: the loaded image */

	return (const char *)p >= kernel_start && (const char *)p < kernel_end;
}

uint64_t platform_now_ns(void)
{
	return tsc_to_ns(tsc_now());
}

uint64_t platform_cycles(void)
{
	return tsc_now();
}

uint64_t platform_cycles_begin(void)
{
	return rdtsc_ordered();
}

uint64_t platform_cycles_end(void)
{
	return rdtsc_end(cpuinfo.rdtscp);
}

struct platform_facts platform_facts(void)
{
	return (struct platform_facts){
	    .name = "kernel",
	    .cycles_khz = tsc_khz(),
	    .cx8 = cpuinfo.cx8,
	    .cx16 = cpuinfo.cx16,
	    .rdtscp = cpuinfo.rdtscp,
	};
}

unsigned long platform_irq_save(void)
{
	unsigned long saved = read_rflags() & RFLAGS_IF;

	cli();
	return saved;
}

void platform_irq_restore(unsigned long saved)
{
	if (saved & RFLAGS_IF)
		sti();
}

void platform_log(const char *fmt, ...)
{
	char line[PRINTK_MAX];

	KSNPRINTF_ARGS(line, fmt);
	printk("%s%s\n", console_log_prefix(), line);
}

/* Room in a printk for the log prefix (the test runner's is "  # ") and the newline. */
#define LOG_PREFIX_ROOM 8

_Static_assert(PLATFORM_LINE_MAX + LOG_PREFIX_ROOM <= PRINTK_MAX,
	       "a platform line with its prefix must fit one printk");

void platform_print(const char *fmt, ...)
{
	char line[PRINTK_MAX];

	KSNPRINTF_ARGS(line, fmt);
	printk("%s%s\n", console_print_indent(), line);
}

void platform_panic(const char *fmt, ...)
{
	char line[PRINTK_MAX];

	KSNPRINTF_ARGS(line, fmt);
	panic("%s", line);
}
