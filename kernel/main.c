// SPDX-License-Identifier: MIT
/*
 * main.c - the boot CPU's path from long mode to the test results.
 *
 * Reads as a table of contents: each step is one call, in the order the
 * machine allows (serial before anything can go wrong, the heap before
 * ACPI maps, the TSC before the timed AP start-up).
 */
#include "acpi.h"
#include "apic.h"
#include "cmdline.h"
#include "console.h"
#include "cpu.h"
#include "cpuinfo.h"
#include "heap.h"
#include "ktest.h"
#include "multiboot2.h"
#include "kcsan.h"
#include "percpu.h"
#include "power.h"
#include "printf.h"
#include "smp.h"
#include "spinlock.h"
#include "topology_read.h"
#include "trap.h"
#include "tsc.h"
#include "vm.h"

#define IDENTITY_LIMIT (4ull << 30)

static void print_env(void)
{
	char cmdline_json[CMDLINE_MAX * 2], model_json[sizeof(cpuinfo.brand) * 2];
	char topo_json[TOPO_ENV_JSON_MAX], llc_json[TOPO_ENV_LLC_MAX];

	json_escape(cmdline_json, sizeof(cmdline_json), opts.raw);
	json_escape(model_json, sizeof(model_json), cpuinfo.brand);
	topology_env_json(topo_json, sizeof(topo_json), kernel_topology());
	topology_env_llc_json(llc_json, sizeof(llc_json), kernel_topology());
	printk("# ENV "
	       "{\"platform\":\"kernel\",\"cpus_found\":%u,\"cpus_online\":%u%s,\"apic\":\"%s\","
	       "\"tsc_khz\":%lu,"
	       "\"tsc_source\":\"%s\",\"invariant_tsc\":%s,\"hypervisor\":\"%s\",\"cx16\":%s,"
	       "\"cmdline\":\"%s\",\"seed\":%lu,\"lockref_policy\":\"%s\",\"lockref_cas\":\"%s\","
	       "\"spinlock_pv\":%s,\"spinlock_kind\":\"%s\",\"lockdep\":%s,\"fs_walk\":\"%s\","
	       "\"cpu_model\":\"%s\"%s}\n",
	       smp_cpus_found(), smp_cpus_online(), topo_json,
	       apic_is_x2apic() ? "x2apic" : "xapic", tsc_khz(), tsc_source(),
	       tsc_is_invariant() ? "true" : "false", cpuinfo_hypervisor_name(),
	       cpuinfo.cx16 ? "true" : "false", cmdline_json, opts.seed, opts.lockref_policy,
	       lockref_cas_names[opts.lockref_cas], spin_pv_enabled() ? "true" : "false",
	       spin_kind_names[spin_kind()], opts.lockdep == 1 ? "true" : "false",
	       fs_walk_name(opts.fs_walk), model_json, llc_json);
}

/* The locks taken before spinlock.kind= applies, made free under the kind it sets. */
static void boot_locks_reinit(void)
{
	console_lock_reinit();
	heap_lock_reinit();
}

void kernel_main(uint32_t magic, uint64_t info_addr)
{
	const void *info = (const void *)(uintptr_t)info_addr;
	struct boot_info bi;
	bool pass;

	smp_init_boot_cpu();			 /* GS base: this_cpu() works */
	console_init();				 /* serial: we can talk */
	machine_set_verdict_hook(ktest_verdict); /* the tally beside # RESULT, however it ends */
	printk("lockref demo kernel: booting\n");
	idt_init(); /* faults from here on are reported */
	idt_load();
	const char *err = mb2_parse(magic, info, &bi);
	if (err) {
		printk("boot: %s\n", err);
		machine_exit(false);
	}
	cmdline_parse(bi.cmdline); /* opts */
	const struct screen_fb *screen = mb2_screen(&bi, IDENTITY_LIMIT, vm_map_identity);
	if (bi.has_fb && !screen)
		printk("boot: the framebuffer at 0x%lx cannot be mapped: no screen, serial only\n",
		       bi.fb.addr);
	console_attach_screen(screen);
	console_select(opts.console ? opts.console : CONSOLE_SERIAL | CONSOLE_SCREEN);
	printk("boot: loader '%s', command line '%s', seed %lu\n", bi.loader, opts.shown,
	       opts.seed);
	cpuinfo_init(); /* CPUID, leaf limits checked */
	const struct mem_range info_range = {info_addr, info_addr + *(const uint32_t *)info};
	heap_init(&bi, info_range.start, info_range.end);
	acpi_init(&bi); /* MADT, FADT, \_S5 */
	apic_init(acpi.have_madt ? acpi.lapic_phys : 0);
	cpus[0].apic_id = apic_id();
	tsc_init(&(struct tsc_clocks){.hpet_phys = acpi.have_hpet ? acpi.hpet_phys : 0,
				      .pm_timer = acpi.pm_timer,
				      .pm_timer_32 = acpi.pm_timer_32}); /* time for AP start-up */
	apic_timer_calibrate(); /* bounds sleeping waits (platform_cpu_wait) */
	/* lockdep=: on before the boot's locks are initialised again, so they get their classes. */
	cmdline_apply_lockdep();
	cmdline_apply_spinlock(cpuinfo.hypervisor,
			       cpuinfo.hypervisor ? "CPUID reports a hypervisor"
						  : "no hypervisor in CPUID",
			       boot_locks_reinit);
	cmdline_apply_lockref();	/* lockref.*=: the boot policy */
	cmdline_apply_keys();		/* the static keys of switches that change later */
	kcsan_init();			/* kcsan=: races watched from here, on every CPU */
	smp_start_aps(&bi, info_range); /* every CPU, or a line saying why not */
	topology_init();		/* CPUID on every CPU: packages, cores, LLC groups */
	print_env();
	cmdline_apply_trace();	    /* trace=: the rings, now that every CPU is counted */
	pass = ktest_run(opts.run); /* KTAP (selftest.fault= after its plan) */
	/* Named after the run: its newer names may have pushed them out of the trace's ring. */
	console_lock_name();
	heap_lock_name();
	machine_exit(pass); /* # TRACE, # RESULT */
}
