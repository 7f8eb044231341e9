// SPDX-License-Identifier: MIT
/*
 * busted_list.h - the torture.busted= words (docs/interface.md), declared once.
 *
 * A negative control swaps a deliberately broken lock (or a planted bug)
 * into one test, which must then fail: a harness is trusted only once it
 * was seen to catch what it is there to catch.  Each word is one row here,
 * and everything that used to be kept in step by hand derives from it: the
 * enum busted_kind, the words the parser takes and its error line
 * (kernel/cmdline_options.c), the suite a run must start for the word to be done
 * (busted_suite, cmdline.h), the spinlock torture's broken lock and first diagnostic
 * line (spin_setup, kernel/test/torture_spinlock_setup.c), the host torture's
 * must-fail builds (tests/host/test_torture.c), and docs/interface.md's
 * row, which tools/house/cmdline_doc_check.py holds to these words.
 *
 * X(word, ID, on, kind, breaks, acquire, release, diagnostic):
 *   word        the value of torture.busted=; one row per word, one word
 *               per broken lock (a kind's broken twin is named once: the
 *               ticket lock's is "spinlock", the contract's word)
 *   ID          BUSTED_<ID> of enum busted_kind
 *   on          where it is planted: BUSTED_ON_SPIN (ticket_lock_torture,
 *               the torture of spin_lock, the boot's kind), BUSTED_ON_QSPIN
 *               (qspinlock_torture, the queued lock's own), BUSTED_ON_BOTH,
 *               or the suite whose own file reads opts.busted:
 *               BUSTED_ON_LOCKREF (kernel/test/torture_lockref.c),
 *               BUSTED_ON_BOOT (kernel/test/test_race.c), BUSTED_ON_KEYS
 *               (kernel/test/test_static_key.c)
 *   kind        the lock kind ticket_lock_torture judges the broken lock as
 *               (its fifo and fairness columns): a kind's broken twin is
 *               judged as that kind, anything else as the boot's kind
 *               (BUSTED_BOOT_KIND)
 *   breaks      what goes wrong, which is what the torture must see:
 *               BUSTED_BREAKS_EXCLUSION (two holders at once: the host's
 *               must-fail builds run these), _FAIRNESS (one CPU starves),
 *               _WAKEUP (kicks lost: pv_kick_drop), _QUEUE (a queue step
 *               lost: qspinlock_busted.h's lost-waiter count), _ORDER (an
 *               ABBA deadlock lockdep must report), _RACE (plain accesses
 *               KCSAN must report), _PATCHING (a static-key site torn)
 *   acquire, release  the spinlock torture's lock calls for the word, NULL
 *               for a row planted elsewhere (on another suite)
 *   diagnostic  the spinlock torture's first line for the word, after
 *               "torture.busted=<word>: "; NULL for a row planted elsewhere,
 *               whose file says its own
 *
 * A row with an empty column is a build error naming the row (below), and
 * so are two rows with one word (each word is its own symbol,
 * "torture.busted=<word>", in busted_list.c) or one ID.  A new broken lock is
 * one row here plus its lock (docs/howto.md, "A busted lock").
 */
#ifndef KERNEL_BUSTED_LIST_H
#define KERNEL_BUSTED_LIST_H

#include "spinlock.h"

