// SPDX-License-Identifier: MIT
/*
 * static_key.c - the kernel's static keys (lib/static_key.h): each
 * static_key_on() site is a 5-byte NOP while its key is off, a 5-byte JMP
 * to the switched code while it is on, rewritten on a running SMP machine.
 *
 * Protocol: Intel SDM vol. 3, "Handling Self- and Cross-Modifying Code"
 * (8.1.3 in the 2010s editions, 9.1.3 in recent ones): the CPU that writes
 * code stops the others where they execute none of it, writes, and each
 * executes a serialising instruction before it runs the code again.  Here
 * (docs/static-keys.md argues each step):
 *
 *   R1  the writer claims the round (one at a time), turns its own
 *       interrupts off and asks every other online CPU to park: it records
 *       the round's generation in the CPU's park slot, then sends an NMI;
 *   R2  each CPU's NMI handler (static_key_answer_nmi) answers the slot and
 *       spins on the round's release word, running no code that has a
 *       site: NMIs are taken between two instructions, whatever RFLAGS.IF
 *       says, so a parked CPU is at an instruction boundary of code it
 *       will fetch again, and no other CPU executes anything while R3 runs;
 *   R3  once every CPU answered, the writer writes the sites and executes
 *       CPUID (its own instruction fetch sees its stores, SDM "self-
 *       modifying code"), then stores the release word;
 *   R4  each parked CPU sees the release, executes CPUID (serialising: it
 *       discards what it fetched and decoded before, SDM "Serializing
 *       Instructions"), and returns with IRETQ to the code it interrupted.
 *
 * Every wait is bounded: a CPU that does not park within STATIC_KEY_PARK_NS
 * is named in one line, nothing is written and the keys keep their state
 * (the CPUs that parked are released); a parked CPU whose writer does not
 * release it within STATIC_KEY_RELEASE_NS panics naming the writer.
 *
 * Validation, per site and before any byte of a round is written: the site
 * and the target lie inside the kernel's text, and the site holds the NOP
 * or the JMP (either: a key's state and its sites' bytes agree otherwise).
 * A site that fails is named in one line and its key keeps its state, every
 * site of it untouched, and later requests for it fail quietly.  The
 * kernel's text is mapped writable (identity 2 MiB pages, boot/entry.asm;
 * kernel/vm.c), so the patch is a plain store.
 */
#include "static_key.h"

#include "apic.h"
#include "atomic.h"
#include "cpu.h"
#include "kcsan.h"
#include "limits.h"
#include "panic.h"
#include "percpu.h"
#include "platform.h"
#include "printf.h"
#include "string.h"
#include "tsc.h"

/* Its 5-byte NOP and JMP rel32 (SDM vol. 2B, NOP: "0F 1F 44 00 00"). */
#define STATIC_KEY_JMP 0xe9u
/* How long the writer waits for each CPU to park, and a parked CPU for the writer. */
#define STATIC_KEY_PARK_NS    (10ull * 1000 * 1000 * 1000)
#define STATIC_KEY_RELEASE_NS (30ull * 1000 * 1000 * 1000)

/* The text, from linker.ld. */
extern const char text_start[], text_end[];

static const uint8_t static_key_nop[STATIC_KEY_INSN] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

/*
 * Each CPU's park request lives in its struct cpu (kernel/percpu.h), as the
 * fence's does: key_park_asked is the generation of the round that asked it
 * to park (written by the writer before the NMI), key_park_answered the last
 * one it answered.  A CPU's NMI is a park request iff the two differ when it
 * arrives.  (A table of its own would add 32 KiB of .bss to an image that
 * must stay under 4 MiB.)
 */
static uint8_t round_busy;		 /* a round is in progress: one at a time */
static uint64_t round_generation;	 /* the last round's number, bumped by its writer */
static uint64_t round_released;		 /* the last round whose writer let its CPUs go */
static uint32_t round_writer = MAX_CPUS; /* the CPU writing now (MAX_CPUS: none) */
static uint8_t round_nmi_deferred;	 /* an NMI the writer took mid-round that was not ours */
/* STATIC_KEY_RELEASE_NS in TSC cycles, set by the writer: the park loop calls nothing of tsc.c. */
static uint64_t round_release_cycles;
static struct static_key_round round_last;

