// SPDX-License-Identifier: MIT
/*
 * kcsan_watch.h - the race detector's watchpoint word and sampling counter,
 * as plain C with no kernel dependency, so the host tests compile the very
 * code the kernel runs (tests/host/test_kcsan.c).
 *
 * A watchpoint is one 64-bit word, so arming, hitting and removing it are
 * each one atomic operation on one word (kernel/kcsan.c):
 *
 *   bits  0-47  the address watched (the kernel runs identity-mapped below
 *               2^47, host programs below it too)
 *   bits 48-55  its size in bytes, 1 to KCSAN_WATCH_SIZE_MAX (larger
 *               accesses watch their first KCSAN_WATCH_SIZE_MAX bytes)
 *   bits 56-61  its generation: the slot's arm count, modulo 64
 *   bit  62     the watched access is a write
 *   bit  63     0 (a hit word has it set)
 *   0           a free slot (no encoded watchpoint is 0: its size is >= 1)
 *
 * The CPU whose access meets a watchpoint replaces it, in the same
 * compare-exchange that claims it, by its hit word: its own site, CPU,
 * size and kind, and the watch's generation copied.  So the watcher reads
 * its partner in the one exchange that removes the watchpoint: there is no
 * record beside the slot that a late hitter could leave for a later watch,
 * and the generation check (kcsan_hit_gen) proves the word is this watch's.
 *
 *   bits  0-31  the hitter's site (the kernel runs below 4 GiB)
 *   bits 32-39  its CPU index (MAX_CPUS is at most 256)
 *   bits 40-47  its access size, as above
 *   bits 48-53  the generation of the watch it hit
 *   bit  62     its access is a write
 *   bit  63     hit
 *
 * A slot is chosen by the address's page, so every access in one page looks
 * at the same KCSAN_PROBES slots: a check costs KCSAN_PROBES loads, whatever
 * the number of slots.
 */
#ifndef KERNEL_KCSAN_WATCH_H
#define KERNEL_KCSAN_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atomic.h"
#include "random.h"

/* The command line's kcsan.* bounds and defaults (kernel/cmdline_options.c checks them). */
#define KCSAN_SKIP_DEFAULT  2000u
#define KCSAN_SKIP_MAX	    1000000u
#define KCSAN_DELAY_DEFAULT 80u /* microseconds: each wait is 1/8 of it to all of it */
#define KCSAN_DELAY_MAX	    10000u
#define KCSAN_SLOTS_MAX	    64u

#define KCSAN_ADDR_BITS	     48
#define KCSAN_ADDR_MASK	     ((UINT64_C(1) << KCSAN_ADDR_BITS) - 1)
#define KCSAN_SIZE_SHIFT     48
#define KCSAN_WATCH_SIZE_MAX 255u
#define KCSAN_GEN_SHIFT	     56
#define KCSAN_GEN_MASK	     0x3fu
#define KCSAN_WRITE_BIT	     (UINT64_C(1) << 62)
#define KCSAN_HIT_BIT	     (UINT64_C(1) << 63)
#define KCSAN_HIT_CPU_SHIFT  32
#define KCSAN_HIT_SIZE_SHIFT 40
#define KCSAN_HIT_GEN_SHIFT  48
/* Slots one address may use: a busy first choice falls to the next ones. */
#define KCSAN_PROBES 3u
/* Addresses of one page share their slots (the choice ignores the low bits). */
#define KCSAN_PAGE_SHIFT 12

/* An access's size as a watch holds it: 1 to KCSAN_WATCH_SIZE_MAX. */
static inline uint64_t kcsan_watch_clamp(size_t size)
{
	return size == 0 ? 1 : size > KCSAN_WATCH_SIZE_MAX ? KCSAN_WATCH_SIZE_MAX : size;
}

/* The watchpoint of generation 0; kcsan_watch_with_gen gives it another. */
static inline uint64_t kcsan_watch_encode(uintptr_t addr, size_t size, bool write)
{
	return ((uint64_t)addr & KCSAN_ADDR_MASK) | kcsan_watch_clamp(size) << KCSAN_SIZE_SHIFT |
	       (write ? KCSAN_WRITE_BIT : 0);
}

/* Watchpoint @w with generation @gen (modulo 64). */
static inline uint64_t kcsan_watch_with_gen(uint64_t w, unsigned gen)
{
	return (w & ~((uint64_t)KCSAN_GEN_MASK << KCSAN_GEN_SHIFT)) |
	       (uint64_t)(gen & KCSAN_GEN_MASK) << KCSAN_GEN_SHIFT;
}

