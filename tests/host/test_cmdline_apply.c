// SPDX-License-Identifier: MIT
/*
 * test_cmdline_apply.c - the command line and the lockref library agree on
 * every limit, and the boot says the policy in force.
 *
 * lockref_set_policy is the only library setter that can refuse a value
 * given on the command line (more than LOCKREF_RETRIES_MAX attempts).  The
 * parser once took up to 1000000: the library then kept its old policy,
 * the words given with it (lockref.policy=, lockref.cas=) were dropped, and
 * the boot log and # ENV named what was asked, not what ran.  Checked here:
 * the parser's range is the library's, and if the library refuses anyway
 * (a value set past the parser) the log line and opts name the policy the
 * library kept.
 */
#include "check.h"
#include "cmdline.h"
#include "lockref.h"
#include "platform.h"
#include "platform_host.h"

#include <stdio.h>
#include <string.h>

#define LOG_KEEP 8

static char log_lines[LOG_KEEP][PLATFORM_LINE_MAX + 1];
static unsigned nlines;

static void record(const char *line)
{
	snprintf(log_lines[nlines % LOG_KEEP], sizeof(log_lines[0]), "%s", line);
	nlines++;
}

/* How many lines since @from start with @prefix; the last such in *@last. */
static unsigned lines_with(unsigned from, const char *prefix, const char **last)
{
	unsigned n = 0;

	for (unsigned i = from; i < nlines; i++)
		if (strncmp(log_lines[i % LOG_KEEP], prefix, strlen(prefix)) == 0) {
			n++;
			*last = log_lines[i % LOG_KEEP];
		}
	return n;
}

/* Parse and apply @line from the mainline default; returns the cmdline: lines it printed. */
static unsigned boot_with(const char *line, const char **cmdline_line, const char **lockref_line)
{
	unsigned from = nlines;

	lockref_set_policy(&lockref_policy_mainline);
	cmdline_parse(line);
	cmdline_apply_lockref();
	CHECK(lines_with(from, "lockref: policy", lockref_line) == 1, "%s: no lockref line", line);
	return lines_with(from, "cmdline:", cmdline_line);
}

/* opts and the library name the same policy: what # ENV prints is what runs. */
static void check_in_force(const char *what, const struct lockref_policy *want,
			   enum lockref_cas cas)
{
	const struct lockref_policy *p = lockref_get_policy();

	CHECK(strcmp(p->name, want->name) == 0 && p->retries == want->retries && p->cas == cas,
	      "%s: library runs %s/%u/%s", what, p->name, p->retries, lockref_cas_names[p->cas]);
	CHECK(strcmp(opts.lockref_policy, p->name) == 0 && opts.lockref_cas == (unsigned)p->cas,
	      "%s: opts say %s/%s, the library runs %s/%s", what, opts.lockref_policy,
	      lockref_cas_names[opts.lockref_cas], p->name, lockref_cas_names[p->cas]);
}

int main(void)
{
	const char *cl = "", *lr = "";
	char word[64];
	struct lockref_policy v7_max = lockref_policy_v7;

	host_set_log_hook(record);

	/* The line: one cmdline: line, and v7 with cmpxchgq really runs. */
	CHECK(boot_with("lockref.retries=5000 lockref.cas=cmpxchgq lockref.policy=v7", &cl, &lr) ==
		      1 &&
		  strstr(cl, "'lockref.retries=5000'") && strstr(cl, "1 to 1000"),
	      "one line naming the word and the library's limit: '%s'", cl);
	check_in_force("retries=5000", &lockref_policy_v7, LOCKREF_CAS_CMPXCHGQ);
	CHECK(strstr(lr, "policy v7, 4 lockless attempts") && strstr(lr, "cmpxchgq"),
	      "the log line names what runs: '%s'", lr);

	/* The library's limit itself is accepted, one more is not. */
	snprintf(word, sizeof(word), "lockref.policy=v7 lockref.retries=%u", LOCKREF_RETRIES_MAX);
	CHECK(boot_with(word, &cl, &lr) == 0, "%s: '%s'", word, cl);
	v7_max.retries = LOCKREF_RETRIES_MAX;
	check_in_force(word, &v7_max, LOCKREF_CAS_CMPXCHG8B);
	snprintf(word, sizeof(word), "lockref.policy=v7 lockref.retries=%u",
		 LOCKREF_RETRIES_MAX + 1);
	CHECK(boot_with(word, &cl, &lr) == 1, "%s accepted", word);
	check_in_force(word, &lockref_policy_v7, LOCKREF_CAS_CMPXCHG8B);

	/*
	 * A refusal past the parser (a value set in opts directly): the log and
	 * opts name the policy the library kept, not the one asked for.
	 */
	cmdline_parse("lockref.policy=locked lockref.cas=cmpxchgq");
	opts.lockref_retries = (int)LOCKREF_RETRIES_MAX + 1;
	lockref_set_policy(&lockref_policy_mainline);
	unsigned from = nlines;
	cmdline_apply_lockref();
	CHECK(lines_with(from, "cmdline:", &cl) == 1 && strstr(cl, "refused by the library"),
	      "the refusal gets one cmdline: line: '%s'", cl);
	check_in_force("refused", &lockref_policy_mainline, LOCKREF_CAS_CMPXCHG8B);
	CHECK(lines_with(from, "lockref: policy mainline, 100 lockless attempts", &lr) == 1,
	      "after a refusal the log names the policy kept: '%s'", lr);

	lockref_set_policy(&lockref_policy_mainline);
	return check_exit("test_cmdline_apply");
}
