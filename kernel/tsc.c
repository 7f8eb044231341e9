// SPDX-License-Identifier: MIT
/*
 * tsc.c - calibrate the TSC, and trust no single clock while doing it.
 *
 * CPUID can state the TSC frequency (leaf 0x15 crystal ratio, leaf 0x16
 * base MHz, or the hypervisor's leaf 0x40000010), but only when the leaf
 * exists: under QEMU TCG leaf 0x15 lies past the highest basic leaf and
 * returns another leaf's data, so the maximum is checked first.  A clock
 * of known rate measures the TSC independently: the PIT (1.193182 MHz),
 * else the HPET (rate in its capabilities register), else the ACPI PM
 * timer (3.579545 MHz), the order Linux falls back in.  Some Intel
 * platforms clock-gate the PIT and some boards have none, so every wait on
 * a clock is bounded in TSC cycles, and a clock that does not move within
 * a millisecond is dropped at once.  The first clock that works is checked
 * against the next one; the stated value is used when it agrees with the
 * measured one, the measured one otherwise; the result must fall in a sane
 * range.
 */
#include "tsc.h"

#include "console.h"
#include "cpu.h"
#include "cpuinfo.h"
#include "vm.h"

#define PIT_HZ	       1193182u
#define PIT_CH2_DATA   0x42
#define PIT_COMMAND    0x43
#define PIT_CH2_MODE0  0xb0 /* channel 2, lobyte/hibyte, mode 0, binary */
#define PIT_CH2_LATCH  0x80 /* channel 2, counter latch command */
#define PIT_MASK       0xffffu
#define PORT_B	       0x61   /* PC system control port B */
#define PORT_B_GATE2   0x01   /* channel 2 gate */
#define PORT_B_SPEAKER 0x02   /* speaker data enable: keep off */
#define PIT_RELOADED   0xf000 /* a count this high means the reload happened */

/* IA-PC HPET Specification 1.0a 2.3: the registers used, as offsets into its 1 KiB block. */
#define HPET_MMIO_LEN	       1024
#define HPET_CAPS	       0x000 /* General Capabilities and ID (64-bit) */
#define HPET_CAPS_PERIOD_SHIFT 32    /* COUNTER_CLK_PERIOD: femtoseconds per tick */
#define HPET_CONFIG	       0x010 /* General Configuration */
#define HPET_CONFIG_ENABLE     (1u << 0)
#define HPET_COUNTER	       0x0f0 /* Main Counter Value: the low 32 bits read alone */
#define HPET_MASK	       0xffffffffu
#define HPET_PERIOD_MAX_FS     100000000u /* 2.3.4: at most 100 ns a tick */
#define HPET_PERIOD_MIN_FS     1000000u /* 1 GHz: faster is not a real HPET (and would overflow) */
#define FS_PER_S	       1000000000000000ull

#define PM_TIMER_HZ	 3579545u /* ACPI 6.5 4.8.3.3: the PM timer runs at 3.579545 MHz */
#define PM_TIMER_MASK_24 0xffffffu
#define PM_TIMER_MASK_32 0xffffffffu

#define CALIB_MS      10	/* one measurement */
#define CALIB_RUNS    5		/* the median wins: a preemption skews one either way */
#define SAMPLE_TRIES  3		/* each clock read bracketed by TSC reads; the tightest wins */
#define ALIVE_MS      1		/* a clock that does not move in this long is dead */
#define TSC_KHZ_MIN   100000u	/* 100 MHz */
#define TSC_KHZ_MAX   10000000u /* 10 GHz */
#define TSC_KHZ_GUESS 2000000u
#define AGREE_PERCENT 2
/*
 * A kHz figure is cycles per millisecond, so @ms milliseconds on the
 * fastest TSC accepted: at most @ms on this one, and 100 times that on the
 * slowest.  Before calibration that is the only bound there is.
 */
#define CYCLES_AT_MOST_MS(ms) ((uint64_t)TSC_KHZ_MAX * (ms))

static uint64_t khz;
static const char *source = "guess";
static bool invariant;

/* A clock of known rate, counting up (wrapping within @mask). */
struct ref_clock {
	const char *name; /* as in tsc_source() */
	const char *what; /* for the log */
	uint64_t hz;
	uint64_t mask;
	bool (*start)(struct ref_clock *c); /* find and set up; false if absent */
	uint64_t (*read)(void);
};

