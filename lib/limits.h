// SPDX-License-Identifier: MIT
/*
 * limits.h - the machine's numbers portable code is sized by.
 *
 * Why a header of its own: these are facts about the machines the code runs
 * on, not ways to reach them, so a file that needs a number includes this
 * and not the platform seam (lib/platform.h, which includes it because
 * platform_cpu_id's range is stated with MAX_CPUS).  Named after no libc
 * header: every include of it is "limits.h" through -iquote lib.
 */
#ifndef LIB_LIMITS_H
#define LIB_LIMITS_H

/*
 * The most CPUs (or host threads) portable code must handle.  The ticket
 * lock's 16-bit tickets and every per-CPU array are sized from this.
 */
#define MAX_CPUS 256

/*
 * One cache-line pair: Intel's adjacent-line prefetcher pulls lines in
 * 128-byte pairs, so data two CPUs write apart is this far apart.
 */
#define CACHE_PAIR_BYTES 128

#endif /* LIB_LIMITS_H */
