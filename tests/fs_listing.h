// SPDX-License-Identifier: MIT
/*
 * fs_listing.h - an fs tree as text, for the host programs that compare
 * two trees: the differential test (fs/ against Linux's VFS) and the path
 * fuzzer (a tree before and after a refused operation).
 *
 * A header with one static function, not a library: both programs are one
 * C file built with the fs sources, and this is the only code they share.
 */
#ifndef TESTS_FS_LISTING_H
#define TESTS_FS_LISTING_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fs.h"

/* Room for a path longer than fs/ accepts: a rename can nest a tree deeper than it can name. */
#define FS_LISTING_PATH_BYTES (2 * FS_PATH_MAX)

/*
 * Append the tree below @dir to @out (@size bytes, NUL-terminated) in
 * readdir order, one line per node: "D /a" or "F /a/b", with the inode
 * number between the letter and the path when @with_ino ("D 5 /a").
 * Readdir order is fixed for one history, so two listings of the same
 * history compare equal; Linux's order differs, so the differential test
 * sorts both sides.  A node deeper than FS_LISTING_PATH_BYTES is left out.
 */
static void fs_listing(struct fs *fs, const char *dir, bool with_ino, char *out, size_t size)
{
	struct fs_dirent ents[8];
	uint64_t pos = 0;
	int n;

	while ((n = fs_readdir(fs, dir, &pos, ents, 8)) > 0) {
		for (int i = 0; i < n; i++) {
			char path[FS_LISTING_PATH_BYTES];
			char ino[24] = "";
			size_t len = strlen(out);

			if (!strcmp(ents[i].name, ".") || !strcmp(ents[i].name, ".."))
				continue;
			if ((size_t)snprintf(path, sizeof(path), "%s/%s",
					     strcmp(dir, "/") ? dir : "",
					     ents[i].name) >= sizeof(path))
				continue;
			if (with_ino)
				snprintf(ino, sizeof(ino), " %llu",
					 (unsigned long long)ents[i].ino);
			snprintf(out + len, size - len, "%c%s %s\n",
				 ents[i].type == FS_DIR ? 'D' : 'F', ino, path);
			if (ents[i].type == FS_DIR)
				fs_listing(fs, path, with_ino, out, size);
		}
	}
}

#endif /* TESTS_FS_LISTING_H */
