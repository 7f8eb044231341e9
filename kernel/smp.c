// SPDX-License-Identifier: MIT
/*
 * smp.c - start the other CPUs with INIT-SIPI-SIPI and keep them idle,
 * ready for work.
 *
 * The CPUs come from the ACPI MADT, or the Intel MP table without one.
 * The universal start-up algorithm (Intel SDM Vol. 3A 9.4.4.1): an INIT
 * IPI, 10 ms, a Startup IPI, 200 us, a second Startup IPI if the CPU has
 * not answered.  APs are started one at a time because they share the
 * trampoline's parameter block.  An AP that never answers is named, sent
 * back to wait-for-SIPI with another INIT, and left out.
 *
 * Idle APs sleep in HLT with interrupts on; smp_run_on_all() posts work in
 * their struct cpu and wakes them with an IPI, and the boot CPU, once its
 * own share is done, sleeps too until each AP kicks it on finishing.
 * Sleeping, not spinning: under QEMU TCG spinning vCPUs steal the host
 * cores the busy ones need.
 */
#include "smp.h"

#include "acpi.h"
#include "atomic.h"
#include "apic.h"
#include "cmdline.h"
#include "console.h"
#include "cpu.h"
#include "heap.h"
#include "memmap.h"
#include "mp.h"
#include "panic.h"
#include "printf.h"
#include "string.h"
#include "trap.h"
#include "tsc.h"

#define PAGE_SHIFT    12 /* the SIPI vector is the start-up page's number */
#define TP_OFFSET     0x100
#define AP_STACK_SIZE (32u << 10)
#define INIT_DELAY_US 10000 /* SDM 9.4.4.1: 10 ms after INIT */
#define SIPI_DELAY_US 200   /* SDM 9.4.4.1: 200 us after each SIPI */
#define AP_ANSWER_MS  2000  /* nested virtualization can be slow to start a vCPU */
#define XAPIC_MAX_ID  0xff

/* Mirrors the block at TP_OFFSET in boot/trampoline.asm. */
struct trampoline_params {
	uint32_t cr3;
	uint32_t cr4; /* the boot CPU's, written whole by the AP (boot/control_regs.inc) */
	uint16_t gdt_limit;
	uint32_t gdt_base;
	uint16_t pad2;
	uint64_t stack;
	uint64_t entry;
	uint64_t arg;
	uint32_t jump_offset; /* far pointer to trampoline_long_mode, for o32 jmp far */
	uint16_t jump_selector;
} __attribute__((packed));

_Static_assert(__builtin_offsetof(struct trampoline_params, cr3) == 0, "TP_CR3");
_Static_assert(__builtin_offsetof(struct trampoline_params, cr4) == 4, "TP_CR4");
_Static_assert(__builtin_offsetof(struct trampoline_params, gdt_limit) == 8, "TP_GDT");
_Static_assert(__builtin_offsetof(struct trampoline_params, stack) == 16, "TP_STACK");
_Static_assert(__builtin_offsetof(struct trampoline_params, entry) == 24, "TP_ENTRY");
_Static_assert(__builtin_offsetof(struct trampoline_params, arg) == 32, "TP_ARG");
_Static_assert(__builtin_offsetof(struct trampoline_params, jump_offset) == 40, "TP_JUMP");
_Static_assert(__builtin_offsetof(struct trampoline_params, jump_selector) == 44, "TP_JUMP + 4");

struct gdt_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

extern const struct gdt_pointer gdt64_pointer;
extern const char trampoline_image_start[], trampoline_image_end[], trampoline_long_mode[];

static uint32_t ncpus_online = 1;
static unsigned ncpus_found = 1;

unsigned smp_cpus_online(void)
{
	return atomic_load32(&ncpus_online);
}

unsigned smp_cpus_found(void)
{
	return ncpus_found;
}

static void load_kernel_gdt(void)
{
	__asm__ volatile("lgdt %0" : : "m"(gdt64_pointer));
}

/*
 * Interrupts off while comparing, so a kick that arrives after the
 * comparison stays pending; STI's one-instruction shadow then lets it in
 * only once HLT has begun (Intel SDM Vol. 2B "STI"), where it ends the halt.
 * Interrupts are on for the halt alone: the caller may hold other locks
 * with them off, and the interrupts that come either do nothing
 * (VEC_KICK, VEC_WAKE) or, on the boot CPU, draw the status line under a
 * try-lock of the console (VEC_TICK, kernel/progress.c), which never
 * waits.  The timer bounds the halt, so a timeout the caller keeps is
 * still noticed; the status tick, due first, may end it sooner.
 */
