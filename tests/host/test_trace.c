// SPDX-License-Identifier: MIT
/*
 * test_trace.c - lib/trace.c on host threads: what the rings keep, what
 * trace.test= lets through, how names are kept, and the dump's text.
 *
 * One process holds one trace (trace_dump prints once), so the checks run
 * as one story on RING_EVENTS-event rings of NCPUS CPUs:
 *
 *   gating     events before the test named by trace.test=, and during
 *              another test, are not recorded; those during it are.
 *   full ring  cpu 0 records FLOOD_EVENTS events at once with cpu 1's
 *              FEW_EVENTS: cpu 0's ring keeps its newest RING_EVENTS and
 *              counts the rest as dropped, and cpu 1's events come out
 *              whole (ASan would report a write past cpu 0's ring).
 *   outsider   a thread with a CPU index past the count records nothing.
 *   names      the newest name of an address wins; a name pushed out by
 *              TRACE_NAMES_MAX newer ones leaves its object anonymous.
 *   dump       the header, the per-CPU counts, the events in order with
 *              their arguments, the end line, and a second dump that
 *              prints nothing.
 */
#include "check.h"
#include "platform.h"
#include "platform_host.h"
#include "trace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCPUS	     3
#define MAIN_CPU     2 /* the thread that runs the "tests" */
#define OUTSIDER_CPU 5 /* at or past NCPUS: not a traced CPU */
#define RING_EVENTS  16u
#define FLOOD_EVENTS 100u
#define FEW_EVENTS   5u
#define TRACED_TEST  "traced_test"
#define DUMP_LINE    512

static int lock_flooded, lock_few, lock_evicted, lock_renamed;
static int name_fillers[TRACE_NAMES_MAX];

struct recorder {
	unsigned cpu, events;
	const void *obj;
};

/* Record @events spin-acquire events on @obj as CPU @cpu, argument = index. */
static void *record(void *arg)
{
	const struct recorder *r = arg;

	host_set_cpu_id(r->cpu);
	for (unsigned i = 0; i < r->events; i++)
		trace_ev(TR_SPIN_ACQ, r->obj, i);
	return NULL;
}

static void run_recorders(struct recorder *r, unsigned n)
{
	pthread_t t[NCPUS + 1];

	for (unsigned i = 0; i < n; i++)
		pthread_create(&t[i], NULL, record, &r[i]);
	for (unsigned i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/* Run trace_dump() twice with stdout sent to a temporary file; returns the file, rewound. */
static FILE *capture_dumps(void)
{
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO);

	if (!f || saved < 0) {
		perror("test_trace: capture");
		exit(2);
	}
	fflush(stdout);
	dup2(fileno(f), STDOUT_FILENO);
	trace_dump();
	trace_dump();
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(f);
	return f;
}

/* The dump's id of the object named @name ("anon:..." objects have none), or -1. */
static int id_named(FILE *f, const char *name)
{
	char line[DUMP_LINE], want[DUMP_LINE];
	int id;

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "# TRACE name %d %511s", &id, want) == 2 &&
		    strcmp(want, name) == 0)
			return id;
	}
	return -1;
}

static unsigned count_lines(FILE *f, const char *prefix)
{
	char line[DUMP_LINE];
	unsigned n = 0;

	rewind(f);
	while (fgets(line, sizeof(line), f))
		n += strncmp(line, prefix, strlen(prefix)) == 0;
	return n;
}

static bool has_line(FILE *f, const char *text)
{
	char line[DUMP_LINE];

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, text) == 0)
			return true;
	}
	return false;
}

/*
 * Check @cpu's event lines: events numbered from @first, each a spin
 * acquisition ('A') of object @id whose argument is its index less @arg_base.
 */
static void check_events(FILE *f, unsigned cpu, unsigned first, unsigned n, int id,
			 unsigned arg_base)
{
	char line[DUMP_LINE], prefix[32];
	unsigned seen = 0;

	snprintf(prefix, sizeof(prefix), "# TRACE e %u ", cpu);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long index, base;
		char *tok;
		int used;

		if (strncmp(line, prefix, strlen(prefix)) != 0)
			continue;
		if (sscanf(line + strlen(prefix), "%llu %llx%n", &index, &base, &used) != 2) {
			CHECK(false, "cpu %u: unreadable event line: %s", cpu, line);
			return;
		}
		CHECK_EQ(index, first + seen, "cpu %u: a line's first index", cpu);
		for (tok = strtok(line + strlen(prefix) + used, " \n"); tok;
		     tok = strtok(NULL, " \n")) {
			unsigned obj, arg;
			unsigned long long delta;

			CHECK(sscanf(tok, "A%u.%x.%llx", &obj, &arg, &delta) == 3,
			      "cpu %u: event '%s' is not a spin acquisition", cpu, tok);
			CHECK_EQ(obj, (unsigned)id, "cpu %u event %u: object id", cpu,
				 first + seen);
			CHECK_EQ(arg, first + seen - arg_base, "cpu %u event %u: argument", cpu,
				 first + seen);
			seen++;
		}
	}
	CHECK_EQ(seen, n, "cpu %u: events in the dump", cpu);
}

