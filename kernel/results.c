// SPDX-License-Identifier: MIT
/*
 * results.c - what the screen shows of the results: the status line and
 * the page, drawn as rows of text from what results_read.c (lib/) read
 * off the kernel's lines; see results.h.
 *
 * Why apart from the reader: the figures are portable and the reader is
 * the same on the host, while this is the screen's layout (its rows and
 * columns, what is cut when they run out), which only the kernel's console
 * draws (console.c).
 */
#include "results.h"

#include "printf.h"
#include "string.h"

#include <stdarg.h>

#define BAR_WIDTH 20
#define MS_PER_S  1000u

/* A table cell's width, and the ratio column's: its label is two names. */
#define CELL_WIDTH  11
#define RATIO_WIDTH 17

/* @text, then blanks, in a row of @cols characters (NUL at [cols]). */
static void fill_row(char *row, unsigned cols, const char *text)
{
	size_t n = strnlen(text, cols);

	memcpy(row, text, n);
	memset(row + n, ' ', cols - n);
	row[cols] = '\0';
}

/*
 * The status line.  The bar counts finished tests and the running test's
 * share of its expected time (the suites declare one per test), so a
 * long torture moves the bar instead of freezing it; the share stops at
 * 999/1000 of the test, so an overrun never shows the suite as done.
 */
void results_status(const struct results *r, uint64_t now_ms, char *out, unsigned cols)
{
	char text[RESULTS_LINE_MAX], bar[BAR_WIDTH + 1], times[48];
	const struct results_suite *cur = r->nsuites ? &r->suites[r->nsuites - 1] : NULL;

	if (!cur) {
		fill_row(out, cols, " lockref demo kernel: starting the tests");
		return;
	}
	uint64_t elapsed = now_ms - r->test_start_ms;
	unsigned done = cur->passed + cur->failed + cur->skipped;
	/* The suite's progress in thousandths: finished tests, and the running one's share. */
	uint64_t permille = 0;

	if (cur->planned) {
		uint64_t part = 0;

		if (r->test[0] && r->test_expected_ms)
			part = elapsed >= r->test_expected_ms
				   ? 999
				   : elapsed * 1000 / r->test_expected_ms;
		permille = ((uint64_t)done * 1000 + part) / cur->planned;
		if (permille > 1000)
			permille = 1000;
	}
	for (unsigned i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < permille * BAR_WIDTH / 1000 ? '#' : '-';
	bar[BAR_WIDTH] = '\0';
	if (!r->test[0])
		times[0] = '\0';
	else if (r->test_expected_ms)
		ksnprintf(times, sizeof(times), "%lu s of ~%lu s", elapsed / MS_PER_S,
			  (r->test_expected_ms + MS_PER_S - 1) / MS_PER_S);
	else
		ksnprintf(times, sizeof(times), "%lu s", elapsed / MS_PER_S);
	ksnprintf(text, sizeof(text), " suite %u/%u %s [%s] %u/%u %s %s", r->nsuites,
		  r->suites_planned, cur->name, bar, r->test[0] ? r->test_number : done,
		  cur->planned, r->test[0] ? r->test : "", times);
	fill_row(out, cols, text);
}

/*
 * The page.  It is written once, at the end, into a fixed grid of rows
 * (the screen's), top to bottom: the verdict and the machine, the suites,
 * then the benchmark tables for as many rows as are left, the last row
 * kept for the footer.  What does not fit says how much more the serial
 * log holds, so the page is never silently cut.
 */

/* "12.3M"-style: three significant figures at most, for a table cell. */
static void rate(char *out, size_t size, uint64_t v)
{
	static const char suffix[] = {' ', 'k', 'M', 'G', 'T'};
	unsigned s = 0;
	uint64_t scale = 1;

	while (v / scale >= 1000 && s + 1 < sizeof(suffix)) {
		scale *= 1000;
		s++;
	}
	uint64_t whole = v / scale, tenth = v % scale * 10 / scale;

	if (s && whole < 100)
		ksnprintf(out, size, "%lu.%lu%c", whole, tenth, suffix[s]);
	else
		ksnprintf(out, size, "%lu%c", whole, suffix[s]);
}

static uint64_t bench_ops(const struct results *r, const char *bench, const char *impl,
			  unsigned cpus)
{
	for (unsigned i = 0; i < r->nbench; i++)
		if (r->bench[i].cpus == cpus && strcmp(r->bench[i].bench, bench) == 0 &&
		    strcmp(r->bench[i].impl, impl) == 0)
			return r->bench[i].ops_per_sec;
	return 0;
}

/* The CPU counts @bench was measured at, ascending, into @cpus; returns how many. */
static unsigned bench_cpu_counts(const struct results *r, const char *bench, unsigned *cpus,
				 unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nbench; i++) {
		unsigned c = r->bench[i].cpus, k = 0;

		if (strcmp(r->bench[i].bench, bench) != 0)
			continue;
		while (k < n && cpus[k] < c)
			k++;
		if ((k < n && cpus[k] == c) || n == max)
			continue;
		memmove(&cpus[k + 1], &cpus[k], (n - k) * sizeof(*cpus));
		cpus[k] = c;
		n++;
	}
	return n;
}

