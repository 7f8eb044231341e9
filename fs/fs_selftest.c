/*
 * fs_selftest.c - the rule cases of fs_selftest.h: one rule of fs.h each.
 *
 * Every case starts from the same small tree,
 *
 *	/d/  /d/f  /d/e/  /d/sub/  /d/sub/g  /x
 *
 * in an fs of its own, checks the exact error of each operation, checks
 * that each failing operation left the tree's fingerprint unchanged, and
 * ends with fs_audit, fs_destroy and the lockref misuse counter.
 */
#include <stdarg.h>

#include "errno.h"
#include "fs.h"
#include "fs_selftest.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "rcu.h"
#include "string.h"

/* Node memory of a case's fs: the standard tree takes 14 slots of it. */
#define TC_SLOTS 64
/* Deepest directory the fingerprint descends into. */
#define TC_SNAP_DEPTH 64
/* Depth of the deep-path case (each level a directory named "l"). */
#define TC_DEEP 20
/* Longest failure line. */
#define TC_LINE 256

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

static void tc_fail(struct fs_tc *tc, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void tc_fail(struct fs_tc *tc, int line, const char *fmt, ...)
{
	char msg[TC_LINE], out[TC_LINE];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ksnprintf(out, sizeof(out), "%s: line %d: %s", tc->name, line, msg);
	tc->failed = true;
	tc->r->fail(tc->r->arg, out);
}

#define CHECK(tc, cond)                                                                            \
	do {                                                                                       \
		if (!(cond))                                                                       \
			tc_fail(tc, __LINE__, "%s", #cond);                                        \
	} while (0)

/* A result in words: the error's name, or the count for a success. */
static const char *tc_result(int v, char *buf, size_t size)
{
	if (v < 0)
		return fs_errno_name(v);
	ksnprintf(buf, size, "%d", v);
	return buf;
}

static void tc_check_err(struct fs_tc *tc, int line, const char *what, int got, int want)
{
	char g[16], w[16];

	if (got != want)
		tc_fail(tc, line, "%s gave %s, want %s", what, tc_result(got, g, sizeof(g)),
			tc_result(want, w, sizeof(w)));
}

#define CHECK_ERR(tc, expr, want) tc_check_err(tc, __LINE__, #expr, (expr), (want))

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

/* Fingerprint every path, type and inode number, walking with fs_readdir only. */
static void tc_snap(struct fs_tc *tc, int line, struct tc_snap *snap)
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
			tc_fail(tc, line, "fingerprint: readdir %s: %s", tc->path,
				fs_errno_name(n));
			return;
		}
		if (n == 0) {
			if (depth-- == 0)
				return;
			while (len > 1 && tc->path[len - 1] != '/')
				len--;
			tc->path[len > 1 ? len - 1 : 1] = '\0';
			continue;
		}
		ksnprintf(tc->path + len, sizeof(tc->path) - len, "%s%s", len > 1 ? "/" : "",
			  tc->ent.name);
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

static void tc_same(struct fs_tc *tc, int line, const struct tc_snap *before)
{
	struct tc_snap after;

	tc_snap(tc, line, &after);
	if (after.entries != before->entries || after.sum != before->sum ||
	    after.xor != before->xor)
		tc_fail(tc, line, "the tree changed: %u entries before, %u after%s",
			before->entries, after.entries,
			after.entries == before->entries ? " (but not the same ones)" : "");
}

/* @expr must fail with @want and leave the tree exactly as it was. */
#define CHECK_FAILS(tc, expr, want)                                                                \
	do {                                                                                       \
		struct tc_snap before_;                                                            \
		tc_snap(tc, __LINE__, &before_);                                                   \
		CHECK_ERR(tc, expr, want);                                                         \
		tc_same(tc, __LINE__, &before_);                                                   \
	} while (0)

/* The inode number at @path, or 0 if the lookup fails. */
static uint64_t tc_ino(struct fs_tc *tc, const char *path)
{
	struct fs_stat st;

	return fs_stat(tc->fs, path, &st) == 0 ? st.ino : 0;
}

/* Live nodes once every removal has had its grace period. */
static unsigned tc_nodes(struct fs_tc *tc)
{
	struct fs_stats st;

	CHECK_ERR(tc, fs_synchronize(tc->fs), 0);
	fs_stats(tc->fs, &st);
	return st.nodes;
}

/* Fill tc->big with @prefix and then @n copies of @c; returns it. */
static const char *tc_long(struct fs_tc *tc, const char *prefix, char c, size_t n)
{
	size_t len = strlen(prefix);

	memcpy(tc->big, prefix, len);
	memset(tc->big + len, c, n);
	tc->big[len + n] = '\0';
	return tc->big;
}

static void case_lookup_empty(struct fs_tc *tc)
{
	struct fs_node *n = NULL;

	CHECK_FAILS(tc, fs_lookup(tc->fs, "", &n), -FS_ENOENT);
	CHECK_FAILS(tc, fs_stat(tc->fs, "", &(struct fs_stat){0}), -FS_ENOENT);
	CHECK_FAILS(tc, fs_create(tc->fs, "", FS_FILE, NULL), -FS_ENOENT);
}

static void case_null_arguments(struct fs_tc *tc)
{
	struct fs_node *n = NULL;

	CHECK_FAILS(tc, fs_lookup(tc->fs, NULL, &n), -FS_EINVAL);
	CHECK_FAILS(tc, fs_lookup(tc->fs, "/d", NULL), -FS_EINVAL);
	CHECK_FAILS(tc, fs_create(tc->fs, NULL, FS_DIR, NULL), -FS_EINVAL);
	CHECK_FAILS(tc, fs_unlink(tc->fs, NULL), -FS_EINVAL);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", NULL), -FS_EINVAL);
	CHECK_FAILS(tc, fs_get_parent(tc->fs, NULL, &n), -FS_EINVAL);
	CHECK_FAILS(tc, fs_stat(tc->fs, "/d", NULL), -FS_EINVAL);
	fs_put(tc->fs, NULL);
}

static void case_slashes(struct fs_tc *tc)
{
	uint64_t f = tc_ino(tc, "/d/f");

	CHECK(tc, tc_ino(tc, "/") == 1);
	CHECK(tc, tc_ino(tc, "//") == 1);
	CHECK(tc, tc_ino(tc, "///") == 1);
	CHECK(tc, f != 0);
	CHECK(tc, tc_ino(tc, "//d///f") == f);
	CHECK(tc, tc_ino(tc, "d/f") == f); /* relative paths start at the root */
	CHECK(tc, tc_ino(tc, "/d/") == tc_ino(tc, "/d"));
}

static void case_dot_dotdot(struct fs_tc *tc)
{
	uint64_t d = tc_ino(tc, "/d");

	CHECK(tc, tc_ino(tc, "/.") == 1);
	CHECK(tc, tc_ino(tc, "/..") == 1);
	CHECK(tc, tc_ino(tc, "/../../..") == 1);
	CHECK(tc, tc_ino(tc, "/../d") == d);
	CHECK(tc, tc_ino(tc, "/d/.") == d);
	CHECK(tc, tc_ino(tc, "/d/sub/..") == d);
	CHECK(tc, tc_ino(tc, "/d/./sub/../f") == tc_ino(tc, "/d/f"));
	CHECK(tc, tc_ino(tc, "/d/sub/../../x") == tc_ino(tc, "/x"));
}

static void case_missing(struct fs_tc *tc)
{
	struct fs_node *n = NULL;

	CHECK_FAILS(tc, fs_lookup(tc->fs, "/nope", &n), -FS_ENOENT);
	CHECK_FAILS(tc, fs_lookup(tc->fs, "/d/nope/f", &n), -FS_ENOENT);
	CHECK_FAILS(tc, fs_lookup(tc->fs, "/d/F", &n), -FS_ENOENT); /* names are exact */
	CHECK_FAILS(tc, fs_lookup(tc->fs, "/nope/..", &n), -FS_ENOENT);
}

static void case_file_as_dir(struct fs_tc *tc)
{
	struct fs_node *n = NULL;

	CHECK_FAILS(tc, fs_lookup(tc->fs, "/x/y", &n), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_lookup(tc->fs, "/x/", &n), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_lookup(tc->fs, "/x/.", &n), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_lookup(tc->fs, "/d/f/..", &n), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_create(tc->fs, "/x/y", FS_FILE, NULL), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_readdir(tc->fs, "/x", &(uint64_t){0}, &tc->ent, 1), -FS_ENOTDIR);
}

static void case_name_too_long(struct fs_tc *tc)
{
	struct fs_node *n = NULL;
	char name[FS_NAME_MAX + 1];

	CHECK_FAILS(tc, fs_create(tc->fs, tc_long(tc, "/d/", 'n', FS_NAME_MAX + 1), FS_FILE, NULL),
		    -FS_ENAMETOOLONG);
	CHECK_FAILS(tc, fs_lookup(tc->fs, tc_long(tc, "/", 'n', FS_NAME_MAX + 1), &n),
		    -FS_ENAMETOOLONG);
	tc_long(tc, "/", 'n', FS_NAME_MAX + 1);
	memcpy(tc->big + 1 + FS_NAME_MAX + 1, "/x", 3); /* too long in the middle */
	CHECK_FAILS(tc, fs_lookup(tc->fs, tc->big, &n), -FS_ENAMETOOLONG);
	/* Checked in order: a missing directory before it is reported first. */
	CHECK_FAILS(tc, fs_lookup(tc->fs, tc_long(tc, "/nope/", 'n', FS_NAME_MAX + 1), &n),
		    -FS_ENOENT);
	/* Exactly FS_NAME_MAX is fine, and kept whole. */
	CHECK_ERR(tc, fs_create(tc->fs, tc_long(tc, "/d/", 'n', FS_NAME_MAX), FS_FILE, &n), 0);
	CHECK_ERR(tc, fs_node_name(tc->fs, n, name, sizeof(name)), FS_NAME_MAX);
	CHECK(tc, memcmp(name, tc->big + 3, FS_NAME_MAX + 1) == 0);
	CHECK_ERR(tc, fs_node_name(tc->fs, n, name, FS_NAME_MAX), -FS_ENAMETOOLONG);
	fs_put(tc->fs, n);
	CHECK(tc, tc_ino(tc, tc_long(tc, "/d/", 'n', FS_NAME_MAX)) != 0);
	/* One byte more must not find it by truncation. */
	CHECK_FAILS(tc, fs_lookup(tc->fs, tc_long(tc, "/d/", 'n', FS_NAME_MAX + 1), &n),
		    -FS_ENAMETOOLONG);
}

static void case_path_too_long(struct fs_tc *tc)
{
	struct fs_node *n = NULL;

	/* FS_PATH_MAX - 1 bytes fit (with the NUL): 4095 slashes are the root. */
	CHECK_ERR(tc, fs_lookup(tc->fs, tc_long(tc, "", '/', FS_PATH_MAX - 1), &n), 0);
	if (!tc->failed) {
		CHECK(tc, fs_node_stat(tc->fs, n, &(struct fs_stat){0}) == 0);
		fs_put(tc->fs, n);
	}
	CHECK_FAILS(tc, fs_lookup(tc->fs, tc_long(tc, "", '/', FS_PATH_MAX), &n), -FS_ENAMETOOLONG);
	CHECK_FAILS(tc, fs_create(tc->fs, tc_long(tc, "/d/", '/', FS_PATH_MAX), FS_FILE, NULL),
		    -FS_ENAMETOOLONG);
	CHECK_FAILS(tc, fs_lookup(tc->fs, tc_long(tc, "", '/', FS_PATH_MAX + 7), &n),
		    -FS_ENAMETOOLONG);
}

static void case_create_exists(struct fs_tc *tc)
{
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/f", FS_FILE, NULL), -FS_EEXIST);
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/f", FS_DIR, NULL), -FS_EEXIST);
	CHECK_FAILS(tc, fs_create(tc->fs, "/d", FS_DIR, NULL), -FS_EEXIST);
	CHECK_FAILS(tc, fs_create(tc->fs, "d//sub/", FS_DIR, NULL), -FS_EEXIST);
	CHECK_FAILS(tc, fs_create(tc->fs, "/", FS_DIR, NULL), -FS_EEXIST);
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/.", FS_DIR, NULL), -FS_EEXIST);
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/..", FS_FILE, NULL), -FS_EEXIST);
}

static void case_create_missing_parent(struct fs_tc *tc)
{
	CHECK_FAILS(tc, fs_create(tc->fs, "/nope/a", FS_FILE, NULL), -FS_ENOENT);
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/nope/a", FS_DIR, NULL), -FS_ENOENT);
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/f/a", FS_DIR, NULL), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/a", 0, NULL), -FS_EINVAL);
}

