// SPDX-License-Identifier: MIT
/*
 * apic.c - local APIC access and inter-processor interrupts.
 *
 * Register offsets are the xAPIC MMIO offsets (Intel SDM Vol. 3A table
 * 11-1); lapic_read/lapic_write turn them into x2APIC MSRs when needed.
 */
#include "apic.h"

#include "atomic.h"
#include "console.h"
#include "cpu.h"
#include "percpu.h"
#include "tsc.h"

#define APIC_REG_ID	   0x020
#define APIC_REG_TPR	   0x080
#define APIC_REG_EOI	   0x0b0
#define APIC_REG_IRR	   0x200 /* interrupt request: 8 registers of 32 vectors, 0x10 apart */
#define APIC_REG_SVR	   0x0f0
#define APIC_REG_ICR_LOW   0x300
#define APIC_REG_ICR_HIGH  0x310
#define APIC_REG_LVT_TIMER 0x320
#define APIC_REG_LVT_LINT0 0x350
#define APIC_REG_LVT_LINT1 0x360
#define APIC_REG_TIMER_ICR 0x380 /* initial count: writing it starts the timer, 0 stops it */
#define APIC_REG_TIMER_CCR 0x390 /* current count */
#define APIC_REG_TIMER_DCR 0x3e0 /* divide configuration */
#define X2APIC_MSR_BASE	   0x800

#define APIC_BASE_EXTD	(1u << 10) /* IA32_APIC_BASE: x2APIC mode */
#define APIC_BASE_EN	(1u << 11) /* IA32_APIC_BASE: APIC enabled */
#define APIC_BASE_ADDR	0xfffff000ull
#define SVR_ENABLE	(1u << 8)
#define SPURIOUS_VECTOR 0xff
#define LVT_MASKED	(1u << 16)
#define TIMER_DIVIDE_16 0x3 /* DCR bits 3,1:0 = 0,11b (SDM Vol. 3A 11.5.4, figure 11-10) */
#define TIMER_COUNT_MAX 0xffffffffu
#define TIMER_CAL_US	2000 /* long enough to count well, short enough not to slow the boot */

/* ICR fields (SDM Vol. 3A 11.6.1). */
#define ICR_FIXED	 (0u << 8)
#define ICR_NMI		 (4u << 8)
#define ICR_INIT	 (5u << 8)
#define ICR_STARTUP	 (6u << 8)
#define ICR_PENDING	 (1u << 12) /* xAPIC delivery status: send pending */
#define ICR_ASSERT	 (1u << 14)
#define XAPIC_DEST_SHIFT 24
/* The xAPIC sets ICR_PENDING until accepted; bound the wait. */
#define ICR_POLL_LIMIT 1000000
/* icr_dest_writing: no xAPIC send between its two writes on this CPU (else dest + 1). */
#define ICR_NONE 0u

#define PIC1_DATA    0x21
#define PIC2_DATA    0xa1
#define PIC_MASK_ALL 0xff

static bool x2apic;
static bool apic_ready; /* before apic_init, IPIs have nowhere to go */
static volatile uint8_t *xapic_mmio;
static uint64_t timer_ticks_per_ms; /* 0 until apic_timer_calibrate */
/*
 * The periodic tick (apic_tick_start): one CPU's, a one-shot timer armed
 * for each due time in turn.  A sleep bound borrows the timer; the due time
 * stays, so the tick keeps its phase however often the CPU sleeps (a
 * periodic timer restarted after each sleep never fired while the CPU slept
 * more often than once a period).
 */
static uint32_t tick_count; /* timer counts per period; 0: no tick */
static uint64_t tick_period_tsc, tick_due_tsc;
static uint8_t tick_vector;
static unsigned tick_cpu;

static uint32_t lapic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR_BASE + (reg >> 4));
	return *(volatile uint32_t *)(xapic_mmio + reg);
}

static void lapic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(X2APIC_MSR_BASE + (reg >> 4), v);
	else
		*(volatile uint32_t *)(xapic_mmio + reg) = v;
}

static void lapic_enable(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_EN;

	/* x2APIC is entered from xAPIC mode by setting EN and EXTD (SDM 11.12.5). */
	if (x2apic)
		base |= APIC_BASE_EXTD;
	wrmsr(MSR_APIC_BASE, base);
	lapic_write(APIC_REG_TPR, 0);
	lapic_write(APIC_REG_SVR, SVR_ENABLE | SPURIOUS_VECTOR);
	/* No legacy interrupts through LINT0/1: only IPIs and NMIs matter here. */
	lapic_write(APIC_REG_LVT_LINT0, LVT_MASKED);
	/* One-shot mode (LVT timer bits 18:17 = 0), masked until a sleep arms it. */
	lapic_write(APIC_REG_TIMER_DCR, TIMER_DIVIDE_16);
	lapic_write(APIC_REG_LVT_TIMER, LVT_MASKED);
}

