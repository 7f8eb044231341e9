// SPDX-License-Identifier: MIT
/*
 * busted.h - deliberate bugs for the negative controls of the fs tests.
 *
 * A test that never failed proves nothing.  Built with -DFS_BUSTED (the
 * host test's busted build only), the fs carries a few known bugs, each
 * switched on at run time through fs_busted, and the test program checks
 * that every one of them is caught by the check meant to catch it.  In
 * every other build none of this exists.
 */
#ifndef FS_BUSTED_H
#define FS_BUSTED_H

#ifdef FS_BUSTED

#include "atomic.h"

/* Free retired objects at once, without a grace period: lookups read poison. */
#define FS_BUG_NO_GRACE (1u << 0)
/* rename takes the new parent's reference but keeps the old one: counts drift. */
#define FS_BUG_RENAME_REF (1u << 1)
/* unlink frees a node at once even if someone holds a reference to it. */
#define FS_BUG_UNLINK_BUSY (1u << 2)
/* names over FS_NAME_MAX are silently truncated instead of refused. */
#define FS_BUG_TRUNCATE (1u << 3)
/* the RCU-walk hands out its last node without taking a reference on it. */
#define FS_BUG_RCU_NO_GET (1u << 4)

/* The bugs switched on now (FS_BUG_* bits); set only while no fs operation runs. */
extern unsigned fs_busted;

#define FS_BUG(bit) ((atomic_load32_relaxed(&fs_busted) & (bit)) != 0)

#else

#define FS_BUG(bit) 0

#endif /* FS_BUSTED */

#endif /* FS_BUSTED_H */