/* The page's names of the c2c relations, short enough for two a row. */
static const char *const relation_labels[RESULTS_RELATIONS] = {"core", "LLC", "other LLC",
							       "other package"};

/* "core 12/14/20, LLC 40/45/50" for relations @from .. @to-1 measured, into @out; false if none. */
static bool c2c_summary(const struct results *r, unsigned from, unsigned to, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (unsigned i = from; i < to; i++) {
		const struct results_c2c *c = &r->c2c[i];
		uint32_t v[RESULTS_C2C_MAX];

		if (!c->n)
			continue;
		memcpy(v, c->ns, c->n * sizeof(v[0]));
		for (unsigned a = 1; a < c->n; a++)
			for (unsigned b = a; b > 0 && v[b - 1] > v[b]; b--) {
				uint32_t x = v[b];

				v[b] = v[b - 1];
				v[b - 1] = x;
			}
		len += (size_t)ksnprintf(out + len, len < size ? size - len : 0, "%s%s %u/%u/%u",
					 len ? ", " : "", relation_labels[i], v[0], v[c->n / 2],
					 v[c->n - 1]);
	}
	return len > 0;
}

static const char *const verdict_names[] = {
    [SUITE_RUNNING] = "did not finish",
    [SUITE_OK] = "ok",
    [SUITE_FAILED] = "FAILED",
    [SUITE_SKIPPED] = "skipped",
};

/* The page being written: rows of @cols characters (and a NUL), the last kept for the footer. */
struct page {
	char *text;
	unsigned row, last, cols;
};