#define BUSTED_LIST(X)                                                                             \
	X("lockref", LOCKREF, BUSTED_ON_LOCKREF, BUSTED_BOOT_KIND, BUSTED_BREAKS_EXCLUSION, NULL,  \
	  NULL, NULL)                                                                              \
	X("spinlock", SPINLOCK, BUSTED_ON_SPIN, SPIN_KIND_TICKET, BUSTED_BREAKS_EXCLUSION,         \
	  ticket_lock_busted, ticket_unlock_busted,                                                \
	  "running on ticket_lock_busted, which excludes nobody; this test must fail")             \
	X("abba", ABBA, BUSTED_ON_SPIN, BUSTED_BOOT_KIND, BUSTED_BREAKS_ORDER, spin_lock_abba,     \
	  spin_unlock_abba,                                                                        \
	  "a second lock taken inside the first on even CPUs and outside it on odd ones, which "   \
	  "can deadlock; lockdep=on must report it first")                                         \
	X("unfair", UNFAIR, BUSTED_ON_QSPIN, SPIN_KIND_QSPINLOCK, BUSTED_BREAKS_FAIRNESS,          \
	  spin_lock_unfair, spin_unlock_unfair,                                                    \
	  "running on spin_lock_unfair, a test-and-set lock whose odd CPUs wait 1 ms after each "  \
	  "acquisition; this test must fail (starvation)")                                         \
	X("qspinlock-lost-kick", QSPINLOCK_LOST_KICK, BUSTED_ON_QSPIN, SPIN_KIND_QSPINLOCK,        \
	  BUSTED_BREAKS_WAKEUP, qspin_lock, qspin_unlock,                                          \
	  "the real queued lock, paravirtual, with kicks not sent; this test must fail "           \
	  "(lost-wakeup)")                                                                         \
	X("spinlock-lost-kick", SPINLOCK_LOST_KICK, BUSTED_ON_SPIN, BUSTED_BOOT_KIND,              \
	  BUSTED_BREAKS_WAKEUP, spin_lock, spin_unlock,                                            \
	  "the real lock of the boot's kind, paravirtual, with kicks not sent; this test must "    \
	  "fail (lost-wakeup)")                                                                    \
	X("qspinlock-skip-head", QSPINLOCK_SKIP_HEAD, BUSTED_ON_QSPIN, SPIN_KIND_QSPINLOCK,        \
	  BUSTED_BREAKS_QUEUE, qspin_lock_skip_head, qspin_unlock_busted,                          \
	  "running on a queued lock whose queued CPU does not wait for the head "                  \
	  "(qspinlock_busted.h); this test must fail")                                             \
	X("qspinlock-early-handoff", QSPINLOCK_EARLY_HANDOFF, BUSTED_ON_QSPIN,                     \
	  SPIN_KIND_QSPINLOCK, BUSTED_BREAKS_QUEUE, qspin_lock_early_handoff, qspin_unlock_busted, \
	  "running on a queued lock whose head is handed on before the locked byte is set "        \
	  "(qspinlock_busted.h); this test must fail")                                             \
	X("qspinlock-plain-tail", QSPINLOCK_PLAIN_TAIL, BUSTED_ON_QSPIN, SPIN_KIND_QSPINLOCK,      \
	  BUSTED_BREAKS_QUEUE, qspin_lock_plain_tail, qspin_unlock_busted,                         \
	  "running on a queued lock whose queue is emptied with a plain store "                    \
	  "(qspinlock_busted.h); this test must fail")                                             \
	X("race", RACE, BUSTED_ON_BOOT, BUSTED_BOOT_KIND, BUSTED_BREAKS_RACE, NULL, NULL, NULL)    \
	X("static-key", STATIC_KEY, BUSTED_ON_KEYS, BUSTED_BOOT_KIND, BUSTED_BREAKS_PATCHING,      \
	  NULL, NULL, NULL)                                                                        \
	SPIN_KINDS_SWITCHED(BUSTED_KIND_TWIN_ROW, X)

/*
 * BUSTED_LIST's last rows, one per lock kind after the default (whose twin
 * is the "spinlock" row), so that a new kind (docs/howto.md, "A lock kind")
 * gets its word with no row here: the kind's name, BUSTED_<ID>
 * (BUSTED_QSPINLOCK, BUSTED_TAS), its broken twin <prefix>_lock_busted,
 * <prefix>_unlock_busted (spinlock_kinds.h), judged as the kind; the
 * queued kind's twin is also the queued torture's own.
 */
#define BUSTED_KIND_TWIN_ROW(X, name, id, prefix, ...)                                             \
	X(#name, id, SPIN_KIND_##id == SPIN_KIND_QSPINLOCK ? BUSTED_ON_BOTH : BUSTED_ON_SPIN,      \
	  SPIN_KIND_##id, BUSTED_BREAKS_EXCLUSION, prefix##_lock_busted, prefix##_unlock_busted,   \
	  "running on " #prefix "_lock_busted, that kind's broken twin (spinlock_kinds.h); this "  \
	  "test must fail")

/* The on column: the spinlock torture's two tests as bits, or another suite. */
enum busted_on {
	BUSTED_ON_SPIN = 1,
	BUSTED_ON_QSPIN = 2,
	BUSTED_ON_BOTH = BUSTED_ON_SPIN | BUSTED_ON_QSPIN,
	BUSTED_ON_LOCKREF = 4,
	BUSTED_ON_BOOT = 8,
	BUSTED_ON_KEYS = 16,
};

