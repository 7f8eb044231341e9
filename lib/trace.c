// SPDX-License-Identifier: MIT
/*
 * trace.c - the per-CPU rings of trace.h and their text dump.
 *
 * Each CPU writes only its own struct trace_ring (its own cache-line
 * pair) and its own event array, so recording needs no atomic and touches
 * no line another CPU writes.  A full ring overwrites its own oldest event
 * (never memory past its end) and counts it as dropped: the last events
 * are the ones a crash or a time-bound torture needs, and the checker
 * judges only the span every CPU's ring still holds (tools/trace/trace_check.py).
 *
 * The dump (docs/interface.md, "# TRACE lines"): a header, one line per
 * named object, per CPU a line with its counts then its events, TRACE_PER_LINE
 * to a line, each line carrying the index of its first event and its full
 * TSC, so a line lost on serial costs only its own events and is seen as a
 * gap.  Objects get small ids at dump time, so recording stores a pointer
 * and never searches.
 */
#include "trace.h"

#include "atomic.h"
#include "platform.h"
#include "printf.h"
#include "spinlock.h"
#include "string.h"

/* One event: 24 bytes, written by its own CPU only. */
struct trace_event {
	uint64_t tsc;
	uintptr_t obj;
	uint32_t arg;
	uint32_t type;
};

struct trace_ring {
	struct trace_event *ev;
	uint64_t n;	  /* events recorded; the last min(n, trace_events) are kept */
	uint64_t dropped; /* oldest events overwritten */
} __attribute__((aligned(CACHE_PAIR_BYTES)));

/* How many objects one dump can number, and how many events go on one line. */
#define TRACE_OBJS_MAX 512
#define TRACE_PER_LINE 16

unsigned trace_mask;
struct static_key trace_key = STATIC_KEY_INIT("trace");

static struct trace_ring trace_rings[MAX_CPUS];
static unsigned trace_groups, trace_events = TRACE_EVENTS_DEFAULT, trace_ncpus;
static char trace_only[TRACE_NAME_MAX];
static uint32_t trace_dumped;

/*
 * The names given to objects, TRACE_NAMES_MAX of them (96 KiB): allocated by
 * trace_start, since a boot without trace= names nothing, and .bss counts
 * against the kernel image's 4 MiB span.
 */
static struct trace_object_name {
	uint64_t obj;
	char name[TRACE_NAME_MAX];
} * trace_names;
static uint32_t trace_nnames;

/* Letter of each event type in the text encoding, and its group (TRACE_EVENT_LIST). */
#define TRACE_X_LETTER(id, letter, group, what) [TR_##id] = letter,
static const char trace_letter[TR_NTYPES] = {TRACE_EVENT_LIST(TRACE_X_LETTER)};
#undef TRACE_X_LETTER

#define TRACE_X_GROUP(id, letter, group, what) [TR_##id] = TRACE_GROUP_##group,
static const unsigned trace_group_of[TR_NTYPES] = {TRACE_EVENT_LIST(TRACE_X_GROUP)};
#undef TRACE_X_GROUP

/*
 * Record @groups from now on (0: nothing), and tell the spinlock's fast
 * paths.  Recording needs trace_key on, which the kernel allows only
 * before the other CPUs start (cmdline_apply_keys turns it on then for a
 * trace= boot): refused later, tracing stays off.
 */
static void trace_switch(unsigned groups)
{
	if (groups && !static_key_enable(&trace_key))
		return;
	trace_mask = groups;
	spin_trace_set((groups & TRACE_GROUP_SPIN) != 0);
}

unsigned trace_keys_at_default(struct static_key *out[])
{
	if (atomic_load32(&trace_mask))
		return 0;
	out[0] = &trace_key;
	return 1;
}

void trace_record(enum trace_type type, const void *obj, uint32_t arg)
{
	unsigned cpu = platform_cpu_id();
	struct trace_ring *r = &trace_rings[cpu];

	if (!(trace_mask & trace_group_of[type]) || cpu >= trace_ncpus || !r->ev)
		return;
	if (r->n >= trace_events)
		r->dropped++;
	/* Fenced: the stamp of an acquisition is taken after the load that saw the turn. */
	r->ev[r->n % trace_events] = (struct trace_event){
	    .tsc = platform_cycles_begin(), .obj = (uintptr_t)obj, .arg = arg, .type = type};
	r->n++;
}

void trace_configure(unsigned groups, unsigned events, const char *test)
{
	trace_groups = groups & TRACE_GROUP_ALL;
	trace_events = events;
	trace_only[0] = '\0';
	if (test) {
		size_t len = strlen(test);

		if (len >= sizeof(trace_only))
			len = sizeof(trace_only) - 1;
		memcpy(trace_only, test, len);
		trace_only[len] = '\0';
	}
}

bool trace_start(void)
{
	unsigned n = platform_cpu_count();

	if (!trace_groups)
		return true;
	if (!trace_names)
		trace_names = platform_alloc(TRACE_NAMES_MAX * sizeof(*trace_names), 8);
	if (!trace_names) {
		platform_log("trace: no memory for %u object names; tracing off", TRACE_NAMES_MAX);
		return false;
	}
	for (unsigned cpu = 0; cpu < n && cpu < MAX_CPUS; cpu++) {
		trace_rings[cpu].ev = platform_alloc(
		    (size_t)trace_events * sizeof(struct trace_event), CACHE_PAIR_BYTES);
		if (!trace_rings[cpu].ev) {
			platform_log("trace: no memory for %u events on cpu %u; tracing off",
				     trace_events, cpu);
			return false;
		}
	}
	trace_ncpus = n;
	if (!trace_only[0])
		trace_switch(trace_groups);
	return true;
}

