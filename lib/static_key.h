// SPDX-License-Identifier: MIT
/*
 * static_key.h - run-time switches that cost nothing while they are off.
 *
 * Why: the lockref's lockless path is one load, one test, one new value and
 * one locked compare-exchange; on a CPU whose locked instruction costs
 * about 20 cycles or less, a load of a switch word and its branch beside it
 * show in every operation (docs/benchmarks.md, "What the lockless path
 * costs, piece by piece").  Tracing, the lock kind, the paravirtual mode,
 * lock-order checking, the lockref policy and the lockref statistics are
 * all switches that stay at their default in most boots.  A static key is
 * the question "is this switch off its default?" asked without reading
 * memory: in the manner of Linux's jump labels, each static_key_on() site
 * is a 5-byte NOP that falls through to the default code, listed in a
 * table of {site, target, key}; turning the key on rewrites every site of
 * the key into a 5-byte JMP to the code that reads the switch.
 *
 * The platform decides how (lib/platform.h's <platform_cpu.h> defines
 * PLATFORM_STATIC_KEYS_PATCHED where it patches text):
 *   kernel  patched text (kernel/static_key.c): a key may change at any
 *           time, on a running SMP machine, outside an interrupt or NMI
 *           handler.  The writer parks every other CPU in an NMI handler
 *           that runs no patched code, writes, and releases them; each
 *           executes CPUID before it returns to the code (Intel SDM vol. 3,
 *           "Handling Self- and Cross-Modifying Code"; docs/static-keys.md
 *           argues it).  A site that fails validation, a key with no site
 *           and a request from an interrupt are named in one line and the
 *           key keeps its state: the boot goes on with that switch as it was.
 *   host    text is not patched: static_key_on() is a plain load of the
 *           key's byte, and static_key_guard() is true, so a guarded switch
 *           word is read as it was before the keys (the host tests and the
 *           native benchmark program, whose measured lockref copies are
 *           built with their switches constant instead: lockref_fixed.h).
 *
 * A key says "this switch may be off its default": its owner turns it on
 * before moving the switch off its default, and off only once the switch is
 * back at its default with no CPU inside code that read the old value (the
 * switch's own rule: between tests, at a barrier).  While the switch is at
 * its default both paths behind the key agree, so the key may flip at any
 * moment then (the key torture, kernel/test/test_static_key.c, flips them
 * so under load).
 */
#ifndef LIB_STATIC_KEY_H
#define LIB_STATIC_KEY_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "platform.h"

struct static_key {
	uint8_t enabled;  /* 1 while on; what the host reads and the patcher records */
	uint8_t refused;  /* 1 once a site of it failed validation: later requests fail quietly */
	const char *name; /* for the lines that refuse a change or a site */
};

#define STATIC_KEY_INIT(keyname)                                                                   \
	{                                                                                          \
		.enabled = 0, .refused = 0, .name = keyname                                        \
	}

#ifdef PLATFORM_STATIC_KEYS_PATCHED
/*
 * One table entry per site, in the section the kernel's linker script
 * brackets with static_keys_start and static_keys_end: the site's address
 * (a 5-byte NOP: 0f 1f 44 00 00), where the switched code starts, and the
 * key.  Three quads, so the kernel walks it as struct static_key_site.
 */
struct static_key_site {
	uint64_t site;
	uint64_t target;
	uint64_t key;
};

static inline __attribute__((always_inline)) bool static_key_on(struct static_key *key)
{
	asm goto("1: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
		 ".pushsection .static_keys, \"a\"\n\t"
		 ".balign 8\n\t"
		 ".quad 1b, %l[on], %c0\n\t"
		 ".popsection"
		 :
		 : "i"(key)
		 :
		 : on);
	return false;
on:
	return true;
}
#else
static inline __attribute__((always_inline)) bool static_key_on(struct static_key *key)
{
	return __builtin_expect(atomic_load8_relaxed(&key->enabled), 0);
}
#endif

/*
 * Whether code must read the switch word that @key guards.  Where text is
 * patched, the key itself: a NOP while the switch is at its default.
 * Elsewhere always true: a load of the key's byte would only come before
 * the load of the switch word, which gives the answer alone, so on the
 * host a guarded read costs what it did before the keys (one load).
 * static_key_on() is for a key that guards no word of its own.
 */
static inline __attribute__((always_inline)) bool static_key_guard(struct static_key *key)
{
#ifdef PLATFORM_STATIC_KEYS_PATCHED
	return static_key_on(key);
#else
	(void)key;
	return true;
#endif
}

/* The most keys one patching round takes (static_keys_set). */
#define STATIC_KEYS_ROUND_MAX 8

/*
 * Make each of @keys (@n, at most STATIC_KEYS_ROUND_MAX) on if @on, else
 * off, in one patching round.  Returns how many of them are as asked on
 * return (already, or now).  A key the platform refuses (the kernel: a
 * site that fails validation, a key with no site, a request from an
 * interrupt or NMI handler, a CPU that would not park) keeps its state,
 * with one line naming the key and why.  @why: NULL for no line on
 * success (the key torture), else the one line of the round ends with it.
 */
unsigned static_keys_set(struct static_key *const keys[], unsigned n, bool on, const char *why);

/*
 * Turn @key on.  Returns true if it is on (already, or now); false, with a
 * line naming the key and why, if the platform refused.  A caller that
 * changes a switch behind a key turns the key on first and leaves the
 * switch alone if that fails.
 */
bool static_key_enable(struct static_key *key);

/*
 * Turn @key off: only once its switch is at its default (the key's owner
 * knows).  Returns true if it is off; false, with a line, if refused.
 */
bool static_key_disable(struct static_key *key);

/*
 * Whether code runs its bare path: every switch's default without reading
 * a switch word.  The kernel: true while every key is off (each site a
 * NOP).  The host: never, since static_key_guard() reads the switch word
 * there (the BENCH lines' "path", bench/bench.h).
 */
bool static_keys_bare(void);

#ifdef PLATFORM_STATIC_KEYS_PATCHED
/* What the last successful patching round cost: for the line a caller prints. */
struct static_key_round {
	uint64_t ns;	/* from asking the other CPUs to park to releasing them */
	unsigned sites; /* sites written */
	unsigned cpus;	/* other CPUs parked */
};
struct static_key_round static_keys_last_round(void);

/*
 * The text as it runs, for tools/house/fastpath_check.py --patched: one line
 * "# KEYS jump 0xSITE 0xTARGET 'key'" per site that holds its JMP, then
 * "# KEYS {json}" with the sites, the jumps and the FNV-1a hash of the
 * whole text (text_start..text_end), so the tool can rebuild the running
 * text from the ELF and know it is byte for byte what ran.
 */
void static_keys_dump(void);

/* The bytes @site holds while its key is @on: the 5-byte NOP, or the JMP to @site's target. */
#define STATIC_KEY_INSN 5
void static_key_site_bytes(const struct static_key_site *site, bool on,
			   uint8_t out[STATIC_KEY_INSN]);

/* The site table (the kernel's linker script brackets it). */
extern const struct static_key_site static_keys_start[], static_keys_end[];
#endif

#endif /* LIB_STATIC_KEY_H */