static void case_create_ok(struct fs_tc *tc)
{
	struct fs_node *n = NULL, *p = NULL;
	struct fs_stat st;

	CHECK_FAILS(tc, fs_create(tc->fs, "/d/new/", FS_FILE, NULL), -FS_EISDIR);
	CHECK_ERR(tc, fs_create(tc->fs, "/d/new/", FS_DIR, NULL), 0);
	CHECK_ERR(tc, fs_create(tc->fs, "d/new/file", FS_FILE, &n), 0);
	CHECK_ERR(tc, fs_node_stat(tc->fs, n, &st), 0);
	CHECK(tc, st.type == FS_FILE && !st.removed && st.ino == tc_ino(tc, "/d/new/file"));
	CHECK_ERR(tc, fs_get_parent(tc->fs, n, &p), 0);
	CHECK(tc, fs_node_stat(tc->fs, p, &st) == 0 && st.ino == tc_ino(tc, "/d/new"));
	CHECK(tc, st.type == FS_DIR && st.nchildren == 1);
	fs_put(tc->fs, p);
	fs_put(tc->fs, n);
	CHECK(tc, fs_stat(tc->fs, "/d", &st) == 0 && st.nchildren == 4);
}

static void case_unlink_errors(struct fs_tc *tc)
{
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/d"), -FS_EISDIR);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/"), -FS_EBUSY);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "//"), -FS_EBUSY);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/d/."), -FS_EINVAL);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/d/.."), -FS_EINVAL);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/nope"), -FS_ENOENT);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/x/"), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/x/y"), -FS_ENOTDIR);
}

