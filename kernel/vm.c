// SPDX-License-Identifier: MIT
/*
 * vm.c - add identity mappings above the first 4 GiB, on demand.
 *
 * 4-level paging (Intel SDM Vol. 3A 4.5): PML4 -> PDPT -> PD, whose entries
 * map 2 MiB pages directly.  New tables come from a small static pool: a
 * few firmware tables need a few pages, and running out is reported, not
 * fatal (the caller then ignores the table).
 */
#include "vm.h"

#include "console.h"
#include "cpu.h"
#include "string.h"

#define PT_ENTRIES    512
#define PTE_PRESENT   (1ull << 0)
#define PTE_WRITE     (1ull << 1)
#define PTE_HUGE      (1ull << 7)
#define PTE_ADDR      0x000ffffffffff000ull
#define PAGE_2M	      (1ull << 21)
#define VM_POOL_PAGES 16
#define VIRT_LIMIT    (1ull << 47) /* the lower canonical half */

/* In the page-table-only region of linker.ld, like the boot tables. */
static uint64_t pool[VM_POOL_PAGES][PT_ENTRIES]
    __attribute__((aligned(4096), section(".bss.pagetables")));
static unsigned pool_used;

/* The table that @entry points to, creating it if absent; NULL when the pool is empty. */
static uint64_t *next_table(uint64_t *entry)
{
	if (*entry & PTE_PRESENT)
		return (uint64_t *)(uintptr_t)(*entry & PTE_ADDR);
	if (pool_used == VM_POOL_PAGES)
		return NULL;
	uint64_t *t = pool[pool_used++];
	memset(t, 0, sizeof(pool[0]));
	*entry = (uint64_t)(uintptr_t)t | PTE_PRESENT | PTE_WRITE;
	return t;
}

bool vm_map_identity(uint64_t phys, uint64_t len)
{
	uint64_t *pml4 = (uint64_t *)(uintptr_t)(read_cr3() & PTE_ADDR);
	uint64_t end = phys + len;

	if (end < phys || end > VIRT_LIMIT) {
		printk("vm: cannot identity-map %lx..%lx: beyond the 47-bit address space\n", phys,
		       end);
		return false;
	}
	for (uint64_t a = phys & ~(PAGE_2M - 1); a < end; a += PAGE_2M) {
		uint64_t *pdpt = next_table(&pml4[(a >> 39) % PT_ENTRIES]);
		uint64_t *pd = pdpt ? next_table(&pdpt[(a >> 30) % PT_ENTRIES]) : NULL;

		if (!pd) {
			printk("vm: out of page-table pages (%d) mapping %lx\n", VM_POOL_PAGES, a);
			return false;
		}
		uint64_t *pde = &pd[(a >> 21) % PT_ENTRIES];
		if (!(*pde & PTE_PRESENT))
			*pde = a | PTE_PRESENT | PTE_WRITE | PTE_HUGE;
	}
	write_cr3(read_cr3()); /* flush: simple, and this happens a handful of times */
	return true;
}
