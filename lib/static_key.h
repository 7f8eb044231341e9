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
 *   kernel  patched text (kernel/static_key.c): a key may change only on
 *           the boot CPU before the other CPUs start, so no CPU can execute
 *           an instruction while it is being rewritten; later requests are
 *           refused with one line and the switch keeps its value.  A site
 *           that fails validation is named in one line and the key stays
 *           off: the boot goes on with that switch at its default.
 *   host    text is not patched: static_key_on() is a plain load of the
 *           key's byte, and static_key_guard() is true, so a guarded switch
 *           word is read as it was before the keys (the host tests and the
 *           native benchmark program, whose measured lockref copies are
 *           built with their switches constant instead: lockref_fixed.h).
 *
 * A key only ever goes from off to on: a switch that returns to its default
 * keeps its key on, and the code behind the key reads the switch word, as
 * it always did.  So a key says "may be off its default", never the reverse.
 */
#ifndef LIB_STATIC_KEY_H
#define LIB_STATIC_KEY_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "platform.h"

struct static_key {
	uint8_t enabled;  /* 1 once on; what the host reads and the patcher records */
	uint8_t refused;  /* 1 once the platform refused it: later requests fail quietly */
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

/*
 * Turn @key on.  Returns true if it is on (already, or now); false, with a
 * line naming the key and why, if the platform refused (the kernel: other
 * CPUs run already, or a site of the key failed validation).  A caller
 * that changes a switch behind a key turns the key on first and leaves the
 * switch alone if that fails.
 */
bool static_key_enable(struct static_key *key);

#ifdef PLATFORM_STATIC_KEYS_PATCHED
/* The platform, just before other CPUs start: every later static_key_enable is refused. */
void static_keys_seal(void);
#endif

#endif /* LIB_STATIC_KEY_H */
