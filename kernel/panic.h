// SPDX-License-Identifier: MIT
/*
 * panic.h - the end of a run that went wrong.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Print "PANIC:" with the reason, this CPU and a backtrace, stop every
 * other CPU, report the failed result and exit.  Never returns.
 */
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

/*
 * The first steps of every panic: interrupts off; the first CPU to call it
 * owns the panic (a later one halts here); the console switches to its
 * panic mode; every other CPU gets an NMI and stops.
 */
void panic_begin(void);

/* True once some CPU began a panic: an NMI then means "stop". */
bool panic_in_progress(void);

/*
 * "PANIC: backtrace" from @rip, then the saved frame pointers from @rbp up,
 * each address with the function holding it (printf's %pS).  @rip_returns:
 * @rip is a return address (a panic call's), not the faulting instruction.
 */
void panic_backtrace(uint64_t rbp, uint64_t rip, bool rip_returns);

#endif /* KERNEL_PANIC_H */
