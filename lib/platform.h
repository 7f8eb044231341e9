// SPDX-License-Identifier: MIT
/*
 * platform.h - the only door from portable code to the machine.
 *
 * Everything in lib/ and fs/ is freestanding C that must build twice: into
 * the kernel (kernel/platform.c implements this header on bare x86-64) and
 * into host test programs (tests/host/platform_host.c implements it with
 * pthreads).  Portable code includes this header and nothing from kernel/;
 * that split is what lets the very same lock be stress-tested on the host,
 * under sanitizers, and tortured on every CPU at boot.  It declares
 * functions, with the bounds of their contracts; the machine's numbers
 * (MAX_CPUS, cache geometry) live in lib/limits.h.
 */
#ifndef LIB_PLATFORM_H
#define LIB_PLATFORM_H

#include "limits.h" /* MAX_CPUS, the bound of platform_cpu_id */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * unsigned platform_cpu_id(void): dense index of the calling CPU (host:
 * calling thread), 0 .. MAX_CPUS-1.  A static inline function that makes
 * no call and needs no frame, so a lock's fast path may keep per-CPU
 * statistics and stay straight-line.  Each platform defines it in its own
 * <platform_cpu.h>, found by the build's include path (-I kernel for the
 * kernel: one GS-relative load; -I tests/host for host programs: a
 * thread-local), so portable code names no platform directory.
 */
#include <platform_cpu.h>

/* Number of CPUs that are online (host: threads registered with the platform). */
unsigned platform_cpu_count(void);

/* Spin-wait hint for busy loops (PAUSE on x86). */
void platform_relax(void);

/*
 * Zeroed memory of at least @size bytes aligned to @align (a power of two,
 * at most 4096), or NULL when memory is exhausted.  Safe from any CPU.
 */
void *platform_alloc(size_t size, size_t align);

/* Return memory from platform_alloc(); @size must be the size it was given. */
void platform_free(void *ptr, size_t size);

/*
 * Whether @p lies in the program's own static storage (its image's data
 * and bss), not in memory handed out at run time.  lockdep tells a static
 * lock, whose address names it for the whole run, from zeroed heap memory.
 */
bool platform_static_data(const void *p);

/*
 * The function holding code address @addr: its name, first byte and size.
 * Reports print "name+0xoff/0xsize" beside each raw address (printf's %pS
 * and %pB, lib/printf.h), since the person reading a screen has no ELF at
 * hand.  Returns false, the outputs untouched, when no function holds
 * @addr.  Kernel: the symbol table linked into the image (kernel/ksyms.c);
 * host programs: always false.
 */
bool platform_symbol(uintptr_t addr, const char **name, uintptr_t *start, size_t *size);

/* Nanoseconds since an arbitrary origin; monotonic on every CPU. */
uint64_t platform_now_ns(void);

/* A raw, cheap cycle counter (TSC); monotonic on one CPU. */
uint64_t platform_cycles(void);

/*
 * The cycle counter read at the two ends of a timed region (benchmarks).
 * platform_cycles_begin() reads it once every earlier instruction has
 * completed (x86: LFENCE;RDTSC, Intel SDM Vol. 2B RDTSC);
 * platform_cycles_end() also keeps later instructions from starting before
 * the read (RDTSCP;LFENCE, or LFENCE;RDTSC;LFENCE where CPUID hides RDTSCP).
 */
uint64_t platform_cycles_begin(void);
uint64_t platform_cycles_end(void);

/* What portable code may need to know about the machine; fixed once the platform is up. */
struct platform_facts {
	const char *name;    /* "kernel" (bare x86-64) or "native" (threads of a host OS) */
	uint64_t cycles_khz; /* rate of platform_cycles() */
	bool cx8;	     /* CMPXCHG8B (CPUID.01H:EDX.CX8) */
	bool cx16;	     /* CMPXCHG16B (CPUID.01H:ECX.CX16) */
	bool rdtscp;	     /* platform_cycles_end() reads with RDTSCP */
};

struct platform_facts platform_facts(void);

/*
 * Keep interrupts off the calling CPU until platform_irq_restore(the value
 * returned), so that a timed region measures only itself.  A host OS keeps
 * its interrupts and may preempt a thread anyway: there these do nothing.
 */
unsigned long platform_irq_save(void);
void platform_irq_restore(unsigned long saved);

/*
 * Print one formatted line (the newline is added).  Lines from different CPUs
 * never interleave.  Formats: see lib/printf.h.
 */
void platform_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The longest line platform_log and platform_print print whole (the newline not counted). */
#define PLATFORM_LINE_MAX 1000

/*
 * Print one line as formatted (the newline is added), without the prefix
 * platform_log may put before lines, but indented to the KTAP level of the
 * test that prints it: for lines tools read, such as "# BENCH {...}".
 */
void platform_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Sleeping waits, for the paravirtual spinlock (spinlock_pv.c) and the barrier:
 * when CPUs outnumber the host's cores, a waiter that spins burns the time
 * slice the CPU it waits for needs, so after spinning a while it sleeps.
 *
 * platform_cpu_wait: if *@addr still equals @expected, the calling CPU
 * sleeps until platform_cpu_kick names it, or at most PLATFORM_WAIT_MAX_NS;
 * it may also return early for no reason, so callers re-check in a loop.
 * The comparison and the sleep are one step as far as a kick is concerned:
 * a kick sent after the comparison ends the sleep at once.  Works with
 * interrupts off (the kernel enables them for the halt alone).
 *
 * platform_cpu_kick: end @cpu's sleep in platform_cpu_wait.  A kick to a
 * CPU that is not sleeping is harmless: at most its next wait ends early.
 */
#define PLATFORM_WAIT_MAX_NS (100ull * 1000 * 1000)
void platform_cpu_wait(const uint32_t *addr, uint32_t expected);
void platform_cpu_kick(unsigned cpu);

/*
 * How many kicks the calling CPU has received: a kick counts once it
 * reached the CPU (kernel: its interrupt was taken; host: its wake-up was
 * posted), however late a busy host ran the CPU to take it.  Read around
 * a wait, it tells a kick lost (sent, never received) from one delivered
 * late, which the wait's time bound alone cannot (pv_stats.h).
 */
uint64_t platform_kicks_received(void);

/*
 * Have every other CPU run a full memory barrier, and return once each
 * has: whatever a CPU stored before its barrier is then visible to the
 * caller, and whatever it loads after its barrier sees what the caller
 * stored before the call.  The barrier interrupts each CPU between two of
 * its instructions, so a compiler barrier (not a fence) is enough to keep
 * two accesses of that CPU on one side of it in program order.  For the
 * paravirtual spinlock, which arms its sleeping with it (spinlock_pv.c).
 * Costly (an interrupt to every CPU): for rare events only.  Kernel: an NMI
 * to each online CPU, which works with interrupts off; a CPU that does not
 * answer within PLATFORM_FENCE_MAX_NS is a panic that names it.  Host:
 * membarrier(2).  Returns false, after saying why once, if the platform
 * cannot do it.
 */
#define PLATFORM_FENCE_MAX_NS (10ull * 1000 * 1000 * 1000)
bool platform_fence_others(void);

/* Report an unrecoverable error, stop every CPU, and never return. */
__attribute__((noreturn, format(printf, 1, 2))) void platform_panic(const char *fmt, ...);

#endif /* LIB_PLATFORM_H */
