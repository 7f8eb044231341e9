// SPDX-License-Identifier: MIT
/*
 * progress.h - what the screen shows while the tests run and after.
 */
#ifndef KERNEL_PROGRESS_H
#define KERNEL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Test @number, @name, of the running suite starts now and should take
 * about @expected_ms (0: not known).  Updates the status line; the first
 * call with the screen console also starts the tick that redraws it.
 */
void progress_test_start(const char *name, unsigned number, uint64_t expected_ms);

/*
 * The run ended with @pass: stop the tick and put the results page on the
 * screen for good, its last line saying what exit= does next; with
 * screen.dump=1 also over serial.  A panic never gets here: its report
 * stays on the screen.
 */
void progress_finish(bool pass);

#endif /* KERNEL_PROGRESS_H */