void smp_wait(const uint32_t *addr, uint32_t expected)
{
	bool was_on = read_rflags() & RFLAGS_IF;

	cli();
	/* Its own vector, not VEC_KICK's: a kick received is counted apart from the bound. */
	if (apic_timer_arm_us(PLATFORM_WAIT_MAX_NS / 1000, VEC_WAIT_TIMER)) {
		if (atomic_load32(addr) == expected)
			sti_hlt();
		cli();
		apic_timer_stop();
	}
	if (was_on)
		sti();
}

void smp_kick(unsigned cpu)
{
	/* The caller's stores first: a WRMSR to the x2APIC ICR does not order them (SDM 11.12.3). */
	atomic_full_fence();
	apic_send_ipi(cpus[cpu].apic_id, VEC_KICK);
}

/* Sleep until work is posted, run it, report it done; forever. */
__attribute__((noreturn)) static void idle_loop(struct cpu *c)
{
	for (;;) {
		cli();
		uint64_t seq = atomic_load64(&c->work_seq);
		if (seq != c->done_seq) {
			c->work(c->work_arg);
			atomic_store64(&c->done_seq, seq);
			smp_kick(0); /* smp_run_on_all may be asleep waiting */
			continue;
		}
		/* STI's one-instruction shadow means a wake-up IPI cannot slip in before HLT. */
		sti_hlt();
	}
}

__attribute__((noreturn)) static void ap_entry(uint64_t index)
{
	struct cpu *c = &cpus[index];

	load_kernel_gdt();
	percpu_install(c, (unsigned)index);
	idt_load();
	apic_init_this_cpu();
	c->apic_id = apic_id();
	atomic_store8(&c->online, 1);
	idle_loop(c);
}

void smp_init_boot_cpu(void)
{
	percpu_install(&cpus[0], 0);
	atomic_store8(&cpus[0].online, 1);
}

static bool wait_online(struct cpu *c, uint64_t us)
{
	uint64_t end = tsc_now() + tsc_from_us(us);

	while (tsc_now() < end)
		if (atomic_load8(&c->online))
			return true;
	return atomic_load8(&c->online);
}

static bool start_ap(struct trampoline_params *tp, uint8_t page, unsigned index, uint32_t id)
{
	struct cpu *c = &cpus[index];
	uint8_t *stack = heap_alloc(AP_STACK_SIZE, 4096);

	if (!stack) {
		printk("smp: no memory for the stack of CPU %u (APIC id %u)\n", index, id);
		return false;
	}
	c->apic_id = id;
	c->stack_top = stack + AP_STACK_SIZE;
	tp->stack = (uint64_t)(uintptr_t)c->stack_top;
	tp->arg = index;
	atomic_full_fence(); /* parameters visible before the AP runs */

	apic_send_init(id);
	udelay(INIT_DELAY_US);
	apic_send_startup(id, page);
	if (!wait_online(c, SIPI_DELAY_US)) {
		apic_send_startup(id, page);
		if (!wait_online(c, AP_ANSWER_MS * 1000ull)) {
			printk("smp: CPU with APIC id %u did not answer within %u ms; going on "
			       "without it\n",
			       id, AP_ANSWER_MS);
			apic_send_init(id); /* park it: it must not run the next CPU's block */
			udelay(INIT_DELAY_US);
			/*
			 * The next CPU gets this slot.  A late AP may have set
			 * online after the last look and before the INIT: clear
			 * it, or the next CPU would count as started whether it
			 * answers or not, and this one would get its NMIs.
			 */
			atomic_store8(&c->online, 0);
			heap_free(stack, AP_STACK_SIZE);
			return false;
		}
	}
	return true;
}

/*
 * The page the APs start in, from the memory map (memmap_low_page); a
 * machine whose map offers none cannot start them: that is a panic, before
 * any AP is touched.
 */
static uint64_t start_page(const struct boot_info *bi, struct mem_range info)
{
	struct mem_range page = memmap_low_page(bi, info);

	if (!page.end)
		panic("smp: the memory map has no usable 4 KiB page between 0x%llx and 0x%llx "
		      "(clear of the boot information): expected one for the APs' start-up code "
		      "(a Startup IPI starts a CPU below 1 MiB)",
		      LOW_PAGE_FLOOR, LOW_PAGE_CEILING);
	printk("smp: AP start-up code at 0x%lx, the first page of the largest usable range "
	       "below 1 MiB in the memory map\n",
	       page.start);
	return page.start;
}

/*
 * The CPUs' APIC ids into @ids: from the ACPI MADT, else from the Intel MP
 * table (older boards; SeaBIOS with ACPI off), else the boot CPU alone.
 * One line names the source.  Both lists went through the same checks in
 * their parsers (enabled only, no broadcast id, no repeats, at most
 * MAX_CPUS); the loop in smp_start_aps applies the rest to either.
 */
