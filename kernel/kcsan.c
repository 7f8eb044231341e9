// SPDX-License-Identifier: MIT
/*
 * kcsan.c - the data race detector's runtime (kcsan.h, docs/kcsan.md).
 *
 * This file is never instrumented (the Makefile leaves it out of
 * -fsanitize=thread): it is what the instrumentation calls.
 *
 * Each instrumented access: first every CPU looks for a watchpoint of
 * another CPU that the access meets (kcsan_watch.h: same bytes, one side a
 * write), and marks it hit with its own site.  Then, for plain accesses
 * only, the CPU counts down its skip counter; at zero it arms a watchpoint
 * for this access, reads the value, waits (a TSC delay), reads it again and
 * removes the watchpoint.  Hit: a race with both sites.  Value changed
 * without a hit: a race with an access the detector could not see (unknown
 * origin: inline assembly, a CPU that did not sample, a device).
 *
 * Reports are kept in a table, not printed where found: the access may be
 * inside the console lock or an interrupt.  CPU 0 prints them after each
 * test (kcsan_flush) and at the end (kcsan_summary).
 */
#include "kcsan.h"

#include "cmdline.h"
#include "console.h"
#include "kcsan_watch.h"
#include "limits.h"
#include "percpu.h"
#include "tsc.h"

#ifndef KCSAN_BUILD

/*
 * The race detector's words, which a kernel built without it cannot act on
 * (docs/interface.md's "acted on by" column; tools/house/cmdline_doc_check.py).
 */
static const char *const plain_ignored_keys[] = {"kcsan", "kcsan.skip", "kcsan.delay",
						 "kcsan.slots", NULL};

/* Each of them given (but kcsan=off, which this kernel does): one line, kept for the verdict. */
void kcsan_init(void)
{
	for (unsigned i = 0; plain_ignored_keys[i]; i++) {
		const char *key = plain_ignored_keys[i], *value = cmdline_given(key);

		if (!value || (i == 0 && opts.kcsan == 0))
			continue;
		printk("cmdline: '%s=%s': this kernel was built without instrumentation (make "
		       "kcsan builds one); no race is looked for\n",
		       key, value);
		cmdline_not_done(key, value, "a kernel built without the race detector");
	}
}

bool kcsan_enabled(void)
{
	return false;
}

void kcsan_set_test(const char *name)
{
	(void)name;
}

uint64_t kcsan_races(void)
{
	return 0;
}

void kcsan_flush(void)
{
}

void kcsan_summary(void)
{
}

#else /* KCSAN_BUILD */

/* Reports kept; more distinct pairs than this are counted, not printed. */
#define KCSAN_REPORTS_MAX	64
/* A hit word holds a CPU index in 8 bits (kcsan_watch.h). */
_Static_assert(MAX_CPUS <= 256, "kcsan_hit_encode keeps 8 bits of CPU index");
/*
 * A rare site's watch lasts this many times longer: its racing partner is
 * as rare, so the window is all the chance there is (kcsan_watch.h).
 */
#define KCSAN_RARE_DELAY_FACTOR 8
/* The report table's lock: bounded, and held only for a scan of the table. */
#define KCSAN_LOCK_SPINS	10000000u

