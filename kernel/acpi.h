// SPDX-License-Identifier: MIT
/*
 * acpi.h - the kernel's use of ACPI: CPUs, power-off, and who made the tables.
 *
 * Parsing itself is pure code in acpi_tables.c; this file finds the RSDP,
 * maps what the parser asks for, and keeps the result.
 */
#ifndef KERNEL_ACPI_H
#define KERNEL_ACPI_H

#include "acpi_tables.h"
#include "multiboot2.h"

#include <stdbool.h>

extern struct acpi_info acpi;

/* Find and parse the tables; prints one summary line, or why there are none. */
void acpi_init(const struct boot_info *bi);

/* True when the tables were made by Bochs's BIOS (OEM id "BOCHS "). */
bool acpi_oem_is_bochs(void);

/* Enter S5 (soft-off); returns only if the machine is still running. */
void acpi_poweroff(void);

/* Reset through the FADT reset register, if there is one; returns if it did not work. */
void acpi_reset(void);

#endif /* KERNEL_ACPI_H */