static void serialise(void)
{
	(void)cpuid(0, 0); /* CPUID: serialising (SDM vol. 3, "Serializing Instructions") */
}

void static_key_site_bytes(const struct static_key_site *s, bool on, uint8_t out[STATIC_KEY_INSN])
{
	int32_t rel = (int32_t)(s->target - (s->site + STATIC_KEY_INSN));

	if (!on) {
		memcpy(out, static_key_nop, STATIC_KEY_INSN);
		return;
	}
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
	static_key_site_bytes(s, true, jmp);
	if (memcmp((const void *)(uintptr_t)s->site, static_key_nop, STATIC_KEY_INSN) != 0 &&
	    memcmp((const void *)(uintptr_t)s->site, jmp, STATIC_KEY_INSN) != 0)
		return "the site holds neither the expected 5-byte NOP nor its JMP";
	return NULL;
}

/*
 * @key's sites, each validated; 0 with the key's one line if one fails or
 * there is none.  @on: the state asked for, for that line.
 */
static unsigned static_key_check_sites(struct static_key *key, bool on)
{
	unsigned sites = 0;

	for (const struct static_key_site *s = static_keys_start; s < static_keys_end; s++) {
		const char *why;

		if (s->key != (uintptr_t)key)
			continue;
		why = static_key_site_fault(s);
		if (why) {
			platform_log("static_key: '%s' site %#llx (target %#llx): %s; the key "
				     "stays %s, its switch %s",
				     key->name, (unsigned long long)s->site,
				     (unsigned long long)s->target, why, on ? "off" : "on",
				     on ? "at its default" : "read as before");
			key->refused = 1;
			return 0;
		}
		sites++;
	}
	if (!sites)
		platform_log("static_key: '%s' asked to go %s: it has no site in the table "
			     "(.static_keys); the key stays %s",
			     key->name, on ? "on" : "off", on ? "off" : "on");
	return sites;
}

static void static_key_write(struct static_key *key, bool on)
{
	for (const struct static_key_site *s = static_keys_start; s < static_keys_end; s++) {
		uint8_t bytes[STATIC_KEY_INSN];

		if (s->key != (uintptr_t)key)
			continue;
		static_key_site_bytes(s, on, bytes);
		memcpy((void *)(uintptr_t)s->site, bytes, STATIC_KEY_INSN);
	}
	atomic_store8(&key->enabled, on ? 1 : 0);
}

/* R1: claim the round, or panic naming its holder after STATIC_KEY_PARK_NS. */
static void round_claim(void)
{
	uint64_t start = tsc_now();

	while (atomic_xchg8(&round_busy, 1)) {
		cpu_relax();
		if (tsc_to_ns(tsc_now() - start) > STATIC_KEY_PARK_NS)
			panic("static_key: cpu %u waited over %llu s for cpu %u's patching round",
			      this_cpu_index(), STATIC_KEY_PARK_NS / 1000000000ull,
			      atomic_load32(&round_writer));
	}
	atomic_store32(&round_writer, this_cpu_index());
}

/*
 * R1 and R2 from the writer's side: every other online CPU asked, then each
 * waited for.  Returns how many parked; @late gets the first CPU that did
 * not within STATIC_KEY_PARK_NS, or MAX_CPUS if every one did.
 */
static unsigned round_park_others(uint64_t gen, unsigned *late)
{
	unsigned self = this_cpu_index(), parked = 0;
	uint64_t start;

	for (unsigned i = 0; i < MAX_CPUS; i++) {
		if (i == self || !atomic_load8(&cpus[i].online))
			continue;
		atomic_store64(&cpus[i].key_park_asked, gen);
		apic_send_nmi(cpus[i].apic_id);
	}
	start = tsc_now();
	*late = MAX_CPUS;
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		if (i == self || atomic_load64_relaxed(&cpus[i].key_park_asked) != gen)
			continue;
		while (atomic_load64(&cpus[i].key_park_answered) != gen) {
			cpu_relax();
			if (tsc_to_ns(tsc_now() - start) > STATIC_KEY_PARK_NS) {
				*late = i;
				return parked;
			}
		}
		parked++;
	}
	return parked;
}

/*
 * The keys of @keys (@n) this round must patch to @on, into @todo: not
 * those already @on (counted in *@done), nor those refused (a key refused
 * before, a call from an interrupt or NMI handler, a site that does not
 * hold what the key expects: each said in one line).  Adds their sites to
 * *@sites; returns how many.
 */
