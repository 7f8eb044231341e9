// SPDX-License-Identifier: MIT
/*
 * static_key.c - the kernel's static keys (lib/static_key.h): each
 * static_key_on() site is a 5-byte NOP until its key goes on, then a 5-byte
 * JMP to the switched code.
 *
 * Protocol: keys change only on the boot CPU before smp_start_aps, which
 * calls static_keys_seal() first.  Then no other CPU can be executing (or
 * have prefetched) the bytes being rewritten, so none of the
 * cross-modifying-code rules of Intel SDM Vol. 3A 8.1.3 apply; the boot CPU
 * itself sees its own stores to code (self-modifying code is detected by
 * the processor, SDM 8.1.3 and 11.6), and the function that patches returns
 * before any patched site runs.  After the seal a request is refused with
 * one line: never a torn instruction on a running CPU.
 *
 * Validation, per site and before any byte of a key is written: the site
 * and the target lie inside the kernel's text, and the site holds the
 * 5-byte NOP that static_key_on() emits (or the JMP to its target, already
 * written).  A site that fails is named in one line and its key stays off,
 * every site of it untouched: the boot goes on with that switch at its
 * default.  The kernel's text is mapped writable (identity 2 MiB pages,
 * boot/entry.asm; kernel/vm.c), so the patch is a plain store.
 */
#include "static_key.h"

#include "platform.h"
#include "string.h"

/* The table and the text, from linker.ld. */
extern const struct static_key_site static_keys_start[], static_keys_end[];
extern const char text_start[], text_end[];

#define STATIC_KEY_INSN 5     /* a site's length: the NOP and the JMP alike */
#define STATIC_KEY_JMP	0xe9u /* JMP rel32 */

static const uint8_t static_key_nop[STATIC_KEY_INSN] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

/* Set by static_keys_seal(): other CPUs may run from here on. */
static bool static_keys_sealed;

/* The JMP rel32 from @site to @target. */
static void static_key_jmp(uint64_t site, uint64_t target, uint8_t out[STATIC_KEY_INSN])
{
	int32_t rel = (int32_t)(target - (site + STATIC_KEY_INSN));

	out[0] = STATIC_KEY_JMP;
	memcpy(&out[1], &rel, sizeof(rel));
}

static bool static_key_in_text(uint64_t addr, uint64_t len)
{
	return addr >= (uintptr_t)text_start && addr + len <= (uintptr_t)text_end &&
	       addr + len > addr;
}

/* Why @s cannot be patched, or NULL if it can. */
static const char *static_key_site_fault(const struct static_key_site *s)
{
	uint8_t jmp[STATIC_KEY_INSN];

	if (!static_key_in_text(s->site, STATIC_KEY_INSN))
		return "the site is outside the kernel's text";
	if (!static_key_in_text(s->target, 1))
		return "the target is outside the kernel's text";
	static_key_jmp(s->site, s->target, jmp);
	if (memcmp((const void *)(uintptr_t)s->site, static_key_nop, STATIC_KEY_INSN) != 0 &&
	    memcmp((const void *)(uintptr_t)s->site, jmp, STATIC_KEY_INSN) != 0)
		return "the site holds neither the expected 5-byte NOP nor its JMP";
	return NULL;
}

bool static_key_enable(struct static_key *key)
{
	uint64_t k = (uintptr_t)key;
	unsigned sites = 0;

	if (key->enabled)
		return true;
	if (key->refused)
		return false; /* its one line was printed */
	if (static_keys_sealed) {
		key->refused = 1;
		platform_log("static_key: '%s' asked to go on while other CPUs run: refused (keys "
			     "change only at boot, before the other CPUs start); it stays off",
			     key->name);
		return false;
	}
	for (const struct static_key_site *s = static_keys_start; s < static_keys_end; s++) {
		const char *why;

		if (s->key != k)
			continue;
		why = static_key_site_fault(s);
		if (why) {
			platform_log("static_key: '%s' site %#llx (target %#llx): %s; the key "
				     "stays off, its switch at its default",
				     key->name, (unsigned long long)s->site,
				     (unsigned long long)s->target, why);
			key->refused = 1;
			return false;
		}
		sites++;
	}
	for (const struct static_key_site *s = static_keys_start; s < static_keys_end; s++) {
		uint8_t jmp[STATIC_KEY_INSN];

		if (s->key != k)
			continue;
		static_key_jmp(s->site, s->target, jmp);
		memcpy((void *)(uintptr_t)s->site, jmp, STATIC_KEY_INSN);
	}
	key->enabled = 1;
	platform_log("static_key: '%s' on (%u sites patched)", key->name, sites);
	return true;
}

void static_keys_seal(void)
{
	static_keys_sealed = true;
}
