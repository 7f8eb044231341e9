// SPDX-License-Identifier: MIT
/*
 * bench_native.c - the kernel's benchmarks on the host's own cores.
 *
 *   bench_native [--cpus=N] [--only=NAME] [--plan] [--sysfs=DIR] [word ...]
 *   bench_native --help
 *
 * Why: every figure the kernel prints comes from an emulator or a guest.
 * The benchmarks (bench/) are portable C on lib/platform.h, so this
 * program runs the very same harness and lib/ code on threads, giving
 * figures that describe the silicon under the host OS.  It takes the
 * kernel command line's words (run=bench bench.ms= bench.trials=
 * lockref.policy= ...; kernel/cmdline.c parses them), runs every entry of
 * bench_cases.h as the kernel's ktest runner would, and prints what a
 * benchmark boot prints: a `# ENV` line (with "platform":"native" and the
 * CPU's model name), KTAP, `# BENCH` lines and `# RESULT pass|fail`, so
 * tools/bench/bench_report.py reads it as it reads a serial log.
 *
 * Thread i plays CPU i and is pinned to the i-th CPU of the plan
 * (bench/bench_plan.h: the CPUs this process may run on, ordered by the
 * sysfs topology as bench.place= says); an all-CPU benchmark runs on N
 * threads (every such CPU, or --cpus=N of them) and measures the counts
 * bench.cpus= names (geo by default).  --plan prints the plan and an
 * estimate and runs nothing; --sysfs=DIR reads the topology from a
 * fixture tree instead of /sys/devices/system/cpu (with --plan only: it
 * describes another machine).  A progress line with an estimate of the
 * time left goes to stderr after each benchmark.  --only=NAME
 * runs that one entry alone: tools/trace/trace_cost.py times the uncontended
 * case in three builds, round after round, and needs nothing else.
 * Threads spin with PAUSE only (platform_host.c's yielding is switched
 * off): a yield would time the scheduler.  The host keeps its interrupts and may still
 * preempt a thread; each BENCH line's overlap and max_gap_us show when it
 * did.
 *
 * Bad input: no right to pin threads, or fewer CPUs than --cpus= asks
 * for, gives one line saying what runs instead; an --only= naming no
 * benchmark, or an option it does not know, gives one line and exit
 * status 2 before anything runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "barrier.h"
#include "bench.h"
#include "bench_cases.h"
#include "bench_plan.h"
#include "cmdline.h"
#include "cpu.h"
#include "platform.h"
#include "printf.h"
#include "platform_host.h"
#include "spinlock.h"
#include "topology.h"
#include "topology_sysfs.h"

/* The longest command line the words make (kernel/cmdline.c cuts at the same length). */
#define NATIVE_CMDLINE_MAX 1024
#define NATIVE_MODEL_MAX   128
#define NATIVE_JSON_MAX	   (2 * NATIVE_CMDLINE_MAX)
#define CPUS_OPTION	   "--cpus="
#define ONLY_OPTION	   "--only="
#define SYSFS_OPTION	   "--sysfs="
#define PLAN_OPTION	   "--plan"
#define HELP_OPTION	   "--help"

/*
 * How long a benchmark may take before the program gives up on it, as the
 * kernel's runner allows: a base, plus every CPU count's trials.
 */
#define NATIVE_BASE_TIMEOUT_MS 120000ull
#define NATIVE_TIMEOUT_FACTOR  4ull
#define NS_PER_MS	       1000000ull
#define KTAP_INDENT	       "  " /* one KTAP nesting level (ktap.rst: two spaces) */
#define KTAP_DIAG	       "# " /* after the indentation host_set_print_indent() adds */

/* One benchmark's run: what its threads share. */
struct native_case {
	const char *name;
	void (*fn)(struct bench_ctx *t);
	const void *id; /* its entry of cases[]: bench_ctx.id, new for every benchmark */
	unsigned ncpus;
	struct barrier barrier;
	volatile bool failed;
	volatile unsigned finished;
};

