// SPDX-License-Identifier: MIT
/*
 * idt.c - the interrupt descriptor table: every vector to its stub.
 *
 * All 256 vectors get a 64-bit interrupt gate (Intel SDM Vol. 3A 6.14.1)
 * pointing at the stubs of boot/isr.asm, so even an unexpected vector
 * lands in trap_dispatch and is reported instead of triple-faulting.
 * Interrupt gates clear IF on entry, so handlers run with interrupts off.
 */
#include "cpu.h"
#include "trap.h"

#define IDT_VECTORS	 256
#define GATE_INTERRUPT64 0x8e /* present, DPL 0, type 0xE */

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));

_Static_assert(sizeof(struct idt_gate) == 16, "SDM Vol. 3A figure 6-8");

struct idt_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

extern const uint64_t isr_stub_table[IDT_VECTORS];
static struct idt_gate idt[IDT_VECTORS] __attribute__((aligned(16)));

void idt_init(void)
{
	for (int v = 0; v < IDT_VECTORS; v++) {
		uint64_t addr = isr_stub_table[v];

		idt[v] = (struct idt_gate){
		    .offset_low = (uint16_t)addr,
		    .selector = GDT_KERNEL_CODE,
		    .type_attr = GATE_INTERRUPT64,
		    .offset_mid = (uint16_t)(addr >> 16),
		    .offset_high = (uint32_t)(addr >> 32),
		};
	}
}

void idt_load(void)
{
	struct idt_pointer p = {sizeof(idt) - 1, (uint64_t)(uintptr_t)idt};

	__asm__ volatile("lidt %0" : : "m"(p));
}
