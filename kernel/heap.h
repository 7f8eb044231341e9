// SPDX-License-Identifier: MIT
/*
 * heap.h - kernel memory: one region from the Multiboot2 memory map.
 */
#ifndef KERNEL_HEAP_H
#define KERNEL_HEAP_H

#include "multiboot2.h"

#include <stddef.h>
#include <stdint.h>

/* Pick the largest free region clear of the kernel and the boot information. */
void heap_init(const struct boot_info *bi, uint64_t info_start, uint64_t info_end);

/* Zeroed memory, @align a power of two <= 4096; NULL when exhausted. */
void *heap_alloc(size_t size, size_t align);
void heap_free(void *p, size_t size);

/* As console_lock_reinit, for the heap's lock (CPU 0 alone, at boot, the lock free). */
void heap_lock_reinit(void);

/* As console_lock_name, for the heap's lock. */
void heap_lock_name(void);

#endif /* KERNEL_HEAP_H */
