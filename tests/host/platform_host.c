// SPDX-License-Identifier: MIT
/*
 * platform_host.c - lib/platform.h on a hosted POSIX system.
 *
 * Host test programs link this instead of the kernel: threads play CPUs.
 * A thread names its dense CPU index through host_set_cpu_id (CPU 0 until
 * it does; platform_cpu_id is inline, platform_cpu.h), so per-CPU arrays in
 * lib/ work unchanged.
 * The native benchmark program (tests/bench) links it too, with yielding
 * switched off: its threads are pinned one per core and must only spin.
 * Sleeping waits are futexes, and the fence on other CPUs is
 * membarrier(2), so the paravirtual spinlock runs its real protocol here,
 * under the sanitizers too.
 */
#define _GNU_SOURCE
#include "platform.h"
#include "platform_host.h"
#include "static_key.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include "cpu.h" /* CPUID and the fenced TSC reads are the same instructions in user space */
#endif

_Thread_local unsigned host_cpu_index;
static unsigned host_cpus_online = 1;

void host_set_cpu_id(unsigned id)
{
	if (id >= MAX_CPUS) {
		fprintf(stderr, "host_set_cpu_id: %u is not below MAX_CPUS (%d)\n", id, MAX_CPUS);
		abort();
	}
	host_cpu_index = id;
}

void host_set_cpu_count(unsigned n)
{
	__atomic_store_n(&host_cpus_online, n, __ATOMIC_RELAXED);
}

unsigned platform_cpu_count(void)
{
	return __atomic_load_n(&host_cpus_online, __ATOMIC_RELAXED);
}

/*
 * A spinning thread gives its core away once per this many relaxes.  Test
 * threads outnumber the host's cores, and a ticket lock hands over only to
 * the one thread whose turn it is: if that thread is descheduled while the
 * others spin out their time slices, a handover can take milliseconds.
 * Yielding now and then lets it run (the idea of paravirtual spinlocks).
 * A benchmark switches it off (host_set_relax_yield): a yield inside a
 * timed spin would measure the scheduler, not the lock.
 */
#define HOST_RELAX_YIELD_EVERY 64

static _Thread_local unsigned host_relaxes;
static bool host_relax_yields = true;

/*
 * The host's static keys (lib/static_key.h): text is not patched, each
 * static_key_on() is a load of the byte, so a key may change at any time.
 */
unsigned static_keys_set(struct static_key *const keys[], unsigned n, bool on, const char *why)
{
	(void)why;
	for (unsigned i = 0; i < n; i++)
		atomic_store8(&keys[i]->enabled, on ? 1 : 0);
	return n;
}

bool static_key_enable(struct static_key *key)
{
	return static_keys_set(&key, 1, true, NULL) == 1;
}

bool static_key_disable(struct static_key *key)
{
	return static_keys_set(&key, 1, false, NULL) == 1;
}

void static_keys_dump(void)
{
	/* Nothing is patched here: the text is the binary's. */
}

bool static_keys_bare(void)
{
	return false; /* static_key_guard() reads every switch word here */
}

void host_set_relax_yield(bool yield)
{
	__atomic_store_n(&host_relax_yields, yield, __ATOMIC_RELAXED);
}

void platform_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
	if (__atomic_load_n(&host_relax_yields, __ATOMIC_RELAXED) &&
	    ++host_relaxes % HOST_RELAX_YIELD_EVERY == 0)
		sched_yield();
}

/*
 * Each pretend CPU sleeps on its own kick counter.  The counter is read
 * before the caller's word is compared, and FUTEX_WAIT sleeps only while
 * the counter still holds that value, so a kick (bump, then wake) that
 * lands after the comparison ends the wait at once: nothing is lost.
 */
static uint32_t host_kick_seq[MAX_CPUS];
/* Calls of platform_cpu_wait by CPU, for tests that must know a CPU went to sleep. */
static unsigned long host_waits[MAX_CPUS];

unsigned long host_cpu_waits(unsigned cpu)
{
	return __atomic_load_n(&host_waits[cpu], __ATOMIC_ACQUIRE);
}

void platform_cpu_wait(const uint32_t *addr, uint32_t expected)
{
	uint32_t *seq = &host_kick_seq[platform_cpu_id()];
	uint32_t before = __atomic_load_n(seq, __ATOMIC_SEQ_CST);
	struct timespec bound = {0, (long)PLATFORM_WAIT_MAX_NS};

	__atomic_add_fetch(&host_waits[platform_cpu_id()], 1, __ATOMIC_RELEASE);
	if (__atomic_load_n(addr, __ATOMIC_SEQ_CST) != expected)
		return;
	syscall(SYS_futex, seq, FUTEX_WAIT_PRIVATE, before, &bound, NULL, 0);
}

