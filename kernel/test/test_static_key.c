// SPDX-License-Identifier: MIT
/*
 * test_static_key.c - the `keys` suite: static keys switched on a running
 * SMP machine (kernel/static_key.c, docs/static-keys.md).
 *
 * The torture: one CPU flips every key whose switch is at its default, on
 * and off in one patching round each, thousands of times, while every other
 * CPU runs through the keys' sites: a spinlock and a counter, a lockref's
 * get and put, and path lookups in an fs.  Both paths behind a key agree
 * while its switch is at its default, so whatever a CPU runs, the counts
 * must come out exact; a CPU that executes a torn site takes an exception
 * (a panic: the run fails), and a lock's lost wake-up shows as a waiter
 * that never comes back (the end barrier's timeout, or the lock's own
 * deadlock report).  The second test does the same with paravirtual
 * waiting on, so waiters halt and are kicked while the keys flip.
 *
 * torture.busted=static-key: the flipper writes each site's five bytes in
 * place, one at a time, with nobody parked and no serialising step (the
 * protocol the SDM warns against); the run must fail.
 *
 * The refusals: a key with no site, a site whose bytes are neither the NOP
 * nor its JMP at patch time, and a flip asked from inside an interrupt
 * handler or an NMI handler each leave the key as it was, with one line,
 * and the boot goes on.
 */
#include "apic.h"
#include "atomic.h"
#include "cmdline.h"
#include "cpu.h"
#include "fs.h"
#include "ktest.h"
#include "lockref.h"
#include "percpu.h"
#include "printf.h"
#include "spinlock.h"
#include "spinlock_pv.h"
#include "static_key.h"
#include "string.h"
#include "trace.h"
#include "trap.h"
#include "tsc.h"

/*
 * Patching rounds of the flipper (every key on, or every key off): at least
 * KEYS_ROUNDS_MIN, thousands of key flips, then more until torture.secs has
 * passed, up to KEYS_ROUNDS_MAX.  Under TCG a round takes 50 ms at 4 vCPUs
 * and 500 ms at 16 on 2 host cores, so the minimum alone is minutes there.
 */
#define KEYS_ROUNDS_MIN 400u
#define KEYS_ROUNDS_MAX 20000u
/* The busted flipper's pause between two bytes of a site: the window a torn site is fetched in. */
#define KEYS_BUSTED_BYTE_US 20u
#define KEYS_BARRIER_MS	    120000u
#define KEYS_FS_SLOTS	    64u
#define KEYS_PATH	    "/keys/file"
/* How long the interrupt test waits for its own IPI. */
#define KEYS_IPI_WAIT_US 2000000u

/* What every CPU works on while the keys flip; reset by CPU 0 before the start barrier. */
static struct {
	spinlock_t lock;
	uint64_t locked_count; /* under lock */
	struct lockref ref;
	struct fs *fs;
	uint8_t stop;
	uint64_t ops[MAX_CPUS][3]; /* per CPU: lock, lockref, fs operations */
	uint64_t errors;
} keys_load;

enum { OPS_LOCK, OPS_LOCKREF, OPS_FS };

/* One pass of the load: every kind once. */
static void load_once(unsigned cpu)
{
	struct fs_stat st;
	struct fs_node *node;

	spin_lock(&keys_load.lock);
	keys_load.locked_count++;
	spin_unlock(&keys_load.lock);
	keys_load.ops[cpu][OPS_LOCK]++;

	lockref_get(&keys_load.ref);
	if (!lockref_put_or_lock(&keys_load.ref)) {
		keys_load.ref.count--; /* the last reference: never ours (the object holds one) */
		spin_unlock(&keys_load.ref.lock);
		atomic_xadd64(&keys_load.errors, 1);
	}
	keys_load.ops[cpu][OPS_LOCKREF]++;

	if (fs_stat(keys_load.fs, KEYS_PATH, &st) != 0 ||
	    fs_lookup(keys_load.fs, KEYS_PATH, &node) != 0)
		atomic_xadd64(&keys_load.errors, 1);
	else
		fs_put(keys_load.fs, node);
	keys_load.ops[cpu][OPS_FS]++;
}

/* The keys the flipper may flip: those whose switches are at their default now. */
static unsigned flippable_keys(struct static_key *keys[STATIC_KEYS_ROUND_MAX])
{
	unsigned n = 0;

	n += spin_keys_at_default(keys + n);
	n += lockref_keys_bare(keys + n);
	n += trace_keys_at_default(keys + n);
	return n;
}