static inline unsigned kcsan_watch_gen(uint64_t w)
{
	return (unsigned)(w >> KCSAN_GEN_SHIFT) & KCSAN_GEN_MASK;
}

static inline uintptr_t kcsan_watch_addr(uint64_t w)
{
	return (uintptr_t)(w & KCSAN_ADDR_MASK);
}

static inline unsigned kcsan_watch_size(uint64_t w)
{
	return (unsigned)(w >> KCSAN_SIZE_SHIFT) & 0xff;
}

static inline bool kcsan_watch_write(uint64_t w)
{
	return (w & KCSAN_WRITE_BIT) != 0;
}

static inline bool kcsan_watch_hit(uint64_t w)
{
	return (w & KCSAN_HIT_BIT) != 0;
}

/*
 * Whether an access of @size bytes at @addr races with watchpoint @w: a live
 * watchpoint not yet hit, the byte ranges overlapping, and one side a write
 * (two reads never race).
 */
static inline bool kcsan_watch_matches(uint64_t w, uintptr_t addr, size_t size, bool write)
{
	uintptr_t wa = kcsan_watch_addr(w);
	uintptr_t a = (uintptr_t)((uint64_t)addr & KCSAN_ADDR_MASK);

	if (w == 0 || kcsan_watch_hit(w) || !(write || kcsan_watch_write(w)))
		return false;
	return a < wa + kcsan_watch_size(w) && wa < a + (size ? size : 1);
}

/*
 * The hit word that replaces watchpoint @w: the hitter's site @ip (its low
 * 32 bits), @cpu (below 256), access @size and @write, and @w's generation.
 */
static inline uint64_t kcsan_hit_encode(uint64_t w, uintptr_t ip, unsigned cpu, size_t size,
					bool write)
{
	return KCSAN_HIT_BIT | (write ? KCSAN_WRITE_BIT : 0) |
	       (uint64_t)kcsan_watch_gen(w) << KCSAN_HIT_GEN_SHIFT |
	       kcsan_watch_clamp(size) << KCSAN_HIT_SIZE_SHIFT |
	       (uint64_t)(cpu & 0xff) << KCSAN_HIT_CPU_SHIFT | ((uint64_t)ip & 0xffffffffu);
}

static inline uintptr_t kcsan_hit_ip(uint64_t h)
{
	return (uintptr_t)(h & 0xffffffffu);
}

static inline unsigned kcsan_hit_cpu(uint64_t h)
{
	return (unsigned)(h >> KCSAN_HIT_CPU_SHIFT) & 0xff;
}

static inline unsigned kcsan_hit_size(uint64_t h)
{
	return (unsigned)(h >> KCSAN_HIT_SIZE_SHIFT) & 0xff;
}

static inline unsigned kcsan_hit_gen(uint64_t h)
{
	return (unsigned)(h >> KCSAN_HIT_GEN_SHIFT) & KCSAN_GEN_MASK;
}

/* The @i-th slot (0 to KCSAN_PROBES - 1) an access at @addr uses among @nslots. */
static inline unsigned kcsan_watch_slot(uintptr_t addr, unsigned i, unsigned nslots)
{
	return (unsigned)(((uint64_t)addr >> KCSAN_PAGE_SHIFT) + i) % nslots;
}

/* How many distinct slots an address probes: KCSAN_PROBES, or fewer slots than that. */
static inline unsigned kcsan_watch_probes(unsigned nslots)
{
	return nslots < KCSAN_PROBES ? nslots : KCSAN_PROBES;
}

/*
 * The sampling counter: each CPU skips a random number of accesses, on
 * average @skip, between two watchpoints it arms.  Random so that a loop
 * whose body has a fixed number of accesses does not always sample the same
 * one; uniform in 1 to 2 * @skip - 1.
 */
struct kcsan_skip {
	struct rng rng; /* lib/random.h: this CPU's stream of the boot's seed */
	uint32_t left;
};

/* One draw of the counter: uniform in 1 to 2 * @skip - 1 (@skip 0 counts as 1). */
static inline uint32_t kcsan_skip_draw(struct rng *rng, unsigned skip)
{
	return skip > 1 ? (uint32_t)(1 + rng_below(rng, 2ull * skip - 1)) : 1;
}

/* Counter for stream @stream (a CPU) of run @seed, its first draw made. */
static inline void kcsan_skip_init(struct kcsan_skip *s, uint64_t seed, uint64_t stream,
				   unsigned skip)
{
	rng_seed(&s->rng, seed, stream);
	s->left = kcsan_skip_draw(&s->rng, skip);
}

