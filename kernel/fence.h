// SPDX-License-Identifier: MIT
/*
 * fence.h - a full memory barrier run on every other online CPU, by NMI
 * (platform_fence_others on bare metal; see fence.c).
 */
#ifndef KERNEL_FENCE_H
#define KERNEL_FENCE_H

#include <stdbool.h>

/*
 * NMI every other online CPU and return once each has answered with a
 * locked instruction.  Panics, naming the CPU, if one does not answer
 * within PLATFORM_FENCE_MAX_NS.
 */
void fence_others(void);

/*
 * For the NMI handler: if this NMI is a fence asked of this CPU, answer it
 * and return true; false if it is some other NMI.
 */
bool fence_answer_nmi(void);

#endif /* KERNEL_FENCE_H */
