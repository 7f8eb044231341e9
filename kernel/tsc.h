// SPDX-License-Identifier: MIT
/*
 * tsc.h - time from the time-stamp counter, calibrated once at boot.
 */
#ifndef KERNEL_TSC_H
#define KERNEL_TSC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The clocks of known rate that firmware tables describe (the caller reads
 * them from ACPI, as it hands apic_init the local APIC address): zero means
 * absent.  The PIT needs no description.
 */
struct tsc_clocks {
	uint64_t hpet_phys; /* HPET register block (ACPI HPET table), or 0 */
	uint16_t pm_timer;  /* ACPI PM timer port (FADT PM_TMR_BLK), or 0 */
	bool pm_timer_32;   /* the PM timer counts 32 bits, not 24 (FADT TMR_VAL_EXT) */
};

/*
 * Find the TSC frequency: CPUID or the hypervisor leaf, checked against a
 * measurement on the PIT, else the HPET, else the ACPI PM timer of
 * @clocks.  Bounded: a missing clock costs a millisecond.
 */
void tsc_init(const struct tsc_clocks *clocks);

uint64_t tsc_khz(void);
/* Where tsc_khz() came from: "cpuid", "hypervisor", "pit", "hpet", "pmtimer", or "guess". */
const char *tsc_source(void);
bool tsc_is_invariant(void);

static inline uint64_t tsc_now(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

uint64_t tsc_to_ns(uint64_t cycles);
uint64_t tsc_from_us(uint64_t us);

/* Busy-wait at least @us microseconds. */
void udelay(uint64_t us);

#endif /* KERNEL_TSC_H */
