// SPDX-License-Identifier: MIT
/*
 * fs_vs_linux.c - the differential test of fs/ against the host's VFS.
 *
 *   fs_vs_linux [sequences [operations [seed [shown]]]]     (default 3000 20 1 5)
 *
 * Prints the first @shown differing sequences in full.
 *
 * Why: fs.h promises Linux's errno for every failure, and where several
 * errors apply, Linux's choice among them.  Reading the kernel source for
 * every multi-error path is error-prone; asking the kernel is not.  Each
 * sequence of random operations (create, mkdir, unlink, rmdir, rename,
 * stat) on paths drawn from a tiny namespace, with ".", "..", repeated and
 * trailing slashes, relative paths and over-long names, is applied to a
 * fresh fs and, in a forked child chrooted into an empty temporary
 * directory, to the real system calls.  Every result (errno, and the type
 * a stat found) and the final tree are compared, and the fs is audited.
 * The fs side runs twice, once in each path walk (RCU-walk and ref-walk,
 * fs.h's enum fs_walk), against the one Linux run.
 *
 * There are no deliberate differences (README.md, "The filesystem",
 * "Compared with Linux", says why): the fs has no working directory, and
 * the child's is its root, so relative paths agree; what the fs lacks
 * (links, permissions, mounts) is never exercised.  So every difference
 * fails the test.  Needs root (chroot); without it, one SKIP line and
 * exit 0.
 */
#define _GNU_SOURCE
#include "errno.h"
#include "fs.h"
#include "../fs_listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_OPS 64
/* The longest generated path: FS_PATH_MAX bytes of short names, or 3 long names and slashes. */
#define PATH_BYTES    (FS_PATH_MAX + 1200)
#define TREE_BYTES    65536
#define CHILD_SECONDS 20 /* a sequence takes milliseconds; a silent child is killed */
/*
 * Node memory of each sequence's fs: MAX_OPS operations use at most 3 slots
 * each (a node, its link, a renamed link awaiting its grace period), so
 * -ENOMEM never happens.  No more than that: every fs is poisoned and
 * audited slot by slot under ASan, twice per sequence (once per walk).
 */
#define FS_SLOTS       (3 * MAX_OPS + 2)
#define MAX_ERRNO      64 /* results are counted by errno below this */
#define NAME_LONG      (FS_NAME_MAX + 1)
#define README_SECTION "README.md, \"The filesystem\", \"Compared with Linux\""

enum op_kind { OP_CREATE, OP_MKDIR, OP_UNLINK, OP_RMDIR, OP_RENAME, OP_STAT, OP_KINDS };

static const char *const op_names[] = {"create", "mkdir", "unlink", "rmdir", "rename", "stat"};

struct op {
	enum op_kind kind;
	char path[PATH_BYTES], to[PATH_BYTES];
};

/* A result: 0 or an errno (positive), and for a successful stat what it found. */
struct result {
	int err;
	char type; /* 'F', 'D', or 0 */
};

/*
 * Shared memory between the parent and the child: the parent writes a
 * sequence and sends one byte on the "go" pipe; the child runs it, writes
 * results and tree, clears its tree, and answers one byte on "done".
 */
struct linux_side {
	struct op ops[MAX_OPS];
	unsigned nops;
	struct result res[MAX_OPS];
	char tree[TREE_BYTES];
	char problem[200]; /* the child could not run the sequence, in words */
};

static uint64_t rng_state;