/* One thread of a run. */
struct native_thread {
	pthread_t thread;
	struct native_case *c;
	unsigned cpu;
};

/* The CPUs this process may use, in the plan's order: thread i runs on cores[i]. */
static int cores[MAX_CPUS];
static unsigned ncores;
static bool pinned = true;
static struct topology topo; /* from sysfs */
static bool emulated;	     /* under QEMU's TCG (CPUID's hypervisor signature) */

static const struct {
	void (*fn)(struct bench_ctx *t);
	const char *name;
	int cpus;
} cases[] = {
#define NATIVE_CASE(fn, name, cpus, ...) {fn, name, cpus},
    BENCH_CASES(NATIVE_CASE)
#undef NATIVE_CASE
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

/*
 * The kernel's keys this program does not act on: it runs no torture, no
 * self-test, no race detector or lock-order checker, on the CPUs it is
 * given (--cpus=), with no console or exit of its own.  Given, each is a
 * word not carried out, as in the kernel: said beside the verdict, and the
 * run fails if it selects what is tested.  docs/interface.md's "acted on
 * by" column says the same; tools/house/cmdline_doc_check.py holds the two together.
 */
static const char *const native_ignored_keys[] = {"torture.secs",
						  "torture.busted",
						  "selftest.fault",
						  "selftest.stall",
						  "smp.max",
						  "console",
						  "exit",
						  "screen.dump",
						  "lockdep",
						  "lockdep.panic",
						  "lockdep.classes",
						  "kcsan",
						  "kcsan.skip",
						  "kcsan.delay",
						  "kcsan.slots",
						  NULL};

/* Each word given that this program does not carry out: one line each, kept for the verdict. */
static void native_words_not_done(void)
{
	const char *run = cmdline_given("run");
	bool traced = !opts.trace_test[0];

	for (unsigned i = 0; native_ignored_keys[i]; i++) {
		const char *key = native_ignored_keys[i], *value = cmdline_given(key);

		if (!value)
			continue;
		platform_print("cmdline: '%s%s%s': a word of the kernel's that bench_native does "
			       "not act on; ignored",
			       key, *value ? "=" : "", value);
		cmdline_not_done(key, *value ? value : NULL, "not acted on by bench_native");
	}
	if (run && opts.run != SUITE_BENCH) {
		platform_print("cmdline: 'run=%s': bench_native runs the bench suite alone; "
			       "expected run=bench",
			       run);
		cmdline_not_done("run", run, "bench_native runs the bench suite alone");
	}
	for (unsigned i = 0; i < NCASES && !traced; i++)
		traced = strcmp(cases[i].name, opts.trace_test) == 0;
	if (!traced) {
		platform_print(
		    "cmdline: 'trace.test=%s': no benchmark of that name; nothing traced",
		    opts.trace_test);
		cmdline_not_done("trace.test", opts.trace_test, "no benchmark of that name");
	}
}

void bench_fail(struct bench_ctx *t, const char *fmt, ...)
{
	struct native_case *c = t->runner;
	char line[PLATFORM_LINE_MAX];
	va_list ap;

	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	platform_print(KTAP_DIAG "FAIL cpu %u: %s", t->cpu, line);
}

void bench_diag(struct bench_ctx *t, const char *fmt, ...)
{
	char line[PLATFORM_LINE_MAX];
	va_list ap;

	(void)t;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	platform_print(KTAP_DIAG "%s", line);
}

bool bench_barrier(struct bench_ctx *t, unsigned timeout_ms)
{
	struct native_case *c = t->runner;

	if (t->ncpus == 1)
		return true;
	if (barrier_wait(&c->barrier, (uint64_t)timeout_ms * NS_PER_MS, c->name))
		return true;
	c->failed = true;
	return false;
}

/* Pin the calling thread to @core; false (errno set) if the OS refuses. */
static bool pin_to(int core)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(core, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

static void *native_thread_main(void *arg)
{
	struct native_thread *th = arg;
	struct native_case *c = th->c;
	struct bench_ctx t = {
	    .cpu = th->cpu,
	    .ncpus = c->ncpus,
	    .ms = opts.bench_ms,
	    .trials = opts.bench_trials,
	    .id = c->id,
	    .runner = c,
	    .emulated = emulated,
	};

	if (pinned)
		pin_to(cores[th->cpu]);
	host_set_cpu_id(th->cpu);
	c->fn(&t);
	__atomic_add_fetch(&c->finished, 1, __ATOMIC_ACQ_REL);
	return NULL;
}

/* What ran, for the tally beside the verdict (cmdline_verdict), as the kernel's runner keeps it. */
static struct run_tally tally;
static uint64_t plan_ns;

/* The bench suite's result, the words not carried out, the tally, the verdict; then exit. */
static __attribute__((noreturn)) void native_finish(unsigned failed)
{
	bool pass;

	host_set_log_hook(NULL);
	host_set_print_indent("");
	platform_print("%s 1 bench", failed ? "not ok" : "ok");
	cmdline_fail_line(); /* as the kernel's runner: the first word that fails the run */
	tally.ms = (platform_now_ns() - plan_ns) / NS_PER_MS;
	pass = cmdline_verdict(&tally, !failed);
	platform_print("# RESULT %s", pass ? "pass" : "fail");
	exit(pass ? 0 : 1);
}

/*
 * Run one benchmark on its threads and wait for them, at most as long as
 * the kernel's runner would.  A benchmark that does not finish in time
 * ends the program: its threads cannot be stopped from outside.
 */
static bool native_run(unsigned number, unsigned idx, unsigned nthreads)
{
	static struct native_case c;
	static struct native_thread threads[MAX_CPUS];
	uint64_t timeout_ms = NATIVE_BASE_TIMEOUT_MS + NATIVE_TIMEOUT_FACTOR * nthreads *
							   (opts.bench_trials + 1) * opts.bench_ms;
	struct timespec deadline;
	uint64_t start_ns = platform_now_ns();

	c = (struct native_case){.name = cases[idx].name, .fn = cases[idx].fn, .id = &cases[idx]};
	c.ncpus = cases[idx].cpus == BENCH_ALL_CPUS ? nthreads : 1;
	barrier_init(&c.barrier, c.ncpus);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (time_t)(timeout_ms / 1000);
	for (unsigned i = 0; i < c.ncpus; i++) {
		threads[i] = (struct native_thread){.c = &c, .cpu = i};
		if (pthread_create(&threads[i].thread, NULL, native_thread_main, &threads[i]) !=
		    0) {
			platform_print("bench_native: cannot start thread %u of %u for %s", i,
				       c.ncpus, c.name);
			exit(1);
		}
	}
	for (unsigned i = 0; i < c.ncpus; i++) {
		if (pthread_timedjoin_np(threads[i].thread, NULL, &deadline) != 0) {
			platform_print(KTAP_DIAG "FAIL: %s did not finish in %llu ms", c.name,
				       (unsigned long long)timeout_ms);
			platform_print("not ok %u %s", number, c.name);
			tally.failed++;
			native_finish(1);
		}
	}
	if (c.finished != c.ncpus && !c.failed) {
		platform_print(KTAP_DIAG "FAIL: only %u of %u threads finished", c.finished,
			       c.ncpus);
		c.failed = true;
	}
	/* The kernel runner's "# duration" diagnostic: the time of the result below. */
	platform_print(KTAP_DIAG "duration: %llu ms",
		       (unsigned long long)((platform_now_ns() - start_ns) / NS_PER_MS));
	platform_print("%s %u %s", c.failed ? "not ok" : "ok", number, c.name);
	tally.failed += c.failed;
	tally.passed += !c.failed;
	return !c.failed;
}

/*
 * The CPUs this process may use, in the plan's order (bench.place=), and
 * how many threads to run: all of them, or --cpus=N of them.  Then
 * whether threads can be pinned at all.
 */
static unsigned native_choose_cpus(unsigned want)
{
	static bool allowed[MAX_CPUS];
	cpu_set_t set;
	unsigned n, nallowed = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		platform_print("bench_native: sched_getaffinity: %s; running 1 thread, unpinned",
			       strerror(errno));
		pinned = false;
		cores[ncores++] = 0;
		return 1;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE && cpu < MAX_CPUS; cpu++)
		if (CPU_ISSET(cpu, &set) && topology_find(&topo, (unsigned)cpu) >= 0)
			allowed[cpu] = true, nallowed++;
	n = bench_plan_make(&topo, allowed, want, opts.bench_place, opts.bench_cpus,
			    opts.bench_cpus_list, opts.bench_cpus_n);
	for (unsigned i = 0; i < bench_plan.ncpus; i++)
		cores[ncores++] = (int)bench_plan.os[i];
	if (want > nallowed)
		platform_print("bench_native: %s%u asks for more CPUs than the %u this process may "
			       "run on; running at most %u threads",
			       CPUS_OPTION, want, nallowed, n);
	if (!pin_to(cores[0])) {
		platform_print("bench_native: cannot pin threads to CPUs (sched_setaffinity: %s); "
			       "running at most %u threads unpinned, wherever the OS puts them",
			       strerror(errno), n);
		pinned = false;
	}
	sched_setaffinity(0, sizeof(set), &set); /* the main thread only waits: anywhere */
	return n;
}

/* The "model name" of /proc/cpuinfo into @buf, or "unknown CPU". */
static void native_cpu_model(char *buf, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, size, "unknown CPU");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || !colon)
			continue;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, size, "%s", colon);
		break;
	}
	if (f)
		fclose(f);
}

