// SPDX-License-Identifier: MIT
/*
 * fs_cases_paths.c - rule cases of the path walk and of create, unlink and
 * rmdir: empty and NULL arguments, slashes, "." and "..", missing
 * components, files used as directories, the length limits, and what each
 * removal refuses.  The standard tree of fs_suite.c is their start.
 */
#include "errno.h"
#include "fs.h"
#include "fs_impl.h"
#include "fs_suite_impl.h"
#include "rcu.h"
#include "string.h"

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
	/* Linux's do_unlinkat: "/", "." and ".." are all directories, -EISDIR. */
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/"), -FS_EISDIR);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "//"), -FS_EISDIR);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/d/."), -FS_EISDIR);
	CHECK_FAILS(tc, fs_unlink(tc->fs, "/d/.."), -FS_EISDIR);
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
	/* Linux's do_rmdir: ".." names a directory holding at least the one we came through. */
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/d/e/.."), -FS_ENOTEMPTY);
	CHECK_FAILS(tc, fs_rmdir(tc->fs, "/d/nope"), -FS_ENOENT);
}

/*
 * A last component's length is checked when it is looked up in its
 * directory, as Linux does: after create's trailing-slash rule, before
 * unlink's.  Each expectation was taken from Linux (tests/diff).
 */
static void case_last_name_length_order(struct fs_tc *tc)
{
	char path[FS_NAME_MAX + 8];

	memcpy(path, tc_long(tc, "/d/", 'n', FS_NAME_MAX + 1), FS_NAME_MAX + 4);
	memcpy(path + FS_NAME_MAX + 4, "/", 2);
	CHECK_FAILS(tc, fs_create(tc->fs, path, FS_FILE, NULL), -FS_EISDIR);
	CHECK_FAILS(tc, fs_create(tc->fs, path, FS_DIR, NULL), -FS_ENAMETOOLONG);
	CHECK_FAILS(tc, fs_unlink(tc->fs, path), -FS_ENAMETOOLONG);
	CHECK_FAILS(tc, fs_rmdir(tc->fs, path), -FS_ENAMETOOLONG);
	/* Dots are found before any lookup. */
	CHECK_FAILS(tc, fs_create(tc->fs, "/d/..", FS_FILE, NULL), -FS_EEXIST);
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

/*
 * A walk whose every check fails still ends, with the right answer: with a
 * rename seen in flight (the rename sequence odd, as between a rename's two
 * increments) no RCU-walk miss is trusted, so after FS_WALK_RCU_TRIES failed
 * tries the lookup walks with references, which settles the miss under the
 * directory's lock.  A walk that meets no miss is not held up at all.
 */
static void case_walk_restarts_bounded(struct fs_tc *tc)
{
	struct fs *fs = tc->fs;
	bool rcu = fs->walk == FS_WALK_RCU;
	uint32_t seq = fs->rename_seq;
	struct fs_stats before, after;

	fs_stats(fs, &before);
	/* Nothing else runs: the rules of rename_lock need not be kept for this. */
	fs->rename_seq = seq | 1;
	CHECK_FAILS(tc, fs_stat(fs, "/d/sub/missing", &(struct fs_stat){0}), -FS_ENOENT);
	CHECK(tc, tc_ino(tc, "/d/sub/g") != 0);
	fs->rename_seq = seq;
	fs_stats(fs, &after);
	CHECK(tc, after.walk_restarts - before.walk_restarts == (rcu ? FS_WALK_RCU_TRIES : 0));
	CHECK(tc, after.walk_fallbacks - before.walk_fallbacks == (rcu ? 1 : 0));
	CHECK(tc, after.lookup_locked - before.lookup_locked == 1);
}

/*
 * stat's put is lockless even when it is the last (fs_put_rcu, Linux's
 * fast_dput): a node still in the tree stays cached at count 0, and a node
 * removed while held dies at that put, exactly once, as at a locked one.
 */
static void case_last_put_lockless(struct fs_tc *tc)
{
	struct fs *fs = tc->fs;
	unsigned nodes = tc_nodes(tc);
	struct fs_node *n = NULL;

	CHECK_ERR(tc, fs_lookup(fs, "/d/f", &n), 0);
	fs_rcu_read_lock(&fs->rcu);
	fs_put_rcu(fs, n);
	fs_rcu_read_unlock(&fs->rcu);
	CHECK(tc, tc_ino(tc, "/d/f") != 0 && tc_nodes(tc) == nodes);
	CHECK_ERR(tc, fs_lookup(fs, "/x", &n), 0);
	CHECK_ERR(tc, fs_unlink(fs, "/x"), 0);
	/* Held, so the unlink only detached it: this put is its last. */
	CHECK(tc, tc_nodes(tc) == nodes);
	fs_rcu_read_lock(&fs->rcu);
	fs_put_rcu(fs, n);
	fs_rcu_read_unlock(&fs->rcu);
	CHECK(tc, tc_nodes(tc) == nodes - 1);
}

const struct tc_case tc_cases_paths[] = {
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
    {"last_name_length_order", case_last_name_length_order},
    {"remove_ok", case_remove_ok},
    {"walk_restarts_bounded", case_walk_restarts_bounded},
    {"last_put_lockless", case_last_put_lockless},
};

const unsigned tc_ncases_paths = sizeof(tc_cases_paths) / sizeof(tc_cases_paths[0]);
