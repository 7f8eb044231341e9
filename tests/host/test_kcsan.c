// SPDX-License-Identifier: MIT
/*
 * test_kcsan.c - the race detector's watchpoint word and skip counter
 * (kernel/kcsan_watch.h), the portable part of kernel/kcsan.c.
 *
 * The word must give back what was encoded, never be 0 (a free slot), and
 * match exactly the accesses that overlap it with one side a write; the
 * slot choice must stay in range and give one page one window; the skip
 * counter must stay in 1 to 2 * skip - 1, average skip, and depend on its
 * seed alone; a site's watched executions must be its first 16, then 32, 64,
 * ... up to its saturated count, and a site with no room must get none.
 * A hit word must give back the hitter's site, CPU, size and kind and the
 * generation of the watch it replaced; and a site's count must never go
 * back, even under a write from a CPU that read it long before.
 */
#include <string.h>

#include "check.h"
#include "kcsan_watch.h"

#include <stdint.h>

static void encoding_round_trips(void)
{
	static const uintptr_t addrs[] = {
	    0, 1, 0x1000, 0x4d87a8, 0x7fffffffffffull, KCSAN_ADDR_MASK};
	static const unsigned sizes[] = {1, 2, 4, 8, 16, 200, 255};

	for (unsigned a = 0; a < sizeof(addrs) / sizeof(addrs[0]); a++)
		for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (int w = 0; w < 2; w++) {
				uint64_t word = kcsan_watch_encode(addrs[a], sizes[s], w);

				CHECK(word != 0, "addr %#lx size %u: encoded as a free slot",
				      (unsigned long)addrs[a], sizes[s]);
				CHECK_EQ(kcsan_watch_addr(word), addrs[a]);
				CHECK_EQ(kcsan_watch_size(word), sizes[s]);
				CHECK_EQ(kcsan_watch_write(word), w);
				CHECK(!kcsan_watch_hit(word));
				CHECK(kcsan_watch_hit(word | KCSAN_HIT_BIT));
				CHECK_EQ(kcsan_watch_addr(word | KCSAN_HIT_BIT), addrs[a]);
			}
	/* Larger accesses watch their first 255 bytes; size 0 (never emitted) counts as 1. */
	CHECK_EQ(kcsan_watch_size(kcsan_watch_encode(0x1000, 4096, false)), KCSAN_WATCH_SIZE_MAX);
	CHECK_EQ(kcsan_watch_size(kcsan_watch_encode(0x1000, 0, false)), 1);
	CHECK(kcsan_watch_encode(0, 0, false) != 0);
}

/* The hit word: the hitter's fields and the watch's generation, whatever the watch. */
static void hit_words(void)
{
	uint64_t w = kcsan_watch_encode(0x4d87a8, 4, false);

	for (unsigned gen = 0; gen < 200; gen += 7) {
		uint64_t g = kcsan_watch_with_gen(w, gen);
		uint64_t h = kcsan_hit_encode(g, 0x13a7ea, 255, 16, true);

		CHECK_EQ(kcsan_watch_gen(g), gen % 64);
		CHECK_EQ(kcsan_watch_addr(g), 0x4d87a8);
		CHECK_EQ(kcsan_watch_size(g), 4);
		CHECK(kcsan_watch_hit(h) && !kcsan_watch_hit(g));
		CHECK_EQ(kcsan_hit_gen(h), gen % 64);
		CHECK_EQ(kcsan_hit_ip(h), 0x13a7ea);
		CHECK_EQ(kcsan_hit_cpu(h), 255);
		CHECK_EQ(kcsan_hit_size(h), 16);
		CHECK(kcsan_watch_write(h));
		/* No access matches a hit word: the watch is claimed. */
		CHECK(!kcsan_watch_matches(h, 0x4d87a8, 4, true));
	}
	/* Consecutive generations give different words: a hitter of one cannot claim the next. */
	CHECK(kcsan_watch_with_gen(w, 1) != kcsan_watch_with_gen(w, 2));
	CHECK_EQ(kcsan_hit_size(kcsan_hit_encode(w, 1, 0, 4096, false)), KCSAN_WATCH_SIZE_MAX);
}

/*
 * A CPU preempted between reading a site's count and writing it back: ten
 * executions are counted meanwhile, then its write comes.  The count must
 * stay where the others left it (kcsan_site_count's compare-exchange); a
 * plain store would move it back by ten.
 */