static uint32_t rng(uint32_t n)
{
	/* xorshift64*: reproducible from the seed on every libc. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32) % n;
}

static void append(char *buf, const char *s)
{
	size_t len = strlen(buf);

	snprintf(buf + len, PATH_BYTES - len, "%s", s);
}

/* A path over names a, b, c, with the odd ".", "..", long name, extra or trailing slash. */
static void random_path(char *buf)
{
	static char long_name[NAME_LONG + 1], max_name[FS_NAME_MAX + 1];
	unsigned depth = 1 + (rng(20) >= 11) + (rng(20) >= 16);

	if (!long_name[0]) {
		memset(long_name, 'L', NAME_LONG);
		memset(max_name, 'm', FS_NAME_MAX);
	}
	buf[0] = '\0';
	if (rng(200) == 0) {
		/* One byte too many for FS_PATH_MAX (with its NUL), of short names. */
		while (strlen(buf) < FS_PATH_MAX)
			append(buf, "a/");
		return;
	}
	switch (rng(40)) {
	case 0:
		return; /* "" */
	case 1:
		append(buf, "/");
		return;
	case 2:
	case 3:
	case 4:
	case 5:
		break; /* relative */
	case 6:
	case 7:
		append(buf, "//");
		break;
	default:
		append(buf, "/");
		break;
	}
	for (unsigned i = 0; i < depth; i++) {
		unsigned r = rng(100);

		if (i)
			append(buf, rng(10) ? "/" : "//");
		if (r < 4)
			append(buf, ".");
		else if (r < 8)
			append(buf, "..");
		else if (r < 10)
			append(buf, long_name);
		else if (r < 12)
			append(buf, max_name);
		else
			append(buf, rng(10) ? (rng(2) ? "a" : "b") : "c");
	}
	if (rng(8) == 0)
		append(buf, "/");
}

static void random_sequence(struct op *ops, unsigned n)
{
	static const unsigned weight[OP_KINDS] = {20, 30, 10, 10, 18, 12};

	for (unsigned i = 0; i < n; i++) {
		unsigned w = rng(100), k = 0;

		while (w >= weight[k])
			w -= weight[k++];
		ops[i].kind = (enum op_kind)k;
		random_path(ops[i].path);
		ops[i].to[0] = '\0';
		if (k == OP_RENAME)
			random_path(ops[i].to);
	}
}

/* ---- the fs side ---- */

static struct result fs_apply(struct fs *fs, const struct op *op)
{
	struct result r = {0, 0};
	struct fs_stat st;

	switch (op->kind) {
	case OP_CREATE:
		r.err = fs_create(fs, op->path, FS_FILE, NULL);
		break;
	case OP_MKDIR:
		r.err = fs_create(fs, op->path, FS_DIR, NULL);
		break;
	case OP_UNLINK:
		r.err = fs_unlink(fs, op->path);
		break;
	case OP_RMDIR:
		r.err = fs_rmdir(fs, op->path);
		break;
	case OP_RENAME:
		r.err = fs_rename(fs, op->path, op->to);
		break;
	case OP_STAT:
		r.err = fs_stat(fs, op->path, &st);
		if (!r.err)
			r.type = st.type == FS_DIR ? 'D' : 'F';
		break;
	default:
		break;
	}
	r.err = -r.err;
	return r;
}

/* ---- the Linux side, in the chrooted child ---- */

static struct result linux_apply(const struct op *op)
{
	struct result r = {0, 0};
	struct stat st;
	int rc = 0, fd;

	switch (op->kind) {
	case OP_CREATE:
		/* open(2) is what creates a file; O_EXCL makes "taken" an error, as fs_create's. */
		fd = open(op->path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		rc = fd < 0 ? -1 : close(fd);
		break;
	case OP_MKDIR:
		rc = mkdir(op->path, 0755);
		break;
	case OP_UNLINK:
		rc = unlink(op->path);
		break;
	case OP_RMDIR:
		rc = rmdir(op->path);
		break;
	case OP_RENAME:
		rc = rename(op->path, op->to);
		break;
	case OP_STAT:
		rc = lstat(op->path, &st);
		if (!rc)
			r.type = S_ISDIR(st.st_mode) ? 'D' : 'F';
		break;
	default:
		break;
	}
	r.err = rc ? errno : 0;
	return r;
}

/*
 * Call @visit on every file and directory below @dir (inside the chroot),
 * recursing into directories: a directory before its children, or after
 * them with @children_first (for removal, deepest first).
 */
static void linux_walk(const char *dir, bool children_first,
		       void (*visit)(const char *path, bool is_dir, void *arg), void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_BYTES];
		struct stat st;
		bool is_dir;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
		if (lstat(path, &st))
			continue;
		is_dir = S_ISDIR(st.st_mode);
		if (!children_first)
			visit(path, is_dir, arg);
		if (is_dir)
			linux_walk(path, children_first, visit, arg);
		if (children_first)
			visit(path, is_dir, arg);
	}
	closedir(d);
}

