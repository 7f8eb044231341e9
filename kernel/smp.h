// SPDX-License-Identifier: MIT
/*
 * smp.h - bring up the application processors and hand them work.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "memmap.h"
#include "percpu.h"

#include <stdbool.h>
#include <stdint.h>

/* The boot CPU's own struct cpu; first thing in kernel_main. */
void smp_init_boot_cpu(void);

/*
 * Start every usable CPU of the MADT (at most smp.max), one at a time,
 * from a page below 1 MiB that @bi's memory map says is usable and that
 * @info (the boot information) does not overlap.
 */
void smp_start_aps(const struct boot_info *bi, struct mem_range info);

unsigned smp_cpus_online(void);
unsigned smp_cpus_found(void);

/*
 * Run @fn(@arg) on every online CPU, the caller (CPU 0) included, and wait
 * until all returned.  Returns false if some CPU did not finish within
 * @timeout_ms; each such CPU is named in one line with @what.
 */
bool smp_run_on_all(cpu_work_fn fn, void *arg, uint64_t timeout_ms, const char *what);

/*
 * Wait until every other online CPU has finished the work smp_run_on_all
 * gave it (a CPU that missed its deadline may still be in it), for at most
 * @timeout_ms.  Returns 0 when all are idle, else the first busy CPU's index.
 */
unsigned smp_wait_idle(uint64_t timeout_ms);

/*
 * Sleep while *@addr == @expected: until smp_kick names this CPU, or at most
 * PLATFORM_WAIT_MAX_NS (the local APIC timer); may return early.  The
 * kernel's side of platform_cpu_wait, for kernel code and lib/ alike.
 */
void smp_wait(const uint32_t *addr, uint32_t expected);

/* End CPU @cpu's smp_wait, after the caller's stores are visible. */
void smp_kick(unsigned cpu);

#endif /* KERNEL_SMP_H */
