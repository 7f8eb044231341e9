// SPDX-License-Identifier: MIT
/*
 * cmdline.h - the kernel command line (docs/interface.md), parsed once at boot.
 *
 * Every other file reads the result from `opts`.  An unknown word, or a
 * value that does not parse, prints one "cmdline: ..." line naming the word
 * and what was expected, and the default stays.  Every word not carried out
 * as given (those, a key given twice, a word with a control byte, the tail
 * past CMDLINE_MAX) is also kept, to be said again beside the verdict
 * (cmdline_verdict); one of a key that selects what is tested fails the run.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "busted_list.h"
#include "fs.h"
#include "lockref.h"
#include "spinlock.h"
#include "suites.h"
#include "topology.h"
#include "trace.h"

/* The longest command line kept, with its NUL; the rest is ignored, with one line saying so. */
#define CMDLINE_MAX 1024

/*
 * The suite (SUITE_* bit) whose tests carry out torture.busted=@busted, 0
 * for BUSTED_NONE: a run that does not start it has not done the word.
 */
unsigned busted_suite(enum busted_kind busted);
/* selftest.fault=: an exception (the panic path), or a lockdep report outside any test. */
enum fault_kind { FAULT_NONE, FAULT_UD, FAULT_GP, FAULT_PF, FAULT_LOCKDEP };
enum exit_kind { EXIT_AUTO, EXIT_HALT, EXIT_REBOOT, EXIT_POWEROFF };
enum pv_kind { PV_AUTO, PV_ON, PV_OFF }; /* spinlock.pv=: auto is on under a hypervisor */
/* selftest.stall=: where the CPU stalls (ktest.c). */
enum stall_where { STALL_NONE, STALL_START, STALL_FS_START, STALL_DEADLINE };
#define STALL_MS_MAX 60000u
enum bench_cpus_kind { BENCH_CPUS_GEO, BENCH_CPUS_ALL, BENCH_CPUS_LIST };
#define BENCH_CPUS_LIST_MAX 64 /* counts bench.cpus= may list */

struct kernel_options {
	unsigned run;		      /* SUITE_* mask */
	bool quick;		      /* small durations everywhere */
	uint64_t seed;		      /* of every pseudo-random choice */
	unsigned torture_ms;	      /* length of each torture test */
	unsigned bench_ms;	      /* one benchmark trial */
	unsigned bench_trials;	      /* measured trials (after one warm-up) */
	char lockref_policy[16];      /* "mainline", "v7", "locked" */
	int lockref_retries;	      /* -1: the policy's own */
	int lockref_wait;	      /* -1: the policy's own, else 0/1 */
	enum lockref_cas lockref_cas; /* lockref.cas= (lib/lockref.h) */
	unsigned smp_max;	      /* use at most this many CPUs */
	enum busted_kind busted;
	enum fault_kind fault;
	unsigned console; /* CONSOLE_* mask (console.h); 0: not given, every console */
	enum exit_kind exit;
	bool screen_dump; /* screen.dump=1: the final screen also goes over serial (# SCREEN) */
	enum pv_kind spinlock_pv;
	enum spin_kind spinlock_kind;	 /* spinlock.kind= (lib/spinlock_kinds.h) */
	unsigned trace_groups;		 /* TRACE_GROUP_* (lib/trace.h); 0: off */
	unsigned trace_events;		 /* per CPU */
	char trace_test[TRACE_NAME_MAX]; /* trace this test only; "": every test */
	int lockdep;			 /* lockdep=: 1 on, 0 off, -1 not given */
	bool lockdep_panic;		 /* lockdep.panic=: a report panics */
	unsigned lockdep_classes;	 /* lockdep.classes=: the class table's usable size */
	enum fs_walk fs_walk;	      /* FS_WALK_RCU (default) or FS_WALK_REF, never FS_WALK_BOOT */
	const char *raw;	      /* the command line as given */
	const char *shown;	      /* the same, each control byte as \xNN: for log lines */
	enum stall_where stall_where; /* selftest.stall=: STALL_NONE, or where CPU stall_cpu */
	unsigned stall_cpu, stall_ms; /* stalls stall_ms ms, once */
	enum topo_place bench_place;  /* bench.place= (lib/topology.h) */
	enum bench_cpus_kind bench_cpus; /* bench.cpus=: geo (the default), all or a list */
	unsigned bench_cpus_n;		 /* bench.cpus=LIST: how many counts, ascending */
	uint16_t bench_cpus_list[BENCH_CPUS_LIST_MAX];
	bool bench_plan;	 /* bench.plan=1: print the sweep and its estimate, run nothing */
	int kcsan;		 /* kcsan=: 1 on, 0 off, -1 not given (on where built in) */
	unsigned kcsan_skip;	 /* kcsan.skip=: accesses between watchpoints, on average */
	unsigned kcsan_delay_us; /* kcsan.delay=: the longest watch, microseconds */
	unsigned kcsan_slots;	 /* kcsan.slots=: watchpoints at once */
};