/* One formatted row, cut to the width; nothing once only the footer's row is left. */
static __attribute__((format(printf, 2, 3))) void page_line(struct page *p, const char *fmt, ...)
{
	char text[RESULTS_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (p->row < p->last)
		fill_row(p->text + (size_t)p->row++ * (p->cols + 1), p->cols, text);
}

/* The verdict and the machine the run had (its # ENV line). */
static void page_machine(struct page *p, const struct results *r, bool pass)
{
	const struct results_machine *m = &r->machine;
	char text2[RESULTS_LINE_MAX / 2];

	page_line(p, " lockref demo kernel: RESULT %s", pass ? "PASS" : "FAIL");
	page_line(p, "%s", "");
	if (m->known) {
		page_line(p, " CPU   %s",
			  m->cpu_model[0] ? m->cpu_model : "(no brand string in CPUID)");
		page_line(
		    p, "       %u of %u CPU%s online, %s, TSC %lu.%03lu MHz from %s, hypervisor %s",
		    m->cpus_online, m->cpus_found, plural(m->cpus_found), m->apic,
		    m->tsc_khz / 1000, m->tsc_khz % 1000, m->tsc_source, m->hypervisor);
		if (m->packages)
			page_line(
			    p, "       %u package%s x %u core%s x %u thread%s, %u LLC group%s",
			    m->packages, plural(m->packages), m->cores_per_package,
			    plural(m->cores_per_package), m->threads_per_core,
			    plural(m->threads_per_core), m->llc_groups, plural(m->llc_groups));
		/* The cache-line hop by relation; under TCG it measures the emulator. */
		for (unsigned i = 0; i < RESULTS_RELATIONS; i += 2)
			if (c2c_summary(r, i, i + 2, text2, sizeof(text2)))
				page_line(p, "       c2c ns min/med/max: %s%s", text2,
					  strcmp(m->hypervisor, "tcg") == 0 ? " (emulator)" : "");
	} else {
		page_line(p, " CPU   (the run ended before its # ENV line)");
	}
}

/* One row per suite with its counts, then the first failure and its seed. */
static void page_suites(struct page *p, const struct results *r)
{
	page_line(p, "%s", "");
	page_line(p, " %-10s %-15s %7s %7s %7s %7s", "suite", "verdict", "tests", "passed",
		  "failed", "skipped");
	for (unsigned i = 0; i < r->nsuites; i++) {
		const struct results_suite *s = &r->suites[i];

		page_line(p, " %-10s %-15s %7u %7u %7u %7u", s->name, verdict_names[s->verdict],
			  s->planned, s->passed, s->failed, s->skipped);
	}
	if (r->first_failure[0] || r->first_invariant[0] || r->first_reason[0]) {
		page_line(p, " first failure: %s (seed %lu)",
			  r->first_failure[0] ? r->first_failure : "before any test ended",
			  r->machine.seed);
		page_line(p, "   %s", r->first_invariant[0] ? r->first_invariant : r->first_reason);
	} else {
		page_line(p, " no failures (seed %lu)", r->machine.seed);
	}
}

/*
 * The lock path the row's figures timed (the BENCH lines' "path"): theirs if
 * they agree, "mixed" if not, "" if none says.
 */
static const char *bench_path(const struct results *r, const char *bench, unsigned cpus)
{
	const char *path = NULL;

	for (unsigned i = 0; i < r->nbench; i++) {
		const struct results_bench *b = &r->bench[i];

		if (b->cpus != cpus || strcmp(b->bench, bench) != 0 || !b->path[0])
			continue;
		if (path && strcmp(path, b->path) != 0)
			return "mixed";
		path = b->path;
	}
	return path ? path : "";
}

/* " %*s" of @cell at CELL_WIDTH after @cells[0 .. *@len-1]; once full, the rest is cut. */
static void cell_append(char *cells, size_t size, size_t *len, const char *cell)
{
	if (*len < size)
		*len += (size_t)ksnprintf(cells + *len, size - *len, " %*s", CELL_WIDTH, cell);
}

/*
 * One row of a benchmark table: the lock path it timed, each tabled
 * implementation's rate at @cpus, and the last over the one before it.
 * The cells are joined here, not in one format string, so the row has as
 * many as bench_impls.h names.
 */
static void page_bench_row(struct page *p, const struct results *r, const char *bench,
			   unsigned cpus)
{
	char cells[RESULTS_LINE_MAX], cell[16], ratio[16] = "-";
	uint64_t over = 0, under = 0; /* the last two implementations' rates, for the ratio */
	size_t len = 0;

	for (unsigned k = 0; k < results_ntabled_impls; k++) {
		under = over;
		over = bench_ops(r, bench, results_tabled_impls[k], cpus);
		if (over)
			rate(cell, sizeof(cell), over);
		else
			str_copy(cell, sizeof(cell), "-");
		cell_append(cells, sizeof(cells), &len, cell);
	}
	if (over && under)
		ksnprintf(ratio, sizeof(ratio), "%lu.%02lu", over / under,
			  over % under * 100 / under);
	page_line(p, " %9s %4u%s %*s", bench_path(r, bench, cpus), cpus, cells, RATIO_WIDTH, ratio);
}

/* The header of a benchmark's table: "xadd/s" per implementation, then "lockref/spinlock". */
static void page_bench_header(struct page *p, const char *bench)
{
	char cells[RESULTS_LINE_MAX], cell[RESULTS_NAME_MAX], ratio[RESULTS_NAME_MAX];
	size_t len = 0;

	for (unsigned k = 0; k < results_ntabled_impls; k++) {
		ksnprintf(cell, sizeof(cell), "%s/s", results_tabled_impls[k]);
		cell_append(cells, sizeof(cells), &len, cell);
	}
	ksnprintf(ratio, sizeof(ratio), "%s/%s", results_tabled_impls[results_ntabled_impls - 1],
		  results_tabled_impls[results_ntabled_impls - 2]);
	page_line(p, " %-9s %4s%s %*s", bench, "CPUs", cells, RATIO_WIDTH, ratio);
}

/* A table per benchmark measured (refcount, pathwalk): a row per CPU count, as many as fit. */
static void page_benches(struct page *p, const struct results *r)
{
	unsigned cpus[RESULTS_BENCH_MAX];

	for (unsigned b = 0; b < results_ntabled_benches; b++) {
		unsigned n =
		    bench_cpu_counts(r, results_tabled_benches[b].bench, cpus, RESULTS_BENCH_MAX);

		if (!n)
			continue;
		if (p->row + 3 > p->last) { /* no room for a blank row, the header and one count */
			page_line(p, " %-9s (%u more CPU counts in the serial log)",
				  results_tabled_benches[b].bench, n);
			continue;
		}
		page_line(p, "%s", "");
		page_bench_header(p, results_tabled_benches[b].bench);
		for (unsigned i = 0; i < n; i++) {
			if (p->row + 1 == p->last && i + 1 < n) {
				page_line(p, " %-9s (%u more CPU counts in the serial log)", "",
					  n - i);
				break;
			}
			page_bench_row(p, r, results_tabled_benches[b].bench, cpus[i]);
		}
	}
}

void results_page(const struct results *r, bool pass, const char *footer, char *page, unsigned rows,
		  unsigned cols)
{
	struct page p = {page, 0, rows - 1, cols};

	page_machine(&p, r, pass);
	page_suites(&p, r);
	page_benches(&p, r);
	while (p.row < p.last)
		fill_row(page + (size_t)p.row++ * (cols + 1), cols, "");
	fill_row(page + (size_t)p.last * (cols + 1), cols, footer);
}
