// SPDX-License-Identifier: MIT
/*
 * suite_switches.c - the switches each suite asks for, set between suites
 * in one patching round of the static keys (kernel/static_key.c).
 *
 * Why: a checker on (lockdep=, and paravirtual waiting, on by default
 * under a hypervisor) puts every lock call on its switched path: the
 * lock layer's static key on, its switch word read.  The tests want the
 * checkers; the benchmarks must time the bare path, which is what a lock
 * costs on the machine.  So a CHECKED suite gets the checkers as the
 * command line asks, and a BARE one every checker off and then every key
 * whose switch is at its default off; each BENCH line says which path it
 * timed ("path", bench/bench.h).
 *
 * Between suites no CPU holds or waits for a lock (the other CPUs are idle
 * in smp.c's loop), which is what lockdep_set and spin_pv_set ask of their
 * callers, and what turning a key off needs: no CPU inside code that read
 * the switch before.
 */
#include "suite_switches.h"

#include "cmdline.h"
#include "lockdep.h"
#include "lockref.h"
#include "platform.h"
#include "printf.h"
#include "spinlock.h"
#include "spinlock_pv.h"
#include "static_key.h"
#include "trace.h"

/* The switches in force: the boot's (CHECKED) until a suite asks otherwise. */
static enum suite_switches in_force = SUITE_SWITCHES_CHECKED;
static bool boot_pv_known, boot_pv; /* spinlock.pv= as the boot applied it */

/* Keep those of @keys (@n) that are not @on now, the round's work; returns how many. */
static unsigned keys_to_change(struct static_key *keys[], unsigned n, bool on)
{
	unsigned todo = 0;

	for (unsigned i = 0; i < n; i++)
		if (keys[i]->enabled != on)
			keys[todo++] = keys[i];
	return todo;
}

/* The round's names and cost, for the one line: "'a', 'b' off: N sites patched in one round ...". */
static void round_words(char *out, size_t size, struct static_key *const keys[], unsigned n,
			bool on, unsigned done)
{
	size_t len = 0;
	struct static_key_round r = static_keys_last_round();

	if (!n) {
		ksnprintf(out, size, "no static key to switch %s", on ? "on" : "off");
		return;
	}
	for (unsigned i = 0; i < n && len < size; i++)
		if (keys[i]->enabled == on)
			len += (size_t)ksnprintf(out + len, size - len, "%s'%s'", len ? ", " : "",
						 keys[i]->name);
	if (len < size)
		ksnprintf(out + len, size - len,
			  " %s: %u sites patched in one round of %llu us, %u other CPU%s parked%s",
			  on ? "on" : "off", r.sites, (unsigned long long)(r.ns / 1000), r.cpus,
			  r.cpus == 1 ? "" : "s",
			  done == n ? "" : " (a key refused: its line above)");
}

void suite_switches_apply(enum suite_index suite)
{
	enum suite_switches want = suite_switches[suite];
	struct static_key *keys[STATIC_KEYS_ROUND_MAX];
	char words[192];
	unsigned n = 0, done;

	if (!boot_pv_known) {
		boot_pv = spin_pv_enabled();
		boot_pv_known = true;
	}
	if (want == in_force)
		return;
	in_force = want;
	if (want == SUITE_SWITCHES_CHECKED) {
		bool checked = opts.lockdep == 1;

		/* The key first, in the round this line reports; the setters then find it on. */
		if (checked || boot_pv)
			keys[n++] = &spin_switched_key;
		n = keys_to_change(keys, n, true);
		done = static_keys_set(keys, n, true, NULL);
		lockdep_set(checked);
		spin_pv_set(boot_pv);
		round_words(words, sizeof(words), keys, n, true, done);
		platform_log(
		    "keys: suite '%s' checks: lockdep %s (lockdep=), pv %s (spinlock.pv=); %s",
		    suite_names[suite], checked ? "on" : "off", boot_pv ? "on" : "off", words);
		return;
	}
	bool pv = opts.spinlock_pv == PV_ON; /* asked for by name: the suite keeps it */

	lockdep_set(false);
	spin_pv_set(pv);
	n += spin_keys_at_default(keys + n);
	n += lockref_keys_bare(keys + n);
	n += trace_keys_at_default(keys + n);
	n = keys_to_change(keys, n, false);
	done = static_keys_set(keys, n, false, NULL);
	round_words(words, sizeof(words), keys, n, false, done);
	platform_log(
	    "keys: suite '%s' runs the %s lock path: lockdep off, pv %s; %s%s", suite_names[suite],
	    static_keys_bare() ? "bare" : "switched", pv ? "on" : "off", words,
	    static_keys_bare() ? ""
			       : "; a key stays on for a switch the command line set "
				 "(trace=, lockref.policy=, spinlock.kind=, spinlock.pv=on)");
	static_keys_dump(); /* the text this suite runs, for tools/house/fastpath_check.py --patched */
}
