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

#define PIT_HZ           1193182u
#define PIT_CH2_DATA     0x42
#define PIT_COMMAND      0x43
#define PIT_CH2_MODE0    0xb0 /* channel 2, lobyte/hibyte, mode 0, binary */
#define PORT_B           0x61 /* PC system control port B */
#define PORT_B_GATE2     0x01 /* channel 2 gate */
#define PORT_B_SPEAKER   0x02 /* speaker data enable: keep off */
#define PORT_B_OUT2      0x20 /* channel 2 output, readable */
#define PIT_CALIB_MS     10
#define PIT_CALIB_RUNS   3
/* Port reads take about a microsecond; this bounds a PIT that never fires. */
#define PIT_POLL_LIMIT   20000000u
#define TSC_KHZ_MIN      100000u    /* 100 MHz */
#define TSC_KHZ_MAX      10000000u  /* 10 GHz */
#define TSC_KHZ_GUESS    2000000u
#define AGREE_PERCENT    2

static uint64_t khz;
static const char *source = "guess";
static bool invariant;

/* One PIT gate period, in TSC cycles; 0 if the PIT never signalled. */
static uint64_t pit_measure_once(void)
{
	uint16_t count = PIT_HZ * PIT_CALIB_MS / 1000;
	uint8_t b = inb(PORT_B) & ~(PORT_B_SPEAKER | PORT_B_GATE2);

	outb(PORT_B, b); /* gate low: the count does not run yet */
	outb(PIT_COMMAND, PIT_CH2_MODE0);
	outb(PIT_CH2_DATA, count & 0xff);
	outb(PIT_CH2_DATA, count >> 8);
	outb(PORT_B, b | PORT_B_GATE2); /* gate high: counting starts */
	uint64_t start = rdtsc_ordered();
	for (uint32_t i = 0; i < PIT_POLL_LIMIT; i++)
		if (inb(PORT_B) & PORT_B_OUT2)
			return rdtsc_ordered() - start;
	return 0;
}

/* TSC kHz by the PIT; the shortest run wins (preemption only lengthens one). */
static uint64_t pit_calibrate(void)
{
	uint64_t best = 0;

	for (int i = 0; i < PIT_CALIB_RUNS; i++) {
		uint64_t cycles = pit_measure_once();

		if (cycles && (!best || cycles < best))
			best = cycles;
	}
	return best / PIT_CALIB_MS;
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
		printk("tsc: %lu kHz from %s; CPUID (%s) %lu kHz, PIT %lu kHz: differ by %lu ppm%s\n",
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
