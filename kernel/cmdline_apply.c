// SPDX-License-Identifier: MIT
/*
 * cmdline_apply.c - hand the lockref.*= and spinlock.*= words to the
 * library, once at boot.
 *
 * Kept apart from the parser (cmdline.c) so the parser stays pure C with no
 * library behind it: the host test and the fuzzer take it alone.  Portable
 * (platform.h only), so the kernel and the native benchmark program set the
 * boot policy the same way, and neither ignores a word it was given.
 */
#include "cmdline.h"

#include "lockdep.h"
#include "fs.h"
#include "lockref.h"
#include "lockref16.h"
#include "platform.h"
#include "spinlock.h"
#include "static_key.h"
#include "string.h"
#include "trace.h"

/*
 * Sleeping waiters pay off when CPUs are virtual and may outnumber the
 * host's cores; the caller says whether that is likely (@auto_on) and why.
 */
void cmdline_apply_spinlock(bool auto_on, const char *why, void (*locks_reinit)(void))
{
	bool on = opts.spinlock_pv == PV_ON || (opts.spinlock_pv == PV_AUTO && auto_on);

	spin_kind_set(opts.spinlock_kind);
	if (locks_reinit)
		locks_reinit();
	spin_pv_set(on);
	/* A static key refused (its line said why): not the lock that was asked for. */
	if (spin_kind() != opts.spinlock_kind) {
		platform_log("cmdline: 'spinlock.kind=%s': refused by the platform; every lock "
			     "stays %s",
			     spin_kind_names[opts.spinlock_kind], spin_kind_names[spin_kind()]);
		cmdline_not_done("spinlock.kind", spin_kind_names[opts.spinlock_kind],
				 "refused by the platform (a static key)");
		opts.spinlock_kind = spin_kind();
	}
	if (opts.spinlock_pv != PV_AUTO && spin_pv_enabled() != on) {
		platform_log(
		    "cmdline: 'spinlock.pv=%s': refused by the platform; the locks stay %s",
		    on ? "on" : "off", spin_pv_enabled() ? "paravirtual" : "plain");
		cmdline_not_done("spinlock.pv", on ? "on" : "off",
				 "refused by the platform (a static key)");
		on = spin_pv_enabled();
	}
	platform_log("spinlock: kind %s (spinlock.kind=%s): every lock, the lockrefs' included",
		     spin_kind_names[opts.spinlock_kind], spin_kind_names[opts.spinlock_kind]);
	platform_log(
	    "spinlock: paravirtual (spin, then halt until kicked) %s (spinlock.pv=%s%s%s)%s",
	    on ? "on" : "off",
	    opts.spinlock_pv == PV_ON	 ? "on"
	    : opts.spinlock_pv == PV_OFF ? "off"
					 : "auto",
	    opts.spinlock_pv == PV_AUTO ? ": " : "", opts.spinlock_pv == PV_AUTO ? why : "",
	    on && !spin_kind_pv(spin_kind())
		? "; the kind in force has no paravirtual waiting: its locks only spin"
		: "");
}