/* The hypervisor the host itself runs under, named as the kernel's ENV line names it. */
static void native_hypervisor(char *buf, size_t size)
{
	struct cpuid_regs r = cpuid(CPUID_FEATURES, 0);
	char sig[13];

	if (!(r.ecx & CPUID1_ECX_HV)) {
		snprintf(buf, size, "none");
		return;
	}
	r = cpuid(CPUID_HV_BASE, 0);
	memcpy(sig, &r.ebx, 4);
	memcpy(sig + 4, &r.ecx, 4);
	memcpy(sig + 8, &r.edx, 4);
	sig[12] = '\0';
	if (strncmp(sig, "KVMKVMKVM", 9) == 0)
		snprintf(buf, size, "kvm");
	else if (strcmp(sig, "TCGTCGTCGTCG") == 0)
		snprintf(buf, size, "tcg");
	else {
		/* "bhyve bhyve ": a signature repeats its name to fill 12 bytes; once is enough. */
		size_t n = strlen(sig), half;

		while (n && sig[n - 1] == ' ')
			sig[--n] = '\0';
		half = n / 2;
		if (n % 2 == 1 && sig[half] == ' ' && strncmp(sig, sig + half + 1, half) == 0)
			sig[half] = '\0';
		snprintf(buf, size, "%s", sig);
	}
}

