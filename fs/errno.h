// SPDX-License-Identifier: MIT
/*
 * errno.h - the error numbers fs/ returns, negated (0 or -FS_Exxx).
 *
 * The kernel has no libc and the host tests must not pick up libc's
 * <errno.h> by accident, so the fs defines its own names with the values
 * Linux uses on x86-64 (include/uapi/asm-generic/errno-base.h and
 * errno.h), which is what anyone reading a failure expects to see.
 */
#ifndef FS_ERRNO_H
#define FS_ERRNO_H

#define FS_ENOENT	2  /* a path component does not exist */
#define FS_EIO		5  /* the fs caught itself reading freed (poisoned) memory */
#define FS_ENOMEM	12 /* node memory exhausted; nothing was changed */
#define FS_EBUSY	16 /* "/" cannot be removed, nor "/", "." or ".." renamed */
#define FS_EEXIST	17 /* the name is taken */
#define FS_ENOTDIR	20 /* a file was used as a directory */
#define FS_EISDIR	21 /* a directory was used as a file */
#define FS_EINVAL	22 /* bad argument: NULL, rmdir ".", a rename into its own subtree */
#define FS_ENAMETOOLONG 36 /* a name over FS_NAME_MAX or a path of FS_PATH_MAX or more bytes */
#define FS_ENOTEMPTY	39 /* the directory still has entries */

/* A short name for an error number ("ENOENT"), or "E?" for one the fs never returns. */
const char *fs_errno_name(int err);

#endif /* FS_ERRNO_H */