void trace_name(const void *obj, const char *fmt, ...)
{
	uint32_t i;
	va_list ap;

	if (!trace_groups || !trace_names)
		return;
	/* A ring of names: the oldest make way once TRACE_NAMES_MAX were given. */
	i = atomic_xadd32(&trace_nnames, 1) % TRACE_NAMES_MAX;
	va_start(ap, fmt);
	kvsnprintf(trace_names[i].name, sizeof(trace_names[i].name), fmt, ap);
	va_end(ap);
	atomic_store64(&trace_names[i].obj, (uintptr_t)obj);
}

void trace_test_begin(const char *name)
{
	if (!trace_ncpus)
		return;
	if (trace_only[0] && strcmp(trace_only, name) == 0)
		trace_switch(trace_groups);
	trace_ev(TR_TEST_START, name, 0);
}

void trace_test_end(const char *name, bool passed)
{
	trace_ev(TR_TEST_END, name, passed);
	if (trace_only[0] && strcmp(trace_only, name) == 0)
		trace_switch(0);
}

/* The dump-time id of @obj, numbering objects in the order first seen; @ids holds them. */
static unsigned trace_id(uintptr_t *ids, unsigned *nids, uintptr_t obj)
{
	for (unsigned i = 0; i < *nids; i++)
		if (ids[i] == obj)
			return i;
	if (*nids == TRACE_OBJS_MAX)
		return TRACE_OBJS_MAX; /* "other": the converter warns */
	ids[*nids] = obj;
	return (*nids)++;
}

/* The registered name of @obj, or NULL.  The newest registration wins (an address reused). */
static const char *trace_name_of(uintptr_t obj, enum trace_type type)
{
	uint32_t n = atomic_load32(&trace_nnames);

	if (type == TR_TEST_START || type == TR_TEST_END)
		return (const char *)obj;
	if (!trace_names)
		return NULL;
	for (uint32_t back = 1; back <= n && back <= TRACE_NAMES_MAX; back++) {
		uint32_t i = (n - back) % TRACE_NAMES_MAX;

		if (atomic_load64(&trace_names[i].obj) == obj)
			return trace_names[i].name;
	}
	return NULL;
}

/* The events @cpu's ring still holds: indices first .. r->n - 1 of its record. */
static uint64_t trace_first_kept(const struct trace_ring *r)
{
	return r->n > trace_events ? r->n - trace_events : 0;
}

static const struct trace_event *trace_at(const struct trace_ring *r, uint64_t i)
{
	return &r->ev[i % trace_events];
}

static void trace_dump_names(uintptr_t *ids, unsigned *nids)
{
	for (unsigned cpu = 0; cpu < trace_ncpus; cpu++) {
		const struct trace_ring *r = &trace_rings[cpu];

		for (uint64_t i = trace_first_kept(r); i < r->n; i++) {
			const struct trace_event *e = trace_at(r, i);
			unsigned before = *nids, id = trace_id(ids, nids, e->obj);
			const char *name;

			if (*nids == before)
				continue;
			name = trace_name_of(e->obj, e->type);
			if (name)
				platform_print("# TRACE name %u %s%s", id,
					       e->type == TR_TEST_START || e->type == TR_TEST_END
						   ? "test:"
						   : "",
					       name);
			else
				platform_print("# TRACE name %u anon:%lx", id,
					       (unsigned long)e->obj);
		}
	}
}

static void trace_dump_cpu(unsigned cpu, uintptr_t *ids, unsigned *nids)
{
	const struct trace_ring *r = &trace_rings[cpu];
	char line[PLATFORM_LINE_MAX];

	platform_print("# TRACE cpu %u events=%llu dropped=%llu first=%llu", cpu,
		       (unsigned long long)(r->n - trace_first_kept(r)),
		       (unsigned long long)r->dropped, (unsigned long long)trace_first_kept(r));
	for (uint64_t first = trace_first_kept(r); first < r->n; first += TRACE_PER_LINE) {
		uint64_t base = trace_at(r, first)->tsc;
		size_t len = (size_t)ksnprintf(line, sizeof(line), "# TRACE e %u %llu %llx", cpu,
					       (unsigned long long)first, (unsigned long long)base);

		for (uint64_t i = first; i < r->n && i < first + TRACE_PER_LINE; i++) {
			const struct trace_event *e = trace_at(r, i);

			len += (size_t)ksnprintf(line + len, sizeof(line) - len, " %c%u.%x.%llx",
						 trace_letter[e->type], trace_id(ids, nids, e->obj),
						 e->arg, (unsigned long long)(e->tsc - base));
		}
		platform_print("%s", line);
	}
}

void trace_dump(void)
{
	static uintptr_t ids[TRACE_OBJS_MAX];
	unsigned nids = 0;

	if (!trace_ncpus || atomic_xadd32(&trace_dumped, 1) != 0)
		return;
	trace_switch(0);
	platform_print("# TRACE v1 cpus=%u khz=%llu events=%u groups=%x", trace_ncpus,
		       (unsigned long long)platform_facts().cycles_khz, trace_events, trace_groups);
	trace_dump_names(ids, &nids);
	for (unsigned cpu = 0; cpu < trace_ncpus; cpu++)
		trace_dump_cpu(cpu, ids, &nids);
	platform_print("# TRACE end cpus=%u", trace_ncpus);
}