static bool native_invariant_tsc(void)
{
	return cpuid(CPUID_EXT_MAX, 0).eax >= CPUID_EXT_POWER &&
	       (cpuid(CPUID_EXT_POWER, 0).edx & CPUIDX7_EDX_INVTSC);
}

static void native_print_env(unsigned nthreads)
{
	struct platform_facts f = platform_facts();
	char model[NATIVE_MODEL_MAX], model_json[NATIVE_MODEL_MAX * 2], hv[16];
	char cmdline_json[NATIVE_JSON_MAX];
	char topo_json[TOPO_ENV_JSON_MAX], llc_json[TOPO_ENV_LLC_MAX];

	native_cpu_model(model, sizeof(model));
	json_escape(model_json, sizeof(model_json), model);
	json_escape(cmdline_json, sizeof(cmdline_json), opts.raw);
	native_hypervisor(hv, sizeof(hv));
	emulated = strcmp(hv, "tcg") == 0;
	topology_env_json(topo_json, sizeof(topo_json), &topo);
	topology_env_llc_json(llc_json, sizeof(llc_json), &topo);
	platform_print("# ENV {\"platform\":\"native\",\"cpu_model\":\"%s\",\"cpus_found\":%u,"
		       "\"cpus_online\":%u%s,\"pinned\":%s,\"tsc_khz\":%llu,"
		       "\"tsc_source\":\"calibrated\",\"invariant_tsc\":%s,\"hypervisor\":\"%s\","
		       "\"cx16\":%s,\"cmdline\":\"%s\",\"seed\":%llu,\"lockref_policy\":\"%s\","
		       "\"lockref_cas\":\"%s\",\"spinlock_kind\":\"%s\",\"fs_walk\":\"%s\"%s}",
		       model_json, topo.ncpus, nthreads, topo_json, pinned ? "true" : "false",
		       (unsigned long long)f.cycles_khz, native_invariant_tsc() ? "true" : "false",
		       hv, f.cx16 ? "true" : "false", cmdline_json, (unsigned long long)opts.seed,
		       opts.lockref_policy, lockref_cas_names[opts.lockref_cas],
		       spin_kind_names[spin_kind()], fs_walk_name(opts.fs_walk), llc_json);
}

