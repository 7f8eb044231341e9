# SPDX-License-Identifier: MIT
# test_acpi_sleep: the S5 register sequence of kernel/acpi_sleep.c, recorded
# by a fake register layer; single-threaded.
HOST_TESTS += test_acpi_sleep
test_acpi_sleep_SRCS := tests/host/test_acpi_sleep.c kernel/acpi_sleep.c
test_acpi_sleep_FLAVOURS := plain asan
