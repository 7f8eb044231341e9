// SPDX-License-Identifier: MIT
/*
 * platform_cpu.h - the host's platform_cpu_id(): a thread-local read.
 *
 * Why a header of its own: lib/platform.h includes <platform_cpu.h> and host
 * programs' include path (-I tests/host) finds this one, so lockref's fast
 * path reads the "CPU" index inline, with no call and no frame, on the host
 * as in the kernel.  Every program that links platform_host.c is an
 * executable that defines the variable itself, so the local-exec model
 * holds: one %fs-relative load, no GOT load and no __tls_get_addr call.  A thread is CPU 0 until it
 * names its index with host_set_cpu_id (platform_host.h): every worker
 * thread of the tests and the native benchmark does so first thing.
 */
#ifndef TESTS_HOST_PLATFORM_CPU_H
#define TESTS_HOST_PLATFORM_CPU_H

/* The calling thread's index; written only by host_set_cpu_id. */
extern _Thread_local unsigned host_cpu_index __attribute__((tls_model("local-exec")));

static inline unsigned platform_cpu_id(void)
{
	return host_cpu_index;
}

#endif /* TESTS_HOST_PLATFORM_CPU_H */
