// SPDX-License-Identifier: MIT
/*
 * test_fs.c - the fs suite (fs/test/fs_suite.h) on host threads, so the
 * sanitizers watch the very code the kernel runs at boot.
 *
 *   test_fs <ms per torture run>
 *
 * Runs every rule case on one thread, a host-only check that a stuck RCU
 * reader is reported rather than waited for forever, then the torture on
 * 2, 4 and 8 threads, printing KTAP-like "ok"/"not ok" lines with the suite's own
 * diagnostics; the cases and tortures once with the RCU-walk (the default) and
 * once with the ref-walk (fs.h, enum fs_walk).  Exits 0 if everything passed.  Under ThreadSanitizer, which
 * slows every access down, each torture runs half as long.
 *
 * Built with -DFS_BUSTED (the negative control), it instead switches on
 * each deliberate bug of fs/busted.h in turn and runs the whole suite
 * against it; every bug must make something fail.  It exits non-zero only
 * if all of them were caught, so a bug the suite misses turns the
 * (must-fail) busted run into a pass, which the harness reports.
 */
#include "busted.h"
#include "fs.h"
#include "fs_impl.h"
#include "fs_suite.h"
#include "lockdep.h"
#include "lockref16.h"
#include "platform.h"
#include "platform_host.h"
#include "rcu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* The seed of every run, so a failure here replays. */
#define HOST_SEED   1
#define MAX_THREADS 8
/* The pretend CPU that stays in a read section, and how long a grace period may wait for it. */
#define STUCK_CPU	 5
#define STUCK_TIMEOUT_NS (20ull * 1000 * 1000)
#ifdef __SANITIZE_THREAD__
#define DURATION_DIVISOR 2
#else
#define DURATION_DIVISOR 1
#endif

static void host_fail(void *arg, const char *line)
{
	(void)arg;
	platform_log("    # FAIL: %s", line);
}

static void host_diag(void *arg, const char *line)
{
	(void)arg;
	platform_log("    # %s", line);
}

static const struct fs_report host_report = {host_fail, host_diag, NULL};

struct host_thread {
	pthread_t thread;
	struct fs_torture *t;
	unsigned cpu;
};

static void *torture_thread(void *arg)
{
	struct host_thread *h = arg;

	host_set_cpu_id(h->cpu);
	fs_torture_run(h->t, h->cpu);
	return NULL;
}

