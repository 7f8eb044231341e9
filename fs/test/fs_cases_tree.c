// SPDX-License-Identifier: MIT
/*
 * fs_cases_tree.c - rule cases of the tree's life: removal of nodes still
 * held, every kind of rename, node memory running out, readdir,
 * fs_get_parent, deep paths, the locked policy, a refused teardown, and the
 * RCU domain's grace periods on their own.  The standard tree of
 * fs_suite.c is their start.
 */
#include "errno.h"
#include "fs.h"
#include "fs_suite_impl.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "rcu.h"
#include "string.h"

/* Depth of the deep-path case (each level a directory named "l"). */
#define TC_DEEP 20

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
	/* Linux's do_renameat2 says -EBUSY to "." and ".." as well. */
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/.", "/z"), -FS_EBUSY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/e/..", "/z"), -FS_EBUSY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/d/.."), -FS_EBUSY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/d/."), -FS_EBUSY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/e", "/d/e/."), -FS_EBUSY);
}

/*
 * Where several errors apply, Linux's order (fs.h, fs_rename): both walks,
 * dots, the source's name, the source, the target's name, trailing
 * slashes, "into its own subtree", "onto an ancestor", then types.  Each
 * expectation was taken from Linux (tests/diff).
 */
static void case_rename_error_order(struct fs_tc *tc)
{
	char lname[FS_NAME_MAX + 3];

	memcpy(lname, tc_long(tc, "/", 'n', FS_NAME_MAX + 1), FS_NAME_MAX + 3);
	/* The source's walk before anything about the target, even an empty target path. */
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x/y", ""), -FS_ENOTDIR);
	/* The target's walk before the source's name; the source before the target's name. */
	CHECK_FAILS(tc, fs_rename(tc->fs, lname, "/nope/z"), -FS_ENOENT);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/nope", lname), -FS_ENOENT);
	CHECK_FAILS(tc, fs_rename(tc->fs, lname, "/d/."), -FS_EBUSY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x/", lname), -FS_ENAMETOOLONG);
	/* A trailing slash on a file before "onto itself". */
	CHECK_FAILS(tc, fs_rename(tc->fs, "/x", "/x/"), -FS_ENOTDIR);
	/* "Into its own subtree" before the target's type. */
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d", "/d/f"), -FS_EINVAL);
	/* Onto an ancestor of the source before the type check (issue: was -EISDIR). */
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/f", "/d"), -FS_ENOTEMPTY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/sub/g", "/d"), -FS_ENOTEMPTY);
	CHECK_FAILS(tc, fs_rename(tc->fs, "/d/sub/g", "/d/sub"), -FS_ENOTEMPTY);
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
	CHECK(tc, made == (TC_SLOTS - TC_TREE_SLOTS) / 2);
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
	tc_expect(tc, 3, "three bad configurations, each refused with a line");
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
	tc_expect(tc, 2, "a destroy refused while a reference is held: its audit and refusal");
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
	tc_expect(tc, 1, "a synchronize inside a read section, refused");
	CHECK(tc, !fs_rcu_synchronize(rcu, 1000000)); /* refused: it would wait for itself */
	fs_rcu_read_unlock(rcu);
	CHECK(tc, !fs_rcu_reading(rcu));
	CHECK(tc, fs_rcu_synchronize(rcu, FS_GRACE_TIMEOUT_NS));
	CHECK(tc, obj.freed == 1 && fs_rcu_pending(rcu) == 0);
	CHECK(tc, fs_rcu_synchronize(rcu, FS_GRACE_TIMEOUT_NS));
	CHECK(tc, obj.freed == 1);
	platform_free(rcu, sizeof(*rcu));
}

const struct tc_case tc_cases_tree[] = {
    {"unlink_busy", case_unlink_busy},
    {"rmdir_busy", case_rmdir_busy},
    {"rename_within_dir", case_rename_within},
    {"rename_across_dirs", case_rename_across},
    {"rename_replace", case_rename_replace},
    {"rename_replace_busy", case_rename_replace_busy},
    {"rename_type_errors", case_rename_type_errors},
    {"rename_into_own_subtree", case_rename_into_self},
    {"rename_dots_and_root", case_rename_dots_root},
    {"rename_error_order", case_rename_error_order},
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

const unsigned tc_ncases_tree = sizeof(tc_cases_tree) / sizeof(tc_cases_tree[0]);