void apic_init(uint64_t mmio_phys)
{
	struct cpuid_regs r = cpuid(CPUID_FEATURES, 0);

	if (!(r.edx & CPUID1_EDX_APIC))
		printk("apic: CPUID says no local APIC; SMP will not work\n");
	x2apic = (r.ecx & CPUID1_ECX_X2APIC) != 0;
	/* Silence the legacy 8259 PICs: the kernel takes no device interrupts. */
	outb(PIC1_DATA, PIC_MASK_ALL);
	outb(PIC2_DATA, PIC_MASK_ALL);
	if (!mmio_phys)
		mmio_phys = rdmsr(MSR_APIC_BASE) & APIC_BASE_ADDR;
	/* The APIC page lies below 4 GiB, inside the boot identity map. */
	xapic_mmio = (volatile uint8_t *)(uintptr_t)mmio_phys;
	lapic_enable();
	apic_ready = true;
	printk("apic: %s mode, boot CPU APIC id %u%s\n", x2apic ? "x2APIC" : "xAPIC", apic_id(),
	       x2apic ? "" : " (CPU has no x2APIC: using MMIO xAPIC)");
}

void apic_init_this_cpu(void)
{
	lapic_enable();
}

bool apic_is_x2apic(void)
{
	return x2apic;
}

uint32_t apic_id(void)
{
	uint32_t id = lapic_read(APIC_REG_ID);

	return x2apic ? id : id >> XAPIC_DEST_SHIFT;
}

void apic_eoi(void)
{
	if (!apic_ready)
		return;
	lapic_write(APIC_REG_EOI, 0);
}

/*
 * Per CPU, the destination + 1 of an xAPIC send between its two ICR
 * writes, or ICR_NONE.  cli keeps maskable interrupts out of that window but not an
 * NMI or an exception, and a send from one rewrites ICR_HIGH, so the
 * interrupted send would then go to the nested one's destination.  Today
 * the only such sender is the panic path (trap.c: an NMI that is not a
 * fence's panics, fence_answer_nmi sends nothing; a fault in the window
 * panics), which never returns to the interrupted code; but a send that
 * finds this slot set (it nests inside another on its CPU) puts the outer
 * destination back in ICR_HIGH before it returns, so the outer send is
 * right either way.  Only its own CPU touches a slot, so program order and
 * a compiler barrier order it against the NMI.
 */
static volatile uint32_t icr_dest_writing[MAX_CPUS];

/* Wait (bounded) until the xAPIC has accepted the last IPI this CPU sent (SDM 11.6.1). */
static void icr_wait_idle(void)
{
	for (int i = 0; i < ICR_POLL_LIMIT && (lapic_read(APIC_REG_ICR_LOW) & ICR_PENDING); i++)
		cpu_relax();
}

static void icr_send(uint32_t dest, uint32_t low)
{
	if (x2apic) {
		/*
		 * WRMSR to the x2APIC registers is not serializing (SDM Vol. 3A
		 * 11.12.3, MSR Access in x2APIC Mode): the IPI could reach its target before the stores it
		 * announces (posted work, a trampoline parameter) are visible.
		 * The SDM's remedy is MFENCE; LFENCE before the WRMSR.
		 */
		__asm__ volatile("mfence; lfence" : : : "memory");
		/* One 64-bit write: destination in the high half (SDM 11.12.9). */
		wrmsr(X2APIC_MSR_BASE + (APIC_REG_ICR_LOW >> 4), ((uint64_t)dest << 32) | low);
		return;
	}
	/*
	 * Two writes: an interrupt between them whose handler sends an IPI of
	 * its own (the status tick's console unlock kicks a waiter) would
	 * leave its destination in ICR_HIGH, and this IPI would go there.  So
	 * interrupts are off, and an NMI's send restores it (icr_dest_writing).
	 */
	uint64_t flags = read_rflags();

	cli();
	unsigned cpu = this_cpu_index();
	uint32_t outer = icr_dest_writing[cpu];

	/* The previous IPI accepted first: the ICR is not written while a send is pending. */
	icr_wait_idle();
	icr_dest_writing[cpu] = dest + 1;
	atomic_compiler_barrier();
	lapic_write(APIC_REG_ICR_HIGH, dest << XAPIC_DEST_SHIFT);
	lapic_write(APIC_REG_ICR_LOW, low);
	/* Accepted before return: INIT and STARTUP are timed from here (smp.c). */
	icr_wait_idle();
	/* Nested inside another send on this CPU: its destination back, before its LOW write. */
	if (outer != ICR_NONE)
		lapic_write(APIC_REG_ICR_HIGH, (outer - 1) << XAPIC_DEST_SHIFT);
	atomic_compiler_barrier();
	icr_dest_writing[cpu] = outer;
	if (flags & RFLAGS_IF)
		sti();
}