static void case_rmdir_errors(struct fs_tc *tc)
{
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/d"), -FS_ENOTEMPTY);
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/d/sub"), -FS_ENOTEMPTY);
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/x"), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/"), -FS_EBUSY);
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/d/e/."), -FS_EINVAL);
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/d/e/.."), -FS_EINVAL);
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/d/nope"), -FS_ENOENT);
}

static void case_remove_ok(struct fs_tc *tc)
{
	unsigned nodes = tc_nodes(tc);

	CHECK_ERR(tc, fs_unlink(tc->fs, "/x"), 0);
	CHECK_ERR(tc, fs_rmdir(tc->fs, "/d/e/"), 0);
	CHECK(tc, tc_ino(tc, "/x") == 0 && tc_ino(tc, "/d/e") == 0);
	CHECK_ERR(tc, fs_unlink(tc->fs, "/x"), -FS_ENOENT);
	CHECK(tc, tc_nodes(tc) == nodes - 2);
	/* Emptied, a directory can go; the tree can shrink back to the root. */
	CHECK_ERR(tc, fs_unlink(tc->fs, "/d/sub/g"), 0);
	CHECK_ERR(tc, fs_rmdir(tc->fs, "/d/sub"), 0);
	CHECK_ERR(tc, fs_unlink(tc->fs, "/d/f"), 0);
	CHECK_ERR(tc, fs_rmdir(tc->fs, "/d"), 0);
	CHECK(tc, tc_nodes(tc) == 1);
}

