// SPDX-License-Identifier: MIT
/*
 * apic.h - the local APIC, in x2APIC mode when the CPU has it, else xAPIC.
 *
 * Every CPU uses the same mode (the boot CPU picks it).  One register
 * read/write pair hides the difference: MMIO at the APIC base for xAPIC,
 * MSRs 0x800 + (offset >> 4) for x2APIC (Intel SDM Vol. 3A 11.12.1).
 */
#ifndef KERNEL_APIC_H
#define KERNEL_APIC_H

#include <stdbool.h>
#include <stdint.h>

/* Pick the mode and enable the boot CPU's APIC; @mmio_phys from the MADT (0: use the MSR). */
void apic_init(uint64_t mmio_phys);

/* Enable the calling AP's APIC in the boot CPU's mode. */
void apic_init_this_cpu(void);

bool apic_is_x2apic(void);
uint32_t apic_id(void);
void apic_eoi(void);

/* Inter-processor interrupts; each returns once the APIC accepted it. */
void apic_send_init(uint32_t apic_id);
void apic_send_startup(uint32_t apic_id, uint8_t page);
void apic_send_ipi(uint32_t apic_id, uint8_t vector);

/* Whether @vector is requested on this CPU's APIC (its IRR bit): arrived, not yet taken. */
bool apic_vector_requested(uint8_t vector);
void apic_send_nmi(uint32_t apic_id);
/* An NMI to every other online CPU (struct cpu.online), one by one: for panic and exit. */
void apic_send_nmi_others(void);

/*
 * The local APIC timer, one-shot, as a bound on sleeps (platform_cpu_wait).
 * apic_timer_calibrate (boot CPU, after tsc_init) measures its rate;
 * apic_timer_arm_us raises @vector on this CPU after about @us (false, and
 * nothing armed, before calibration); apic_timer_stop cancels it.
 */
void apic_timer_calibrate(void);
bool apic_timer_arm_us(uint32_t us, uint8_t vector);
void apic_timer_stop(void);

/*
 * A periodic interrupt at @vector every @us on the calling CPU, for the
 * screen's status line; false (nothing armed) before calibration.  A sleep
 * bound (apic_timer_arm_us) on that CPU borrows the timer and gives it back
 * at apic_timer_stop with the tick's phase kept; a tick due before the
 * bound ends the sleep itself.  The @vector handler calls apic_tick_fired,
 * which arms the next one.  apic_tick_stop ends it; call all on the CPU
 * that started it.
 */
bool apic_tick_start(uint32_t us, uint8_t vector);
void apic_tick_fired(void);
void apic_tick_stop(void);

#endif /* KERNEL_APIC_H */
