/*
 * selftest.h - deliberate faults that prove the exception path works.
 */
#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

#include <stdbool.h>
#include <stdint.h>

/* selftest.fault=ud|gp|pf: raise it now; the run then ends in a PANIC report. */
void selftest_fault_if_asked(void);

/*
 * Raise #UD once with a recovery armed: the trap handler checks the vector
 * and skips the faulting instruction.  Returns the vector seen (6 when the
 * IDT, the stub and the frame layout all work), or -1 if none was taken.
 */
int selftest_recoverable_ud(void);

/* Called by trap_dispatch for an exception: true if it was the armed one (now handled). */
struct trap_frame;
bool selftest_fixup(struct trap_frame *tf);

#endif /* KERNEL_SELFTEST_H */