static void case_unlink_busy(struct fs_tc *tc)
{
	unsigned nodes = tc_nodes(tc);
	struct fs_node *n = NULL, *p = NULL;
	struct fs_stat st;
	char name[8];

	CHECK_ERR(tc, fs_lookup(tc->fs, "/d/f", &n), 0);
	CHECK_ERR(tc, fs_unlink(tc->fs, "/d/f"), 0);
	CHECK(tc, tc_ino(tc, "/d/f") == 0);
	/* Detached, but alive for its holder: readable, named, with its parent. */
	CHECK(tc, fs_node_stat(tc->fs, n, &st) == 0 && st.removed && st.type == FS_FILE);
	CHECK_ERR(tc, fs_node_name(tc->fs, n, name, sizeof(name)), 1);
	CHECK(tc, name[0] == 'f');
	CHECK_ERR(tc, fs_get_parent(tc->fs, n, &p), 0);
	CHECK(tc, fs_node_stat(tc->fs, p, &st) == 0 && st.ino == tc_ino(tc, "/d"));
	CHECK(tc, st.nchildren == 2);
	fs_put(tc->fs, p);
	/* A new node may take the name meanwhile. */
	CHECK_ERR(tc, fs_create(tc->fs, "/d/f", FS_FILE, NULL), 0);
	CHECK(tc, tc_nodes(tc) == nodes + 1);
	fs_put(tc->fs, n);
	CHECK(tc, tc_nodes(tc) == nodes);
}

static void case_rmdir_busy(struct fs_tc *tc)
{
	unsigned nodes = tc_nodes(tc);
	struct fs_node *e = NULL, *d = NULL;
	struct fs_stat st;

	CHECK_ERR(tc, fs_lookup(tc->fs, "/d/e", &e), 0);
	CHECK_ERR(tc, fs_rmdir(tc->fs, "/d/e"), 0);
	CHECK(tc, fs_node_stat(tc->fs, e, &st) == 0 && st.removed && st.nchildren == 0);
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/e/a", FS_FILE, NULL), -FS_ENOENT);
	CHECK_ERR(tc, fs_get_parent(tc->fs, e, &d), 0);
	/* Empty /d and remove it too, while both are held: nothing is freed yet. */
	CHECK_ERR(tc, fs_unlink(tc->fs, "/d/f"), 0);
	CHECK_ERR(tc, fs_unlink(tc->fs, "/d/sub/g"), 0);
	CHECK_ERR(tc, fs_rmdir(tc->fs, "/d/sub"), 0);
	CHECK_ERR(tc, fs_rmdir(tc->fs, "/d"), 0);
	CHECK(tc, tc_nodes(tc) == nodes - 3);
	CHECK(tc, fs_node_stat(tc->fs, d, &st) == 0 && st.removed);
	/* The last puts free both; e's also drops its reference on d. */
	fs_put(tc->fs, e);
	CHECK(tc, tc_nodes(tc) == nodes - 4);
	fs_put(tc->fs, d);
	CHECK(tc, tc_nodes(tc) == nodes - 5);
}

