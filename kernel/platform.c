/*
 * platform.c - lib/platform.h on bare metal.
 *
 * The portable code in lib/ and fs/ reaches the machine only through
 * these functions: CPU number from the GS-based per-CPU block, PAUSE,
 * the kernel heap, the TSC, printk and panic.
 */
#include "platform.h"

#include "console.h"
#include "cpu.h"
#include "heap.h"
#include "printf.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"
#include "tsc.h"

unsigned platform_cpu_id(void)
{
	return this_cpu_index();
}

unsigned platform_cpu_count(void)
{
	return smp_cpus_online();
}

void platform_relax(void)
{
	cpu_relax();
}

void *platform_alloc(size_t size, size_t align)
{
	return heap_alloc(size, align);
}

void platform_free(void *ptr, size_t size)
{
	heap_free(ptr, size);
}

uint64_t platform_now_ns(void)
{
	return tsc_to_ns(tsc_now());
}

uint64_t platform_cycles(void)
{
	return tsc_now();
}

void platform_log(const char *fmt, ...)
{
	char line[PRINTK_MAX];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printk("%s%s\n", console_log_prefix(), line);
}

void platform_panic(const char *fmt, ...)
{
	char line[PRINTK_MAX];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	panic("%s", line);
}