/* The torture on @n threads for @ms; returns true if it passed. */
static bool run_torture(unsigned n, unsigned ms)
{
	struct fs_torture_params p = {
	    .ncpus = n, .duration_ns = (uint64_t)ms * 1000000, .seed = HOST_SEED, .policy = NULL};
	struct host_thread threads[MAX_THREADS];
	struct fs_torture *t = fs_torture_prepare(&p, &host_report);

	if (!t)
		return false;
	host_set_cpu_count(n);
	for (unsigned i = 0; i < n; i++) {
		threads[i] = (struct host_thread){.t = t, .cpu = i};
		if (pthread_create(&threads[i].thread, NULL, torture_thread, &threads[i]) != 0) {
			fprintf(stderr, "test_fs: cannot start thread %u\n", i);
			exit(2);
		}
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(threads[i].thread, NULL);
	host_set_cpu_count(1);
	return fs_torture_finish(t);
}

/*
 * Host only (it needs a second CPU that does nothing): a CPU stuck in a
 * read section holds a grace period up, the wait gives up within its bound
 * (and logs the CPU), and a CPU that never reads holds nothing up.  The
 * calling thread plays both CPUs by switching its CPU id.
 */
static bool rcu_stuck_reader(void)
{
	static struct fs_rcu rcu;
	uint64_t start;
	bool ok = true, done;

	fs_rcu_init(&rcu, NULL);
	host_set_cpu_id(STUCK_CPU);
	fs_rcu_read_lock(&rcu);
	host_set_cpu_id(0);
	start = platform_now_ns();
	done = fs_rcu_synchronize(&rcu, STUCK_TIMEOUT_NS);
	if (done || platform_now_ns() - start > 100 * STUCK_TIMEOUT_NS) {
		platform_log("    # FAIL: synchronize %s with cpu %d reading",
			     done ? "finished" : "overran its bound", STUCK_CPU);
		ok = false;
	}
	host_set_cpu_id(STUCK_CPU);
	fs_rcu_read_unlock(&rcu);
	host_set_cpu_id(0);
	if (!fs_rcu_synchronize(&rcu, FS_GRACE_TIMEOUT_NS)) {
		platform_log("    # FAIL: synchronize did not finish once cpu %d left", STUCK_CPU);
		ok = false;
	}
	return ok;
}

/*
 * The cache-line map of docs/fs.md, from this build: where each field a
 * walk touches lies (fs_impl.h's static assertion keeps the lockref's line
 * free of what walks only read).
 */
static void print_layout(void)
{
#define FS_FIELD(type, f)                                                                          \
	printf("    # layout: %s.%s at %zu (line %zu)\n", #type, #f,                               \
	       __builtin_offsetof(struct type, f),                                                 \
	       __builtin_offsetof(struct type, f) / FS_LINE_BYTES)
	FS_FIELD(fs_node, magic);
	FS_FIELD(fs_node, type);
	FS_FIELD(fs_node, ino);
	FS_FIELD(fs_node, link);
	FS_FIELD(fs_node, next);
	FS_FIELD(fs_node, dref);
	FS_FIELD(fs_node, removed);
	FS_FIELD(fs_node, nchildren);
	FS_FIELD(fs_node, rcu);
	FS_FIELD(fs_node, table);
	FS_FIELD(fs_link, parent);
	FS_FIELD(fs_link, name);
	FS_FIELD(fs, root);
	FS_FIELD(fs, rename_seq);
	FS_FIELD(fs, rename_lock);
	FS_FIELD(fs, poison_reads);
#undef FS_FIELD
}

/*
 * Every case, then the tortures, in each walk of @walks (@nwalks of them:
 * the second and later suffix their names with the walk's); returns the
 * number that failed.
 */
static unsigned run_suite(unsigned ms, const enum fs_walk *walks, unsigned nwalks)
{
	static const unsigned thread_counts[] = {2, 4, MAX_THREADS};
	const unsigned ntortures = (unsigned)(sizeof(thread_counts) / sizeof(thread_counts[0]));
	unsigned n = fs_suite_count(), number = 0, failed = 0;

	print_layout();
	printf("    1..%u\n", (n + ntortures) * nwalks + 2);
	for (unsigned w = 0; w < nwalks; w++) {
		const char *suffix = w ? fs_walk_name(walks[w]) : "";

		fs_set_walk_default(walks[w]);
		printf("    # walk=%s\n", fs_walk_name(walks[w]));
		for (unsigned i = 0; i < n; i++) {
			bool ok = fs_suite_run(i, &host_report);

			failed += !ok;
			printf("    %s %u %s%s%s\n", ok ? "ok" : "not ok", ++number,
			       fs_suite_name(i), w ? "_walk_" : "", suffix);
			fflush(stdout);
		}
		if (w == 0) {
			bool ok = rcu_stuck_reader();

			failed += !ok;
			printf("    %s %u rcu_stuck_reader_reported\n", ok ? "ok" : "not ok",
			       ++number);
		}
		for (unsigned i = 0; i < ntortures; i++) {
			bool ok = run_torture(thread_counts[i], ms);

			failed += !ok;
			printf("    %s %u torture_%u_threads%s%s\n", ok ? "ok" : "not ok", ++number,
			       thread_counts[i], w ? "_walk_" : "", suffix);
			fflush(stdout);
		}
	}
	fs_set_walk_default(FS_WALK_RCU);
	{
		/* The whole suite ran with the lock-order checker on: every multi-lock path declared. */
		bool ok = lockdep_enabled() && lockdep_reports() == 0;

		failed += !ok;
		printf("    %s %u lockdep_silent (%u classes, %u orders, at most %u held)\n",
		       ok ? "ok" : "not ok", ++number, lockdep_stats().classes,
		       lockdep_stats().edges, lockdep_stats().max_depth);
	}
	return failed;
}

#ifdef FS_BUSTED
/*
 * The suite against bug @bug, in a child process: a bug may well crash
 * the program (a freed node's poison is a wild pointer), which counts as
 * caught and must not keep the other bugs from being tried.  Returns true
 * if something failed or the child died.
 */
static bool busted_caught(unsigned bug, const char *name, unsigned ms)
{
	int status;
	pid_t pid;

	printf("# busted: %s\n", name);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("test_fs: fork");
		exit(2);
	}
	if (pid == 0) {
		fs_busted = bug;
		/* The default walk only: no other bug depends on the walk, and time counts. */
		_exit(run_suite(ms, &(enum fs_walk){FS_WALK_RCU}, 1) ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("test_fs: waitpid");
		exit(2);
	}
	if (WIFSIGNALED(status))
		printf("# busted: %s: caught (the suite died of signal %d)\n", name,
		       WTERMSIG(status));
	else
		printf("# busted: %s: %s\n", name,
		       WEXITSTATUS(status) ? "caught (tests failed)" : "NOT CAUGHT");
	return WIFSIGNALED(status) || WEXITSTATUS(status) != 0;
}

/* Every deliberate bug in turn; exits non-zero only if every one was caught. */
static int run_busted(unsigned ms)
{
	static const struct {
		unsigned bug;
		const char *name;
	} bugs[] = {
	    {FS_BUG_NO_GRACE, "no grace period"},
	    {FS_BUG_RENAME_REF, "rename keeps the old parent's reference"},
	    {FS_BUG_UNLINK_BUSY, "unlink frees a held node"},
	    {FS_BUG_TRUNCATE, "long names truncated"},
	    {FS_BUG_RCU_NO_GET, "the RCU-walk takes no reference on its last node"},
	};
	unsigned missed = 0;

	for (unsigned b = 0; b < sizeof(bugs) / sizeof(bugs[0]); b++)
		missed += !busted_caught(bugs[b].bug, bugs[b].name, ms);
	printf("# busted: %u bug(s) not caught\n", missed);
	return missed ? 0 : 1;
}
#endif

int main(int argc, char **argv)
{
	char *end;
	unsigned long ms;

	if (argc != 2 || (ms = strtoul(argv[1], &end, 10)) == 0 || *end || ms > 60000) {
		fprintf(stderr, "usage: test_fs <ms per torture run, 1 to 60000>\n");
		return 2;
	}
	ms = ms / DURATION_DIVISOR ? ms / DURATION_DIVISOR : 1;
	host_set_cpu_id(0);
	lockref16_set_cx16(__builtin_cpu_supports("cmpxchg16b"));
	lockdep_set(true);
#ifdef FS_BUSTED
	return run_busted((unsigned)ms);
#else
	return run_suite((unsigned)ms, (const enum fs_walk[]){FS_WALK_RCU, FS_WALK_REF}, 2) ? 1 : 0;
#endif
}