/* Count one access; true when it is the one to watch (the counter is then reloaded). */
static inline bool kcsan_skip_tick(struct kcsan_skip *s, unsigned skip)
{
	if (--s->left > 0)
		return false;
	s->left = kcsan_skip_draw(&s->rng, skip);
	return true;
}

/*
 * Rare code first.  The random skip watches an access in proportion to how
 * often it runs, so a racy line that runs a few hundred times in a run (a
 * runner's field touched once per CPU per test, the heap after boot) is
 * almost never watched; yet races hide in such code, since hot paths are
 * the ones people test (the "cold-region hypothesis" of LiteRace, Marino,
 * Musuvathi and Narayanasamy, PLDI 2009).  So each site (the instruction
 * making the access) also counts its executions, all CPUs together, and
 * its first KCSAN_SITE_EVERY executions are watched whatever the skip, then
 * those numbered 32, 64, 128, ... up to 2^15: a site run n times gets
 * about 16 + log2(n) watches, and a hot one stops paying once its count
 * saturates.  kernel/kcsan.c does this for the platform's own code alone.
 *
 * The site table: one 64-bit word per site, open addressing over
 * KCSAN_SITE_PROBES neighbours, never evicted (a site that finds no room
 * is left to the random skip):
 *
 *   bits  0-47  the site's address (0: a free entry)
 *   bits 48-63  its executions, saturating at KCSAN_SITE_COUNT_MAX
 *
 * The count goes up by one compare-exchange, tried once: a CPU whose
 * exchange fails (another CPU counted in between) drops its own increment,
 * which moves a watch by one execution, but no store can ever move a count
 * back (a plain read-increment-write could, by any amount, from a CPU
 * preempted between its read and its write).  Only the platform's own code
 * counts, and a saturated site costs one load: the locked instruction is
 * paid at most KCSAN_SITE_COUNT_MAX times per site.  A free entry is claimed
 * with a compare-exchange too, so two sites never share one.
 */
#define KCSAN_SITE_BITS	     14
#define KCSAN_SITES	     (1u << KCSAN_SITE_BITS)
#define KCSAN_SITE_PROBES    4u
#define KCSAN_SITE_SHIFT     48
#define KCSAN_SITE_COUNT_MAX 0xffffu
#define KCSAN_SITE_EVERY     16u /* the first executions, all watched */

/*
 * The entry the site at @ip looks at first: Fibonacci hashing, whose top
 * bits spread sites a few bytes apart.
 */
static inline unsigned kcsan_site_hash(uintptr_t ip)
{
	return (unsigned)((((uint64_t)ip & KCSAN_ADDR_MASK) * UINT64_C(0x9e3779b97f4a7c15)) >>
			  (64 - KCSAN_SITE_BITS));
}

/*
 * Count one execution of the site @key whose entry @e held @seen when read:
 * true when it is a watched one.  Split from kcsan_site_tick so the host test
 * can play a CPU preempted between its read and its write.
 */
static inline bool kcsan_site_count(uint64_t *e, uint64_t seen, uint64_t key)
{
	uint64_t count = seen >> KCSAN_SITE_SHIFT;

	if (count == KCSAN_SITE_COUNT_MAX)
		return false;
	count++;
	if (!atomic_cmpxchg64_q(e, &seen, key | count << KCSAN_SITE_SHIFT))
		return false; /* another CPU counted since: this execution goes uncounted */
	return count <= KCSAN_SITE_EVERY || (count & (count - 1)) == 0;
}

/* True when this execution of the site at @ip is one of its watched ones. */
static inline bool kcsan_site_tick(uint64_t *table, uintptr_t ip)
{
	uint64_t key = (uint64_t)ip & KCSAN_ADDR_MASK;
	unsigned h = kcsan_site_hash(ip);

	for (unsigned i = 0; i < KCSAN_SITE_PROBES; i++) {
		uint64_t *e = &table[(h + i) % KCSAN_SITES];
		uint64_t v = atomic_load64_relaxed(e), free = 0;

		if (v == 0 && atomic_cmpxchg64_q(e, &free, key | UINT64_C(1) << KCSAN_SITE_SHIFT))
			return true; /* its first execution */
		if (v == 0)
			v = free; /* another CPU claimed it first: maybe for this very site */
		if ((v & KCSAN_ADDR_MASK) != key)
			continue;
		return kcsan_site_count(e, v, key);
	}
	return false;
}

#endif /* KERNEL_KCSAN_WATCH_H */
