// SPDX-License-Identifier: MIT
/*
 * rcu.h - epoch-based reclamation: RCU's promise, small enough to read.
 *
 * Lookups walk the fs without taking any lock: they follow pointers that a
 * concurrent unlink or rename may be removing at that very moment.  Memory
 * reached that way must not be freed, let alone reused, while a walker may
 * still read it.  So a remover does not free: it unlinks the object and
 * *retires* it, and the object is freed only after a grace period, once
 * every CPU that might have seen it has left its read-side section.
 *
 * The scheme (Fraser's epoch-based reclamation, 2004): one global epoch
 * counter.  A reader announces "reading since epoch e" in its own per-CPU
 * word when it enters, and clears the word when it leaves; leaving is its
 * quiescent state report.  The epoch may advance from e to e+1 only when
 * every CPU is either not reading or reading since e.  An object retired in
 * epoch e is unreachable to anyone who reads the epoch as e+1 or later, so
 * once the epoch has advanced to e+2 (every reader entered at e+1 or later)
 * no reader can hold it, and it is freed.  Three lists (epochs mod 3) hold
 * what waits: the epoch being filled, and the two before it.
 *
 * A CPU that does not read (idle, halted between tests, a host thread that
 * finished) has a clear word and never holds a grace period up: there is no
 * registration to forget.  A CPU stuck inside a read section does; every
 * wait for a grace period is bounded, and on timeout names the CPUs that
 * held it up and since which epoch.
 *
 * Each struct fs has its own domain, so a test's fs and a benchmark's fs
 * never wait for each other's readers.
 */
#ifndef FS_RCU_H
#define FS_RCU_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "platform.h"
#include "spinlock.h"

/* Lists of retired objects: the current epoch's and the two before it. */
#define FS_RCU_LISTS 3

/* Embedded in every retired object; fs_rcu_retire fills it. */
struct fs_rcu_head {
	struct fs_rcu_head *next;
	void (*func)(struct fs_rcu_head *head, void *owner);
};

/* One CPU's read-side state, alone in its cache-line pair: only that CPU writes it. */
struct fs_rcu_cpu {
	uint64_t state; /* 0: not reading; else (epoch << 1) | 1 */
	unsigned nest;	/* read sections entered and not left (they nest) */
} __attribute__((aligned(CACHE_PAIR_BYTES)));

struct fs_rcu {
	/* Read by every reader on entry, written once per grace period. */
	uint64_t epoch __attribute__((aligned(CACHE_PAIR_BYTES)));
	unsigned cpus_seen; /* 1 + the highest CPU id that ever read */
	void *owner;	    /* handed to every callback */
	spinlock_t lock __attribute__((aligned(CACHE_PAIR_BYTES))); /* the lists and advancing */
	struct fs_rcu_head *waiting[FS_RCU_LISTS]; /* retired in epoch e, at e % FS_RCU_LISTS */
	uint64_t pending;			   /* retired, not yet freed */
	uint64_t grace_periods;			   /* epochs advanced */
	struct fs_rcu_cpu cpu[MAX_CPUS];
};

/* Prepare @rcu (nobody may use it yet); callbacks get @owner. */
void fs_rcu_init(struct fs_rcu *rcu, void *owner);

/*
 * Enter / leave a read-side section on the calling CPU.  Sections nest.
 * Between them, anything reached through fs_rcu_deref of a pointer that
 * was published with fs_rcu_assign stays allocated and unpoisoned.  Never
 * wait for a grace period (fs_rcu_synchronize) inside one.
 */
void fs_rcu_read_lock(struct fs_rcu *rcu);
void fs_rcu_read_unlock(struct fs_rcu *rcu);

/* True if the calling CPU is inside a read-side section of @rcu. */
bool fs_rcu_reading(const struct fs_rcu *rcu);

/*
 * @head's object is unreachable for new readers: call @func(@head, owner)
 * once a grace period has passed.  Never waits; may run callbacks of older
 * objects on the calling CPU before returning (so the caller must hold no
 * lock a callback takes).  Any CPU, inside a read section or not.
 */
void fs_rcu_retire(struct fs_rcu *rcu, struct fs_rcu_head *head,
		   void (*func)(struct fs_rcu_head *head, void *owner));

/*
 * Try once, without waiting, to advance the epoch and free what became
 * safe.  Returns true if the epoch advanced.
 */
bool fs_rcu_poll(struct fs_rcu *rcu);

/*
 * Wait until everything retired before the call has been freed, at most
 * @timeout_ns.  Returns true when done; false on timeout (one log line
 * names the CPUs still reading and since which epoch) or when called from
 * inside a read section (which could never finish; logged too).
 */
bool fs_rcu_synchronize(struct fs_rcu *rcu, uint64_t timeout_ns);

/* Objects retired and not yet freed, and grace periods so far (snapshots). */
uint64_t fs_rcu_pending(struct fs_rcu *rcu);
uint64_t fs_rcu_grace_periods(struct fs_rcu *rcu);

/*
 * Publish and read RCU-protected pointers.  The release store makes the
 * object's initialisation visible before the pointer; the acquire load
 * orders every later read of the object after it (on x86 both are plain
 * moves; lib/atomic.h's forms keep the compiler, and ThreadSanitizer,
 * informed).
 */
#define fs_rcu_assign(p, v) atomic_store_ptr(&(p), (v))
#define fs_rcu_deref(p)	    atomic_load_ptr(&(p))

#endif /* FS_RCU_H */
