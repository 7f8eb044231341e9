/*
 * tsc.c - calibrate the TSC, and trust no single clock while doing it.
 *
 * CPUID can state the TSC frequency (leaf 0x15 crystal ratio, leaf 0x16
 * base MHz, or the hypervisor's leaf 0x40000010), but only when the leaf
 * exists: under QEMU TCG leaf 0x15 lies past the highest basic leaf and
 * returns another leaf's data (FACTS.md), so the maximum is checked first.
 * The PIT, whose input clock is fixed at 1.193182 MHz, measures the TSC
 * independently; the stated value is used when the two agree, the measured
 * one otherwise, and the result must fall in a sane range.
 */
#include "tsc.h"

#include "console.h"
#include "cpu.h"
#include "cpuinfo.h"

#define PIT_HZ	       1193182u
#define PIT_CH2_DATA   0x42
#define PIT_COMMAND    0x43
#define PIT_CH2_MODE0  0xb0 /* channel 2, lobyte/hibyte, mode 0, binary */
#define PIT_CH2_LATCH  0x80 /* channel 2, counter latch command */
#define PORT_B	       0x61 /* PC system control port B */
#define PORT_B_GATE2   0x01 /* channel 2 gate */
#define PORT_B_SPEAKER 0x02 /* speaker data enable: keep off */
#define PIT_CALIB_MS   10
#define PIT_CALIB_RUNS 5
#define PIT_RELOADED   0xf000 /* a count this high means the reload happened */
/* Port reads take about a microsecond; this bounds a PIT that never counts. */
#define PIT_POLL_LIMIT 20000000u
#define TSC_KHZ_MIN    100000u	 /* 100 MHz */
#define TSC_KHZ_MAX    10000000u /* 10 GHz */
#define TSC_KHZ_GUESS  2000000u
#define AGREE_PERCENT  2

static uint64_t khz;
static const char *source = "guess";
static bool invariant;

/* Read channel 2's current count (latch command, then low and high bytes). */
static uint16_t pit_count(void)
{
	outb(PIT_COMMAND, PIT_CH2_LATCH);
	uint8_t lo = inb(PIT_CH2_DATA);
	return (uint16_t)(lo | inb(PIT_CH2_DATA) << 8);
}

/*
 * TSC kHz from one run: channel 2 counts down from 0xffff; we read the
 * count together with the TSC at the start and after at least
 * PIT_CALIB_MS, and divide.  Reading the count (rather than waiting for
 * the output pin) means a vCPU descheduled while waiting does not stretch
 * the measurement; only a preemption between a TSC read and its count
 * read can, and the shortest run of several wins.  0 if the PIT is dead.
 */
static uint64_t pit_measure_once(void)
{
	uint8_t b = inb(PORT_B) & ~(PORT_B_SPEAKER | PORT_B_GATE2);

	outb(PORT_B, b); /* gate low while programming */
	outb(PIT_COMMAND, PIT_CH2_MODE0);
	outb(PIT_CH2_DATA, 0xff);
	outb(PIT_CH2_DATA, 0xff);
	outb(PORT_B, b | PORT_B_GATE2); /* gate high: counting starts */
	/* The new count is loaded on the next input clock; until then reads show the old one. */
	uint32_t i = 0;
	while (pit_count() < PIT_RELOADED && ++i < PIT_POLL_LIMIT)
		;
	uint64_t t0 = rdtsc_ordered();
	uint16_t c0 = pit_count();
	uint32_t want = PIT_HZ / 1000 * PIT_CALIB_MS;
	for (; i < PIT_POLL_LIMIT; i++) {
		uint64_t t1 = rdtsc_ordered();
		uint16_t c1 = pit_count();
		uint32_t ticks = (uint16_t)(c0 - c1);

		if (ticks >= want)
			return (t1 - t0) * PIT_HZ / ticks / 1000;
	}
	return 0;
}

/* TSC kHz by the PIT: the median of several runs (a preemption skews one either way). */
static uint64_t pit_calibrate(void)
{
	uint64_t runs[PIT_CALIB_RUNS];

	for (int i = 0; i < PIT_CALIB_RUNS; i++) {
		uint64_t k = pit_measure_once();

		if (!k)
			return 0;
		/* Insertion sort: five values. */
		int j = i;
		for (; j > 0 && runs[j - 1] > k; j--)
			runs[j] = runs[j - 1];
		runs[j] = k;
	}
	return runs[PIT_CALIB_RUNS / 2];
}

/* TSC kHz as CPUID states it, or 0; sets *@what to the leaf used. */
static uint64_t cpuid_khz(const char **what)
{
	if (cpuinfo.hv_max_leaf >= CPUID_HV_TSC_KHZ) {
		uint32_t v = cpuid(CPUID_HV_TSC_KHZ, 0).eax;

		if (v) {
			*what = "hypervisor";
			return v;
		}
	}
	if (cpuinfo.basic_max_leaf >= CPUID_TSC_CRYSTAL) {
		struct cpuid_regs r = cpuid(CPUID_TSC_CRYSTAL, 0);

		/* TSC = crystal Hz * EBX / EAX (SDM Vol. 3B 18.7.3); ECX may be 0. */
		if (r.eax && r.ebx && r.ecx) {
			*what = "cpuid-15h";
			return (uint64_t)r.ecx * r.ebx / r.eax / 1000;
		}
	}
	if (cpuinfo.basic_max_leaf >= CPUID_CPU_FREQ) {
		uint32_t mhz = cpuid(CPUID_CPU_FREQ, 0).eax & 0xffff;

		if (mhz) {
			*what = "cpuid-16h";
			return (uint64_t)mhz * 1000;
		}
	}
	return 0;
}

static bool sane(uint64_t k)
{
	return k >= TSC_KHZ_MIN && k <= TSC_KHZ_MAX;
}

void tsc_init(void)
{
	const char *what = "none";
	uint64_t stated = cpuid_khz(&what);
	uint64_t measured = pit_calibrate();

	invariant = cpuinfo.invariant_tsc;
	if (!sane(measured)) {
		printk("tsc: PIT calibration gave %lu kHz (no PIT, or a stuck one); not used\n",
		       measured);
		measured = 0;
	}
	if (stated && !sane(stated)) {
		printk("tsc: CPUID (%s) states %lu kHz, outside %u..%u kHz; not used\n", what,
		       stated, TSC_KHZ_MIN, TSC_KHZ_MAX);
		stated = 0;
	}
	if (stated && measured) {
		uint64_t diff = stated > measured ? stated - measured : measured - stated;
		uint64_t ppm = diff * 1000000 / measured;

		if (ppm <= AGREE_PERCENT * 10000) {
			khz = stated;
			source = what;
		} else {
			khz = measured;
			source = "pit";
		}
		printk(
		    "tsc: %lu kHz from %s; CPUID (%s) %lu kHz, PIT %lu kHz: differ by %lu ppm%s\n",
		    khz, source, what, stated, measured, ppm,
		    khz == measured ? " (too far apart: trusting the PIT)" : "");
	} else if (stated || measured) {
		khz = stated ? stated : measured;
		source = stated ? what : "pit";
		printk("tsc: %lu kHz from %s (no second source to cross-check)\n", khz, source);
	} else {
		khz = TSC_KHZ_GUESS;
		source = "guess";
		printk("tsc: no usable frequency source; GUESSING %lu kHz: every time is suspect\n",
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
