// SPDX-License-Identifier: MIT
/*
 * rcu.c - the epoch-based reclamation of rcu.h.
 *
 * Ordering, the one subtle part.  A reader stores its announcement and
 * then loads shared pointers; an advancer (after the remover's unlinking
 * stores) loads every announcement.  Each side must see the other's store
 * or its own load would be unsafe: the store-buffering pattern, which x86
 * allows unless a locked instruction or MFENCE sits between the store and
 * the load (Intel SDM Vol. 3A 8.2.3.4).  The reader's announcement is
 * therefore an XCHG (implicitly locked, a full barrier, SDM Vol. 3A
 * 8.2.2), and the advancer scans only after its locked trylock of the
 * domain lock.  So either the advancer sees the reader's announcement and
 * waits for it, or the reader's loads come after the removal and cannot
 * reach the removed object.
 */
#include "rcu.h"

#include "atomic.h"
#include "busted.h"
#include "platform.h"
#include "spinlock.h"

/* A waiter reads the clock once per this many polls: cheap, yet a timeout is noticed soon. */
#define FS_RCU_CLOCK_EVERY 64u
/* Advances after which an object retired in the current epoch has been freed. */
#define FS_RCU_GRACE_ADVANCES 2u

#define FS_RCU_READING 1u

void fs_rcu_init(struct fs_rcu *rcu, void *owner)
{
	rcu->epoch = 0;
	rcu->cpus_seen = 0;
	rcu->owner = owner;
	spin_init_named(&rcu->lock, "fs:rcu");
	for (unsigned i = 0; i < FS_RCU_LISTS; i++)
		rcu->waiting[i] = NULL;
	rcu->pending = 0;
	rcu->grace_periods = 0;
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		rcu->cpu[i].state = 0;
		rcu->cpu[i].nest = 0;
	}
}

/* Make sure advancers scan this CPU's word; raised once per CPU, so rarely contended. */
static void fs_rcu_note_cpu(struct fs_rcu *rcu, unsigned cpu)
{
	unsigned seen = atomic_load32(&rcu->cpus_seen);

	while (seen <= cpu && !atomic_cmpxchg32(&rcu->cpus_seen, &seen, cpu + 1))
		;
}

void fs_rcu_read_lock(struct fs_rcu *rcu)
{
	unsigned cpu = platform_cpu_id();
	struct fs_rcu_cpu *me = &rcu->cpu[cpu];
	uint64_t epoch;

	if (me->nest++ > 0)
		return;
	if (atomic_load32_relaxed(&rcu->cpus_seen) <= cpu)
		fs_rcu_note_cpu(rcu, cpu);
	epoch = atomic_load64(&rcu->epoch);
	/* XCHG, not a plain store: the full barrier of the file comment. */
	atomic_xchg64(&me->state, epoch << 1 | FS_RCU_READING);
}

void fs_rcu_read_unlock(struct fs_rcu *rcu)
{
	struct fs_rcu_cpu *me = &rcu->cpu[platform_cpu_id()];

	if (me->nest == 0)
		platform_panic("fs rcu %p: read_unlock without read_lock on cpu %u", (void *)rcu,
			       platform_cpu_id());
	if (--me->nest > 0)
		return;
	/* Release: every read of the section happens before an advancer sees us leave. */
	atomic_store64(&me->state, 0);
}

bool fs_rcu_reading(const struct fs_rcu *rcu)
{
	return rcu->cpu[platform_cpu_id()].nest > 0;
}

static void fs_rcu_run(struct fs_rcu *rcu, struct fs_rcu_head *list)
{
	while (list) {
		struct fs_rcu_head *next = list->next;

		list->func(list, rcu->owner);
		list = next;
	}
}

/*
 * Caller holds rcu->lock: advance from @epoch if every reading CPU reads
 * since @epoch.  Returns the list that became safe (retired in epoch - 1),
 * or NULL with *@advanced false if some CPU is still in an older epoch.
 */