void platform_cpu_kick(unsigned cpu)
{
	__atomic_add_fetch(&host_kick_seq[cpu], 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &host_kick_seq[cpu], FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* A host kick is a memory increment: it has reached the thread once it is made. */
uint64_t platform_kicks_received(void)
{
	return __atomic_load_n(&host_kick_seq[platform_cpu_id()], __ATOMIC_SEQ_CST);
}

/*
 * membarrier's expedited private command interrupts every CPU that runs a
 * thread of this process and has it execute a full barrier; a thread not
 * running has passed one in its context switch.  The process registers once.
 */
static bool host_membarrier_ok;
static pthread_once_t host_membarrier_once = PTHREAD_ONCE_INIT;

static void host_membarrier_register(void)
{
	host_membarrier_ok =
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	if (!host_membarrier_ok)
		fprintf(
		    stderr,
		    "platform: membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) failed "
		    "(%s): no fence on other CPUs, so paravirtual waiters spin and never sleep\n",
		    strerror(errno));
}

bool platform_fence_others(void)
{
	pthread_once(&host_membarrier_once, host_membarrier_register);
	return host_membarrier_ok &&
	       syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
}

void *platform_alloc(size_t size, size_t align)
{
	void *p = NULL;

	if (align < sizeof(void *))
		align = sizeof(void *);
	if (posix_memalign(&p, align, size ? size : 1) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
}

void platform_free(void *ptr, size_t size)
{
	(void)size;
	free(ptr);
}

bool platform_static_data(const void *p)
{
	extern char __data_start[], _end[]; /* GNU ld: the executable's data and bss */

	return (const char *)p >= __data_start && (const char *)p < _end;
}

/* No symbol table in a host program: tools/log/lockdep_decode.py --offset names its addresses. */
bool platform_symbol(uintptr_t addr, const char **name, uintptr_t *start, size_t *size)
{
	(void)addr, (void)name, (void)start, (void)size;
	return false;
}

uint64_t platform_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The cycle counter read @x86_read, the TSC on x86-64; elsewhere the monotonic
 * clock stands in (and platform_facts().cycles_khz is then about 1000000).
 */
#if defined(__x86_64__)
#define HOST_CYCLES(x86_read) (x86_read)
#else
#define HOST_CYCLES(x86_read) platform_now_ns()
#endif

uint64_t platform_cycles(void)
{
	return HOST_CYCLES(__builtin_ia32_rdtsc());
}

/* How long the cycle counter is timed against CLOCK_MONOTONIC to find its rate. */
#define HOST_CALIBRATE_NS 50000000ull
#define NS_PER_MS	  1000000ull

static struct platform_facts host_facts = {.name = "native"};
static pthread_once_t host_facts_once = PTHREAD_ONCE_INIT;

/*
 * Linux does not tell user space the TSC's rate, so count it across a
 * sleep measured by the monotonic clock: over 50 ms the clock's
 * nanosecond resolution leaves the rate exact to a few parts per million.
 */
static void host_facts_init(void)
{
#if defined(__x86_64__)
	host_facts.cx8 = cpuid(CPUID_FEATURES, 0).edx & CPUID1_EDX_CX8;
	host_facts.cx16 = cpuid(CPUID_FEATURES, 0).ecx & CPUID1_ECX_CX16;
	if (cpuid(CPUID_EXT_MAX, 0).eax >= CPUID_EXT_FEATURES)
		host_facts.rdtscp = cpuid(CPUID_EXT_FEATURES, 0).edx & CPUIDX_EDX_RDTSCP;
#endif
	uint64_t t0 = platform_now_ns(), c0 = platform_cycles();
	struct timespec nap = {0, (long)HOST_CALIBRATE_NS};

	nanosleep(&nap, NULL);
	uint64_t t1 = platform_now_ns(), c1 = platform_cycles();

	host_facts.cycles_khz = (uint64_t)((unsigned __int128)(c1 - c0) * NS_PER_MS / (t1 - t0));
}

struct platform_facts platform_facts(void)
{
	pthread_once(&host_facts_once, host_facts_init);
	return host_facts;
}

uint64_t platform_cycles_begin(void)
{
	return HOST_CYCLES(rdtsc_ordered());
}

uint64_t platform_cycles_end(void)
{
	return HOST_CYCLES(rdtsc_end(platform_facts().rdtscp));
}

unsigned long platform_irq_save(void)
{
	return 0;
}

void platform_irq_restore(unsigned long saved)
{
	(void)saved;
}

static pthread_mutex_t host_log_lock = PTHREAD_MUTEX_INITIALIZER;

/* One whole line on stdout after @indent: the lock keeps threads' lines apart. */
static void host_vprint(const char *indent, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&host_log_lock);
	fputs(indent, stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	pthread_mutex_unlock(&host_log_lock);
}

static void (*host_log_hook)(const char *line);

void host_set_log_hook(void (*hook)(const char *line))
{
	host_log_hook = hook;
}

void platform_log(const char *fmt, ...)
{
	char line[PLATFORM_LINE_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	if (host_log_hook) {
		vsnprintf(line, sizeof(line), fmt, ap);
		host_log_hook(line);
	} else {
		host_vprint("", fmt, ap);
	}
	va_end(ap);
}

static const char *volatile host_print_indent = "";

void host_set_print_indent(const char *indent)
{
	host_print_indent = indent;
}

void platform_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	host_vprint(host_print_indent, fmt, ap);
	va_end(ap);
}

void platform_panic(const char *fmt, ...)
{
	va_list ap;

	fputs("PANIC: ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	abort();
}