static void case_rename_within(struct fs_tc *tc)
{
	uint64_t f = tc_ino(tc, "/d/f"), e = tc_ino(tc, "/d/e");

	CHECK_ERR(tc, fs_rename(tc->fs, "/d/f", "/d/f2"), 0);
	CHECK(tc, tc_ino(tc, "/d/f") == 0 && tc_ino(tc, "/d/f2") == f);
	CHECK_ERR(tc, fs_rename(tc->fs, "/d/e", "d/e2/"), 0);
	CHECK(tc, tc_ino(tc, "/d/e") == 0 && tc_ino(tc, "/d/e2") == e);
	CHECK(tc, tc_nodes(tc) == 7);
}

static void case_rename_across(struct fs_tc *tc)
{
	uint64_t g = tc_ino(tc, "/d/sub/g"), sub = tc_ino(tc, "/d/sub");
	struct fs_node *n = NULL, *p = NULL;
	struct fs_stat st;

	CHECK_ERR(tc, fs_rename(tc->fs, "/d/sub/g", "/g"), 0);
	CHECK(tc, tc_ino(tc, "/g") == g && tc_ino(tc, "/d/sub/g") == 0);
	CHECK_ERR(tc, fs_lookup(tc->fs, "/g", &n), 0);
	CHECK_ERR(tc, fs_get_parent(tc->fs, n, &p), 0);
	CHECK(tc, fs_node_stat(tc->fs, p, &st) == 0 && st.ino == 1);
	fs_put(tc->fs, p);
	fs_put(tc->fs, n);
	/* A directory with its contents, up and back down. */
	CHECK_ERR(tc, fs_rename(tc->fs, "/d/sub", "/sub"), 0);
	CHECK_ERR(tc, fs_rename(tc->fs, "/g", "/sub/g"), 0);
	CHECK_ERR(tc, fs_rename(tc->fs, "/sub", "/d/e/sub"), 0);
	CHECK(tc, tc_ino(tc, "/d/e/sub/g") == g && tc_ino(tc, "/d/e/sub") == sub);
	CHECK(tc, tc_ino(tc, "/d/e/sub/../../f") == tc_ino(tc, "/d/f"));
}

static void case_rename_replace(struct fs_tc *tc)
{
	uint64_t x = tc_ino(tc, "/x"), sub = tc_ino(tc, "/d/sub");
	unsigned nodes = tc_nodes(tc);

	CHECK_ERR(tc, fs_rename(tc->fs, "/x", "/d/f"), 0);
	CHECK(tc, tc_ino(tc, "/d/f") == x && tc_ino(tc, "/x") == 0);
	CHECK(tc, tc_nodes(tc) == nodes - 1);
	CHECK_ERR(tc, fs_rename(tc->fs, "/d/sub", "/d/e"), 0); /* onto an empty directory */
	CHECK(tc, tc_ino(tc, "/d/e") == sub && tc_ino(tc, "/d/e/g") != 0);
	CHECK(tc, tc_nodes(tc) == nodes - 2);
}

static void case_rename_replace_busy(struct fs_tc *tc)
{
	struct fs_node *n = NULL;
	struct fs_stat st;
	unsigned nodes = tc_nodes(tc);

	CHECK_ERR(tc, fs_lookup(tc->fs, "/d/f", &n), 0);
	CHECK_ERR(tc, fs_rename(tc->fs, "/x", "/d/f"), 0);
	CHECK(tc, fs_node_stat(tc->fs, n, &st) == 0 && st.removed);
	CHECK(tc, tc_nodes(tc) == nodes);
	fs_put(tc->fs, n);
	CHECK(tc, tc_nodes(tc) == nodes - 1);
}

static void case_rename_type_errors(struct fs_tc *tc)
{
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/e", "/x"), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/d/e"), -FS_EISDIR);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/e", "/d/sub"), -FS_ENOTEMPTY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x/", "/y"), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/y/"), -FS_ENOTDIR);
	/* Onto its own ancestor: the target is not empty (it holds the source). */
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/sub", "/d"), -FS_ENOTEMPTY);
}

static void case_rename_into_self(struct fs_tc *tc)
{
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d", "/d/sub/d2"), -FS_EINVAL);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d", "/d/d2"), -FS_EINVAL);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/sub", "/d/sub/z"), -FS_EINVAL);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/sub", "/d/./sub/../sub/z/"), -FS_EINVAL);
}

static void case_rename_dots_root(struct fs_tc *tc)
{
	CHECK_FAILS(tc, fs_rename(tc->fs, "/", "/z"), -FS_EBUSY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d", "/"), -FS_EBUSY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/.", "/z"), -FS_EINVAL);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/e/..", "/z"), -FS_EINVAL);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/d/.."), -FS_EINVAL);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/d/."), -FS_EINVAL);
}

