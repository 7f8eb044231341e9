// SPDX-License-Identifier: MIT
/*
 * fs_suite.c - the runner of the rule cases (fs_cases_*.c) and their
 * toolkit: the context, the failure report, the tree fingerprint.
 *
 * Every case starts from the same small tree,
 *
 *	/d/  /d/f  /d/e/  /d/sub/  /d/sub/g  /x
 *
 * in an fs of its own, checks the exact error of each operation, checks
 * that each failing operation left the tree's fingerprint unchanged
 * (CHECK_FAILS), and ends with fs_audit, fs_destroy and the lockref misuse
 * counter, so a case passes only if the tree it leaves is sound.
 */
#include <stdarg.h>

#include "errno.h"
#include "fs.h"
#include "fs_suite.h"
#include "fs_suite_impl.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "string.h"

/* Longest failure line. */
#define TC_LINE 256

/* The file name without its directories: the build passes paths from different roots. */
static const char *tc_basename(const char *file)
{
	const char *slash = strchr(file, '/');

	while (slash) {
		file = slash + 1;
		slash = strchr(file, '/');
	}
	return file;
}

void tc_fail(struct fs_tc *tc, const char *file, int line, const char *fmt, ...)
{
	char msg[TC_LINE], out[TC_LINE];

	KSNPRINTF_ARGS(msg, fmt);
	ksnprintf(out, sizeof(out), "%s: %s:%d: %s", tc->name, tc_basename(file), line, msg);
	tc->failed = true;
	tc->r->fail(tc->r->arg, out);
}

void tc_expect(struct fs_tc *tc, unsigned lines, const char *why)
{
	char out[TC_LINE], next[24] = "the next line";

	if (lines != 1)
		ksnprintf(next, sizeof(next), "the next %u lines", lines);
	ksnprintf(out, sizeof(out), "expected: %s, from rule case '%s' on purpose (%s)", next,
		  tc->name, why);
	tc->r->diag(tc->r->arg, out);
}

/* A result in words: the error's name, or the count for a success. */
static const char *tc_result(int v, char *buf, size_t size)
{
	if (v < 0)
		return fs_errno_name(v);
	ksnprintf(buf, size, "%d", v);
	return buf;
}

void tc_check_err(struct fs_tc *tc, const char *file, int line, const char *what, int got, int want)
{
	char g[16], w[16];

	if (got != want)
		tc_fail(tc, file, line, "%s gave %s, want %s", what, tc_result(got, g, sizeof(g)),
			tc_result(want, w, sizeof(w)));
}