static unsigned keys_to_patch(struct static_key *const keys[], unsigned n, bool on,
			      uintptr_t caller, struct static_key *todo[], unsigned *done,
			      unsigned *sites)
{
	unsigned ntodo = 0;

	for (unsigned i = 0; i < n; i++) {
		struct static_key *key = keys[i];

		if (atomic_load8(&key->enabled) == (on ? 1 : 0)) {
			(*done)++;
			continue;
		}
		if (key->refused)
			continue; /* its one line was printed */
		if (this_cpu()->trap_depth) {
			platform_log(
			    "static_key: '%s' asked to go %s from an interrupt or NMI "
			    "handler (vector %u, caller %#lx): refused, a key changes only "
			    "outside one; it stays %s",
			    key->name, on ? "on" : "off", this_cpu()->trap_vector,
			    (unsigned long)caller, on ? "off" : "on");
			continue;
		}
		unsigned k = static_key_check_sites(key, on);

		if (!k)
			continue;
		*sites += k;
		todo[ntodo++] = key;
	}
	return ntodo;
}

/*
 * R1 to R4: one round that parks every other CPU, writes the @ntodo keys
 * of @todo to @on if all parked, and releases them.  *@parked gets how many
 * parked, *@late the first CPU that did not (MAX_CPUS: none, the keys are
 * written).  Returns the round's time in ns.
 */
static uint64_t round_patch(struct static_key *const todo[], unsigned ntodo, bool on,
			    unsigned *parked, unsigned *late)
{
	uint64_t flags = read_rflags();
	uint64_t start = tsc_now();

	round_claim();
	cli();
	uint64_t gen = atomic_load64_relaxed(&round_generation) + 1;

	atomic_store64(&round_release_cycles, tsc_from_us(STATIC_KEY_RELEASE_NS / 1000));
	atomic_store64(&round_generation, gen);
	*parked = round_park_others(gen, late);
	if (*late == MAX_CPUS) {
		/* R3: nothing else runs; write, then see our own stores as code. */
		for (unsigned i = 0; i < ntodo; i++)
			static_key_write(todo[i], on);
		serialise();
	}
	atomic_store64(&round_released, gen); /* R4 on every parked CPU */
	uint64_t ns = tsc_to_ns(tsc_now() - start);
	bool deferred = atomic_xchg8(&round_nmi_deferred, 0);

	atomic_store32(&round_writer, MAX_CPUS);
	atomic_store8(&round_busy, 0);
	if (flags & RFLAGS_IF)
		sti();
	if (deferred)
		panic("static_key: cpu %u took an NMI that was neither a fence nor a park "
		      "while it patched (held until the round ended)",
		      this_cpu_index());
	return ns;
}

/* The round's one line: the keys' names, what they became and what it cost, then @why. */
static void round_log(struct static_key *const todo[], unsigned ntodo, bool on, const char *why)
{
	char names[STATIC_KEYS_ROUND_MAX * 24];
	size_t len = 0;

	for (unsigned i = 0; i < ntodo && len < sizeof(names); i++)
		len += (size_t)ksnprintf(names + len, sizeof(names) - len, "%s'%s'", i ? ", " : "",
					 todo[i]->name);
	platform_log("static_key: %s %s (%u sites patched in one round of %llu us, %u "
		     "other CPU%s parked)%s%s",
		     names, on ? "on" : "off", round_last.sites,
		     (unsigned long long)(round_last.ns / 1000), round_last.cpus,
		     round_last.cpus == 1 ? "" : "s", why[0] ? ": " : "", why);
}

