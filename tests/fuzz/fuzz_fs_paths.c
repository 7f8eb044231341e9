// SPDX-License-Identifier: MIT
/*
 * fuzz_fs_paths.c - libFuzzer harness for the path handling of fs/.
 *
 * The input is a list of operations on a fresh fs: an opcode byte, then a
 * NUL-terminated path (a rename has two).  Opcodes: create a file, mkdir,
 * unlink, rmdir, rename, stat, and "hold" (a lookup whose reference is kept
 * to the end, so removed-but-held nodes appear).  Node memory is small, so
 * -ENOMEM paths run too.
 *
 * Checked: every result is 0 or an errno the operation documents (fs.h);
 * a failed operation leaves the tree exactly as it was; a successful
 * create is found by stat with its type, a removed name is gone, a renamed
 * node is at its new name; and after every input fs_audit (every count,
 * link and slot) passes with the held references declared, and the fs is
 * destroyed cleanly.
 */
#include "errno.h"
#include "fs.h"
#include "../fs_listing.h"
#include "fuzz_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS	    48 /* the root and ~20 nodes: ENOMEM is reachable */
#define MAX_HELD    8
#define LISTING_MAX 8192

enum { OP_CREATE, OP_MKDIR, OP_UNLINK, OP_RMDIR, OP_RENAME, OP_STAT, OP_HOLD, OP_KINDS };

#define E(e) (1ull << (e))
/* Errors of the walk to a parent and of a name's lookup, which every operation can give. */
#define WALK E(FS_ENOENT) | E(FS_ENOTDIR) | E(FS_ENAMETOOLONG)
static const uint64_t allowed[OP_KINDS] = {
    [OP_CREATE] = E(0) | WALK | E(FS_EEXIST) | E(FS_EISDIR) | E(FS_ENOMEM),
    [OP_MKDIR] = E(0) | WALK | E(FS_EEXIST) | E(FS_ENOMEM),
    [OP_UNLINK] = E(0) | WALK | E(FS_EISDIR),
    [OP_RMDIR] = E(0) | WALK | E(FS_ENOTEMPTY) | E(FS_EBUSY) | E(FS_EINVAL),
    [OP_RENAME] =
	E(0) | WALK | E(FS_EBUSY) | E(FS_EINVAL) | E(FS_EISDIR) | E(FS_ENOTEMPTY) | E(FS_ENOMEM),
    [OP_STAT] = E(0) | WALK,
    [OP_HOLD] = E(0) | WALK,
};

/* The next NUL-terminated string of the input, or NULL when there is none. */
static const char *next_string(const char **p, const char *end)
{
	const char *s = *p, *nul = memchr(s, '\0', (size_t)(end - s));

	if (!nul)
		return NULL;
	*p = nul + 1;
	return s;
}

/*
 * After a successful rename of @a to @b: the source existed, is still in
 * the tree, and its name is @b's last component.  (Paths are not looked up
 * again: a rename can move a directory that @b's own walk went through.)
 */
static void check_renamed(struct fs *fs, struct fs_node *src, const char *a, const char *b)
{
	char name[FS_NAME_MAX + 1];
	struct fs_stat st;
	size_t end = strlen(b), start;

	FUZZ_CHECK(src, "rename '%s' -> '%s' succeeded but '%s' was not found before", a, b, a);
	while (end > 0 && b[end - 1] == '/')
		end--;
	for (start = end; start > 0 && b[start - 1] != '/'; start--)
		;
	FUZZ_CHECK(fs_node_stat(fs, src, &st) == 0 && !st.removed, "renamed node removed");
	FUZZ_CHECK(fs_node_name(fs, src, name, sizeof(name)) == (int)(end - start) &&
		       memcmp(name, b + start, end - start) == 0,
		   "rename '%s' -> '%s' left the name '%s'", a, b, name);
}

static void run(struct fs *fs, const char *p, const char *end)
{
	static char before[LISTING_MAX], after[LISTING_MAX];
	struct fs_node *held[MAX_HELD];
	unsigned nheld = 0;
	struct fs_audit audit;

	while (p < end) {
		unsigned op = (uint8_t)*p++ % OP_KINDS;
		const char *a = next_string(&p, end), *b = NULL;
		struct fs_node *src;
		struct fs_stat st;
		int err = 0;

		if (!a || (op == OP_RENAME && !(b = next_string(&p, end))))
			break;
		before[0] = '\0';
		fs_listing(fs, "/", true, before, sizeof(before));
		switch (op) {
		case OP_CREATE:
		case OP_MKDIR:
			err = fs_create(fs, a, op == OP_MKDIR ? FS_DIR : FS_FILE, NULL);
			if (!err)
				FUZZ_CHECK(fs_stat(fs, a, &st) == 0 &&
					       st.type == (op == OP_MKDIR ? FS_DIR : FS_FILE),
					   "created '%s' but stat does not find it", a);
			break;
		case OP_UNLINK:
		case OP_RMDIR:
			err = op == OP_UNLINK ? fs_unlink(fs, a) : fs_rmdir(fs, a);
			if (!err)
				FUZZ_CHECK(fs_stat(fs, a, &st) == -FS_ENOENT,
					   "removed '%s' is still there", a);
			break;
		case OP_RENAME:
			/* Held across the rename: afterwards it must bear @b's last name. */
			if (fs_lookup(fs, a, &src))
				src = NULL;
			err = fs_rename(fs, a, b);
			if (!err)
				check_renamed(fs, src, a, b);
			fs_put(fs, src);
			break;
		case OP_STAT:
			err = fs_stat(fs, a, &st);
			break;
		case OP_HOLD:
			if (nheld < MAX_HELD)
				err = fs_lookup(fs, a, &held[nheld]);
			nheld += !err && nheld < MAX_HELD;
			break;
		}
		FUZZ_CHECK(err <= 0 && -err < 64 && (allowed[op] & E(-err)),
			   "op %u on '%s' gave %d (%s), not documented", op, a, err,
			   fs_errno_name(-err));
		if (err) {
			after[0] = '\0';
			fs_listing(fs, "/", true, after, sizeof(after));
			FUZZ_CHECK(strcmp(before, after) == 0,
				   "failed op %u on '%s' changed the tree", op, a);
		}
	}
	FUZZ_CHECK(fs_audit(fs, held, nheld, &audit) == 0, "audit: %s", audit.first);
	for (unsigned i = 0; i < nheld; i++)
		fs_put(fs, held[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fs_config cfg = {.mem_slots = SLOTS};
	struct fs *fs = fs_new(&cfg);
	char *copy = malloc(size ? size : 1);

	memcpy(copy, data, size);
	run(fs, copy, copy + size);
	FUZZ_CHECK(fs_destroy(fs) == 0, "fs_destroy refused after the input");
	free(copy);
	return 0;
}
