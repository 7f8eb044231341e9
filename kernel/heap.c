// SPDX-License-Identifier: MIT
/*
 * heap.c - a small allocator: power-of-two size classes carved from pages,
 * and whole pages for anything bigger.
 *
 * Blocks of a class are carved from 4 KiB pages, so each is aligned to its
 * own size; asking for alignment A simply rounds the size up to A.  Freed
 * blocks go on their class's list; freed large runs on a list searched
 * for an exact size.  Memory comes from the largest usable region of the
 * Multiboot2 memory map below the 4 GiB identity map.  There is no pool in
 * the kernel image to fall back on: one big enough for the suites made the
 * image 20 MiB, more than some firmware leaves free at 1 MiB for GRUB to
 * load it, and GRUB always passes a memory map (Multiboot2 3.6.8).
 */
#include "heap.h"

#include "console.h"
#include "memmap.h"
#include "panic.h"
#include "spinlock.h"
#include "trace.h"
#include "string.h"

#define PAGE_SIZE	4096u
#define MIN_CLASS_SHIFT 4 /* 16 bytes */
#define MAX_CLASS_SHIFT 12
#define NCLASSES	(MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1)
/* Less than this cannot hold the per-CPU stacks and the suites' objects. */
#define HEAP_MIN (16u << 20)

struct free_block {
	struct free_block *next;
	size_t size; /* large runs only */
};

extern char kernel_start[], kernel_end[];

static spinlock_t heap_lock = SPINLOCK_INIT;
static uintptr_t next_free, limit;
static struct free_block *class_free[NCLASSES];
static struct free_block *large_free;

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

void heap_lock_reinit(void)
{
	spin_init_global_named(&heap_lock, "kernel:heap");
}

void heap_lock_name(void)
{
	trace_name(&heap_lock, "kernel:heap");
}

void heap_init(const struct boot_info *bi, uint64_t info_start, uint64_t info_end)
{
	struct mem_range r = memmap_heap_range(
	    bi, (struct mem_range){(uintptr_t)kernel_start, (uintptr_t)kernel_end},
	    (struct mem_range){info_start, info_end});

	if (r.end - r.start < HEAP_MIN)
		panic("heap: %s: expected a usable region of at least %u MiB between 1 MiB and 4 "
		      "GiB, clear of the kernel",
		      bi->mmap ? "the memory map has none" : "no Multiboot2 memory map",
		      HEAP_MIN >> 20);
	next_free = r.start;
	limit = r.end;
	printk("heap: %lu MiB at %lx..%lx\n", (limit - r.start) >> 20, r.start, limit);
}

static unsigned class_of(size_t size)
{
	unsigned shift = MIN_CLASS_SHIFT;

	while (((size_t)1 << shift) < size)
		shift++;
	return shift - MIN_CLASS_SHIFT;
}

/* Pages from the region's end of use; caller holds heap_lock. */
static void *take_pages(size_t bytes)
{
	if (limit - next_free < bytes)
		return NULL;
	void *p = (void *)next_free;
	next_free += bytes;
	return p;
}

static void *alloc_locked(size_t size)
{
	if (size > PAGE_SIZE) {
		size = align_up(size, PAGE_SIZE);
		for (struct free_block **pp = &large_free; *pp; pp = &(*pp)->next) {
			if ((*pp)->size == size) {
				struct free_block *b = *pp;
				*pp = b->next;
				return b;
			}
		}
		return take_pages(size);
	}
	unsigned c = class_of(size);
	size_t block = (size_t)1 << (c + MIN_CLASS_SHIFT);
	if (!class_free[c]) {
		uint8_t *page = take_pages(PAGE_SIZE);

		if (!page)
			return NULL;
		for (size_t off = 0; off < PAGE_SIZE; off += block) {
			struct free_block *b = (struct free_block *)(page + off);
			b->next = class_free[c];
			class_free[c] = b;
		}
	}
	struct free_block *b = class_free[c];
	class_free[c] = b->next;
	return b;
}

static size_t effective_size(size_t size, size_t align)
{
	if (size < sizeof(struct free_block))
		size = sizeof(struct free_block);
	return size < align ? align : size;
}

void *heap_alloc(size_t size, size_t align)
{
	if (align > PAGE_SIZE || (align & (align - 1)))
		return NULL;
	/* Rounded up to whole pages below, such a size would wrap to 0 bytes and "succeed". */
	if (size > SIZE_MAX - PAGE_SIZE + 1)
		return NULL;
	size_t block = effective_size(size, align);
	spin_lock(&heap_lock);
	void *p = alloc_locked(block);
	spin_unlock(&heap_lock);
	if (p)
		memset(p, 0, block);
	return p;
}

void heap_free(void *p, size_t size)
{
	if (!p)
		return;
	/* A lock this CPU holds inside the block would be held in memory someone else gets. */
	lockdep_check_free(p, size, LOCKDEP_SITE());
	/*
	 * A block given out for a larger alignment than its size came from a
	 * bigger class; filing it under the smaller one wastes a little but is
	 * safe, and keeps free() from needing the alignment.
	 */
	size_t block = effective_size(size, 1);
	struct free_block *b = p;
	spin_lock(&heap_lock);
	if (block > PAGE_SIZE) {
		b->size = align_up(block, PAGE_SIZE);
		b->next = large_free;
		large_free = b;
	} else {
		unsigned c = class_of(block);
		b->next = class_free[c];
		class_free[c] = b;
	}
	spin_unlock(&heap_lock);
}
