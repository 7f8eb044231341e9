// SPDX-License-Identifier: MIT
/*
 * fs_suite_impl.h - what the rule cases share: the case context, the
 * CHECK macros, and the tree fingerprint.
 *
 * Internal to fs_suite.c and the fs_cases_*.c files that hold the cases.
 * A failed check reports "case: file:line: what" through the fs_report of
 * fs_suite.h and marks the case failed; the case goes on, so one run
 * shows every check that fails.
 */
#ifndef FS_FS_SUITE_IMPL_H
#define FS_FS_SUITE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs.h"
#include "fs_suite.h"

/* Node memory of a case's fs: the standard tree takes 14 slots of it. */
#define TC_SLOTS 64
/* Slots the standard tree (fs_suite.c) takes: the root and six nodes, two each. */
#define TC_TREE_SLOTS 14
/* Deepest directory the fingerprint descends into. */
#define TC_SNAP_DEPTH 64

struct fs_tc {
	const struct fs_report *r;
	const char *name;
	struct fs *fs;
	bool failed;
	char path[FS_PATH_MAX];	   /* the fingerprint's walk */
	char big[FS_PATH_MAX + 8]; /* long paths built by cases */
	struct fs_dirent ent;
	uint64_t pos[TC_SNAP_DEPTH];
};

/* A fingerprint of the whole tree: entries, and two order-independent sums of their hashes. */
struct tc_snap {
	unsigned entries;
	uint64_t sum, xor;
};

/* One rule case. */
struct tc_case {
	const char *name;
	void (*run)(struct fs_tc *tc);
};

/* The cases of fs_cases_paths.c and fs_cases_tree.c. */
extern const struct tc_case tc_cases_paths[];
extern const unsigned tc_ncases_paths;
extern const struct tc_case tc_cases_tree[];
extern const unsigned tc_ncases_tree;

/*
 * Before a step that makes the fs print @lines lines on purpose (a bad
 * configuration refused, a busy fs not destroyed): one diagnostic saying
 * they are expected and why, so a reader of a passing run is not alarmed.
 */
void tc_expect(struct fs_tc *tc, unsigned lines, const char *why);

/* Report a failed check at @file:@line of the running case. */
void tc_fail(struct fs_tc *tc, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fail unless @got equals @want; @what is the expression. */
void tc_check_err(struct fs_tc *tc, const char *file, int line, const char *what, int got,
		  int want);

/* Fingerprint every path, type and inode number (with fs_readdir only) into *@snap. */
void tc_snap(struct fs_tc *tc, const char *file, int line, struct tc_snap *snap);

/* Fail unless the tree's fingerprint is still *@before. */
void tc_same(struct fs_tc *tc, const char *file, int line, const struct tc_snap *before);

/* The inode number at @path, or 0 if the lookup fails. */
uint64_t tc_ino(struct fs_tc *tc, const char *path);

/* Live nodes once every removal has had its grace period. */
unsigned tc_nodes(struct fs_tc *tc);

/* Fill tc->big with @prefix and then @n copies of @c; returns it. */
const char *tc_long(struct fs_tc *tc, const char *prefix, char c, size_t n);

#define CHECK(tc, cond)                                                                            \
	do {                                                                                       \
		if (!(cond))                                                                       \
			tc_fail(tc, __FILE__, __LINE__, "%s", #cond);                              \
	} while (0)

#define CHECK_ERR(tc, expr, want) tc_check_err(tc, __FILE__, __LINE__, #expr, (expr), (want))

/* @expr must fail with @want and leave the tree exactly as it was. */
#define CHECK_FAILS(tc, expr, want)                                                                \
	do {                                                                                       \
		struct tc_snap before_;                                                            \
		tc_snap(tc, __FILE__, __LINE__, &before_);                                         \
		CHECK_ERR(tc, expr, want);                                                         \
		tc_same(tc, __FILE__, __LINE__, &before_);                                         \
	} while (0)

#endif /* FS_FS_SUITE_IMPL_H */