int main(void)
{
	struct recorder flood[] = {
	    {.cpu = 0, .events = FLOOD_EVENTS, .obj = &lock_flooded},
	    {.cpu = 1, .events = FEW_EVENTS, .obj = &lock_few},
	    {.cpu = OUTSIDER_CPU, .events = FEW_EVENTS, .obj = &lock_few},
	};
	struct recorder early = {.cpu = 1, .events = FEW_EVENTS, .obj = &lock_evicted};
	char expect[DUMP_LINE];
	FILE *dump;

	host_set_cpu_count(NCPUS);
	host_set_cpu_id(MAIN_CPU);
	trace_configure(TRACE_GROUP_ALL, RING_EVENTS, TRACED_TEST);
	CHECK(trace_start(), "rings of %u events for %u CPUs", RING_EVENTS, NCPUS);

	/* Gating: nothing before the named test, nor during another. */
	run_recorders(&early, 1);
	trace_test_begin("another_test");
	run_recorders(&early, 1);
	trace_test_end("another_test", true);

	trace_name(&lock_evicted, "test:evicted");
	for (unsigned i = 0; i < TRACE_NAMES_MAX; i++)
		trace_name(&name_fillers[i], "test:filler[%u]", i);
	trace_name(&lock_flooded, "test:flooded[%u]", FLOOD_EVENTS);
	trace_name(&lock_few, "test:few");
	trace_name(&lock_renamed, "test:old-name");
	trace_name(&lock_renamed, "test:new-name");

	trace_test_begin(TRACED_TEST);
	run_recorders(flood, 3);
	trace_ev(TR_SPIN_ACQ, &lock_evicted, 0);
	trace_ev(TR_SPIN_ACQ, &lock_renamed, 0);
	trace_test_end(TRACED_TEST, true);
	run_recorders(&early, 1); /* after the test: not recorded */

	dump = capture_dumps();
	CHECK_EQ(count_lines(dump, "# TRACE v1 "), 1, "one dump, however often it is asked for");
	snprintf(expect, sizeof(expect), "# TRACE end cpus=%u", NCPUS);
	CHECK(has_line(dump, expect), "the dump ends with '%s'", expect);
	snprintf(expect, sizeof(expect), "# TRACE cpu 0 events=%u dropped=%u first=%u", RING_EVENTS,
		 FLOOD_EVENTS - RING_EVENTS, FLOOD_EVENTS - RING_EVENTS);
	CHECK(has_line(dump, expect), "full ring: '%s'", expect);
	snprintf(expect, sizeof(expect), "# TRACE cpu 1 events=%u dropped=0 first=0", FEW_EVENTS);
	CHECK(has_line(dump, expect), "neighbour of a full ring, nothing gated in: '%s'", expect);
	/* The main CPU: test start and end, and the two acquisitions. */
	snprintf(expect, sizeof(expect), "# TRACE cpu %u events=4 dropped=0 first=0", MAIN_CPU);
	CHECK(has_line(dump, expect), "the main CPU: '%s'", expect);
	CHECK_EQ(count_lines(dump, "# TRACE cpu "), NCPUS, "the outsider has no ring");

	check_events(dump, 0, FLOOD_EVENTS - RING_EVENTS, RING_EVENTS,
		     id_named(dump, "test:flooded[100]"), 0);
	check_events(dump, 1, 0, FEW_EVENTS, id_named(dump, "test:few"), 0);
	CHECK(id_named(dump, "test:new-name") >= 0, "the newest name of an address wins");
	CHECK(id_named(dump, "test:old-name") < 0, "a replaced name is not printed");
	CHECK(id_named(dump, "test:evicted") < 0,
	      "a name pushed out by %u newer ones is not printed", TRACE_NAMES_MAX);
	snprintf(expect, sizeof(expect), "test:%s", TRACED_TEST);
	CHECK(id_named(dump, expect) >= 0, "the test start names '%s'", expect);
	fclose(dump);
	return check_exit("test_trace");
}