static unsigned firmware_cpus(uint32_t *ids)
{
	static struct mp_cpu mp_cpus[MAX_CPUS];
	struct mp_info mp = {.cpus = mp_cpus, .max_cpus = MAX_CPUS};

	if (acpi.have_madt) {
		for (unsigned i = 0; i < acpi.ncpus; i++)
			ids[i] = acpi.cpus[i].apic_id;
		printk("smp: %u CPU%s listed by the ACPI MADT\n", acpi.ncpus, plural(acpi.ncpus));
		return acpi.ncpus;
	}
	if (mp_find_cpus(&mp)) {
		for (unsigned i = 0; i < mp.ncpus; i++)
			ids[i] = mp.cpus[i].apic_id;
		printk("smp: %u CPU%s listed by the Intel MP table (ACPI has no MADT)\n", mp.ncpus,
		       plural(mp.ncpus));
		return mp.ncpus;
	}
	printk("smp: WARNING: no ACPI MADT and no Intel MP table: running on the boot CPU only\n");
	return 1;
}

void smp_start_aps(const struct boot_info *bi, struct mem_range info)
{
	static uint32_t ids[MAX_CPUS];
	uint32_t bsp_id = cpus[0].apic_id;
	unsigned next = 1, skipped = 0;

	ncpus_found = firmware_cpus(ids);
	if (ncpus_found <= 1)
		return;
	uint64_t base = start_page(bi, info);
	struct trampoline_params *tp = (struct trampoline_params *)(uintptr_t)(base + TP_OFFSET);

	memcpy((void *)(uintptr_t)base, trampoline_image_start,
	       (size_t)(trampoline_image_end - trampoline_image_start));
	tp->jump_offset =
	    (uint32_t)(base + (uintptr_t)(trampoline_long_mode - trampoline_image_start));
	tp->jump_selector = GDT_KERNEL_CODE;
	tp->cr3 = (uint32_t)read_cr3();
	tp->cr4 = (uint32_t)read_cr4();
	tp->gdt_limit = gdt64_pointer.limit;
	tp->gdt_base = (uint32_t)gdt64_pointer.base;
	tp->entry = (uint64_t)(uintptr_t)ap_entry;

	for (unsigned i = 0; i < ncpus_found; i++) {
		uint32_t id = ids[i];

		if (id == bsp_id)
			continue;
		if (next >= opts.smp_max) {
			skipped++;
			continue;
		}
		if (!apic_is_x2apic() && id > XAPIC_MAX_ID) {
			printk("smp: CPU with APIC id %u needs x2APIC, which this CPU lacks; "
			       "skipped\n",
			       id);
			continue;
		}
		if (start_ap(tp, (uint8_t)(base >> PAGE_SHIFT), next, id))
			atomic_store32(&ncpus_online, ++next);
	}
	if (skipped)
		printk("smp: smp.max=%u: left %u CPU%s unstarted\n", opts.smp_max, skipped,
		       plural(skipped));
}

bool smp_run_on_all(cpu_work_fn fn, void *arg, uint64_t timeout_ms, const char *what)
{
	unsigned n = smp_cpus_online();
	bool ok = true;

	for (unsigned i = 1; i < n; i++) {
		struct cpu *c = &cpus[i];

		c->work = fn;
		c->work_arg = arg;
		atomic_store64(&c->work_seq, c->work_seq + 1);
		apic_send_ipi(c->apic_id, VEC_WAKE);
	}
	fn(arg);
	uint64_t deadline = tsc_now() + tsc_from_us(timeout_ms * 1000);
	for (unsigned i = 1; i < n; i++) {
		struct cpu *c = &cpus[i];

		uint64_t done;

		while ((done = atomic_load64(&c->done_seq)) != c->work_seq) {
			if (tsc_now() > deadline) {
				printk(
				    "smp: CPU %u (APIC id %u) did not finish '%s' within %lu ms\n",
				    i, c->apic_id, what, timeout_ms);
				ok = false;
				break;
			}
			/* Little-endian: the low half changes whenever done_seq does. */
			smp_wait((const uint32_t *)&c->done_seq, (uint32_t)done);
		}
	}
	return ok;
}

unsigned smp_wait_idle(uint64_t timeout_ms)
{
	uint64_t deadline = tsc_now() + tsc_from_us(timeout_ms * 1000);
	unsigned n = smp_cpus_online();

	for (unsigned i = 1; i < n; i++) {
		struct cpu *c = &cpus[i];
		uint64_t done;

		/* Each AP kicks CPU 0 when it finishes (idle_loop). */
		while ((done = atomic_load64(&c->done_seq)) != c->work_seq) {
			if (tsc_now() > deadline)
				return i;
			smp_wait((const uint32_t *)&c->done_seq, (uint32_t)done);
		}
	}
	return 0;
}
