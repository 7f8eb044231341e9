// SPDX-License-Identifier: MIT
/*
 * acpi.h - the kernel's copy of the ACPI tables: CPUs, clocks, power registers.
 *
 * Parsing itself is pure code in acpi_tables.c; this file finds the RSDP,
 * maps what the parser asks for, and keeps the result.  Users read it:
 * power.c (S5, reset) and, through kernel_main, tsc.c and apic.c.
 */
#ifndef KERNEL_ACPI_H
#define KERNEL_ACPI_H

#include "acpi_tables.h"
#include "multiboot2.h"

#include <stdbool.h>

extern struct acpi_info acpi;

/* Find and parse the tables; prints one summary line, or why there are none. */
void acpi_init(const struct boot_info *bi);

#endif /* KERNEL_ACPI_H */