static void case_rename_missing(struct fs_tc *tc)
{
	CHECK_FAILS(tc, fs_rename(tc->fs, "/nope", "/z"), -FS_ENOENT);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/nope/z"), -FS_ENOENT);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/x/z"), -FS_ENOTDIR);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", ""), -FS_ENOENT);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", tc_long(tc, "/", 'z', FS_NAME_MAX + 1)),
		    -FS_ENAMETOOLONG);
}

static void case_rename_self(struct fs_tc *tc)
{
	uint64_t f = tc_ino(tc, "/d/f");

	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/f", "/d/f"), 0);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/./f", "d/sub/../f"), 0);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d", "/d"), 0);
	CHECK(tc, tc_ino(tc, "/d/f") == f);
}

static void case_enomem(struct fs_tc *tc)
{
	char path[16];
	unsigned made = 0;
	int err = 0;

	/* Fill node memory. */
	while (made < TC_SLOTS) {
		ksnprintf(path, sizeof(path), "/d/e/n%u", made);
		err = fs_create(tc->fs, path, made % 2 ? FS_DIR : FS_FILE, NULL);
		if (err)
			break;
		made++;
	}
	CHECK_ERR(tc, err, -FS_ENOMEM);
	CHECK(tc, made == (TC_SLOTS - 14) / 2);
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/e/more", FS_FILE, NULL), -FS_ENOMEM);
	CHECK_FAILS(tc, fs_create(tc->fs, "/more", FS_DIR, NULL), -FS_ENOMEM);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/y"), -FS_ENOMEM);
	/* Errors that need no memory still come first. */
	CHECK_FAILS(tc, fs_create(tc->fs, "/x", FS_FILE, NULL), -FS_EEXIST);
	/* Freed memory comes back after its grace period. */
	CHECK_ERR(tc, fs_unlink(tc->fs, "/d/e/n0"), 0);
	CHECK_ERR(tc, fs_create(tc->fs, "/d/e/again", FS_FILE, NULL), 0);
	CHECK_ERR(tc, fs_create(tc->fs, "/d/e/n0", FS_FILE, NULL), -FS_ENOMEM);
}

static void case_fs_new_bad_config(struct fs_tc *tc)
{
	CHECK(tc, fs_new(&(struct fs_config){.mem_slots = 1}) == NULL);
	CHECK(tc, fs_new(&(struct fs_config){.mem_slots = 8, .dir_buckets = 3}) == NULL);
	CHECK(tc, fs_new(&(struct fs_config){.mem_slots = 8, .dir_buckets = 512}) == NULL);
}

static void case_readdir(struct fs_tc *tc)
{
	struct fs_dirent ents[8];
	uint64_t pos = 0, seen = 0;
	unsigned total = 0;
	int n;

	n = fs_readdir(tc->fs, "/d", &pos, ents, 8);
	CHECK_ERR(tc, n, 5);
	CHECK(tc, pos == 5);
	CHECK(tc, n > 1 && memcmp(ents[0].name, ".", 2) == 0 && ents[0].ino == tc_ino(tc, "/d"));
	CHECK(tc, n > 1 && memcmp(ents[1].name, "..", 3) == 0 && ents[1].ino == 1);
	for (int i = 2; i < n; i++) {
		if (memcmp(ents[i].name, "f", 2) == 0 && ents[i].type == FS_FILE)
			seen |= 1;
		if (memcmp(ents[i].name, "e", 2) == 0 && ents[i].type == FS_DIR)
			seen |= 2;
		if (memcmp(ents[i].name, "sub", 4) == 0 && ents[i].type == FS_DIR)
			seen |= 4;
	}
	CHECK(tc, seen == 7);
	CHECK_ERR(tc, fs_readdir(tc->fs, "/d", &pos, ents, 8), 0);
	/* One at a time, the same five. */
	for (pos = 0; (n = fs_readdir(tc->fs, "/d", &pos, ents, 1)) == 1;)
		total++;
	CHECK_ERR(tc, n, 0);
	CHECK(tc, total == 5);
	CHECK(tc, fs_readdir(tc->fs, "/", &(uint64_t){0}, ents, 8) == 4);
	CHECK_ERR(tc, fs_readdir(tc->fs, "/d", &pos, ents, 0), -FS_EINVAL);
	CHECK_ERR(tc, fs_readdir(tc->fs, "/d", NULL, ents, 1), -FS_EINVAL);
	CHECK_ERR(tc, fs_readdir(tc->fs, "/nope", &pos, ents, 1), -FS_ENOENT);
}

