/*
 * spinlock.c - the ticket spinlock of spinlock.h.
 *
 * Taking the lock is one XADD on the whole 32-bit word that adds one to the
 * tail and returns the old word: its tail half is our ticket, its head half
 * the ticket being served.  If they match the lock was free and is now ours;
 * otherwise we wait until the owner's unlock advances the head to our
 * ticket.  Unlock is a plain 16-bit store of head + 1: only the owner writes
 * the head, and an x86 store has release semantics (SDM Vol. 3A 8.2.2), so
 * no LOCK prefix is needed.  The 16-bit halves wrap independently, which is
 * why the tail carries out of bit 31 harmlessly.
 */
#include "spinlock.h"

#include "atomic.h"
#include "platform.h"

/* Waiters look at the clock once per this many PAUSEs: cheap, yet a timeout is noticed soon. */
#define SPIN_CLOCK_EVERY (1u << 14)

#ifdef SPINLOCK_DEBUG

/* How many locks one CPU may hold at once in a debug build (deeper nesting panics). */
#define SPIN_DEBUG_DEPTH 8

/*
 * The locks each CPU holds.  Only that CPU writes or reads its own entry, so
 * no locking is needed; each entry has its own cache-line pair so that the
 * bookkeeping of one CPU never slows another.
 */
struct spin_held {
	const spinlock_t *locks[SPIN_DEBUG_DEPTH];
	unsigned n;
} __attribute__((aligned(CACHE_PAIR_BYTES)));

static struct spin_held spin_held_by_cpu[MAX_CPUS];

static bool spin_debug_holds(const struct spin_held *h, const spinlock_t *lock)
{
	for (unsigned i = 0; i < h->n; i++)
		if (h->locks[i] == lock)
			return true;
	return false;
}

static void spin_debug_before_lock(spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();

	if (spin_debug_holds(&spin_held_by_cpu[cpu], lock))
		platform_panic("spinlock %p: cpu %u takes a lock it already holds (deadlock)",
			       (void *)lock, cpu);
}

static void spin_debug_acquired(spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();
	struct spin_held *h = &spin_held_by_cpu[cpu];

	if (h->n == SPIN_DEBUG_DEPTH)
		platform_panic("spinlock %p: cpu %u holds more than %d locks", (void *)lock, cpu,
			       SPIN_DEBUG_DEPTH);
	h->locks[h->n++] = lock;
}

static void spin_debug_release(spinlock_t *lock)
{
	unsigned cpu = platform_cpu_id();
	struct spin_held *h = &spin_held_by_cpu[cpu];

	for (unsigned i = 0; i < h->n; i++) {
		if (h->locks[i] == lock) {
			/* Locks need not be released in order: close the gap. */
			h->locks[i] = h->locks[--h->n];
			return;
		}
	}
	platform_panic("spinlock %p: cpu %u unlocks a lock it does not hold (head %u tail %u)",
		       (void *)lock, cpu, lock->tickets.head, lock->tickets.tail);
}

bool spin_is_held(const spinlock_t *lock)
{
	return spin_debug_holds(&spin_held_by_cpu[platform_cpu_id()], lock);
}

#else /* !SPINLOCK_DEBUG */

static void spin_debug_before_lock(spinlock_t *lock)
{
	(void)lock;
}

static void spin_debug_acquired(spinlock_t *lock)
{
	(void)lock;
}

static void spin_debug_release(spinlock_t *lock)
{
	(void)lock;
}

bool spin_is_held(const spinlock_t *lock)
{
	return spin_is_locked(lock);
}

#endif /* SPINLOCK_DEBUG */

void spin_init(spinlock_t *lock)
{
	atomic_store32(&lock->val, 0);
}

/* Wait until the head reaches @ticket, or panic once SPIN_TIMEOUT_NS has passed. */
static __attribute__((noinline)) void spin_wait_for(spinlock_t *lock, uint16_t ticket)
{
	uint64_t start = platform_now_ns();
	unsigned spins = 0;

	while (atomic_load16(&lock->tickets.head) != ticket) {
		platform_relax();
		if (++spins % SPIN_CLOCK_EVERY == 0 && platform_now_ns() - start > SPIN_TIMEOUT_NS)
			platform_panic("spinlock %p: cpu %u waited over %llu s for ticket %u "
				       "(head %u, tail %u): deadlock?",
				       (void *)lock, platform_cpu_id(),
				       (unsigned long long)(SPIN_TIMEOUT_NS / 1000000000u), ticket,
				       atomic_load16(&lock->tickets.head),
				       atomic_load16(&lock->tickets.tail));
	}
}

void spin_lock(spinlock_t *lock)
{
	uint32_t old;
	uint16_t ticket;

	spin_debug_before_lock(lock);
	old = atomic_xadd32(&lock->val, SPIN_TICKET_ONE);
	ticket = (uint16_t)(old >> SPIN_TICKET_BITS);
	if ((uint16_t)old != ticket)
		spin_wait_for(lock, ticket);
	spin_debug_acquired(lock);
}

void spin_unlock(spinlock_t *lock)
{
	spin_debug_release(lock);
	/* Only the owner writes the head: a release store of head + 1 hands the lock on. */
	atomic_store16(&lock->tickets.head, (uint16_t)(atomic_load16(&lock->tickets.head) + 1));
}

bool spin_trylock(spinlock_t *lock)
{
	spinlock_t old = {.val = atomic_load32(&lock->val)};

	if (!spin_value_unlocked(old))
		return false;
	/* Take the next ticket only if nobody else took one since we looked. */
	if (!atomic_cmpxchg32(&lock->val, &old.val, old.val + SPIN_TICKET_ONE))
		return false;
	spin_debug_acquired(lock);
	return true;
}

bool spin_is_locked(const spinlock_t *lock)
{
	spinlock_t copy = {.val = atomic_load32(&lock->val)};

	return !spin_value_unlocked(copy);
}

void spin_lock_busted(spinlock_t *lock)
{
	(void)lock;
}

void spin_unlock_busted(spinlock_t *lock)
{
	(void)lock;
}
