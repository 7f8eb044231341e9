// SPDX-License-Identifier: MIT
/*
 * mp.h - the CPUs of a machine without an ACPI MADT, from the Intel MP table.
 */
#ifndef KERNEL_MP_H
#define KERNEL_MP_H

#include "mptable.h"

#include <stdbool.h>

/*
 * Find the MP floating pointer where the MP spec says firmware puts it and
 * read its table into @out (mptable.h); prints one line with the result,
 * or why there is none.  True when it lists at least one usable CPU.
 */
bool mp_find_cpus(struct mp_info *out);

#endif /* KERNEL_MP_H */