void cmdline_apply_lockref(void)
{
	struct platform_facts cpu = platform_facts();
	struct lockref_policy p;

	if (!lockref_policy_by_name(opts.lockref_policy, &p))
		lockref_policy_by_name("mainline", &p);
	if (opts.lockref_retries >= 0)
		p.retries = (unsigned)opts.lockref_retries;
	if (opts.lockref_wait >= 0)
		p.wait_unlocked = opts.lockref_wait;
	/*
	 * REX.W CMPXCHG exists on every CPU in 64-bit mode; CMPXCHG8B has a
	 * CPUID bit of its own (set on every x86-64 CPU so far, but the bit
	 * is what counts).
	 */
	if (opts.lockref_cas == LOCKREF_CAS_CMPXCHG8B && !cpu.cx8) {
		platform_log("cmdline: 'lockref.cas=cmpxchg8b': this CPU lacks CMPXCHG8B "
			     "(CPUID.01H:EDX.CX8); expected cmpxchg8b or cmpxchgq, using cmpxchgq");
		cmdline_not_done("lockref.cas", "cmpxchg8b",
				 "this CPU lacks CMPXCHG8B; cmpxchgq used instead");
		opts.lockref_cas = LOCKREF_CAS_CMPXCHGQ;
	}
	p.cas = opts.lockref_cas;
	if (!lockref_set_policy(&p)) {
		platform_log("cmdline: lockref.policy=%s with %u lockless attempts: refused by the "
			     "library (expected at most %u); the policy below is in force",
			     opts.lockref_policy, p.retries, LOCKREF_RETRIES_MAX);
		cmdline_not_done("lockref.policy", opts.lockref_policy,
				 "refused by the library; another policy in force");
	}
	lockref16_set_cx16(cpu.cx16);
	/* What the library took, not what was asked: the log, # ENV and reports label by it. */
	p = *lockref_get_policy();
	size_t n = strnlen(p.name, sizeof(opts.lockref_policy) - 1);
	memcpy(opts.lockref_policy, p.name, n);
	opts.lockref_policy[n] = '\0';
	opts.lockref_cas = p.cas;
	platform_log("lockref: policy %s, %u lockless attempts, %s, %s; 16-byte form on %s", p.name,
		     p.retries, p.wait_unlocked ? "waits for the lock to be free" : "no wait",
		     lockref_cas_names[p.cas], cpu.cx16 ? "CMPXCHG16B" : "its lock (no CX16)");
	fs_set_walk_default(opts.fs_walk);
	platform_log("fs: path walk %s (fs.walk=%s)", fs_walk_name(fs_walk_default()),
		     fs_walk_name(opts.fs_walk));
}

void cmdline_apply_trace(void)
{
	trace_configure(opts.trace_groups, opts.trace_events,
			opts.trace_test[0] ? opts.trace_test : NULL);
	if (opts.trace_groups && trace_start())
		platform_log("trace: groups %x, %u events per CPU%s%s", opts.trace_groups,
			     opts.trace_events, opts.trace_test[0] ? ", test " : "",
			     opts.trace_test);
}

void cmdline_apply_lockdep(void)
{
	lockdep_set(opts.lockdep == 1);
	/* The lock layer's check bit needs a static key; refused, no lock reaches the checker. */
	if (opts.lockdep == 1 && !(spin_mode() & SPIN_MODE_CHECKED)) {
		platform_log("cmdline: 'lockdep=on': refused by the platform; no lock is checked");
		cmdline_not_done("lockdep", "on", "refused by the platform (a static key)");
		lockdep_set(false);
		opts.lockdep = 0;
	}
	lockdep_set_panic(opts.lockdep_panic);
	/* Class 0 is "none": N usable classes need N + 1 entries.  The parser kept N in range. */
	lockdep_set_class_limit(opts.lockdep_classes + 1);
	platform_log(
	    "lockdep: lock-order checking %s (lockdep=%s), a report %s (lockdep.panic=%s), "
	    "%u classes at most (lockdep.classes=)",
	    opts.lockdep == 1 ? "on" : "off", opts.lockdep == 1 ? "on" : "off",
	    opts.lockdep_panic ? "panics" : "is printed and the run goes on",
	    opts.lockdep_panic ? "on" : "off", opts.lockdep_classes);
}

void cmdline_apply_keys(void)
{
	/*
	 * The switches that change after the other CPUs start, or whose
	 * reports need every lockless operation counted: their keys go on
	 * now, while only this CPU runs, so the first of those changes costs
	 * no patching round with every CPU parked (lib/static_key.h).  The
	 * rest turn their keys on themselves when they leave their default.
	 */
	if (opts.trace_groups)
		(void)static_key_enable(&trace_key); /* trace_start comes after the other CPUs */
	if (opts.trace_groups & TRACE_GROUP_SPIN)
		(void)static_key_enable(&spin_switched_key);
	/* The lockref torture's lockless counts (the pathwalk benchmark turns it on itself). */
	if (opts.run & SUITE_LOCKREF)
		(void)lockref_stats_count_all();
}