static struct fs_rcu_head *fs_rcu_advance_locked(struct fs_rcu *rcu, bool *advanced)
    REQUIRES(rcu->lock)
{
	uint64_t epoch = rcu->epoch;
	unsigned seen = atomic_load32(&rcu->cpus_seen);
	unsigned slot = (unsigned)((epoch + FS_RCU_LISTS - 1) % FS_RCU_LISTS);
	struct fs_rcu_head *safe;
	uint64_t freed = 0;

	*advanced = false;
	for (unsigned cpu = 0; cpu < seen; cpu++) {
		uint64_t state = atomic_load64(&rcu->cpu[cpu].state);

		if ((state & FS_RCU_READING) && state >> 1 != epoch)
			return NULL;
	}
	/*
	 * Every reader is in @epoch or out, so none entered before epoch - 1's
	 * objects were unlinked: that list is safe.  (The list epoch + 1 will
	 * fill was emptied by the previous advance.)
	 */
	safe = rcu->waiting[slot];
	rcu->waiting[slot] = NULL;
	for (struct fs_rcu_head *h = safe; h; h = h->next)
		freed++;
	rcu->pending -= freed;
	rcu->grace_periods++;
	atomic_store64(&rcu->epoch, epoch + 1);
	*advanced = true;
	return safe;
}

bool fs_rcu_poll(struct fs_rcu *rcu)
{
	struct fs_rcu_head *safe;
	bool advanced;

	/* Someone else advancing is as good as advancing ourselves. */
	if (!spin_trylock(&rcu->lock))
		return false;
	safe = fs_rcu_advance_locked(rcu, &advanced);
	spin_unlock(&rcu->lock);
	fs_rcu_run(rcu, safe);
	return advanced;
}

void fs_rcu_retire(struct fs_rcu *rcu, struct fs_rcu_head *head,
		   void (*func)(struct fs_rcu_head *head, void *owner))
{
	unsigned slot;

	head->func = func;
	if (FS_BUG(FS_BUG_NO_GRACE)) {
		func(head, rcu->owner);
		return;
	}
	spin_lock(&rcu->lock);
	slot = (unsigned)(rcu->epoch % FS_RCU_LISTS);
	head->next = rcu->waiting[slot];
	rcu->waiting[slot] = head;
	rcu->pending++;
	spin_unlock(&rcu->lock);
	fs_rcu_poll(rcu);
}

/* One line naming the CPUs that keep the epoch at @epoch. */
static void fs_rcu_report_stuck(struct fs_rcu *rcu, uint64_t epoch, uint64_t waited_ns)
{
	unsigned seen = atomic_load32(&rcu->cpus_seen);
	unsigned named = 0;

	for (unsigned cpu = 0; cpu < seen; cpu++) {
		uint64_t state = atomic_load64(&rcu->cpu[cpu].state);

		if ((state & FS_RCU_READING) && state >> 1 != epoch) {
			platform_log("fs rcu %p: grace period stuck at epoch %llu for %llu ms: "
				     "cpu %u reading since epoch %llu",
				     (void *)rcu, (unsigned long long)epoch,
				     (unsigned long long)(waited_ns / 1000000), cpu,
				     (unsigned long long)(state >> 1));
			named++;
		}
	}
	if (!named)
		platform_log("fs rcu %p: grace period stuck at epoch %llu for %llu ms, but no CPU "
			     "reads now (it may just have left)",
			     (void *)rcu, (unsigned long long)epoch,
			     (unsigned long long)(waited_ns / 1000000));
}

bool fs_rcu_synchronize(struct fs_rcu *rcu, uint64_t timeout_ns)
{
	uint64_t start, target, now, begin = platform_now_ns();
	unsigned polls = 0;

	if (fs_rcu_reading(rcu)) {
		platform_log("fs rcu: synchronize inside a read section on cpu %u would wait for "
			     "itself; refused",
			     platform_cpu_id());
		return false;
	}
	/* What was retired before now sits in epoch `start` or earlier: freed by start + 2. */
	start = atomic_load64(&rcu->epoch);
	target = start + FS_RCU_GRACE_ADVANCES;
	while (atomic_load64(&rcu->epoch) < target) {
		if (fs_rcu_poll(rcu))
			continue;
		if (++polls % FS_RCU_CLOCK_EVERY == 0) {
			now = platform_now_ns();
			if (now - begin > timeout_ns) {
				fs_rcu_report_stuck(rcu, atomic_load64(&rcu->epoch), now - begin);
				return false;
			}
		}
		platform_relax();
	}
	return true;
}

/* One counter of rcu read under its lock, which every writer of the counters holds. */
static uint64_t read_counter(struct fs_rcu *rcu, const uint64_t *counter)
{
	uint64_t n;

	spin_lock(&rcu->lock);
	n = *counter;
	spin_unlock(&rcu->lock);
	return n;
}

uint64_t fs_rcu_pending(struct fs_rcu *rcu)
{
	return read_counter(rcu, &rcu->pending);
}

uint64_t fs_rcu_grace_periods(struct fs_rcu *rcu)
{
	return read_counter(rcu, &rcu->grace_periods);
}
