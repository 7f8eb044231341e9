// SPDX-License-Identifier: MIT
/*
 * fault_inject.c - faults on purpose.
 *
 * The panic path is code that normally never runs, so it is tested like any
 * other: selftest.fault= makes the run die through it, right after the
 * KTAP plan (make test checks the PANIC report), and the boot suite raises
 * a recoverable #UD to check the IDT, the stubs and the frame layout
 * without ending the run.
 *
 * selftest.fault=lockdep plants a lock-order report in the same place, a
 * setup hook, outside any test's window: no test fails for it, so only the
 * runner's count of reports outside the tests (ktest.c) can fail the run,
 * and this proves it does.
 */
#include "fault_inject.h"

#include "cmdline.h"
#include "console.h"
#include "ktest.h"
#include "lockdep.h"
#include "percpu.h"
#include "spinlock.h"
#include "trap.h"

#define VEC_UD	      6
#define UD2_LENGTH    2
#define NONCANONICAL  0x8000000000000000ull /* any access raises #GP */
#define UNMAPPED_ADDR (1ull << 45)	    /* beyond the identity map: #PF */

static volatile int armed_cpu = -1;
static volatile int seen_vector = -1;

/*
 * selftest.fault=lockdep: the checker told of a release of a lock nobody
 * took, a "bad unlock" report, with the lock word left alone.
 */
static spinlock_t never_taken = SPINLOCK_INIT;

static void plant_lockdep_report(void)
{
	if (!lockdep_enabled()) {
		printk("cmdline: 'selftest.fault=lockdep': the lock-order checker is off; no "
		       "report planted\n");
		cmdline_not_done("selftest.fault", "lockdep",
				 "the lock-order checker is off (lockdep=off or run=bench "
				 "alone), so no report was planted");
		return;
	}
	printk("fault_inject: a lockdep report outside any test on purpose "
	       "(selftest.fault=lockdep): the run must fail\n");
	lockdep_release(&never_taken, LOCKDEP_SITE());
}

void fault_inject_if_asked(void)
{
	switch (opts.fault) {
	case FAULT_NONE:
		return;
	case FAULT_UD:
		printk("fault_inject: raising #UD on purpose (selftest.fault=ud)\n");
		__asm__ volatile("ud2");
		break;
	case FAULT_GP:
		printk("fault_inject: raising #GP on purpose (selftest.fault=gp)\n");
		(void)*(volatile uint64_t *)NONCANONICAL;
		break;
	case FAULT_PF:
		printk("fault_inject: raising #PF on purpose (selftest.fault=pf)\n");
		(void)*(volatile uint64_t *)UNMAPPED_ADDR;
		break;
	case FAULT_LOCKDEP:
		plant_lockdep_report();
		return;
	}
	panic("fault_inject: the deliberate fault did not trap");
}
/* Run by the test runner after the KTAP plan: the panic is then a crashed run. */
KTEST_SETUP(fault_inject_if_asked);

/* The trap fixup while armed: skip the ud2 on the armed CPU, leave anything else to panic. */
static bool recover_armed_ud(struct trap_frame *tf)
{
	if (armed_cpu != (int)this_cpu_index() || tf->vector != VEC_UD)
		return false;
	seen_vector = (int)tf->vector;
	armed_cpu = -1;
	tf->rip += UD2_LENGTH; /* resume after the ud2 */
	return true;
}

int fault_inject_recoverable_ud(void)
{
	trap_set_fixup(recover_armed_ud);
	seen_vector = -1;
	armed_cpu = (int)this_cpu_index();
	__asm__ volatile("ud2" : : : "memory");
	armed_cpu = -1;
	trap_set_fixup(NULL);
	return seen_vector;
}
