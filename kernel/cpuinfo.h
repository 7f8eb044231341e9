// SPDX-License-Identifier: MIT
/*
 * cpuinfo.h - what CPUID says about the boot CPU, read once.
 */
#ifndef KERNEL_CPUINFO_H
#define KERNEL_CPUINFO_H

#include <stdbool.h>
#include <stdint.h>

struct cpuinfo {
	uint32_t basic_max_leaf; /* CPUID.0:EAX */
	uint32_t ext_max_leaf;	 /* CPUID.80000000h:EAX */
	uint32_t hv_max_leaf;	 /* CPUID.40000000h:EAX, 0 without a hypervisor */
	bool hypervisor;	 /* CPUID.1:ECX bit 31 */
	char hv_signature[13];	 /* "KVMKVMKVM", "TCGTCGTCGTCG", ... */
	char vendor[13];
	char brand[49]; /* CPUID.80000002h-80000004h, leading blanks dropped; "" if absent */
	bool cx8, cx16, x2apic, invariant_tsc, rdtscp;
};

extern struct cpuinfo cpuinfo;

void cpuinfo_init(void);

/* Short name for the ENV line, from CPUID only: "kvm", "tcg", the raw signature, or "none". */
const char *cpuinfo_hypervisor_name(void);

#endif /* KERNEL_CPUINFO_H */
