// SPDX-License-Identifier: MIT
/*
 * fs_suite.h - the fs's test suite, written once, run in two places.
 *
 * The same cases run at boot (kernel/test_fs.c registers them as the `fs`
 * suite) and on host threads under ASan, UBSan and TSan
 * (tests/host/test_fs.c).  To stay portable they report through the small
 * struct fs_report below instead of kernel/ktest.h, and take time, CPUs
 * and memory from lib/platform.h only.
 *
 * Two kinds of test:
 *   - rule cases: single-threaded, one rule of fs.h each.  Every one checks
 *     the exact error, that a failed operation left the tree as it was (a
 *     fingerprint of every path, type and inode number before and after),
 *     and at the end that fs_audit passes, fs_destroy succeeds and the
 *     lockref library logged no misuse.
 *   - the torture: every CPU at once, random operations over a small tree
 *     of one-letter names in two-bucket tables (so chains are long and
 *     every operation collides with others), then a full audit with the
 *     references the CPUs still hold, another after they are dropped, and
 *     a teardown through the API back to the empty root.
 */
#ifndef FS_FS_SUITE_H
#define FS_FS_SUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lockref.h"

/* Where results go: one line per call, no newline.  Any CPU may call. */
struct fs_report {
	void (*fail)(void *arg, const char *line); /* a failed check */
	void (*diag)(void *arg, const char *line); /* figures, progress */
	void *arg;
};

/* Number of rule cases, and the name of case @i (NULL past the end). */
unsigned fs_suite_count(void);
const char *fs_suite_name(unsigned i);

/* Run rule case @i on the calling CPU; returns true if it passed. */
bool fs_suite_run(unsigned i, const struct fs_report *r);

struct fs_torture_params {
	unsigned ncpus;			     /* CPUs 0 .. ncpus-1 call fs_torture_run */
	uint64_t duration_ns;		     /* of the random operations */
	uint64_t seed;			     /* of every random choice (with the CPU) */
	const struct lockref_policy *policy; /* NULL: the boot policy */
};

struct fs_torture;

/*
 * The name of the barrier every CPU of the torture meets at before its
 * first operation; the kernel's selftest.stall=N:MS:fs-start holds CPU N
 * there (kernel/test/test_fs.c tells the runner this name).
 */
#define FS_TORTURE_START_BARRIER "fs torture start"

/*
 * One CPU, before the others start: build the shared state.  Returns NULL
 * (reported through @r) if that fails; then nobody calls the rest.
 */
struct fs_torture *fs_torture_prepare(const struct fs_torture_params *p, const struct fs_report *r);

/* Every CPU 0 .. ncpus-1 at once (each with its own platform_cpu_id). */
void fs_torture_run(struct fs_torture *t, unsigned cpu);

/*
 * One CPU, after every fs_torture_run returned: audit, tear down, free.
 * Returns true if the torture passed.
 */
bool fs_torture_finish(struct fs_torture *t);

/*
 * Depth-first walks over the tree by path (the fingerprint, the torture's
 * teardown) keep one absolute path of length @len in @path.
 * fs_path_up cuts it back to its parent directory ("/a/b" to "/a", "/a" to "/");
 * fs_path_down appends "/@name" (just @name after the root "/"), cut to fit @size.
 */
void fs_path_up(char *path, size_t len);
void fs_path_down(char *path, size_t size, size_t len, const char *name);

#endif /* FS_FS_SUITE_H */