/* torture.busted=static-key: every site of @keys rewritten in place, byte by byte, nobody parked. */
static void flip_busted(struct static_key *const keys[], unsigned n, bool on)
{
	for (const struct static_key_site *s = static_keys_start; s < static_keys_end; s++) {
		uint8_t bytes[STATIC_KEY_INSN];
		bool ours = false;

		for (unsigned i = 0; i < n; i++)
			ours |= s->key == (uintptr_t)keys[i];
		if (!ours)
			continue;
		static_key_site_bytes(s, on, bytes);
		for (unsigned b = 0; b < STATIC_KEY_INSN; b++) {
			atomic_store8((uint8_t *)(uintptr_t)(s->site + b), bytes[b]);
			udelay(KEYS_BUSTED_BYTE_US);
		}
	}
	for (unsigned i = 0; i < n; i++)
		atomic_store8(&keys[i]->enabled, on ? 1 : 0);
}

/* Every site of @keys holds what its key's state says. */
static bool sites_agree(struct ktest_ctx *t, struct static_key *const keys[], unsigned n)
{
	for (const struct static_key_site *s = static_keys_start; s < static_keys_end; s++)
		for (unsigned i = 0; i < n; i++) {
			uint8_t want[STATIC_KEY_INSN];

			if (s->key != (uintptr_t)keys[i])
				continue;
			static_key_site_bytes(s, keys[i]->enabled, want);
			if (memcmp((const void *)(uintptr_t)s->site, want, STATIC_KEY_INSN) != 0) {
				ktest_fail(t, "key '%s' is %s but its site %#lx does not say so",
					   keys[i]->name, keys[i]->enabled ? "on" : "off",
					   (unsigned long)s->site);
				return false;
			}
		}
	return true;
}

/* CPU 0: flip the flippable keys KEYS_ROUNDS times; true if every round did all of them. */
static bool flip_keys(struct ktest_ctx *t)
{
	struct static_key *keys[STATIC_KEYS_ROUND_MAX];
	unsigned n = flippable_keys(keys), rounds;
	bool busted = opts.busted == BUSTED_STATIC_KEY;
	uint64_t start = tsc_now(), sites = 0, ns_max = 0;
	char names[STATIC_KEYS_ROUND_MAX * 24];
	size_t len = 0;

	if (n == 0) {
		ktest_fail(t, "no key has its switch at its default: nothing to flip");
		return false;
	}
	for (unsigned i = 0; i < n && len < sizeof(names); i++)
		len += (size_t)ksnprintf(names + len, sizeof(names) - len, "%s'%s'", i ? ", " : "",
					 keys[i]->name);
	uint64_t until = start + tsc_from_us((uint64_t)opts.torture_ms * 1000);

	/* Stop only before an "on" round: every key ends off, as it began. */
	for (rounds = 0; rounds < KEYS_ROUNDS_MAX; rounds++) {
		bool on = rounds % 2 == 0;

		if (rounds >= KEYS_ROUNDS_MIN && on && tsc_now() > until)
			break;
		if (busted) {
			flip_busted(keys, n, on);
			continue;
		}
		unsigned done = static_keys_set(keys, n, on, NULL);

		if (done != n) {
			ktest_fail(t, "round %u: %u of %u keys switched %s", rounds, done, n,
				   on ? "on" : "off");
			return false;
		}
		struct static_key_round cost = static_keys_last_round();

		sites = cost.sites;
		ns_max = cost.ns > ns_max ? cost.ns : ns_max;
	}
	uint64_t ms = tsc_to_ns(tsc_now() - start) / 1000000;

	ktest_diag(t,
		   "%u rounds of %s (%u key flips, %llu sites a round) in %llu ms: %llu us a "
		   "round, the longest %llu us%s%s%s",
		   rounds, names, rounds * n, (unsigned long long)sites, (unsigned long long)ms,
		   (unsigned long long)(ms * 1000 / rounds), (unsigned long long)(ns_max / 1000),
		   busted ? " (torture.busted=" : "", busted ? busted_name(BUSTED_STATIC_KEY) : "",
		   busted ? ": in place, nobody parked)" : "");
	return sites_agree(t, keys, n);
}