struct kcsan_cpu {
	struct kcsan_skip skip;
	uint32_t busy;	   /* in the runtime, or interrupted inside it: ignore accesses */
	uint64_t accesses; /* instrumented accesses seen while on */
	uint64_t marked;   /* of which atomic or volatile */
	uint64_t armed;	   /* watchpoints armed */
	uint64_t rare;	   /* of which for a rare site (kcsan_watch.h) */
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* One instrumented access, as check() saw it: what hit() and watch() act on. */
struct kcsan_access {
	uintptr_t addr;
	unsigned size; /* bytes, up to KCSAN_WATCH_SIZE_MAX */
	bool write;
	uintptr_t ip; /* the site: the return address of the __tsan_* call */
	unsigned cpu; /* this_cpu_index() */
};

struct kcsan_report {
	uintptr_t ip[2]; /* [1] 0: unknown origin */
	uintptr_t addr;
	uint32_t cpu[2], size[2];
	bool write[2], printed;
	/*
	 * A hit word of another watch's generation (never expected: the hit
	 * word replaces the watchpoint in one exchange): its partner is not
	 * used, ip[1] is 0, and the line names both generations.
	 */
	bool gen_mismatch;
	uint8_t gen[2]; /* the watch's, the hit word's */
	const char *test;
};

static bool on;
static unsigned nslots, skip_mean;
static uint64_t delay_min, delay_span; /* TSC ticks */
static const char *current_test;
static uint64_t slots[KCSAN_SLOTS_MAX];
static uint32_t slot_gens[KCSAN_SLOTS_MAX]; /* arms tried per slot: each watch's generation */
static uint64_t sites[KCSAN_SITES]; /* kcsan_watch.h: executions per site, rare ones watched */
/*
 * linker.ld: the platform's own code, whose rare sites are watched besides
 * the random sample.  Not lib/, fs/ or the suites: the host runs those
 * under ThreadSanitizer, and the tortures' loops would spend their short
 * runs waiting on a new watch every round.
 */
extern const char platform_text_start[], platform_text_end[];
static struct kcsan_cpu kc[MAX_CPUS];
static struct kcsan_report reports[KCSAN_REPORTS_MAX];
static unsigned nreports, table_lock;
static uint64_t races, dropped;

/*
 * Setup, from the command line (kcsan.skip=, kcsan.delay=, kcsan.slots=):
 * the delay is drawn between an eighth of kcsan.delay and all of it, so
 * two CPUs that sample in step do not also stop watching in step.  The
 * release store of `on` is last: a CPU that sees it on sees the slots,
 * the skip counters and the delay already set.
 */
void kcsan_init(void)
{
	if (opts.kcsan == 0) {
		printk("kcsan: off (kcsan=off): accesses are not checked\n");
		return;
	}
	nslots = opts.kcsan_slots;
	skip_mean = opts.kcsan_skip;
	delay_min = tsc_from_us(opts.kcsan_delay_us) / 8;
	delay_span = tsc_from_us(opts.kcsan_delay_us) - delay_min + 1;
	for (unsigned i = 0; i < MAX_CPUS; i++)
		kcsan_skip_init(&kc[i].skip, opts.seed, i, skip_mean);
	printk("kcsan: on: %u slots, one access in ~%u watched for %u-%u us\n", nslots, skip_mean,
	       opts.kcsan_delay_us / 8, opts.kcsan_delay_us);
	__atomic_store_n(&on, true, __ATOMIC_RELEASE);
}

bool kcsan_enabled(void)
{
	return __atomic_load_n(&on, __ATOMIC_ACQUIRE);
}

void kcsan_set_test(const char *name)
{
	__atomic_store_n(&current_test, name, __ATOMIC_RELEASE);
}

uint64_t kcsan_races(void)
{
	return __atomic_load_n(&races, __ATOMIC_ACQUIRE);
}

/*
 * The report table.  Races are found wherever an access happens, inside
 * the console's lock or an interrupt handler, where printing would
 * deadlock or reorder the log; so they are kept here and CPU 0 prints
 * them between tests.  The table's lock is a bounded flag, not a
 * spinlock_t: the lock layer is instrumented, and a detector that took an
 * instrumented lock would watch itself.  A report it cannot keep is still
 * counted, so the verdict never misses a race.
 */
static bool table_lock_get(void)
{
	for (unsigned n = 0; n < KCSAN_LOCK_SPINS; n++) {
		if (!__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
			return true;
		__asm__ volatile("pause");
	}
	return false; /* a CPU stopped holding it (NMI, panic): the report is only counted */
}

/* Keep a report unless its pair of sites (in either order) is kept already. */
static void record(const struct kcsan_report *r)
{
	__atomic_fetch_add(&races, 1, __ATOMIC_RELEASE);
	if (!table_lock_get()) {
		__atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	for (unsigned i = 0; i < nreports; i++) {
		const struct kcsan_report *o = &reports[i];

		if ((o->ip[0] == r->ip[0] && o->ip[1] == r->ip[1]) ||
		    (o->ip[0] == r->ip[1] && o->ip[1] == r->ip[0])) {
			__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
			return;
		}
	}
	if (nreports < KCSAN_REPORTS_MAX)
		reports[nreports++] = *r;
	else
		__atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
}

/*
 * Printing, on CPU 0 between tests (kcsan_flush) and at the end: one line
 * per pair of sites, the test it happened in first, so a log reader knows
 * which test's verdict it changed (docs/kcsan.md shows the format).
 */
static void print_report(const struct kcsan_report *r)
{
	const char *test = r->test ? r->test : "(between tests)";

	/* Each site is the return address of its __tsan_* call: %pB names the function. */
	if (r->ip[1])
		printk("kcsan: data race in '%s' on 0x%lx: cpu %u %s %u bytes at %pB, cpu %u %s %u "
		       "bytes at %pB\n",
		       test, (unsigned long)r->addr, r->cpu[0], r->write[0] ? "write" : "read",
		       r->size[0], (void *)r->ip[0], r->cpu[1], r->write[1] ? "write" : "read",
		       r->size[1], (void *)r->ip[1]);
	else if (r->gen_mismatch)
		printk("kcsan: data race in '%s' on 0x%lx: cpu %u %s %u bytes at %pB, met by "
		       "another CPU's access whose hit word names watch generation %u, not this "
		       "watch's %u: its site is not used\n",
		       test, (unsigned long)r->addr, r->cpu[0], r->write[0] ? "write" : "read",
		       r->size[0], (void *)r->ip[0], r->gen[1], r->gen[0]);
	else
		printk(
		    "kcsan: data race in '%s' on 0x%lx: cpu %u %s %u bytes at %pB, value changed "
		    "by an access not seen (unknown origin)\n",
		    test, (unsigned long)r->addr, r->cpu[0], r->write[0] ? "write" : "read",
		    r->size[0], (void *)r->ip[0]);
}

void kcsan_flush(void)
{
	if (!kcsan_enabled() || !table_lock_get())
		return;
	unsigned n = nreports;
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
	/* Entries below n are complete and never change but for printed, which only the printing CPU sets. */
	for (unsigned i = 0; i < n; i++) {
		if (!reports[i].printed) {
			print_report(&reports[i]);
			reports[i].printed = true;
		}
	}
}

/*
 * The last line of a boot, for tools/log: how many accesses were seen and
 * watched tells whether a clean run looked at all, not only what it found.
 */
void kcsan_summary(void)
{
	uint64_t accesses = 0, marked = 0, armed = 0, rare = 0;

	if (!kcsan_enabled())
		return;
	kcsan_flush();
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		accesses += __atomic_load_n(&kc[i].accesses, __ATOMIC_RELAXED);
		marked += __atomic_load_n(&kc[i].marked, __ATOMIC_RELAXED);
		armed += __atomic_load_n(&kc[i].armed, __ATOMIC_RELAXED);
		rare += __atomic_load_n(&kc[i].rare, __ATOMIC_RELAXED);
	}
	printk("# KCSAN {\"accesses\":%llu,\"marked\":%llu,\"watchpoints\":%llu,"
	       "\"rare_site_watchpoints\":%llu,\"races\":%llu,"
	       "\"reported\":%u,\"unprinted\":%llu,\"slots\":%u,\"skip\":%u,\"delay_us\":%u}\n",
	       (unsigned long long)accesses, (unsigned long long)marked, (unsigned long long)armed,
	       (unsigned long long)rare, (unsigned long long)kcsan_races(), nreports,
	       (unsigned long long)__atomic_load_n(&dropped, __ATOMIC_RELAXED), nslots, skip_mean,
	       opts.kcsan_delay_us);
}

/*
 * Reading the watched bytes for the change check.  The reads are volatile
 * and of the access's own width, so the compiler neither merges nor
 * splits them: a value that changed between the two reads did change.
 */

/* The value of an access of @size at @addr, for the change check; sizes above 8: the first 8. */
static uint64_t peek(uintptr_t addr, unsigned size)
{
	switch (size) {
	case 1:
		return *(const volatile uint8_t *)addr;
	case 2:
		return *(const volatile uint16_t *)addr;
	case 4:
		return *(const volatile uint32_t *)addr;
	default:
		return size >= 8 ? *(const volatile uint64_t *)addr
				 : *(const volatile uint8_t *)addr;
	}
}

/* The second half of a 16-byte access (0 for others), so the change check sees all of it. */
static uint64_t peek_high(uintptr_t addr, unsigned size)
{
	return size == 16 ? *(const volatile uint64_t *)(addr + 8) : 0;
}

/*
 * Watching: one access of one CPU is held under a watchpoint for a few
 * microseconds while every other CPU's accesses look for it.  Why a delay
 * and not a record of past accesses: the detector keeps no history at all
 * (no vector clocks, no shadow memory), so it costs a few loads per access
 * and finds only races that happen now, the way Linux's KCSAN does; the
 * skip counter decides which accesses are worth the wait.
 */

/*
 * Another CPU met watchpoint @w in slot @s: claim it (only one access may)
 * by putting our site in its place, in one exchange (kcsan_watch.h).
 */
static void hit(unsigned s, uint64_t w, const struct kcsan_access *a)
{
	(void)__atomic_compare_exchange_n(&slots[s], &w,
					  kcsan_hit_encode(w, a->ip, a->cpu, a->size, a->write),
					  false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/*
 * Arm a watchpoint for @a in the first free slot of its page's probes:
 * the slot's index, with the armed word in *@armed, or nslots when every
 * probe is busy (this access is then not watched; the next sample will be).
 */
static unsigned arm(const struct kcsan_access *a, uint64_t *armed)
{
	uint64_t w = kcsan_watch_encode(a->addr, a->size, a->write);

	for (unsigned i = 0; i < kcsan_watch_probes(nslots); i++) {
		unsigned t = kcsan_watch_slot(a->addr, i, nslots);
		uint64_t free = 0;

		/* A generation per attempt, so no two watches of one slot in a row share one. */
		w = kcsan_watch_with_gen(w, __atomic_add_fetch(&slot_gens[t], 1, __ATOMIC_RELAXED));
		if (__atomic_compare_exchange_n(&slots[t], &free, w, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			*armed = w;
			return t;
		}
	}
	return nslots;
}

/*
 * Watch @a: arm a slot, wait, remove it, and keep a report if it was raced.
 * Two witnesses, because each misses what the other sees: a hit word names
 * the other CPU's site but needs that CPU to be instrumented and sampling;
 * a changed value catches any writer (assembly, a device) but names none.
 */
static void watch(struct kcsan_cpu *c, const struct kcsan_access *a, bool rare)
{
	uint64_t w;
	unsigned s = arm(a, &w);

	if (s == nslots)
		return;
	c->armed++;
	uint64_t before = peek(a->addr, a->size), before_high = peek_high(a->addr, a->size);
	uint64_t delay = delay_min + rng_below(&c->skip.rng, delay_span);
	if (rare) {
		delay *= KCSAN_RARE_DELAY_FACTOR;
		c->rare++;
	}
	uint64_t until = tsc_now() + delay;
	while (tsc_now() < until)
		__asm__ volatile("pause");
	bool changed = a->size <= 16 && (peek(a->addr, a->size) != before ||
					 peek_high(a->addr, a->size) != before_high);
	/* Removed, and its hitter (if any) read, in one exchange: the slot is free again. */
	uint64_t old = __atomic_exchange_n(&slots[s], 0, __ATOMIC_ACQ_REL);
	struct kcsan_report r = {
	    .ip = {a->ip, 0},
	    .addr = a->addr,
	    .cpu = {a->cpu, 0},
	    .size = {a->size, 0},
	    .write = {a->write, false},
	    .gen = {(uint8_t)kcsan_watch_gen(w), 0},
	    .test = __atomic_load_n(&current_test, __ATOMIC_ACQUIRE),
	};
	if (kcsan_watch_hit(old) && kcsan_hit_gen(old) != kcsan_watch_gen(w)) {
		r.gen_mismatch = true;
		r.gen[1] = (uint8_t)kcsan_hit_gen(old);
	} else if (kcsan_watch_hit(old)) {
		r.ip[1] = kcsan_hit_ip(old);
		r.cpu[1] = kcsan_hit_cpu(old);
		r.size[1] = kcsan_hit_size(old);
		r.write[1] = kcsan_watch_write(old);
	}
	if (kcsan_watch_hit(old) || changed)
		record(&r);
}

/*
 * Every instrumented access comes here.  @marked: atomic or volatile, which
 * checks the watchpoints but never arms one (the access is meant to race).
 */
static inline __attribute__((always_inline)) void check(uintptr_t addr, unsigned size, bool write,
							bool marked, uintptr_t ip)
{
	if (!__atomic_load_n(&on, __ATOMIC_RELAXED))
		return;
	unsigned cpu = this_cpu_index();
	if (cpu >= MAX_CPUS)
		return;
	struct kcsan_cpu *c = &kc[cpu];
	if (c->busy)
		return;
	c->busy = 1; /* an interrupt from here on is not checked: it must not meet our watchpoint */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->accesses++;
	c->marked += marked;
	/* The access as a struct only where it is handed on: most accesses pass with no stores. */
	for (unsigned i = 0; i < kcsan_watch_probes(nslots); i++) {
		unsigned s = kcsan_watch_slot(addr, i, nslots);
		uint64_t w = __atomic_load_n(&slots[s], __ATOMIC_RELAXED);

		if (kcsan_watch_matches(w, addr, size, write)) {
			const struct kcsan_access a = {addr, size, write, ip, cpu};

			hit(s, w, &a);
			goto out;
		}
	}
	if (!marked) {
		bool rare = ip >= (uintptr_t)platform_text_start &&
			    ip < (uintptr_t)platform_text_end && kcsan_site_tick(sites, ip);

		if (kcsan_skip_tick(&c->skip, skip_mean) || rare) {
			const struct kcsan_access a = {addr, size, write, ip, cpu};

			watch(c, &a, rare);
		}
	}
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->busy = 0;
}

#define IP ((uintptr_t)__builtin_return_address(0))

/* The plain accesses, by size, and their unaligned and volatile (marked) forms. */
/* One entry point: an access of @size bytes, @write or not, @marked or plain. */
#define DEFINE_CHECK(name, size, write, marked)                                                    \
	void name(void *p);                                                                        \
	void name(void *p)                                                                         \
	{                                                                                          \
		check((uintptr_t)p, size, write, marked, IP);                                      \
	}

#define DEFINE_ACCESS(size)                                                                        \
	DEFINE_CHECK(__tsan_read##size, size, false, false)                                        \
	DEFINE_CHECK(__tsan_write##size, size, true, false)                                        \
	DEFINE_CHECK(__tsan_unaligned_read##size, size, false, false)                              \
	DEFINE_CHECK(__tsan_unaligned_write##size, size, true, false)                              \
	DEFINE_CHECK(__tsan_volatile_read##size, size, false, true)                                \
	DEFINE_CHECK(__tsan_volatile_write##size, size, true, true)

DEFINE_ACCESS(1)
DEFINE_ACCESS(2)
DEFINE_ACCESS(4)
DEFINE_ACCESS(8)
DEFINE_ACCESS(16)

/* Struct copies and the like: one access of the whole range (watched up to KCSAN_WATCH_SIZE_MAX). */
#define DEFINE_RANGE(name, write)                                                                  \
	void name(void *p, unsigned long size);                                                    \
	void name(void *p, unsigned long size)                                                     \
	{                                                                                          \
		check((uintptr_t)p,                                                                \
		      size > KCSAN_WATCH_SIZE_MAX ? KCSAN_WATCH_SIZE_MAX : (unsigned)size, write,  \
		      false, IP);                                                                  \
	}

DEFINE_RANGE(__tsan_read_range, false)
DEFINE_RANGE(__tsan_write_range, true)

/*
 * The atomics (lib/atomic.h's __atomic builtins in this build): marked
 * accesses, then the operation itself, sequentially consistent whatever
 * order was asked (on x86 a locked instruction is one anyway).
 */
#define DEFINE_ATOMIC(bits, type)                                                                  \
	type __tsan_atomic##bits##_load(const volatile type *p, int mo);                           \
	void __tsan_atomic##bits##_store(volatile type *p, type v, int mo);                        \
	type __tsan_atomic##bits##_load(const volatile type *p, int mo)                            \
	{                                                                                          \
		(void)mo;                                                                          \
		check((uintptr_t)p, bits / 8, false, true, IP);                                    \
		return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                       \
	}                                                                                          \
	void __tsan_atomic##bits##_store(volatile type *p, type v, int mo)                         \
	{                                                                                          \
		(void)mo;                                                                          \
		check((uintptr_t)p, bits / 8, true, true, IP);                                     \
		__atomic_store_n(p, v, __ATOMIC_SEQ_CST);                                          \
	}                                                                                          \
	DEFINE_RMW(bits, type, exchange, __atomic_exchange_n)                                      \
	DEFINE_RMW(bits, type, fetch_add, __atomic_fetch_add)                                      \
	DEFINE_RMW(bits, type, fetch_sub, __atomic_fetch_sub)                                      \
	DEFINE_RMW(bits, type, fetch_and, __atomic_fetch_and)                                      \
	DEFINE_RMW(bits, type, fetch_or, __atomic_fetch_or)                                        \
	DEFINE_RMW(bits, type, fetch_xor, __atomic_fetch_xor)                                      \
	DEFINE_CAS(bits, type, strong, false)                                                      \
	DEFINE_CAS(bits, type, weak, true)

/* A compare-exchange: a marked write whether or not it succeeds (it may). */
#define DEFINE_CAS(bits, type, kind, weak)                                                         \
	int __tsan_atomic##bits##_compare_exchange_##kind(volatile type *p, type *old, type v,     \
							  int mo, int fmo);                        \
	int __tsan_atomic##bits##_compare_exchange_##kind(volatile type *p, type *old, type v,     \
							  int mo, int fmo)                         \
	{                                                                                          \
		(void)mo, (void)fmo;                                                               \
		check((uintptr_t)p, bits / 8, true, true, IP);                                     \
		return __atomic_compare_exchange_n(p, old, v, weak, __ATOMIC_SEQ_CST,              \
						   __ATOMIC_SEQ_CST);                              \
	}

#define DEFINE_RMW(bits, type, op, builtin)                                                        \
	type __tsan_atomic##bits##_##op(volatile type *p, type v, int mo);                         \
	type __tsan_atomic##bits##_##op(volatile type *p, type v, int mo)                          \
	{                                                                                          \
		(void)mo;                                                                          \
		check((uintptr_t)p, bits / 8, true, true, IP);                                     \
		return builtin(p, v, __ATOMIC_SEQ_CST);                                            \
	}

DEFINE_ATOMIC(8, uint8_t)
DEFINE_ATOMIC(16, uint16_t)
DEFINE_ATOMIC(32, uint32_t)
DEFINE_ATOMIC(64, uint64_t)

/* Fences and TSan's happens-before annotations: this detector keeps no clocks. */
void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_signal_fence(int mo);
void __tsan_acquire(void *p);
void __tsan_release(void *p);
void __tsan_init(void);
void __tsan_atomic_thread_fence(int mo)
{
	(void)mo;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
void __tsan_atomic_signal_fence(int mo)
{
	(void)mo;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}
void __tsan_acquire(void *p)
{
	(void)p;
}
/*
 * lib/atomic.h's 16-byte compare-exchange stays inline assembly in this
 * build, and calls this just before it: the one place to see it, as the
 * marked 16-byte write it may be.
 */
void __tsan_release(void *p)
{
	check((uintptr_t)p, 16, true, true, IP);
}
/* Called by a constructor in every object; the kernel runs no constructors, kcsan_init starts us. */
void __tsan_init(void)
{
}

#endif /* KCSAN_BUILD */