/* ---- the PIT, channel 2 (its gate is ours through port B) ---- */

/* Read channel 2's current count (latch command, then low and high bytes). */
static uint16_t pit_count(void)
{
	outb(PIT_COMMAND, PIT_CH2_LATCH);
	uint8_t lo = inb(PIT_CH2_DATA);
	return (uint16_t)(lo | inb(PIT_CH2_DATA) << 8);
}

/* Channel 2 counts down; as an up-counter it is the count's complement. */
static uint64_t pit_read(void)
{
	return (uint16_t)~pit_count();
}

/* Start channel 2 counting down from 0xffff in mode 0 (it wraps on after zero). */
static bool pit_start(struct ref_clock *c)
{
	uint8_t b = inb(PORT_B) & ~(PORT_B_SPEAKER | PORT_B_GATE2);
	uint64_t t0;

	(void)c;
	outb(PORT_B, b); /* gate low while programming */
	outb(PIT_COMMAND, PIT_CH2_MODE0);
	outb(PIT_CH2_DATA, 0xff);
	outb(PIT_CH2_DATA, 0xff);
	outb(PORT_B, b | PORT_B_GATE2); /* gate high: counting starts */
	/* The new count is loaded on the next input clock; until then reads show the old one. */
	t0 = rdtsc_ordered();
	while (pit_count() < PIT_RELOADED)
		if (rdtsc_ordered() - t0 > CYCLES_AT_MOST_MS(ALIVE_MS))
			return false;
	return true;
}

/* ---- the HPET main counter (ACPI HPET table) ---- */

static struct tsc_clocks described; /* from tsc_init() */
static volatile uint8_t *hpet;
static bool hpet_enabled_by_us;

static uint64_t hpet_read(void)
{
	return *(volatile uint32_t *)(hpet + HPET_COUNTER);
}

static bool hpet_start(struct ref_clock *c)
{
	uint64_t period;
	uint32_t config;

	if (!described.hpet_phys)
		return false;
	/* Usually at 0xfed00000, inside the boot identity map; this maps it when it is not. */
	if (!vm_map_identity(described.hpet_phys, HPET_MMIO_LEN))
		return false;
	hpet = (volatile uint8_t *)(uintptr_t)described.hpet_phys;
	period = *(volatile uint64_t *)(hpet + HPET_CAPS) >> HPET_CAPS_PERIOD_SHIFT;
	if (period < HPET_PERIOD_MIN_FS || period > HPET_PERIOD_MAX_FS) {
		printk("tsc: HPET at 0x%lx claims %lu fs a tick, outside %u..%u; not used\n",
		       described.hpet_phys, period, HPET_PERIOD_MIN_FS, HPET_PERIOD_MAX_FS);
		return false;
	}
	c->hz = FS_PER_S / period;
	/* Firmware often leaves it halted; the comparators stay off, so running it is inert. */
	config = *(volatile uint32_t *)(hpet + HPET_CONFIG);
	if (!(config & HPET_CONFIG_ENABLE)) {
		*(volatile uint32_t *)(hpet + HPET_CONFIG) = config | HPET_CONFIG_ENABLE;
		hpet_enabled_by_us = true;
	}
	return true;
}

/* Leave the HPET as firmware left it. */
static void hpet_stop(void)
{
	if (!hpet_enabled_by_us)
		return;
	*(volatile uint32_t *)(hpet + HPET_CONFIG) &= ~HPET_CONFIG_ENABLE;
	hpet_enabled_by_us = false;
}

/* ---- the ACPI PM timer (FADT PM_TMR_BLK) ---- */

static uint64_t pm_timer_read(void)
{
	return inl(described.pm_timer);
}

static bool pm_timer_start(struct ref_clock *c)
{
	if (!described.pm_timer)
		return false;
	c->mask = described.pm_timer_32 ? PM_TIMER_MASK_32 : PM_TIMER_MASK_24;
	return true;
}

/* ---- measuring ---- */

/*
 * One reading of @c with the TSC at that moment: the read bracketed by two
 * TSC reads, the tightest bracket of a few tries kept, so that an SMI or a
 * descheduled vCPU between a TSC read and the clock read does not count.
 */