/* CPU 0, before the start: a fresh lock, lockref and fs with one file. */
static bool load_reset(struct ktest_ctx *t)
{
	memset(&keys_load, 0, sizeof(keys_load));
	spin_init(&keys_load.lock);
	lockref_init(&keys_load.ref);
	keys_load.fs = fs_new(&(struct fs_config){.mem_slots = KEYS_FS_SLOTS});
	if (!keys_load.fs || fs_create(keys_load.fs, "/keys", FS_DIR, NULL) != 0 ||
	    fs_create(keys_load.fs, KEYS_PATH, FS_FILE, NULL) != 0) {
		ktest_fail(t, "the fs for the load could not be built");
		return false;
	}
	return true;
}

/* CPU 0, after the end barrier: every count exact, the object as it began. */
static void load_check(struct ktest_ctx *t)
{
	uint64_t sums[3] = {0, 0, 0};

	for (unsigned c = 0; c < t->ncpus; c++) {
		for (unsigned k = 0; k < 3; k++)
			sums[k] += keys_load.ops[c][k];
		if (c != 0 && !keys_load.ops[c][OPS_LOCK])
			ktest_fail(t, "cpu %u ran no operation while the keys flipped", c);
	}
	if (keys_load.locked_count != sums[OPS_LOCK])
		ktest_fail(t, "the locked counter is %llu after %llu locked increments",
			   (unsigned long long)keys_load.locked_count,
			   (unsigned long long)sums[OPS_LOCK]);
	if (keys_load.ref.count != 1 || spin_is_locked(&keys_load.ref.lock))
		ktest_fail(
		    t, "the lockref ends with count %d%s after %llu get+put pairs (want 1, free)",
		    keys_load.ref.count, spin_is_locked(&keys_load.ref.lock) ? ", locked" : "",
		    (unsigned long long)sums[OPS_LOCKREF]);
	if (keys_load.errors)
		ktest_fail(t, "%llu lockref or fs operations did not return what they must",
			   (unsigned long long)keys_load.errors);
	if (fs_destroy(keys_load.fs) != 0)
		ktest_fail(t, "the fs did not come apart cleanly (a reference lost or kept)");
	ktest_diag(t, "meanwhile %u CPU%s ran %llu lock, %llu lockref and %llu fs operations",
		   t->ncpus - 1, t->ncpus == 2 ? "" : "s", (unsigned long long)sums[OPS_LOCK],
		   (unsigned long long)sums[OPS_LOCKREF], (unsigned long long)sums[OPS_FS]);
}

/* Every CPU: CPU 0 flips, the others run the load until it is done. */
static void flip_under_load(struct ktest_ctx *t, bool pv)
{
	bool ok = true;

	if (t->cpu == 0) {
		ok = load_reset(t);
		spin_pv_set(pv);
		if (pv && !spin_pv_enabled())
			ok = false, ktest_fail(t, "paravirtual waiting could not be turned on");
	}
	if (!ktest_barrier(t, KEYS_BARRIER_MS))
		return;
	if (t->cpu == 0) {
		if (ok)
			(void)flip_keys(t);
		atomic_store8(&keys_load.stop, 1);
	} else if (keys_load.fs) {
		while (!atomic_load8(&keys_load.stop))
			load_once(t->cpu);
	}
	if (!ktest_barrier(t, KEYS_BARRIER_MS) || t->cpu != 0)
		return;
	if (ok)
		load_check(t);
	if (pv) {
		/* Back to the suite's bare path: pv off, then its key (the others ended off). */
		struct static_key *keys[STATIC_KEYS_ROUND_MAX];

		spin_pv_set(false);
		(void)static_keys_set(keys, flippable_keys(keys), false, NULL);
	}
}

static void flip_bare(struct ktest_ctx *t)
{
	flip_under_load(t, false);
}
KTEST(keys, "flip_under_load", flip_bare, KTEST_ALL_CPUS);

static void flip_pv(struct ktest_ctx *t)
{
	flip_under_load(t, true);
}
KTEST(keys, "flip_under_load_pv", flip_pv, KTEST_ALL_CPUS);

/* ---- refusals ---- */

/* A key no static_key_on() names: it has no site. */
static struct static_key key_without_site = STATIC_KEY_INIT("keys.no_site");
/* A key with one site, in site_probe. */
static struct static_key key_with_site = STATIC_KEY_INIT("keys.one_site");

static __attribute__((noinline)) bool site_probe(void)
{
	return static_key_on(&key_with_site);
}