/* --cpus=N: a count from 1 to MAX_CPUS, or exit with a line saying what was expected. */
static unsigned parse_cpus(const char *v)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (*v == '\0' || *end != '\0' || n < 1 || n > MAX_CPUS) {
		fprintf(stderr, "bench_native: '%s%s': expected a CPU count from 1 to %d\n",
			CPUS_OPTION, v, MAX_CPUS);
		exit(2);
	}
	return (unsigned)n;
}

/* --only=NAME: the index of that entry of cases[], or exit with a line listing the names. */
static unsigned parse_only(const char *v)
{
	for (unsigned i = 0; i < NCASES; i++)
		if (strcmp(v, cases[i].name) == 0)
			return i;
	fprintf(stderr, "bench_native: '%s%s': expected one of", ONLY_OPTION, v);
	for (unsigned i = 0; i < NCASES; i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

/* A line the portable code logs while a benchmark runs: a diagnostic of that test. */
static void native_log_diagnostic(const char *line)
{
	platform_print(KTAP_DIAG "%s", line);
}

static void native_usage(FILE *f)
{
	fprintf(f,
		"usage: bench_native [--cpus=N] [--only=NAME] [--plan] [--sysfs=DIR] [word ...]\n"
		"  --cpus=N     run on N of the CPUs this process may use (1 to %d)\n"
		"  --only=NAME  run that benchmark alone\n"
		"  --plan       print the CPUs, the counts of each sweep and an estimate; run "
		"nothing\n"
		"  --sysfs=DIR  the topology from a sysfs tree at DIR (with --plan)\n"
		"  --help       this text\n"
		"  words: the kernel's command line (docs/interface.md), e.g. bench.ms=50 "
		"bench.trials=5 bench.place=cores bench.cpus=geo\n",
		MAX_CPUS);
}

/* A line of the plan, as a diagnostic. */
static void native_plan_line(const char *text)
{
	platform_print(KTAP_DIAG "%s", text);
}

/* After benchmark @done of @count: elapsed time and an estimate of what is left, on stderr. */
static void native_progress(unsigned first, unsigned done, unsigned count, uint64_t start_ns)
{
	uint64_t est_done = 0, est_left = 0, elapsed = (platform_now_ns() - start_ns) / NS_PER_MS;

	for (unsigned i = 0; i < count; i++) {
		uint64_t ms = bench_plan_case_ms(first + i, opts.bench_ms, opts.bench_trials);

		*(i < done ? &est_done : &est_left) += ms;
	}
	/* The estimate scaled by how long the finished part really took. */
	if (est_done)
		est_left = est_left * elapsed / est_done;
	fprintf(stderr,
		"bench_native: %u/%u benchmarks done (%s), %llu s elapsed, about %llu s left\n",
		done, count, cases[first + done - 1].name, (unsigned long long)(elapsed / 1000),
		(unsigned long long)(est_left / 1000));
}

int main(int argc, char **argv)
{
	char line[NATIVE_CMDLINE_MAX] = "";
	size_t len = 0;
	unsigned want = 0, nthreads, failed = 0;
	unsigned first = 0, count = NCASES; /* the entries of cases[] to run */
	const char *sysfs = NULL;
	bool plan = false;
	uint64_t start_ns;

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], CPUS_OPTION, strlen(CPUS_OPTION)) == 0) {
			want = parse_cpus(argv[i] + strlen(CPUS_OPTION));
			continue;
		}
		if (strncmp(argv[i], ONLY_OPTION, strlen(ONLY_OPTION)) == 0) {
			first = parse_only(argv[i] + strlen(ONLY_OPTION));
			count = 1;
			continue;
		}
		if (strncmp(argv[i], SYSFS_OPTION, strlen(SYSFS_OPTION)) == 0) {
			sysfs = argv[i] + strlen(SYSFS_OPTION);
			continue;
		}
		if (strcmp(argv[i], PLAN_OPTION) == 0) {
			plan = true;
			continue;
		}
		if (strcmp(argv[i], HELP_OPTION) == 0) {
			native_usage(stdout);
			return 0;
		}
		if (strncmp(argv[i], "--", 2) == 0) {
			fprintf(
			    stderr,
			    "bench_native: unknown option '%s': expected --cpus=N, --only=NAME, "
			    "--plan, --sysfs=DIR or --help (nothing was run)\n",
			    argv[i]);
			return 2;
		}
		len += (size_t)snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
					"%s%s", len ? " " : "", argv[i]);
	}
	if (sysfs && !plan) {
		fprintf(stderr,
			"bench_native: %s%s describes another machine: only with %s "
			"(nothing was run)\n",
			SYSFS_OPTION, sysfs, PLAN_OPTION);
		return 2;
	}
	cmdline_parse(line);
	plan = plan || opts.bench_plan; /* bench.plan=1 is --plan, as the kernel takes it */
	if (!topology_from_sysfs(&topo, sysfs ? sysfs : TOPOLOGY_SYSFS_ROOT))
		platform_print(
		    "topology: WARNING: %s; taking every CPU as its own core, package and "
		    "LLC group",
		    topo.why);
	{
		char text[PLATFORM_LINE_MAX];

		topology_describe(text, sizeof(text), &topo);
		platform_print("topology: %s (%s)", text, topo.source);
	}
	if (plan) {
		/* Another machine's CPUs: no affinity to ask, nothing pinned or run. */
		bench_plan_make(&topo, NULL, want, opts.bench_place, opts.bench_cpus,
				opts.bench_cpus_list, opts.bench_cpus_n);
		bench_plan_print(opts.bench_ms, opts.bench_trials, native_plan_line);
		return 0;
	}
	native_words_not_done();
	host_set_relax_yield(false);
	nthreads = native_choose_cpus(want);
	bench_plan_print(opts.bench_ms, opts.bench_trials, native_plan_line);
	host_set_cpu_count(nthreads);
	/* The host platform has no lock of its own to re-initialise. */
	cmdline_apply_spinlock(false, "threads pinned one per core are not oversubscribed", NULL);
	cmdline_apply_lockref();
	cmdline_apply_keys();
	cmdline_apply_trace();
	native_print_env(nthreads);
	platform_print("KTAP version 1\n1..1");
	/* Every line of the bench subtest, the portable code's included, at its level. */
	host_set_print_indent(KTAP_INDENT);
	host_set_log_hook(native_log_diagnostic);
	platform_print("KTAP version 1");
	platform_print("# Subtest: bench");
	platform_print("1..%u", count);
	start_ns = plan_ns = platform_now_ns();
	tally = (struct run_tally){.started = true, .suites = 1, .planned = count};
	for (unsigned i = 0; i < count; i++) {
		failed += !native_run(i + 1, first + i, nthreads);
		native_progress(first, i + 1, count, start_ns);
	}
	trace_dump();
	native_finish(failed);
}
