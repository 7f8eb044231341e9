// SPDX-License-Identifier: MIT
/* platform_host.h - host-only controls over the pretend CPUs of platform_host.c. */
#ifndef TESTS_HOST_PLATFORM_HOST_H
#define TESTS_HOST_PLATFORM_HOST_H

#include <stdbool.h>

/* Give the calling thread CPU index @id (below MAX_CPUS); a thread is CPU 0 until it does. */
void host_set_cpu_id(unsigned id);

/* What platform_cpu_count() reports: the number of threads a test runs. */
void host_set_cpu_count(unsigned n);

/* How many times CPU @cpu has called platform_cpu_wait (slept or not). */
unsigned long host_cpu_waits(unsigned cpu);

/*
 * Whether platform_relax() yields the core now and then (the default, for
 * tests with more threads than cores); a benchmark turns it off and spins
 * with PAUSE only.
 */
void host_set_relax_yield(bool yield);

/*
 * Send each platform_log line (formatted, no newline) to @hook instead of
 * stdout, so a test can check what the code under test logs; NULL restores
 * printing.
 */
void host_set_log_hook(void (*hook)(const char *line));

/*
 * Put @indent before every platform_print line from now on ("" by default):
 * the native benchmark program sets a subtest's KTAP indentation, so the
 * "# BENCH" lines the portable code prints sit at their test's level.
 */
void host_set_print_indent(const char *indent);

#endif