static void counts_never_go_back(void)
{
	static uint64_t table[KCSAN_SITES];
	uintptr_t site = 0x777000;
	uint64_t *e = &table[kcsan_site_hash(site)];

	for (unsigned i = 0; i < 5; i++)
		kcsan_site_tick(table, site);
	uint64_t stale = atomic_load64_relaxed(e); /* the preempted CPU's read: count 5 */
	for (unsigned i = 0; i < 10; i++)
		kcsan_site_tick(table, site);
	CHECK(!kcsan_site_count(e, stale, site), "a stale count's execution was watched");
	CHECK_EQ(*e >> KCSAN_SITE_SHIFT, 15);
	CHECK_EQ(*e & KCSAN_ADDR_MASK, site);
	/* And the next execution counts on from there. */
	kcsan_site_tick(table, site);
	CHECK_EQ(*e >> KCSAN_SITE_SHIFT, 16);
}

static void matching(void)
{
	uint64_t wr = kcsan_watch_encode(0x2000, 8, true),
		 rd = kcsan_watch_encode(0x2000, 8, false);

	/* Every byte of the watched range, from either side, by a write. */
	for (uintptr_t a = 0x2000 - 7; a < 0x2008; a++)
		CHECK(kcsan_watch_matches(wr, a, 8, true), "8-byte write at %#lx misses [0x2000,8)",
		      (unsigned long)a);
	CHECK(!kcsan_watch_matches(wr, 0x2000 - 8, 8, true), "the 8 bytes just below overlap");
	CHECK(!kcsan_watch_matches(wr, 0x2008, 1, true), "the byte just above overlaps");
	CHECK(kcsan_watch_matches(wr, 0x2007, 1, false), "a read of the last byte misses a write");
	CHECK(kcsan_watch_matches(rd, 0x2004, 4, true), "a write misses a read's watchpoint");
	CHECK(!kcsan_watch_matches(rd, 0x2000, 8, false), "two reads race");
	CHECK(!kcsan_watch_matches(0, 0, 8, true), "a free slot matches address 0");
	CHECK(!kcsan_watch_matches(wr | KCSAN_HIT_BIT, 0x2000, 8, true),
	      "a hit watchpoint matches");
	/* A range access (memset) covering the watchpoint from far below. */
	CHECK(kcsan_watch_matches(wr, 0x1f10, 255, true));
	CHECK(!kcsan_watch_matches(wr, 0x1f00, 200, true));
}

static void slots(void)
{
	for (unsigned n = 1; n <= KCSAN_SLOTS_MAX; n++) {
		unsigned probes = kcsan_watch_probes(n);

		CHECK(probes >= 1 && probes <= KCSAN_PROBES && probes <= n, "%u slots: %u probes",
		      n, probes);
		for (uintptr_t a = 0; a < (uintptr_t)80 << KCSAN_PAGE_SHIFT; a += 0x7f9) {
			uintptr_t page = a & ~(((uintptr_t)1 << KCSAN_PAGE_SHIFT) - 1);

			for (unsigned i = 0; i < probes; i++) {
				unsigned s = kcsan_watch_slot(a, i, n);

				CHECK(s < n, "slot %u of %u", s, n);
				/* Every address of a page looks where its page's first byte looks. */
				CHECK_EQ(s, kcsan_watch_slot(page, i, n));
				if (i > 0)
					CHECK(s != kcsan_watch_slot(a, 0, n),
					      "%u slots: probe %u repeats probe 0", n, i);
			}
		}
	}
}

