/*
 * platform.c - lib/platform.h on bare metal.
 *
 * The portable code in lib/ and fs/ reaches the machine only through
 * these functions: CPU number from the GS-based per-CPU block, PAUSE,
 * the kernel heap, the TSC, printk and panic, and sleeping waits: HLT,
 * ended by a kick IPI or the local APIC timer.
 */
#include "platform.h"

#include "apic.h"
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

/*
 * Interrupts off while comparing, so a kick that arrives after the
 * comparison stays pending; STI's one-instruction shadow then lets it in
 * only once HLT has begun (Intel SDM Vol. 2B "STI"), where it ends the halt.
 * Interrupts are on for the halt alone: the caller may hold other locks
 * with them off, and the only interrupts that come (VEC_KICK, VEC_WAKE)
 * do nothing.  The timer bounds the halt, so a timeout the caller keeps
 * is still noticed.
 */
void platform_cpu_wait(const uint32_t *addr, uint32_t expected)
{
	bool was_on = read_rflags() & RFLAGS_IF;

	cli();
	if (apic_timer_arm_us(PLATFORM_WAIT_MAX_NS / 1000, VEC_KICK)) {
		if (__atomic_load_n(addr, __ATOMIC_ACQUIRE) == expected)
			sti_hlt();
		cli();
		apic_timer_stop();
	}
	if (was_on)
		sti();
}

void platform_cpu_kick(unsigned cpu)
{
	/* The caller's stores first: a WRMSR to the x2APIC ICR does not order them (SDM 11.12.3). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	apic_send_ipi(cpus[cpu].apic_id, VEC_KICK);
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