static const struct static_key_site *probe_site(void)
{
	for (const struct static_key_site *s = static_keys_start; s < static_keys_end; s++)
		if (s->key == (uintptr_t)&key_with_site)
			return s;
	return NULL;
}

/* The one-site key goes on and off at run time, and its site follows. */
static void one_site_flips(struct ktest_ctx *t)
{
	if (!static_key_enable(&key_with_site) || !site_probe())
		ktest_fail(t, "keys.one_site: on, but its site still falls through");
	if (!static_key_disable(&key_with_site) || site_probe())
		ktest_fail(t, "keys.one_site: off, but its site still jumps");
}
KTEST(keys, "one_site_flips", one_site_flips, 0);

static void refuse_no_site(struct ktest_ctx *t)
{
	if (static_key_enable(&key_without_site) || key_without_site.enabled)
		ktest_fail(t, "keys.no_site went on although it has no site");
}
KTEST(keys, "refuse_no_site", refuse_no_site, 0);

/* The one-site key's site spoiled (INT3s, never run: nobody calls site_probe meanwhile). */
static void refuse_bad_site(struct ktest_ctx *t)
{
	const struct static_key_site *s = probe_site();
	uint8_t saved[STATIC_KEY_INSN];

	if (!s) {
		ktest_fail(t, "keys.one_site has no site in the table");
		return;
	}
	memcpy(saved, (const void *)(uintptr_t)s->site, STATIC_KEY_INSN);
	memset((void *)(uintptr_t)s->site, 0xcc, STATIC_KEY_INSN);
	bool refused = !static_key_enable(&key_with_site);
	bool untouched = ((const uint8_t *)(uintptr_t)s->site)[1] == 0xcc;

	memcpy((void *)(uintptr_t)s->site, saved, STATIC_KEY_INSN);
	if (!refused || key_with_site.enabled || !untouched)
		ktest_fail(t, "keys.one_site with a spoiled site: %s, key %s, site %s",
			   refused ? "refused" : "not refused",
			   key_with_site.enabled ? "on" : "off",
			   untouched ? "untouched" : "written");
	key_with_site.refused = 0; /* this test's own key: usable again */
	if (!static_key_enable(&key_with_site) || !site_probe() ||
	    !static_key_disable(&key_with_site))
		ktest_fail(t, "keys.one_site does not flip again once its site is whole");
}
KTEST(keys, "refuse_bad_site", refuse_bad_site, 0);

/* From the VEC_TEST or NMI handler: the request, and its answer (1 went on, 2 refused). */
static uint8_t in_handler_answer;

static void enable_from_handler(void)
{
	atomic_store8(&in_handler_answer, static_key_enable(&key_with_site) ? 1 : 2);
}

/* Waits for the handler's answer to the interrupt just sent; false: none came. */
static bool handler_answered(struct ktest_ctx *t, const char *what)
{
	uint64_t end = tsc_now() + tsc_from_us(KEYS_IPI_WAIT_US);
	uint8_t answer;

	while ((answer = atomic_load8(&in_handler_answer)) == 0 && tsc_now() < end)
		cpu_relax();
	if (answer == 0)
		ktest_fail(t, "the %s to this CPU (APIC id %u) did not come within %u us", what,
			   this_cpu()->apic_id, KEYS_IPI_WAIT_US);
	else if (answer == 1 || key_with_site.enabled || site_probe())
		ktest_fail(t, "keys.one_site went on from inside an %s handler", what);
	return answer != 0;
}

static void refuse_in_interrupt(struct ktest_ctx *t)
{
	atomic_store8(&in_handler_answer, 0);
	trap_set_test_hook(enable_from_handler);
	sti();
	apic_send_ipi(this_cpu()->apic_id, VEC_TEST);
	handler_answered(t, "interrupt");
	cli();
	trap_set_test_hook(NULL);
}
KTEST(keys, "refuse_in_interrupt", refuse_in_interrupt, 0);

/* The same from an NMI, which comes whatever RFLAGS.IF says (the park's own vector). */
static void refuse_in_nmi(struct ktest_ctx *t)
{
	atomic_store8(&in_handler_answer, 0);
	trap_set_nmi_test_hook(enable_from_handler);
	apic_send_nmi(this_cpu()->apic_id);
	if (!handler_answered(t, "NMI"))
		trap_set_nmi_test_hook(NULL); /* not taken: no later NMI may run it */
}
KTEST(keys, "refuse_in_nmi", refuse_in_nmi, 0);
