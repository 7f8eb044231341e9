/*
 * selftest.c - faults on purpose.
 *
 * The panic path is code that normally never runs, so it is tested like any
 * other: selftest.fault= makes the run die through it (make test checks the
 * PANIC report), and the boot suite raises a recoverable #UD to check the
 * IDT, the stubs and the frame layout without ending the run.
 */
#include "selftest.h"

#include "cmdline.h"
#include "console.h"
#include "percpu.h"
#include "trap.h"

#define VEC_UD	      6
#define UD2_LENGTH    2
#define NONCANONICAL  0x8000000000000000ull /* any access raises #GP */
#define UNMAPPED_ADDR (1ull << 45)	    /* beyond the identity map: #PF */

static volatile int armed_cpu = -1;
static volatile int seen_vector = -1;

void selftest_fault_if_asked(void)
{
	switch (opts.fault) {
	case FAULT_NONE:
		return;
	case FAULT_UD:
		printk("selftest: raising #UD on purpose (selftest.fault=ud)\n");
		__asm__ volatile("ud2");
		break;
	case FAULT_GP:
		printk("selftest: raising #GP on purpose (selftest.fault=gp)\n");
		(void)*(volatile uint64_t *)NONCANONICAL;
		break;
	case FAULT_PF:
		printk("selftest: raising #PF on purpose (selftest.fault=pf)\n");
		(void)*(volatile uint64_t *)UNMAPPED_ADDR;
		break;
	}
	panic("selftest: the deliberate fault did not trap");
}

int selftest_recoverable_ud(void)
{
	seen_vector = -1;
	armed_cpu = (int)this_cpu_index();
	__asm__ volatile("ud2" : : : "memory");
	armed_cpu = -1;
	return seen_vector;
}

bool selftest_fixup(struct trap_frame *tf)
{
	if (armed_cpu != (int)this_cpu_index() || tf->vector != VEC_UD)
		return false;
	seen_vector = (int)tf->vector;
	armed_cpu = -1;
	tf->rip += UD2_LENGTH; /* resume after the ud2 */
	return true;
}
