// SPDX-License-Identifier: MIT
/*
 * cpuinfo.c - read CPUID once, checking each leaf against its maximum.
 *
 * Reading a leaf above the maximum returns some other leaf's data on many
 * CPUs and emulators, so every feature here is read only after its range
 * is known to include it.
 */
#include "cpuinfo.h"

#include "cpu.h"
#include "string.h"

struct cpuinfo cpuinfo;

static void copy_regs(char *dst, uint32_t a, uint32_t b, uint32_t c)
{
	memcpy(dst, &a, 4);
	memcpy(dst + 4, &b, 4);
	memcpy(dst + 8, &c, 4);
	dst[12] = '\0';
}

/* The brand string: 16 bytes a leaf in EAX, EBX, ECX, EDX order, NUL-padded, often right-aligned. */
static void read_brand(void)
{
	char raw[sizeof(cpuinfo.brand)] = {0};
	size_t start = 0;

	for (uint32_t i = 0; i < CPUID_EXT_BRAND_LEAVES; i++) {
		struct cpuid_regs r = cpuid(CPUID_EXT_BRAND + i, 0);

		memcpy(raw + 16 * i, &r.eax, 4);
		memcpy(raw + 16 * i + 4, &r.ebx, 4);
		memcpy(raw + 16 * i + 8, &r.ecx, 4);
		memcpy(raw + 16 * i + 12, &r.edx, 4);
	}
	while (raw[start] == ' ')
		start++;
	memcpy(cpuinfo.brand, raw + start, sizeof(raw) - start);
}

void cpuinfo_init(void)
{
	struct cpuid_regs r = cpuid(CPUID_BASIC_MAX, 0);

	cpuinfo.basic_max_leaf = r.eax;
	copy_regs(cpuinfo.vendor, r.ebx, r.edx, r.ecx);
	r = cpuid(CPUID_FEATURES, 0);
	cpuinfo.cx8 = r.edx & CPUID1_EDX_CX8;
	cpuinfo.cx16 = r.ecx & CPUID1_ECX_CX16;
	cpuinfo.x2apic = r.ecx & CPUID1_ECX_X2APIC;
	cpuinfo.hypervisor = r.ecx & CPUID1_ECX_HV;
	if (cpuinfo.hypervisor) {
		r = cpuid(CPUID_HV_BASE, 0);
		/* Leaf 0x40000000 reports its own maximum; below 0x40000000 means none. */
		cpuinfo.hv_max_leaf = r.eax >= CPUID_HV_BASE ? r.eax : 0;
		copy_regs(cpuinfo.hv_signature, r.ebx, r.ecx, r.edx);
	}
	cpuinfo.ext_max_leaf = cpuid(CPUID_EXT_MAX, 0).eax;
	if (cpuinfo.ext_max_leaf >= CPUID_EXT_FEATURES)
		cpuinfo.rdtscp = cpuid(CPUID_EXT_FEATURES, 0).edx & CPUIDX_EDX_RDTSCP;
	if (cpuinfo.ext_max_leaf >= CPUID_EXT_BRAND + CPUID_EXT_BRAND_LEAVES - 1)
		read_brand();
	if (cpuinfo.ext_max_leaf >= CPUID_EXT_POWER)
		cpuinfo.invariant_tsc = cpuid(CPUID_EXT_POWER, 0).edx & CPUIDX7_EDX_INVTSC;
}

const char *cpuinfo_hypervisor_name(void)
{
	/* CPUID only: firmware names (the ACPI OEM id) say who made the tables, not the CPU. */
	if (!cpuinfo.hypervisor)
		return "none";
	if (strncmp(cpuinfo.hv_signature, "KVMKVMKVM", 9) == 0)
		return "kvm";
	if (strcmp(cpuinfo.hv_signature, "TCGTCGTCGTCG") == 0)
		return "tcg";
	return cpuinfo.hv_signature;
}
