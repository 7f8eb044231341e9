// SPDX-License-Identifier: MIT
/*
 * acpi_sleep.h - the register writes that enter S5 (soft-off).
 *
 * The order of those writes matters on real chipsets and no emulator
 * checks it, so the sequence is pure code that reaches the hardware only
 * through the caller's struct acpi_hw: the kernel (kernel/acpi.c) passes
 * port I/O and MMIO, the host test (tests/host/test_acpi_sleep.c) a fake
 * that records every access.
 */
#ifndef KERNEL_ACPI_SLEEP_H
#define KERNEL_ACPI_SLEEP_H

#include "acpi_tables.h"

#include <stdint.h>

/*
 * Register access for acpi_enter_s5(): @space is ACPI_GAS_SYSTEM_IO (an
 * I/O port) or ACPI_GAS_SYSTEM_MEMORY (a physical address), @bits 8, 16 or
 * 32.  flush_caches writes back and invalidates the caches (WBINVD).
 */
struct acpi_hw {
	uint32_t (*read)(void *ctx, uint8_t space, uint64_t addr, unsigned bits);
	void (*write)(void *ctx, uint8_t space, uint64_t addr, unsigned bits, uint32_t value);
	void (*flush_caches)(void *ctx);
	void *ctx;
};

/*
 * Ask the platform for S5 with the \_S5 values in @a, as ACPICA does:
 *
 * Legacy ACPI (ACPI 6.5 4.8.3.1, 4.8.3.2.1, 7.4.2): clear WAK_STS in each
 * PM1 status register (write 1); read each PM1 control register, clear
 * SLP_TYP, SLP_EN and the write-only GBL_RLS, keep the rest (SCI_EN above
 * all: clearing it hands the chipset back to SMM); write it with SLP_TYPx;
 * flush the caches; write it again with SLP_EN added.  PM1a first, then
 * PM1b, each time.
 *
 * Hardware-reduced ACPI (FADT HW_REDUCED_ACPI; 4.8.3.7, 4.8.3.8): clear
 * WAK_STS in the sleep status register if there is one, flush the caches,
 * write SLP_TYPa and SLP_EN to the sleep control register at once.
 *
 * Returns NULL once the writes are issued (the machine should be off a
 * moment later), or, having written nothing, one line saying why not.
 */
const char *acpi_enter_s5(const struct acpi_info *a, const struct acpi_hw *hw);

#endif /* KERNEL_ACPI_SLEEP_H */
