/* platform_host.h - host-only controls over the pretend CPUs of platform_host.c. */
#ifndef TESTS_HOST_PLATFORM_HOST_H
#define TESTS_HOST_PLATFORM_HOST_H

/* Give the calling thread CPU index @id (below MAX_CPUS). */
void host_set_cpu_id(unsigned id);

/* What platform_cpu_count() reports: the number of threads a test runs. */
void host_set_cpu_count(unsigned n);

#endif