/* 64-bit FNV-1a, then a splitmix finaliser so that the sums mix well. */
static uint64_t tc_hash(const char *s, uint64_t type, uint64_t ino)
{
	uint64_t h = 14695981039346656037ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	h ^= type << 56 ^ ino;
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

void fs_path_up(char *path, size_t len)
{
	while (len > 1 && path[len - 1] != '/')
		len--;
	path[len > 1 ? len - 1 : 1] = '\0';
}

void fs_path_down(char *path, size_t size, size_t len, const char *name)
{
	ksnprintf(path + len, size - len, "%s%s", len > 1 ? "/" : "", name);
}

void tc_snap(struct fs_tc *tc, const char *file, int line, struct tc_snap *snap)
{
	unsigned depth = 0;

	*snap = (struct tc_snap){0};
	memcpy(tc->path, "/", 2);
	tc->pos[0] = 2; /* past "." and ".." */
	for (;;) {
		size_t len = strlen(tc->path);
		int n = fs_readdir(tc->fs, tc->path, &tc->pos[depth], &tc->ent, 1);
		uint64_t h;

		if (n < 0) {
			tc_fail(tc, file, line, "fingerprint: readdir %s: %s", tc->path,
				fs_errno_name(n));
			return;
		}
		if (n == 0) {
			/* This directory is done: back up to its parent. */
			if (depth-- == 0)
				return;
			fs_path_up(tc->path, len);
			continue;
		}
		fs_path_down(tc->path, sizeof(tc->path), len, tc->ent.name);
		h = tc_hash(tc->path, tc->ent.type, tc->ent.ino);
		snap->entries++;
		snap->sum += h;
		snap->xor ^= h;
		if (tc->ent.type == FS_DIR && depth + 1 < TC_SNAP_DEPTH)
			tc->pos[++depth] = 2;
		else
			tc->path[len] = '\0';
	}
}

void tc_same(struct fs_tc *tc, const char *file, int line, const struct tc_snap *before)
{
	struct tc_snap after;

	tc_snap(tc, file, line, &after);
	if (after.entries != before->entries || after.sum != before->sum ||
	    after.xor != before->xor)
		tc_fail(tc, file, line, "the tree changed: %u entries before, %u after%s",
			before->entries, after.entries,
			after.entries == before->entries ? " (but not the same ones)" : "");
}

uint64_t tc_ino(struct fs_tc *tc, const char *path)
{
	struct fs_stat st;

	return fs_stat(tc->fs, path, &st) == 0 ? st.ino : 0;
}

unsigned tc_nodes(struct fs_tc *tc)
{
	struct fs_stats st;

	CHECK_ERR(tc, fs_synchronize(tc->fs), 0);
	fs_stats(tc->fs, &st);
	return st.nodes;
}

const char *tc_long(struct fs_tc *tc, const char *prefix, char c, size_t n)
{
	size_t len = strlen(prefix);

	memcpy(tc->big, prefix, len);
	memset(tc->big + len, c, n);
	tc->big[len + n] = '\0';
	return tc->big;
}

unsigned fs_suite_count(void)
{
	return tc_ncases_paths + tc_ncases_tree;
}

/* Case @i of both tables, or NULL. */
static const struct tc_case *tc_case(unsigned i)
{
	if (i < tc_ncases_paths)
		return &tc_cases_paths[i];
	if (i - tc_ncases_paths < tc_ncases_tree)
		return &tc_cases_tree[i - tc_ncases_paths];
	return NULL;
}

const char *fs_suite_name(unsigned i)
{
	const struct tc_case *c = tc_case(i);

	return c ? c->name : NULL;
}

/* The standard tree of the file comment. */
static bool tc_setup(struct fs_tc *tc)
{
	static const struct {
		const char *path;
		enum fs_type type;
	} tree[] = {
	    {"/d", FS_DIR},	{"/d/f", FS_FILE},     {"/d/e", FS_DIR},
	    {"/d/sub", FS_DIR}, {"/d/sub/g", FS_FILE}, {"/x", FS_FILE},
	};

	_Static_assert(TC_TREE_SLOTS == 2 * (1 + sizeof(tree) / sizeof(tree[0])),
		       "TC_TREE_SLOTS counts the root and every node of the tree, two slots each");
	tc->fs = fs_new(&(struct fs_config){.mem_slots = TC_SLOTS});
	if (!tc->fs) {
		tc_fail(tc, __FILE__, __LINE__, "fs_new failed");
		return false;
	}
	for (unsigned i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		CHECK_ERR(tc, fs_create(tc->fs, tree[i].path, tree[i].type, NULL), 0);
	return !tc->failed;
}

bool fs_suite_run(unsigned i, const struct fs_report *r)
{
	const struct tc_case *c = tc_case(i);
	uint64_t warnings = lockref_warnings();
	struct fs_audit audit;
	struct fs_tc *tc;
	bool ok;

	if (!c)
		return false;
	tc = platform_alloc(sizeof(*tc), sizeof(uint64_t));
	if (!tc) {
		r->fail(r->arg, "no memory for a test case");
		return false;
	}
	tc->r = r;
	tc->name = c->name;
	if (tc_setup(tc))
		c->run(tc);
	if (tc->fs) {
		if (fs_audit(tc->fs, NULL, 0, &audit) != 0)
			tc_fail(tc, __FILE__, __LINE__, "audit: %u problem(s), first: %s",
				audit.problems, audit.first);
		CHECK_ERR(tc, fs_destroy(tc->fs), 0);
	}
	if (lockref_warnings() != warnings)
		tc_fail(tc, __FILE__, __LINE__, "%llu lockref misuse warning(s)",
			(unsigned long long)(lockref_warnings() - warnings));
	ok = !tc->failed;
	platform_free(tc, sizeof(*tc));
	return ok;
}
