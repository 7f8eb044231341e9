// SPDX-License-Identifier: MIT
/*
 * vm.h - extend the boot identity map past 4 GiB, for firmware tables that
 * live up there (entry.asm maps only the first 4 GiB).
 */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

#include <stdbool.h>
#include <stdint.h>

/* Identity-map [phys, phys + len) with 2 MiB pages; false if out of table pages. */
bool vm_map_identity(uint64_t phys, uint64_t len);

#endif /* KERNEL_VM_H */