static uint64_t sample(const struct ref_clock *c, uint64_t *tsc)
{
	uint64_t best = UINT64_MAX, v = 0;

	for (int i = 0; i < SAMPLE_TRIES; i++) {
		uint64_t before = rdtsc_ordered();
		uint64_t x = c->read();
		uint64_t after = rdtsc_ordered();

		if (after - before < best) {
			best = after - before;
			v = x;
			*tsc = before + best / 2;
		}
	}
	return v;
}

/* True if @c moves within ALIVE_MS (bounded: a clock-gated PIT reads constant). */
static bool ticking(const struct ref_clock *c)
{
	uint64_t t0 = rdtsc_ordered(), v0 = c->read();

	while (rdtsc_ordered() - t0 < CYCLES_AT_MOST_MS(ALIVE_MS))
		if ((c->read() - v0) & c->mask)
			return true;
	return false;
}

/* TSC kHz from one run of at least CALIB_MS on @c; 0 if @c stalls. */
static uint64_t measure_once(const struct ref_clock *c)
{
	uint64_t want = c->hz * CALIB_MS / 1000, t0, t1;
	uint64_t v0 = sample(c, &t0);

	for (;;) {
		uint64_t v1 = sample(c, &t1);
		uint64_t ticks = (v1 - v0) & c->mask;

		if (ticks >= want)
			return (t1 - t0) * c->hz / ticks / 1000;
		if (t1 - t0 > CYCLES_AT_MOST_MS(2 * CALIB_MS))
			return 0;
	}
}

/* TSC kHz by @c: the median of CALIB_RUNS runs, or 0 (said why) if @c is absent or dead. */
static uint64_t calibrate(struct ref_clock *c)
{
	uint64_t runs[CALIB_RUNS];

	if (!c->start(c))
		return 0;
	if (!ticking(c)) {
		printk("tsc: the %s does not count (clock-gated or absent); not used\n", c->what);
		return 0;
	}
	for (int i = 0; i < CALIB_RUNS; i++) {
		uint64_t k = measure_once(c);

		if (!k) {
			printk("tsc: the %s stalled during calibration; not used\n", c->what);
			return 0;
		}
		/* Insertion sort: five values. */
		int j = i;
		for (; j > 0 && runs[j - 1] > k; j--)
			runs[j] = runs[j - 1];
		runs[j] = k;
	}
	return runs[CALIB_RUNS / 2];
}

static bool sane(uint64_t k)
{
	return k >= TSC_KHZ_MIN && k <= TSC_KHZ_MAX;
}

static uint64_t ppm_apart(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : b - a) * 1000000 / b;
}

/*
 * TSC kHz from the first clock that works (PIT, HPET, PM timer), checked
 * against the next one that does; 0 if none works.  *@name gets its name.
 */
static uint64_t measure(const char **name)
{
	struct ref_clock clocks[] = {
	    {"pit", "PIT", PIT_HZ, PIT_MASK, pit_start, pit_read},
	    {"hpet", "HPET", 0, HPET_MASK, hpet_start, hpet_read},
	    {"pmtimer", "ACPI PM timer", PM_TIMER_HZ, 0, pm_timer_start, pm_timer_read},
	};
	unsigned n = sizeof(clocks) / sizeof(clocks[0]), i = 0;
	uint64_t k = 0;

	for (; i < n && !k; i++) {
		k = calibrate(&clocks[i]);
		if (k && !sane(k)) {
			printk("tsc: the %s measures %lu kHz, outside %u..%u kHz; not used\n",
			       clocks[i].what, k, TSC_KHZ_MIN, TSC_KHZ_MAX);
			k = 0;
		}
	}
	if (!k) {
		hpet_stop();
		return 0;
	}
	const struct ref_clock *used = &clocks[i - 1];
	*name = used->name;
	for (; i < n; i++) {
		uint64_t check = calibrate(&clocks[i]);

		if (!sane(check))
			continue;
		uint64_t ppm = ppm_apart(check, k);
		printk("tsc: the %s measures %lu kHz, the %s %lu kHz: %lu ppm apart%s\n",
		       used->what, k, clocks[i].what, check, ppm,
		       ppm > AGREE_PERCENT * 10000 ? " (TOO FAR: one of them is wrong; using the "
						     "first)"
						   : "");
		break;
	}
	if (i == n)
		printk("tsc: the %s measures %lu kHz (no second clock to cross-check)\n",
		       used->what, k);
	hpet_stop();
	return k;
}