bool apic_vector_requested(uint8_t vector)
{
	if (!apic_ready)
		return false;
	return (lapic_read(APIC_REG_IRR + (vector / 32u) * 0x10u) >> (vector % 32u)) & 1u;
}

void apic_send_init(uint32_t id)
{
	icr_send(id, ICR_INIT | ICR_ASSERT);
}

void apic_send_startup(uint32_t id, uint8_t page)
{
	icr_send(id, ICR_STARTUP | ICR_ASSERT | page);
}

void apic_send_ipi(uint32_t id, uint8_t vector)
{
	icr_send(id, ICR_FIXED | ICR_ASSERT | vector);
}

void apic_send_nmi(uint32_t id)
{
	icr_send(id, ICR_NMI | ICR_ASSERT);
}

/*
 * One NMI per CPU that smp.c brought online, by APIC id.  Not the
 * all-but-self shorthand: that also reaches CPUs never started (smp.max=,
 * skipped or timed-out entries), which may sit in firmware code whose
 * memory the heap has since reused, and an NMI there can reset the
 * platform before the panic report is out.
 */
void apic_send_nmi_others(void)
{
	if (!apic_ready)
		return;
	uint32_t self = apic_id();
	for (unsigned i = 0; i < MAX_CPUS; i++)
		if (atomic_load8(&cpus[i].online) && cpus[i].apic_id != self)
			icr_send(cpus[i].apic_id, ICR_NMI | ICR_ASSERT);
}

/* Count down from the maximum for TIMER_CAL_US by the calibrated TSC. */
void apic_timer_calibrate(void)
{
	uint32_t left;

	lapic_write(APIC_REG_LVT_TIMER, LVT_MASKED);
	lapic_write(APIC_REG_TIMER_ICR, TIMER_COUNT_MAX);
	udelay(TIMER_CAL_US);
	left = lapic_read(APIC_REG_TIMER_CCR);
	lapic_write(APIC_REG_TIMER_ICR, 0);
	timer_ticks_per_ms = (uint64_t)(TIMER_COUNT_MAX - left) * 1000 / TIMER_CAL_US;
	printk("apic: timer %lu ticks/ms (divide by 16)\n", timer_ticks_per_ms);
}

/* The tick's timer, to fire at its due time (at once if that has passed). */
static void tick_arm(void)
{
	uint64_t now = tsc_now(), left = 1;

	if (tick_due_tsc > now)
		left = (tick_due_tsc - now) * tick_count / tick_period_tsc;
	lapic_write(APIC_REG_LVT_TIMER, tick_vector);
	lapic_write(APIC_REG_TIMER_ICR, left ? (uint32_t)left : 1);
}

static bool is_tick_cpu(void)
{
	return tick_count && this_cpu_index() == tick_cpu;
}

bool apic_timer_arm_us(uint32_t us, uint8_t vector)
{
	uint64_t ticks = timer_ticks_per_ms * us / 1000;

	if (ticks == 0)
		return false;
	/* The tick due first ends the sleep itself (a sleep may end early). */
	if (is_tick_cpu() && tick_due_tsc <= tsc_now() + tsc_from_us(us)) {
		tick_arm();
		return true;
	}
	if (ticks > TIMER_COUNT_MAX)
		ticks = TIMER_COUNT_MAX;
	lapic_write(APIC_REG_LVT_TIMER, vector);
	lapic_write(APIC_REG_TIMER_ICR, (uint32_t)ticks);
	return true;
}

void apic_timer_stop(void)
{
	lapic_write(APIC_REG_TIMER_ICR, 0);
	lapic_write(APIC_REG_LVT_TIMER, LVT_MASKED);
	/* A sleep bound borrowed the timer from this CPU's tick: give it back, same due time. */
	if (is_tick_cpu())
		tick_arm();
}

void apic_tick_fired(void)
{
	uint64_t now = tsc_now();

	if (!is_tick_cpu())
		return;
	tick_due_tsc += tick_period_tsc;
	if (tick_due_tsc <= now) /* late (interrupts were off): one tick, not a burst */
		tick_due_tsc = now + tick_period_tsc;
	tick_arm();
}

bool apic_tick_start(uint32_t us, uint8_t vector)
{
	uint64_t ticks = timer_ticks_per_ms * us / 1000;

	if (ticks == 0 || ticks > TIMER_COUNT_MAX)
		return false;
	tick_cpu = this_cpu_index();
	tick_vector = vector;
	tick_period_tsc = tsc_from_us(us);
	tick_due_tsc = tsc_now() + tick_period_tsc;
	tick_count = (uint32_t)ticks;
	tick_arm();
	return true;
}

void apic_tick_stop(void)
{
	tick_count = 0;
	apic_timer_stop();
}