static void case_get_parent(struct fs_tc *tc)
{
	struct fs_node *n = NULL, *p = NULL, *pp = NULL, *root = NULL;
	struct fs_stat st;

	CHECK_ERR(tc, fs_lookup(tc->fs, "/d/sub/g", &n), 0);
	CHECK_ERR(tc, fs_get_parent(tc->fs, n, &p), 0);
	CHECK(tc, fs_node_stat(tc->fs, p, &st) == 0 && st.ino == tc_ino(tc, "/d/sub"));
	CHECK_ERR(tc, fs_get_parent(tc->fs, p, &pp), 0);
	CHECK(tc, fs_node_stat(tc->fs, pp, &st) == 0 && st.ino == tc_ino(tc, "/d"));
	fs_put(tc->fs, p);
	CHECK_ERR(tc, fs_lookup(tc->fs, "/", &root), 0);
	CHECK_ERR(tc, fs_get_parent(tc->fs, root, &p), 0);
	CHECK(tc, p == root);
	fs_put(tc->fs, p);
	fs_put(tc->fs, root);
	CHECK_ERR(tc, fs_get_parent(tc->fs, pp, &root), 0);
	CHECK(tc, fs_node_stat(tc->fs, root, &st) == 0 && st.ino == 1);
	fs_put(tc->fs, root);
	fs_put(tc->fs, pp);
	fs_put(tc->fs, n);
}

static void case_inode_numbers(struct fs_tc *tc)
{
	uint64_t x = tc_ino(tc, "/x");

	CHECK_ERR(tc, fs_unlink(tc->fs, "/x"), 0);
	CHECK_ERR(tc, fs_create(tc->fs, "/x", FS_FILE, NULL), 0);
	CHECK(tc, tc_ino(tc, "/x") > x);
	CHECK(tc, tc_ino(tc, "/d") != tc_ino(tc, "/d/e"));
}

static void case_deep_path(struct fs_tc *tc)
{
	size_t len = 0;
	struct fs_stat st;

	for (unsigned i = 0; i < TC_DEEP; i++) {
		memcpy(tc->big + len, "/l", 3);
		len += 2;
		CHECK_ERR(tc, fs_create(tc->fs, tc->big, FS_DIR, NULL), 0);
	}
	CHECK(tc, fs_stat(tc->fs, tc->big, &st) == 0 && st.type == FS_DIR && st.nchildren == 0);
	/* Back up every level with "..": the root again. */
	for (unsigned i = 0; i < TC_DEEP; i++) {
		memcpy(tc->big + len, "/..", 4);
		len += 3;
	}
	CHECK(tc, tc_ino(tc, tc->big) == 1);
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/l"), -FS_ENOTEMPTY);
}

static void case_locked_policy(struct fs_tc *tc)
{
	struct fs *fs =
	    fs_new(&(struct fs_config){.mem_slots = 16, .policy = &lockref_policy_locked});
	struct fs_node *n = NULL, *p = NULL;

	CHECK(tc, fs != NULL);
	if (!fs)
		return;
	CHECK_ERR(tc, fs_create(fs, "/a", FS_DIR, NULL), 0);
	CHECK_ERR(tc, fs_create(fs, "/a/b", FS_FILE, &n), 0);
	CHECK_ERR(tc, fs_get_parent(fs, n, &p), 0);
	fs_put(fs, n);
	CHECK_ERR(tc, fs_rename(fs, "/a/b", "/b"), 0);
	CHECK_ERR(tc, fs_lookup(fs, "/b", &n), 0);
	fs_put(fs, n);
	CHECK_ERR(tc, fs_unlink(fs, "/b"), 0);
	fs_put(fs, p);
	CHECK_ERR(tc, fs_rmdir(fs, "/a"), 0);
	CHECK_ERR(tc, fs_destroy(fs), 0);
}

static void case_destroy_busy(struct fs_tc *tc)
{
	struct fs_node *n = NULL;

	CHECK_ERR(tc, fs_lookup(tc->fs, "/d/sub/g", &n), 0);
	/* A held reference: the fs refuses to go (and stays usable). */
	CHECK_ERR(tc, fs_destroy(tc->fs), -FS_EBUSY);
	fs_put(tc->fs, n);
	CHECK(tc, tc_ino(tc, "/d/sub/g") != 0);
}

/* A retired object's callback, counting its calls. */
struct tc_retired {
	struct fs_rcu_head head;
	unsigned freed;
};

static void tc_retired_free(struct fs_rcu_head *head, void *owner)
{
	(void)owner;
	((struct tc_retired *)(void *)head)->freed++;
}