static void skip_counter(void)
{
	static const unsigned skips[] = {1, 2, 7, 2000, 1000000};

	for (unsigned k = 0; k < sizeof(skips) / sizeof(skips[0]); k++) {
		unsigned skip = skips[k];
		struct kcsan_skip s, again;
		uint64_t accesses = 0, samples = 0;
		uint32_t lo = UINT32_MAX, hi = 0;

		kcsan_skip_init(&s, 42, 0, skip);
		kcsan_skip_init(&again, 42, 0, skip);
		CHECK_EQ(s.left, again.left, "the same seed gives another first draw");
		while (samples < 20000) {
			uint32_t n = s.left;

			lo = n < lo ? n : lo;
			hi = n > hi ? n : hi;
			/* Exactly n - 1 accesses pass, the n-th is watched. */
			for (uint32_t i = 1; i < n; i++)
				if (kcsan_skip_tick(&s, skip)) {
					CHECK(0, "skip %u: watched after %u of %u", skip, i, n);
					break;
				}
			CHECK(kcsan_skip_tick(&s, skip), "skip %u: not watched after %u", skip, n);
			accesses += n;
			samples++;
			if (skip >= 1000000 && samples >= 200)
				break; /* 200 draws of a million: enough for the bounds and the mean */
		}
		CHECK(lo >= 1 && hi <= (skip > 1 ? 2 * skip - 1 : 1),
		      "skip %u: draws from %u to %u", skip, lo, hi);
		/* Uniform on 1 .. 2 skip - 1: the mean is skip, within a few percent at these counts. */
		double mean = (double)accesses / (double)samples;
		CHECK(mean > skip * 0.9 && mean < skip * 1.1 + 0.01, "skip %u: mean %.1f", skip,
		      mean);
		if (skip >= 7)
			CHECK(hi - lo > skip, "skip %u: draws only from %u to %u", skip, lo, hi);
	}
	/* Two CPUs' counters (streams of one seed) must not sample in step. */
	struct kcsan_skip a, b;
	unsigned same = 0;

	kcsan_skip_init(&a, 1, 0, 100);
	kcsan_skip_init(&b, 1, 1, 100);
	for (unsigned i = 0; i < 1000; i++) {
		same += a.left == b.left;
		kcsan_skip_tick(&a, 1);
		kcsan_skip_tick(&b, 1);
		a.left = kcsan_skip_draw(&a.rng, 100);
		b.left = kcsan_skip_draw(&b.rng, 100);
	}
	CHECK(same < 100, "CPUs 0 and 1 drew the same count %u times in 1000", same);
	/* Seed 0 (the boot's default is 1, but seed=0 is allowed) must not leave xorshift stuck at 0. */
	struct kcsan_skip z;
	kcsan_skip_init(&z, 0, 0, 100);
	CHECK(z.rng.state != 0);
}

/* The rare sites: which executions of a site are watched, and a full neighbourhood. */
static void rare_sites(void)
{
	static uint64_t table[KCSAN_SITES];
	uintptr_t site = 0x123456;

	for (uint64_t n = 1; n <= KCSAN_SITE_COUNT_MAX + 10; n++) {
		bool want = n <= KCSAN_SITE_EVERY || (n <= KCSAN_SITE_COUNT_MAX && !(n & (n - 1)));

		if (kcsan_site_tick(table, site) != want) {
			CHECK(0, "site execution %llu: watched %d, expected %d",
			      (unsigned long long)n, !want, want);
			break;
		}
	}
	/* Another site is counted apart, from its own first execution. */
	CHECK(kcsan_site_tick(table, site + 1), "a second site's first execution not watched");
	CHECK(kcsan_site_tick(table, site + 1), "a second site's second execution not watched");

	/* Sites that all hash to one entry fill its probes; the next is left to the skip. */
	memset(table, 0, sizeof(table));
	uintptr_t same[KCSAN_SITE_PROBES + 1];
	unsigned found = 0, want_h = ~0u;
	for (uintptr_t ip = 0x100000; found < KCSAN_SITE_PROBES + 1; ip++) {
		unsigned h = kcsan_site_hash(ip);

		if (want_h == ~0u)
			want_h = h;
		if (h == want_h)
			same[found++] = ip;
	}
	for (unsigned i = 0; i < KCSAN_SITE_PROBES; i++)
		CHECK(kcsan_site_tick(table, same[i]),
		      "colliding site %u: first execution not watched", i);
	CHECK(!kcsan_site_tick(table, same[KCSAN_SITE_PROBES]),
	      "a site with no room in its neighbourhood was watched");
	for (unsigned i = 0; i < KCSAN_SITE_PROBES; i++)
		CHECK(kcsan_site_tick(table, same[i]),
		      "colliding site %u: second execution not watched", i);
}

int main(void)
{
	encoding_round_trips();
	hit_words();
	matching();
	slots();
	skip_counter();
	rare_sites();
	counts_never_go_back();
	return check_exit("test_kcsan");
}