/* One "D path" or "F path" line appended to the tree text @arg (TREE_BYTES). */
static void list_one(const char *path, bool is_dir, void *arg)
{
	char *out = arg;
	size_t len = strlen(out);

	snprintf(out + len, TREE_BYTES - len, "%c %s\n", is_dir ? 'D' : 'F', path);
}

static void remove_one(const char *path, bool is_dir, void *arg)
{
	(void)arg;
	if (is_dir)
		rmdir(path);
	else
		unlink(path);
}

static void linux_list(const char *dir, char *out)
{
	linux_walk(dir, false, list_one, out);
}

/* Remove everything below @dir (inside the chroot), deepest first. */
static void linux_clear(const char *dir)
{
	linux_walk(dir, true, remove_one, NULL);
}

/* True if @dir holds nothing but "." and "..". */
static int linux_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/* The child: chroot once, then run each sequence the parent sends until the pipe closes. */
static void child(const char *root, int go, int done, struct linux_side *lx)
{
	char byte;

	if (chroot(root) || chdir("/")) {
		snprintf(lx->problem, sizeof(lx->problem), "chroot into %s: %s", root,
			 strerror(errno));
		_exit(1);
	}
	/* Never clear a directory that was not the empty one made for us. */
	if (!linux_empty("/")) {
		snprintf(lx->problem, sizeof(lx->problem), "%s is not empty at the start", root);
		_exit(1);
	}
	while (read(go, &byte, 1) == 1) {
		for (unsigned i = 0; i < lx->nops; i++)
			lx->res[i] = linux_apply(&lx->ops[i]);
		lx->tree[0] = '\0';
		linux_list("/", lx->tree);
		linux_clear("/");
		if (!linux_empty("/")) {
			snprintf(lx->problem, sizeof(lx->problem), "could not empty %s", root);
			_exit(1);
		}
		if (write(done, &byte, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/* Run @lx's sequence in the child; false (with a line saying why) if it did not answer. */
static bool linux_run(pid_t pid, int go, int done, struct linux_side *lx)
{
	struct pollfd pfd = {.fd = done, .events = POLLIN};
	char byte = 's';

	if (write(go, &byte, 1) != 1 || poll(&pfd, 1, CHILD_SECONDS * 1000) != 1 ||
	    read(done, &byte, 1) != 1) {
		printf("not ok: the Linux side did not answer within %d s: %s\n", CHILD_SECONDS,
		       lx->problem[0] ? lx->problem : "stuck or dead");
		kill(pid, SIGKILL);
		return false;
	}
	return true;
}

/* ---- comparing ---- */

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort the lines of @tree in place (order of readdir differs). */
static void sort_tree(char *tree)
{
	static char copy[TREE_BYTES];
	char *lines[TREE_BYTES / 4];
	size_t n = 0;

	strcpy(copy, tree);
	for (char *p = strtok(copy, "\n"); p && n < sizeof(lines) / sizeof(lines[0]);
	     p = strtok(NULL, "\n"))
		lines[n++] = p;
	qsort(lines, n, sizeof(lines[0]), cmp_lines);
	tree[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strcat(tree, lines[i]);
		strcat(tree, "\n");
	}
}

static const char *err_name(int err)
{
	return err ? fs_errno_name(err) : "0";
}

/* @path with each long run of one character written as c{n}, so a line stays readable. */
static const char *short_path(const char *path, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (const char *p = path; *p && o + 16 < size;) {
		size_t n = strspn(p, (char[]){*p, '\0'});

		o += (size_t)(n > 8 ? snprintf(buf + o, size - o, "%c{%zu}", *p, n)
				    : snprintf(buf + o, size - o, "%.*s", (int)n, p));
		p += n;
	}
	return buf;
}

static void show_op(unsigned i, const struct op *op, struct result f, struct result l)
{
	char a[80], b[80];

	printf("    %2u %-6s '%s'%s%s%s -> fs %s%c linux %s%c%s\n", i, op_names[op->kind],
	       short_path(op->path, a, sizeof(a)), op->kind == OP_RENAME ? " '" : "",
	       op->kind == OP_RENAME ? short_path(op->to, b, sizeof(b)) : "",
	       op->kind == OP_RENAME ? "'" : "", err_name(f.err), f.type ? f.type : ' ',
	       err_name(l.err), l.type ? l.type : ' ',
	       f.err != l.err || f.type != l.type ? "   <== differs" : "");
}

int main(int argc, char **argv)
{
	unsigned nseq = argc > 1 ? (unsigned)atoi(argv[1]) : 3000;
	unsigned nops = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
	unsigned shown = argc > 4 ? (unsigned)atoi(argv[4]) : 5;
	static struct op ops[MAX_OPS];
	static char fs_tree[TREE_BYTES];
	char root[] = "/tmp/fs_vs_linux.XXXXXX";
	unsigned bad_seqs = 0, errnos[MAX_ERRNO] = {0};
	struct linux_side *lx;
	int go[2], done[2], status;
	pid_t pid;

	if (nops == 0 || nops > MAX_OPS || nseq == 0) {
		fprintf(stderr, "usage: %s [sequences >0 [operations 1..%d [seed]]]\n", argv[0],
			MAX_OPS);
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP fs_vs_linux: needs root to chroot\n");
		return 0;
	}
	lx = mmap(NULL, sizeof(*lx), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (lx == MAP_FAILED || !mkdtemp(root) || pipe(go) || pipe(done)) {
		perror("fs_vs_linux: shared memory, temporary directory or pipes");
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fs_vs_linux: fork");
		return 2;
	}
	if (pid == 0) {
		close(go[1]);
		close(done[0]);
		child(root, go[0], done[1], lx);
	}
	close(go[0]);
	close(done[1]);
	rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
	for (unsigned s = 0; s < nseq; s++) {
		random_sequence(ops, nops);
		memcpy(lx->ops, ops, sizeof(ops));
		lx->nops = nops;
		if (!linux_run(pid, go[1], done[0], lx)) {
			bad_seqs++;
			break;
		}
		sort_tree(lx->tree);
		/* The fs side in each walk (fs.h, enum fs_walk): both must give Linux's answers. */
		for (enum fs_walk walk = FS_WALK_RCU; walk <= FS_WALK_REF; walk++) {
			struct fs_config cfg = {.mem_slots = FS_SLOTS, .walk = walk};
			struct fs *fs = fs_new(&cfg);
			struct result fr[MAX_OPS];
			struct fs_audit audit;
			unsigned differs = 0;

			for (unsigned i = 0; i < nops; i++)
				fr[i] = fs_apply(fs, &ops[i]);
			fs_tree[0] = '\0';
			fs_listing(fs, "/", false, fs_tree, sizeof(fs_tree));
			if (fs_audit(fs, NULL, 0, &audit) || fs_destroy(fs)) {
				printf("not ok: sequence %u (walk %s): fs audit: %s\n", s,
				       fs_walk_name(walk), audit.first);
				bad_seqs++;
			}
			sort_tree(fs_tree);
			for (unsigned i = 0; i < nops; i++) {
				if (walk == FS_WALK_RCU)
					errnos[fr[i].err < MAX_ERRNO ? fr[i].err : 0]++;
				differs +=
				    fr[i].err != lx->res[i].err || fr[i].type != lx->res[i].type;
			}
			if (strcmp(fs_tree, lx->tree))
				differs++;
			if (!differs)
				continue;
			if (bad_seqs++ < shown) {
				printf("not ok: sequence %u (seed %llu, walk %s) differs from "
				       "Linux:\n",
				       s, (unsigned long long)seed, fs_walk_name(walk));
				for (unsigned i = 0; i < nops; i++)
					show_op(i, &ops[i], fr[i], lx->res[i]);
				if (strcmp(fs_tree, lx->tree))
					printf("    final tree: fs\n%s    linux\n%s", fs_tree,
					       lx->tree);
			}
		}
	}
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("not ok: the Linux side ended badly: %s\n",
		       lx->problem[0] ? lx->problem : "killed");
		bad_seqs++;
	}
	rmdir(root);
	printf("results:");
	for (int e = 0; e < MAX_ERRNO; e++)
		if (errnos[e])
			printf(" %s %u", err_name(e), errnos[e]);
	printf(
	    "\n%u sequences of %u operations, each in both walks (rcu, ref): %u with undocumented "
	    "differences from Linux (deliberate differences: none, %s)\n",
	    nseq, nops, bad_seqs, README_SECTION);
	printf("%s\n", bad_seqs ? "FAIL" : "PASS");
	return bad_seqs != 0;
}