/* The breaks column. */
enum busted_breaks {
	BUSTED_BREAKS_NOTHING, /* no row: torture.busted= not given */
	BUSTED_BREAKS_EXCLUSION,
	BUSTED_BREAKS_FAIRNESS,
	BUSTED_BREAKS_WAKEUP,
	BUSTED_BREAKS_QUEUE,
	BUSTED_BREAKS_ORDER,
	BUSTED_BREAKS_RACE,
	BUSTED_BREAKS_PATCHING,
};

/* The kind column's "judged as the boot's kind": one past the last enum spin_kind. */
#define BUSTED_BOOT_KIND SPIN_KINDS

#define BUSTED_X_ENUM(word, id, ...) BUSTED_##id,
/* torture.busted=, in BUSTED_LIST's order; BUSTED_NONE when not given. */
enum busted_kind {
	BUSTED_NONE,
	BUSTED_LIST(BUSTED_X_ENUM) BUSTED_COUNT, /* one past the last */
	BUSTED_LAST = BUSTED_COUNT - 1,
};
#undef BUSTED_X_ENUM

/*
 * Each row checked whole, at build time: an empty column names its row
 * (an empty word is a row with no word).
 */
#define BUSTED_X_COLUMN(word, column, text)                                                        \
	_Static_assert(sizeof(#column) > 1,                                                        \
		       "BUSTED_LIST row " #word ": empty " text " column (kernel/busted_list.h)");
#define BUSTED_X_CHECK(word, id, on, kind, breaks, acquire, release, diagnostic)                   \
	_Static_assert(sizeof(word "") > 1,                                                        \
		       "BUSTED_LIST row " #id ": empty word column (kernel/busted_list.h)");       \
	BUSTED_X_COLUMN(word, id, "ID")                                                            \
	BUSTED_X_COLUMN(word, on, "on")                                                            \
	BUSTED_X_COLUMN(word, kind, "kind")                                                        \
	BUSTED_X_COLUMN(word, breaks, "breaks")                                                    \
	BUSTED_X_COLUMN(word, acquire, "acquire")                                                  \
	BUSTED_X_COLUMN(word, release, "release")                                                  \
	BUSTED_X_COLUMN(word, diagnostic, "diagnostic")
BUSTED_LIST(BUSTED_X_CHECK)
#undef BUSTED_X_CHECK
#undef BUSTED_X_COLUMN

/*
 * Every lock kind has one broken twin, one row that breaks exclusion judged
 * as that kind (tests/checks/every_kind.sh boots each): N such rows whose
 * bits 1 << kind add up to N one-bits had no carry, so no kind twice.
 */
#define BUSTED_X_TWIN_BIT(word, id, on, kind, breaks, ...)                                         \
	+((breaks) == BUSTED_BREAKS_EXCLUSION && (kind) != BUSTED_BOOT_KIND ? 1u << (kind) : 0u)
#define BUSTED_X_TWIN_COUNT(word, id, on, kind, breaks, ...)                                       \
	+((breaks) == BUSTED_BREAKS_EXCLUSION && (kind) != BUSTED_BOOT_KIND)
_Static_assert((0u BUSTED_LIST(BUSTED_X_TWIN_BIT)) == (1u << SPIN_KINDS) - 1 &&
		   (0u BUSTED_LIST(BUSTED_X_TWIN_COUNT)) == SPIN_KINDS,
	       "BUSTED_LIST: every lock kind of lib/spinlock_kinds.h needs one row breaking "
	       "exclusion with that kind (its broken twin), and no kind two");
#undef BUSTED_X_TWIN_BIT
#undef BUSTED_X_TWIN_COUNT

/* torture.busted='s words, by enum busted_kind less one, NULL after the last (the parser's choices). */
extern const char *const busted_names[BUSTED_COUNT];

/* The on column of @busted's row; 0 for BUSTED_NONE. */
enum busted_on busted_on(enum busted_kind busted);
/* torture.busted='s word for @busted ("none" for BUSTED_NONE). */
const char *busted_name(enum busted_kind busted);
/*
 * The first row planted @on that breaks exclusion (BUSTED_BREAKS_EXCLUSION),
 * BUSTED_NONE if none: the broken lock a must-fail build of @on's
 * torture runs (tests/host/test_torture.c).
 */
enum busted_kind busted_control(enum busted_on on);

/*
 * The word a misspelt torture.busted=@word meant, or NULL: for a lock
 * kind's name, its broken twin's word ("ticket": "spinlock", the contract's
 * word for the default kind's twin), for the parser's error line.
 */
const char *busted_closest(const char *word);

#endif /* KERNEL_BUSTED_LIST_H */
