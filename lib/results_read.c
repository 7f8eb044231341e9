// SPDX-License-Identifier: MIT
/*
 * results_read.c - the results' reader: the lines the kernel prints, read
 * into struct results (results.h), from which kernel/results.c draws the
 * status line and the page.
 *
 * Why portable, apart from the drawing: everything is read off the lines
 * the kernel prints (KTAP version 1 with one subtest block per suite,
 * indented by KTAP_INDENT, "# ENV {json}" and "# BENCH {json}"), so the
 * page shows exactly what the serial log says, and a log replayed through
 * results_observe on the host gives the same figures.  Lines are
 * interpreted by their first bytes only: a line cut at RESULTS_LINE_MAX
 * still counts.
 */
#include "results.h"

#include "bench_impls.h"
#include "printf.h"
#include "string.h"

#define SUBTEST_INDENT (sizeof(KTAP_INDENT) - 1) /* a suite's tests sit one level in */

/*
 * What the page tables of the many BENCH lines: the implementations the
 * benchmarks name first (bench/bench_impls.h), one column each, then the
 * last over the one before it; and the benches, with pathwalk's
 * contended op (every CPU looks up one path).  The rest stays in the
 * serial log, which the page points to.
 */
#define TABLED_IMPL(name) name,
const char *const results_tabled_impls[] = {BENCH_TABLED_IMPLS(TABLED_IMPL)};
#undef TABLED_IMPL
const struct results_tabled results_tabled_benches[] = {{"refcount", NULL},
							{"pathwalk", "stat-same-path"}};
#define NIMPLS	 (sizeof(results_tabled_impls) / sizeof(results_tabled_impls[0]))
#define NBENCHES (sizeof(results_tabled_benches) / sizeof(results_tabled_benches[0]))
_Static_assert(NIMPLS >= 2, "the ratio column needs two tabled implementations");
const unsigned results_ntabled_impls = NIMPLS, results_ntabled_benches = NBENCHES;

/*
 * Reading the lines.  The JSON is the kernel's own, flat and printed by
 * ksnprintf, so a search for "key": is a complete reader of it; a general
 * parser would be code the page needs only to read what it wrote.  A
 * value that does not parse leaves the figure out, never a wrong figure.
 */

/* The value of "key": in a flat JSON object, or NULL. */
static const char *json_value(const char *json, const char *key)
{
	char pattern[RESULTS_NAME_MAX + 4];
	const char *at;

	ksnprintf(pattern, sizeof(pattern), "\"%s\":", key);
	at = strstr(json, pattern);
	return at ? at + strlen(pattern) : NULL;
}

/* The string value of "key" into @out (cut to @size), false if absent or not a string. */
static bool json_string(const char *json, const char *key, char *out, size_t size)
{
	const char *v = json_value(json, key);
	size_t n = 0;

	if (!v || *v != '"')
		return false;
	for (v++; v[n] && v[n] != '"'; n++)
		;
	if (n >= size)
		n = size - 1;
	memcpy(out, v, n);
	out[n] = '\0';
	return true;
}

/* Whether @b (from @json) is a figure of the page's table: the rest stays in the serial log. */
static bool tabled(const char *json, const struct results_bench *b)
{
	char op[RESULTS_NAME_MAX];
	bool bench = false, impl = false;

	for (size_t i = 0; i < NBENCHES; i++)
		if (strcmp(b->bench, results_tabled_benches[i].bench) == 0)
			bench = !results_tabled_benches[i].op ||
				(json_string(json, "op", op, sizeof(op)) &&
				 strcmp(op, results_tabled_benches[i].op) == 0);
	for (size_t i = 0; i < NIMPLS; i++)
		impl |= strcmp(b->impl, results_tabled_impls[i]) == 0;
	return bench && impl;
}

static const char *const relation_names[RESULTS_RELATIONS] = {"same-core", "same-llc", "other-llc",
							      "other-package"};

/* A c2c line: its one-way ns (whole ns) under its relation. */
static void observe_c2c(struct results *r, const char *json)
{
	char rel[RESULTS_NAME_MAX];
	const char *v = json_value(json, "oneway_ns");
	bool ok = false;
	uint64_t ns = v ? str_decimal(v, &ok) : 0;

	if (!ok || !json_string(json, "relation", rel, sizeof(rel)))
		return;
	for (unsigned i = 0; i < RESULTS_RELATIONS; i++)
		if (strcmp(rel, relation_names[i]) == 0 && r->c2c[i].n < RESULTS_C2C_MAX)
			r->c2c[i].ns[r->c2c[i].n++] = (uint32_t)ns;
}

static void observe_bench(struct results *r, const char *json)
{
	struct results_bench b = {0};
	const char *v;
	bool ok_cpus = false, ok_ops = false;

	if (!json_string(json, "bench", b.bench, sizeof(b.bench)))
		return;
	if (strcmp(b.bench, "c2c") == 0) {
		observe_c2c(r, json);
		return;
	}
	if (r->nbench == RESULTS_BENCH_MAX || !json_string(json, "impl", b.impl, sizeof(b.impl)) ||
	    !tabled(json, &b))
		return;
	if (!json_string(json, "path", b.path, sizeof(b.path)))
		b.path[0] = '\0';
	v = json_value(json, "cpus");
	b.cpus = v ? (unsigned)str_decimal(v, &ok_cpus) : 0;
	v = json_value(json, "ops_per_sec");
	b.ops_per_sec = v ? str_decimal(v, &ok_ops) : 0;
	if (v && ok_cpus && ok_ops)
		r->bench[r->nbench++] = b;
}

