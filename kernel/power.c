// SPDX-License-Identifier: MIT
/*
 * power.c - the last thing the kernel does: report, then leave the machine
 * as exit= says (docs/interface.md).
 *
 * The result line comes first and the UART is drained before any attempt
 * to leave, so the outcome is on record whatever happens next.  Each way
 * out that fails falls through to a halt that keeps the result on screen,
 * which is also what a person at a real PC wants by default.
 *
 * The ACPI half of leaving (S5 power-off, the FADT reset register) lives
 * here rather than in acpi.c: acpi.c only finds and keeps the tables, so
 * the clock code that power-off waits on never depends on ACPI back.
 */
#include "power.h"

#include "acpi.h"
#include "acpi_sleep.h"
#include "apic.h"
#include "cmdline.h"
#include "console.h"
#include "cpu.h"
#include "kcsan.h"
#include "tsc.h"
#include "vm.h"

/*
 * QEMU's isa-debug-exit (-device isa-debug-exit,iobase=0xf4): a write of v
 * ends QEMU with status (v << 1) | 1; a read returns 0.  On a PC, 0xf0-0xff
 * is the math coprocessor's range (IBM PC AT Technical Reference, "System
 * I/O Address Map": 0F0-0FF math coprocessor; Linux reserves it as "fpu"
 * in arch/x86/kernel/setup.c), of which modern chipsets decode only 0xf0
 * (Intel PCH datasheets: "Coprocessor Error", write clears FERR#).  An
 * undecoded port reads as all ones (the bus floats), so a read of 0 is what
 * tells the device is there: only then is it written.
 */
#define DEBUG_EXIT_PORT 0xf4
#define DEBUG_EXIT_PASS 0x10 /* QEMU exits with (0x10 << 1) | 1 = 33 */
#define DEBUG_EXIT_FAIL 0x11 /* ... 35 */
#define DEBUG_EXIT_READ 0x00 /* what the device answers to a read */
#define KBC_COMMAND	0x64
#define KBC_PULSE_RESET 0xfe
/* After writing ACPI_ENABLE, firmware sets SCI_EN within a few ms on real machines. */
#define ACPI_ENABLE_WAIT_US 300000
/* How long a power-off or reset request may take before we say it did not work. */
#define LEAVE_WAIT_US 100000

static volatile bool stopping;
static bool (*verdict_hook)(bool pass);

void machine_set_verdict_hook(bool (*hook)(bool pass))
{
	verdict_hook = hook;
}

bool machine_is_stopping(void)
{
	return stopping;
}

/* Put the chipset in ACPI mode if the firmware left it in legacy mode (ACPI 6.5 4.8.2.1.1). */
static bool acpi_enable_mode(void)
{
	if (inw(acpi.pm1a_cnt) & ACPI_PM1_CNT_SCI_EN)
		return true;
	if (!acpi.smi_cmd || !acpi.acpi_enable)
		return false;
	outb(acpi.smi_cmd, acpi.acpi_enable);
	uint64_t end = tsc_now() + tsc_from_us(ACPI_ENABLE_WAIT_US);
	while (tsc_now() < end)
		if (inw(acpi.pm1a_cnt) & ACPI_PM1_CNT_SCI_EN)
			return true;
	return false;
}

/* An ACPI register in memory space: through the identity map, mapped first if high. */
static volatile void *hw_mmio(uint64_t addr, unsigned bits)
{
	return vm_map_identity(addr, bits / 8) ? (volatile void *)(uintptr_t)addr : NULL;
}

static uint32_t hw_read(void *ctx, uint8_t space, uint64_t addr, unsigned bits)
{
	(void)ctx;
	if (space == ACPI_GAS_SYSTEM_IO)
		return bits == 8    ? inb((uint16_t)addr)
		       : bits == 16 ? inw((uint16_t)addr)
				    : inl((uint16_t)addr);
	volatile void *p = hw_mmio(addr, bits);
	if (!p)
		return 0;
	return bits == 8    ? *(volatile uint8_t *)p
	       : bits == 16 ? *(volatile uint16_t *)p
			    : *(volatile uint32_t *)p;
}