/* TSC kHz as CPUID states it, or 0; sets *@name (as in tsc_source()) and *@leaf (for the log). */
static uint64_t cpuid_khz(const char **name, const char **leaf)
{
	if (cpuinfo.hv_max_leaf >= CPUID_HV_TSC_KHZ) {
		uint32_t v = cpuid(CPUID_HV_TSC_KHZ, 0).eax;

		if (v) {
			*name = "hypervisor";
			*leaf = "hypervisor leaf 0x40000010";
			return v;
		}
	}
	if (cpuinfo.basic_max_leaf >= CPUID_TSC_CRYSTAL) {
		struct cpuid_regs r = cpuid(CPUID_TSC_CRYSTAL, 0);

		/* TSC = crystal Hz * EBX / EAX (SDM Vol. 3B 18.7.3); ECX may be 0. */
		if (r.eax && r.ebx && r.ecx) {
			*name = "cpuid";
			*leaf = "CPUID leaf 0x15";
			return (uint64_t)r.ecx * r.ebx / r.eax / 1000;
		}
	}
	if (cpuinfo.basic_max_leaf >= CPUID_CPU_FREQ) {
		uint32_t mhz = cpuid(CPUID_CPU_FREQ, 0).eax & 0xffff;

		if (mhz) {
			*name = "cpuid";
			*leaf = "CPUID leaf 0x16";
			return (uint64_t)mhz * 1000;
		}
	}
	return 0;
}

void tsc_init(const struct tsc_clocks *clocks)
{
	const char *stated_name = "none", *leaf = "none", *measured_name = "none";

	described = *clocks;
	uint64_t stated = cpuid_khz(&stated_name, &leaf);
	uint64_t measured = measure(&measured_name);

	invariant = cpuinfo.invariant_tsc;
	if (stated && !sane(stated)) {
		printk("tsc: %s states %lu kHz, outside %u..%u kHz; not used\n", leaf, stated,
		       TSC_KHZ_MIN, TSC_KHZ_MAX);
		stated = 0;
	}
	if (stated && measured) {
		uint64_t ppm = ppm_apart(stated, measured);
		bool agree = ppm <= AGREE_PERCENT * 10000;

		khz = agree ? stated : measured;
		source = agree ? stated_name : measured_name;
		printk("tsc: %lu kHz from %s; %s states %lu kHz, measured %lu kHz: %lu ppm "
		       "apart%s\n",
		       khz, source, leaf, stated, measured, ppm,
		       agree ? "" : " (too far apart: trusting the measurement)");
	} else if (stated || measured) {
		khz = stated ? stated : measured;
		source = stated ? stated_name : measured_name;
		printk("tsc: %lu kHz from %s%s\n", khz, stated ? leaf : measured_name,
		       stated ? " (no clock to check it against)" : "");
	} else {
		khz = TSC_KHZ_GUESS;
		source = "guess";
		printk("tsc: no usable frequency source (no PIT, HPET or ACPI PM timer); GUESSING "
		       "%lu kHz: every time is suspect\n",
		       khz);
	}
	if (!invariant)
		printk("tsc: not invariant (CPUID 0x80000007 EDX bit 8 clear): its rate may "
		       "change with power states; figures assume it does not\n");
}

uint64_t tsc_khz(void)
{
	return khz;
}

const char *tsc_source(void)
{
	return source;
}

bool tsc_is_invariant(void)
{
	return invariant;
}

uint64_t tsc_to_ns(uint64_t cycles)
{
	/* Split so that cycles * 10^6 cannot overflow: exact for any 64-bit count. */
	return cycles / khz * 1000000 + cycles % khz * 1000000 / khz;
}

uint64_t tsc_from_us(uint64_t us)
{
	return us * khz / 1000;
}

void udelay(uint64_t us)
{
	uint64_t end = tsc_now() + tsc_from_us(us);

	while (tsc_now() < end)
		cpu_relax();
}