extern struct kernel_options opts;

/* Parse @line (may be empty); fills `opts`, applying defaults and `quick`. */
void cmdline_parse(const char *line);

/* What a run did, for the tally line beside its verdict (cmdline_verdict). */
struct run_tally {
	bool started;	  /* the test runner printed its plan */
	unsigned suites;  /* in the plan */
	unsigned planned; /* tests registered in those suites */
	unsigned passed, failed, skipped;
	uint64_t ms; /* from the plan to the tally */
};

/*
 * The lines just before "# RESULT": each word of the last cmdline_parse not
 * carried out as given, again ("# cmdline: 'WORD': what was done"), then one
 * "# tally: ..." line (docs/output.md).  Returns @pass, made false when one
 * of those words selects what is tested (cmdline_fails).
 */
bool cmdline_verdict(const struct run_tally *t, bool pass);

/*
 * A word the parser took but the run cannot carry out after all (found
 * later: selftest.stall= names a CPU the run lacks): kept for the verdict
 * as the parser's own are, failing the run if @key selects what is tested.
 * The caller prints its own "cmdline: ..." line.
 */
void cmdline_not_done(const char *key, const char *value, const char *what);

/*
 * The value of the word of @key that the last cmdline_parse took ("" for a
 * flag), or NULL when none was given or none parsed: for a program that
 * acts on only some keys (the native benchmark program) to say which of
 * the others it was given.
 */
const char *cmdline_given(const char *key);

/* Whether a word that selects what is tested was not carried out as given. */
bool cmdline_fails(void);

/*
 * If cmdline_fails(): one "# FAIL: command line: ..." line naming the first
 * such word, for the run's first failure (CI summary, results page).
 */
void cmdline_fail_line(void);

/*
 * Before any other CPU uses a lockref: the boot policy from lockref.policy=,
 * lockref.retries=, lockref.wait= and lockref.cas= (CMPXCHGQ where the CPU
 * lacks CMPXCHG8B, with one line saying so), and the 16-byte form on
 * CMPXCHG16B where the CPU has it (platform_facts); prints one line saying
 * which.  Afterwards opts.lockref_policy and opts.lockref_cas name what the
 * library runs (so does # ENV), even where it refused what was asked.
 * Then the fs's path walk from fs.walk= (fs_set_walk_default), and one line
 * saying which.
 */
void cmdline_apply_lockref(void);

/*
 * Before any other CPU takes a lock: spinlock.kind=, and spinlock.pv= (auto
 * is @auto_on, for the reason @why; it means the same for both kinds);
 * prints one line saying which.  Only CPU 0 runs, and no lock is held: right after setting
 * the kind it calls @locks_reinit (if not NULL), which must spin_init every
 * lock the platform took before, since a free ticket lock's word need not
 * be 0, the queued kind's only free word.
 */
void cmdline_apply_spinlock(bool auto_on, const char *why, void (*locks_reinit)(void));

/*
 * Once every CPU is up, before the tests: trace=, trace.events= and
 * trace.test= (lib/trace.h); prints one line if tracing is on.
 */
void cmdline_apply_trace(void);

/*
 * At boot, on the boot CPU before the others start: turn on the static keys
 * (lib/static_key.h) of the switches that may leave their default later in
 * this run (trace=) or whose reports need every lockless operation counted
 * (the lockref torture).  A key the platform refuses leaves its switch at
 * its default, with a line saying why.
 */
void cmdline_apply_keys(void);

/*
 * Before any other CPU takes a lock, and before the boot's locks are
 * initialised again (cmdline_apply_spinlock), so they get their classes:
 * lockdep= and lockdep.panic= (lib/lockdep.h); prints one line.
 */
void cmdline_apply_lockdep(void);

/* The names of enum lockref_cas ("cmpxchg8b", "cmpxchgq"), for logs and # ENV. */
extern const char *const lockref_cas_names[];
/* The names of enum exit_kind ("auto", "halt", "reboot", "poweroff"). */
extern const char *const exit_names[];

/* The choices of fs.walk= ("rcu", "ref"): the i-th is enum fs_walk FS_WALK_FIRST + i. */
extern const char *const fs_walk_names[];
/* The names of enum stall_where ("start", "fs-start", "deadline"), for selftest.stall=. */
extern const char *const stall_where_names[];

#endif /* KERNEL_CMDLINE_H */