static uint64_t json_number(const char *json, const char *key)
{
	const char *v = json_value(json, key);
	bool ok;

	return v ? str_decimal(v, &ok) : 0;
}

static void observe_env(struct results *r, const char *json)
{
	struct results_machine *m = &r->machine;

	m->known = true;
	if (!json_string(json, "cpu_model", m->cpu_model, sizeof(m->cpu_model)))
		m->cpu_model[0] = '\0';
	json_string(json, "apic", m->apic, sizeof(m->apic));
	json_string(json, "tsc_source", m->tsc_source, sizeof(m->tsc_source));
	json_string(json, "hypervisor", m->hypervisor, sizeof(m->hypervisor));
	m->cpus_online = (unsigned)json_number(json, "cpus_online");
	m->cpus_found = (unsigned)json_number(json, "cpus_found");
	m->tsc_khz = json_number(json, "tsc_khz");
	m->seed = json_number(json, "seed");
	m->packages = (unsigned)json_number(json, "packages");
	m->cores_per_package = (unsigned)json_number(json, "cores_per_package");
	m->threads_per_core = (unsigned)json_number(json, "threads_per_core");
	m->llc_groups = (unsigned)json_number(json, "llc_groups");
}

/*
 * KTAP.  The nesting level is the only thing that tells a suite's result
 * from a test's (the same "ok N name" line at indent 0 or one level in),
 * so lines are judged by their indentation first.  A suite's verdict is
 * taken from its own result line, not derived from its tests' counts: a
 * suite can fail with every test passed (a report outside any test).
 */

/* "ok N name ..." or "not ok N name ...": @name gets the name; returns the verdict. */
static bool result_line(const char *t, char *name, size_t size, bool *skip)
{
	bool ok = str_starts(t, "ok ");
	const char *p = t + (ok ? 3 : 7);
	size_t n = 0;

	while (*p >= '0' && *p <= '9')
		p++;
	while (*p == ' ')
		p++;
	while (p[n] && p[n] != ' ')
		n++;
	if (n >= size)
		n = size - 1;
	memcpy(name, p, n);
	name[n] = '\0';
	*skip = strstr(p, "# SKIP") != NULL;
	return ok;
}

static void note_reason(struct results *r, const char *t)
{
	const char *inv = strstr(t, "invariant ");

	if (inv && !r->first_invariant[0])
		str_copy(r->first_invariant, sizeof(r->first_invariant), inv);
	else if (!r->first_reason[0] && (strstr(t, "FAIL") || str_starts(t, "PANIC:")))
		str_copy(r->first_reason, sizeof(r->first_reason), t);
}

static void observe_line(struct results *r, const char *line)
{
	unsigned indent = 0;
	const char *t = line;
	struct results_suite *cur = r->nsuites ? &r->suites[r->nsuites - 1] : NULL;
	char name[RESULTS_NAME_MAX];
	bool skip, ok;

	while (*t == ' ')
		t++, indent++;
	if (str_starts(t, "# BENCH {")) {
		observe_bench(r, t + 8);
	} else if (indent == 0 && str_starts(t, "# ENV {")) {
		observe_env(r, t + 6);
	} else if (indent == SUBTEST_INDENT && str_starts(t, "# Subtest: ")) {
		if (r->nsuites < RESULTS_SUITES_MAX) {
			cur = &r->suites[r->nsuites++];
			memset(cur, 0, sizeof(*cur));
			str_copy(cur->name, sizeof(cur->name), t + 11);
		}
		r->test[0] = '\0';
	} else if (str_starts(t, "1..")) {
		bool valid;
		unsigned n = (unsigned)str_decimal(t + 3, &valid);

		if (valid && indent == 0 && !r->suites_planned)
			r->suites_planned = n;
		else if (valid && indent == SUBTEST_INDENT && cur && !cur->planned)
			cur->planned = n;
	} else if (str_starts(t, "ok ") || str_starts(t, "not ok ")) {
		ok = result_line(t, name, sizeof(name), &skip);
		if (indent == SUBTEST_INDENT && cur) {
			if (!ok)
				cur->failed++;
			else if (skip)
				cur->skipped++;
			else
				cur->passed++;
			if (!ok && !r->first_failure[0])
				ksnprintf(r->first_failure, sizeof(r->first_failure), "%s/%s",
					  cur->name, name);
			r->test[0] = '\0';
		} else if (indent == 0) {
			for (unsigned i = 0; i < r->nsuites; i++)
				if (strcmp(r->suites[i].name, name) == 0)
					r->suites[i].verdict = !ok    ? SUITE_FAILED
							       : skip ? SUITE_SKIPPED
								      : SUITE_OK;
		}
	} else if (str_starts(t, "# ") || str_starts(t, "PANIC:")) {
		note_reason(r, t);
	}
}

/*
 * Console bytes come in pieces of any size (one printk may be several
 * writes): they are gathered into a line, and a line is judged only once
 * it is complete.  A line longer than the buffer keeps its beginning,
 * which is all the judging reads.
 */
void results_observe(struct results *r, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n') {
			r->line[r->line_len] = '\0';
			observe_line(r, r->line);
			r->line_len = 0;
		} else if (s[i] != '\r' && r->line_len + 1 < sizeof(r->line)) {
			r->line[r->line_len++] = s[i];
		}
	}
}

void results_test_start(struct results *r, const char *name, unsigned number, uint64_t now_ms,
			uint64_t expected_ms)
{
	str_copy(r->test, sizeof(r->test), name);
	r->test_number = number;
	r->test_start_ms = now_ms;
	r->test_expected_ms = expected_ms;
}