static void hw_write(void *ctx, uint8_t space, uint64_t addr, unsigned bits, uint32_t v)
{
	(void)ctx;
	if (space == ACPI_GAS_SYSTEM_IO) {
		if (bits == 8)
			outb((uint16_t)addr, (uint8_t)v);
		else if (bits == 16)
			outw((uint16_t)addr, (uint16_t)v);
		else
			outl((uint16_t)addr, v);
		return;
	}
	volatile void *p = hw_mmio(addr, bits);
	if (!p)
		return;
	if (bits == 8)
		*(volatile uint8_t *)p = (uint8_t)v;
	else if (bits == 16)
		*(volatile uint16_t *)p = (uint16_t)v;
	else
		*(volatile uint32_t *)p = v;
}

static void hw_flush_caches(void *ctx)
{
	(void)ctx;
	wbinvd();
}

static const struct acpi_hw kernel_hw = {
    .read = hw_read, .write = hw_write, .flush_caches = hw_flush_caches};

/* ACPI S5 (soft-off) by the FADT and \_S5; returns only if the machine is still running. */
static void poweroff(void)
{
	bool legacy = !(acpi.fadt_flags & ACPI_FADT_HW_REDUCED_ACPI);
	const char *why;

	/* Hardware-reduced platforms are always in ACPI mode: no SCI_EN, no SMI_CMD. */
	if (legacy && acpi.have_fadt && acpi.have_s5 && acpi.pm1a_cnt && !acpi_enable_mode())
		printk("power: SCI_EN stayed clear after the ACPI enable request; trying anyway\n");
	console_drain();
	why = acpi_enter_s5(&acpi, &kernel_hw);
	if (why) {
		printk("power: cannot power off: %s\n", why);
		return;
	}
	udelay(LEAVE_WAIT_US);
	printk("power: still running %u ms after the S5 request (%s)\n", LEAVE_WAIT_US / 1000,
	       legacy ? "PM1 control registers" : "sleep control register");
}

/* The FADT reset register (ACPI 6.5 4.8.3.6), then the keyboard controller's reset line. */
static void reboot(void)
{
	if (acpi.have_reset && acpi.reset_reg.space == ACPI_GAS_SYSTEM_IO) {
		outb((uint16_t)acpi.reset_reg.address, acpi.reset_value);
		udelay(LEAVE_WAIT_US);
	}
	outb(KBC_COMMAND, KBC_PULSE_RESET);
	udelay(LEAVE_WAIT_US);
	printk("power: still running %u ms after the reset requests (FADT reset register, "
	       "keyboard controller)\n",
	       LEAVE_WAIT_US / 1000);
}

bool debug_exit_present(void)
{
	return inb(DEBUG_EXIT_PORT) == DEBUG_EXIT_READ;
}

void machine_exit(bool pass)
{
	stopping = true;
	/* Races found but not printed yet: a panic cut their test short before its flush. */
	kcsan_flush();
	trace_dump(); /* # TRACE lines, after the KTAP results */
	if (verdict_hook)
		pass = verdict_hook(pass);
	printk("# RESULT %s\n", pass ? "pass" : "fail");
	console_drain();
	apic_send_nmi_others(); /* idle or stuck CPUs stop now */

	if (opts.exit == EXIT_REBOOT)
		reboot();
	else if (opts.exit == EXIT_POWEROFF)
		poweroff();
	else if (opts.exit == EXIT_AUTO && debug_exit_present())
		outb(DEBUG_EXIT_PORT, pass ? DEBUG_EXIT_PASS : DEBUG_EXIT_FAIL);
	printk("halted: result %s (exit=%s)%s\n", pass ? "PASS" : "FAIL", exit_names[opts.exit],
	       opts.exit == EXIT_HALT || opts.exit == EXIT_AUTO
		   ? ": the results stay on screen until reset"
		   : ", which did not work");
	console_drain();
	cpu_halt_forever();
}