static void case_rcu_grace(struct fs_tc *tc)
{
	struct fs_rcu *rcu = platform_alloc(sizeof(*rcu), CACHE_PAIR_BYTES);
	struct tc_retired obj = {.freed = 0};

	CHECK(tc, rcu != NULL);
	if (!rcu)
		return;
	fs_rcu_init(rcu, NULL);
	fs_rcu_read_lock(rcu);
	fs_rcu_read_lock(rcu); /* nested */
	fs_rcu_retire(rcu, &obj.head, tc_retired_free);
	fs_rcu_read_unlock(rcu);
	/* Still inside: however often we poll, the object must wait. */
	for (unsigned i = 0; i < 4 * FS_RCU_LISTS; i++)
		fs_rcu_poll(rcu);
	CHECK(tc, obj.freed == 0);
	CHECK(tc, fs_rcu_pending(rcu) == 1);
	CHECK(tc, !fs_rcu_synchronize(rcu, 1000000)); /* refused: it would wait for itself */
	fs_rcu_read_unlock(rcu);
	CHECK(tc, !fs_rcu_reading(rcu));
	CHECK(tc, fs_rcu_synchronize(rcu, FS_GRACE_TIMEOUT_NS));
	CHECK(tc, obj.freed == 1 && fs_rcu_pending(rcu) == 0);
	CHECK(tc, fs_rcu_synchronize(rcu, FS_GRACE_TIMEOUT_NS));
	CHECK(tc, obj.freed == 1);
	platform_free(rcu, sizeof(*rcu));
}

struct tc_case {
	const char *name;
	void (*run)(struct fs_tc *tc);
};

static const struct tc_case tc_cases[] = {
    {"lookup_empty_path", case_lookup_empty},
    {"null_arguments", case_null_arguments},
    {"repeated_slashes", case_slashes},
    {"dot_and_dotdot", case_dot_dotdot},
    {"missing_component", case_missing},
    {"file_as_directory", case_file_as_dir},
    {"name_too_long", case_name_too_long},
    {"path_too_long", case_path_too_long},
    {"create_exists", case_create_exists},
    {"create_missing_parent", case_create_missing_parent},
    {"create_ok", case_create_ok},
    {"unlink_errors", case_unlink_errors},
    {"rmdir_errors", case_rmdir_errors},
    {"remove_ok", case_remove_ok},
    {"unlink_busy", case_unlink_busy},
    {"rmdir_busy", case_rmdir_busy},
    {"rename_within_dir", case_rename_within},
    {"rename_across_dirs", case_rename_across},
    {"rename_replace", case_rename_replace},
    {"rename_replace_busy", case_rename_replace_busy},
    {"rename_type_errors", case_rename_type_errors},
    {"rename_into_own_subtree", case_rename_into_self},
    {"rename_dots_and_root", case_rename_dots_root},
    {"rename_missing", case_rename_missing},
    {"rename_onto_itself", case_rename_self},
    {"out_of_node_memory", case_enomem},
    {"fs_new_bad_config", case_fs_new_bad_config},
    {"readdir", case_readdir},
    {"get_parent", case_get_parent},
    {"inode_numbers", case_inode_numbers},
    {"deep_path", case_deep_path},
    {"locked_policy", case_locked_policy},
    {"destroy_busy", case_destroy_busy},
    {"rcu_grace_period", case_rcu_grace},
};

#define TC_NCASES (sizeof(tc_cases) / sizeof(tc_cases[0]))

unsigned fs_selftest_count(void)
{
	return TC_NCASES;
}

const char *fs_selftest_name(unsigned i)
{
	return i < TC_NCASES ? tc_cases[i].name : NULL;
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

	tc->fs = fs_new(&(struct fs_config){.mem_slots = TC_SLOTS});
	if (!tc->fs) {
		tc_fail(tc, __LINE__, "fs_new failed");
		return false;
	}
	for (unsigned i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		CHECK_ERR(tc, fs_create(tc->fs, tree[i].path, tree[i].type, NULL), 0);
	return !tc->failed;
}

bool fs_selftest_run(unsigned i, const struct fs_report *r)
{
	struct fs_tc *tc;
	struct fs_audit audit;
	uint64_t warnings = lockref_warnings();
	bool ok;

	if (i >= TC_NCASES)
		return false;
	tc = platform_alloc(sizeof(*tc), sizeof(uint64_t));
	if (!tc) {
		r->fail(r->arg, "no memory for a test case");
		return false;
	}
	tc->r = r;
	tc->name = tc_cases[i].name;
	if (tc_setup(tc))
		tc_cases[i].run(tc);
	if (tc->fs) {
		if (fs_audit(tc->fs, NULL, 0, &audit) != 0)
			tc_fail(tc, __LINE__, "audit: %u problem(s), first: %s", audit.problems,
				audit.first);
		CHECK_ERR(tc, fs_destroy(tc->fs), 0);
	}
	if (lockref_warnings() != warnings)
		tc_fail(tc, __LINE__, "%llu lockref misuse warning(s)",
			(unsigned long long)(lockref_warnings() - warnings));
	ok = !tc->failed;
	platform_free(tc, sizeof(*tc));
	return ok;
}
