// SPDX-License-Identifier: MIT
/*
 * static_key_park.h - the NMI side of the kernel's static-key patching
 * round (kernel/static_key.c, docs/static-keys.md).
 */
#ifndef KERNEL_STATIC_KEY_PARK_H
#define KERNEL_STATIC_KEY_PARK_H

#include <stdbool.h>

/*
 * For the NMI handler, after the fence's answer (@explained: the NMI was a
 * fence).  If a patching round asked this CPU to park: park until the
 * writer releases it, execute CPUID, return true.  If this CPU is the
 * writer mid-round and the NMI is nobody's: hold it for the writer to
 * report once the sites are whole, return true.  Else false.
 */
bool static_key_answer_nmi(bool explained);

#endif /* KERNEL_STATIC_KEY_PARK_H */