unsigned static_keys_set(struct static_key *const keys[], unsigned n, bool on, const char *why)
{
	struct static_key *todo[STATIC_KEYS_ROUND_MAX];
	unsigned ntodo, done = 0, sites = 0, parked, late;
	uintptr_t caller = (uintptr_t)__builtin_return_address(0);

	if (n > STATIC_KEYS_ROUND_MAX) {
		platform_log("static_key: %u keys asked in one round, more than %u: the first %u "
			     "only (STATIC_KEYS_ROUND_MAX)",
			     n, STATIC_KEYS_ROUND_MAX, STATIC_KEYS_ROUND_MAX);
		n = STATIC_KEYS_ROUND_MAX;
	}
	ntodo = keys_to_patch(keys, n, on, caller, todo, &done, &sites);
	if (!ntodo)
		return done;
	uint64_t ns = round_patch(todo, ntodo, on, &parked, &late);

	if (late != MAX_CPUS) {
		for (unsigned i = 0; i < ntodo; i++)
			platform_log("static_key: '%s' asked to go %s: cpu %u (APIC id %u) did not "
				     "park within %llu s; nothing written, the key stays %s",
				     todo[i]->name, on ? "on" : "off", late, cpus[late].apic_id,
				     STATIC_KEY_PARK_NS / 1000000000ull, on ? "off" : "on");
		return done;
	}
	round_last = (struct static_key_round){.ns = ns, .sites = sites, .cpus = parked};
	if (why)
		round_log(todo, ntodo, on, why);
	return done + ntodo;
}

bool static_key_enable(struct static_key *key)
{
	return static_keys_set(&key, 1, true, "") == 1;
}

bool static_key_disable(struct static_key *key)
{
	return static_keys_set(&key, 1, false, "") == 1;
}

bool static_keys_bare(void)
{
	for (const struct static_key_site *s = static_keys_start; s < static_keys_end; s++)
		if (atomic_load8(&((struct static_key *)(uintptr_t)s->key)->enabled))
			return false;
	return true;
}

/* FNV-1a, 64 bits: the text's fingerprint in static_keys_dump. */
#define FNV64_OFFSET 0xcbf29ce484222325ull
#define FNV64_PRIME  0x100000001b3ull

void static_keys_dump(void)
{
	unsigned sites = 0, jumps = 0;
	uint64_t hash = FNV64_OFFSET;

	for (const struct static_key_site *s = static_keys_start; s < static_keys_end; s++) {
		const struct static_key *key = (const struct static_key *)(uintptr_t)s->key;

		sites++;
		if (((const uint8_t *)(uintptr_t)s->site)[0] != STATIC_KEY_JMP)
			continue;
		jumps++;
		platform_log("# KEYS jump %#llx %#llx '%s'", (unsigned long long)s->site,
			     (unsigned long long)s->target, key->name);
	}
	for (const uint8_t *b = (const uint8_t *)text_start; b < (const uint8_t *)text_end; b++)
		hash = (hash ^ *b) * FNV64_PRIME;
	platform_log("# KEYS {\"sites\":%u,\"jumps\":%u,\"text_start\":\"%#llx\",\"text_end\":"
		     "\"%#llx\",\"text_fnv1a\":\"%#llx\"}",
		     sites, jumps, (unsigned long long)(uintptr_t)text_start,
		     (unsigned long long)(uintptr_t)text_end, (unsigned long long)hash);
}

struct static_key_round static_keys_last_round(void)
{
	return round_last;
}

/*
 * R2 and R4 on a parked CPU, from the NMI handler: nothing here or in what
 * it calls has a site (tools/house/static_key_park_check.py holds the ELF to
 * that).  @explained: the NMI was already someone's (a fence).  Returns
 * true if the NMI was ours: a park request, or one the writer defers.
 */
KCSAN_EXEMPT bool static_key_answer_nmi(bool explained)
{
	unsigned self = this_cpu_index();
	struct cpu *slot = &cpus[self];
	uint64_t asked = atomic_load64(&slot->key_park_asked), start;

	if (asked == atomic_load64_relaxed(&slot->key_park_answered)) {
		/* The writer mid-round: any other NMI waits until the sites are whole. */
		if (!explained && atomic_load8(&round_busy) &&
		    atomic_load32(&round_writer) == self) {
			atomic_store8(&round_nmi_deferred, 1);
			return true;
		}
		return false;
	}
	atomic_store64(&slot->key_park_answered, asked);
	start = tsc_now();
	while (atomic_load64(&round_released) < asked) {
		cpu_relax();
		if (tsc_now() - start > atomic_load64(&round_release_cycles))
			panic("static_key: cpu %u parked over %llu s waiting for cpu %u to end "
			      "its patching round",
			      self, STATIC_KEY_RELEASE_NS / 1000000000ull,
			      atomic_load32(&round_writer));
	}
	serialise();
	return true;
}
