// SPDX-License-Identifier: MIT
/*
 * cpu.h - the x86-64 instructions the kernel uses, one inline function each.
 *
 * Port I/O, model-specific registers, CPUID, control registers and the TSC.
 * Every asm statement that orders memory says so with a "memory" clobber.
 */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include <stdbool.h>
#include <stdint.h>

#define MSR_APIC_BASE 0x1b
#define MSR_EFER      0xc0000080
#define MSR_GS_BASE   0xc0000101
#define MSR_TSC_AUX   0xc0000103

#define RFLAGS_IF (1u << 9)

/* CPUID leaves and bits (Intel SDM Vol. 2A, CPUID). */
#define CPUID_BASIC_MAX	  0x0
#define CPUID_FEATURES	  0x1
#define CPUID_TSC_CRYSTAL 0x15
#define CPUID_CPU_FREQ	  0x16
#define CPUID_HV_BASE	  0x40000000
#define CPUID_HV_TSC_KHZ  0x40000010
/* boot/entry.asm's GDT: the 64-bit kernel code segment (idt.c gates, the AP trampoline). */
#define GDT_KERNEL_CODE 0x08

#define CPUID_EXT_MAX	       0x80000000
#define CPUID_EXT_FEATURES     0x80000001
#define CPUID_EXT_BRAND	       0x80000002 /* ..0x80000004: the 48-byte brand string (SDM Vol. 2A CPUID) */
#define CPUID_EXT_BRAND_LEAVES 3
#define CPUID_EXT_POWER	       0x80000007
#define CPUID1_ECX_CX16	       (1u << 13)
#define CPUID1_EDX_CX8	       (1u << 8) /* CMPXCHG8B (SDM Vol. 2A, CPUID, Table 3-11) */
#define CPUID1_ECX_X2APIC      (1u << 21)
#define CPUID1_ECX_HV	       (1u << 31)
#define CPUID1_EDX_APIC	       (1u << 9)
#define CPUID1_EDX_TSC	       (1u << 4)
#define CPUID1_EDX_HTT	       (1u << 28) /* EBX[23:16] is meaningful (SDM Vol. 2A, CPUID) */
#define CPUID1_EBX_IDS_SHIFT   16	  /* EBX[23:16]: APIC ids a package spans, at most */
#define CPUID1_EBX_IDS_MASK    0xffu
#define CPUIDX_EDX_RDTSCP      (1u << 27)
#define CPUIDX7_EDX_INVTSC     (1u << 8)

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

/*
 * Port I/O of one width: out<w>(port, v) and in<w>(port), for w = b (8 bits),
 * w (16) and l (32), each the single instruction of that name.
 */
#define DEFINE_PORT_IO(w, type)                                                                    \
	static inline void out##w(uint16_t port, type v)                                           \
	{                                                                                          \
		__asm__ volatile("out" #w " %0, %1" : : "a"(v), "Nd"(port) : "memory");            \
	}                                                                                          \
	static inline type in##w(uint16_t port)                                                    \
	{                                                                                          \
		type v;                                                                            \
		__asm__ volatile("in" #w " %1, %0" : "=a"(v) : "Nd"(port) : "memory");             \
		return v;                                                                          \
	}

DEFINE_PORT_IO(b, uint8_t)
DEFINE_PORT_IO(w, uint16_t)
DEFINE_PORT_IO(l, uint32_t)

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 :
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

/* Unordered TSC read: for coarse timing (timeouts, delays). */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * TSC read that later instructions cannot pass nor earlier ones lag
 * (Intel SDM Vol. 2B RDTSC: "LFENCE; RDTSC" starts a measured region).
 */
static inline uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* End of a measured region: RDTSCP waits for earlier instructions, LFENCE holds later ones. */
static inline uint64_t rdtscp_ordered(void)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp; lfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * End of a measured region on any CPU: rdtscp_ordered() where the CPU has
 * RDTSCP (@have_rdtscp, CPUID.80000001H:EDX.RDTSCP), else LFENCE; RDTSC;
 * LFENCE.  Nested KVM hides RDTSCP, and executing it anyway kills the VM
 * ("emulation failure"): without it, LFENCE before RDTSC waits for earlier
 * instructions and LFENCE after holds later ones.
 */
static inline uint64_t rdtsc_end(bool have_rdtscp)
{
	uint32_t lo, hi;

	if (have_rdtscp)
		return rdtscp_ordered();
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* Write back and invalidate every cache (before entering a sleep state, ACPI 6.5 7.4.2). */
static inline void wbinvd(void)
{
	__asm__ volatile("wbinvd" : : : "memory");
}

/* read_cr<n>(): control register n (2: the page-fault address, 3: the page-table root, 4). */
#define DEFINE_READ_CR(n)                                                                          \
	static inline uint64_t read_cr##n(void)                                                    \
	{                                                                                          \
		uint64_t v;                                                                        \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                                  \
		return v;                                                                          \
	}

DEFINE_READ_CR(2)
DEFINE_READ_CR(3)
DEFINE_READ_CR(4)

static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t read_rflags(void)
{
	uint64_t v;

	__asm__ volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline void cli(void)
{
	__asm__ volatile("cli" : : : "memory");
}

static inline void sti(void)
{
	__asm__ volatile("sti" : : : "memory");
}

/* Enable interrupts and halt with no window between: a wake-up IPI cannot be missed. */
static inline void sti_hlt(void)
{
	__asm__ volatile("sti; hlt" : : : "memory");
}

static inline void hlt(void)
{
	__asm__ volatile("hlt" : : : "memory");
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" : : : "memory");
}

/* Stop this CPU for good: interrupts off, halt forever (NMIs return here). */
__attribute__((noreturn)) static inline void cpu_halt_forever(void)
{
	for (;;) {
		cli();
		hlt();
	}
}

#endif /* KERNEL_CPU_H */
