# SPDX-License-Identifier: MIT
# test_acpi: kernel/acpi_tables.c (RSDP, RSDT/XSDT, MADT, FADT, DSDT \_S5)
# against crafted tables in exact-size buffers; single-threaded.
HOST_TESTS += test_acpi
test_acpi_SRCS := tests/host/test_acpi.c kernel/acpi_tables.c
