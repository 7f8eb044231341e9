// SPDX-License-Identifier: MIT
/*
 * pv_stats.c - the paravirtual locks' one record of counts (pv_stats.h):
 * spinlock_pv.c and qspinlock_pv.c add to pv_counters, everyone else reads
 * it through pv_stats(); and their one kick and one halt, which judge
 * every halt for a lost wake-up.
 *
 * The judgement needs no shared line on a fast path (kicks and halts are
 * slow paths already) and cannot accuse a busy host: at -smp 16 on 2
 * cores a kicked vCPU may wait over 100 ms for its host thread to run, so
 * a halt that lasted to its bound with a kick due long before is not yet
 * a lost kick.  A kick stores the time into the kicked CPU's words: before
 * it is sent (@before), and after it (@sent, then @sent_for, the @before
 * of the kick that was sent); the halting CPU reads platform_kicks_received,
 * clears the words, halts, and on return judges the halt lost only if no
 * kick reached it meanwhile, @before was set since it cleared it, @sent_for
 * says the @sent it reads is that same kick's, and that kick was sent
 * PV_LOST_KICK_NS or more before it woke.  A kick sent then cannot still
 * be in flight when the CPU runs again (its interrupt is pending and taken
 * with the timer's).  A kick meant for an earlier halt, whose @sent lands
 * after the clear, had its @before before the send, before its receipt,
 * before the clear: so @before reads 0, or the @before of a later kick,
 * whose @sent_for it is not.  Without @sent_for, that earlier kick's late
 * @sent beside a later kick's @before, whose sender a busy host had not yet
 * run to its send, was judged a lost wake-up (once in a make test, at
 * -smp 16).  A kick that reached the CPU for another reason than this
 * halt's hand-off hides a lost one: the judge can miss, never accuse
 * wrongly.
 */
#include "pv_stats.h"

#include "atomic.h"
#include "limits.h"
#include "printf.h"
#include "spinlock_pv.h"
#include "trace.h"

/* A line pair of its own: written only on slow paths, it must not share one with a fast path's word. */
struct pv_stats pv_counters __attribute__((aligned(CACHE_PAIR_BYTES)));

bool (*pv_kick_drop)(unsigned cpu);

/*
 * The last kick to each CPU, before and after it was sent (platform_now_ns),
 * and whose @before that @sent is; 0: none since.
 */
static struct {
	uint64_t before, sent, sent_for;
} pv_due[MAX_CPUS];

void pv_kick(unsigned cpu)
{
	bool (*drop)(unsigned) = pv_kick_drop;

	atomic_xadd64(&pv_counters.kicks, 1);
	trace_ev(TR_PV_KICK, NULL, cpu);
	uint64_t before = platform_now_ns();

	atomic_store64(&pv_due[cpu].before, before);
	if (!drop || !drop(cpu))
		platform_cpu_kick(cpu); /* its full fence orders the store above before the IPI */
	atomic_store64(&pv_due[cpu].sent, platform_now_ns());
	atomic_store64(&pv_due[cpu].sent_for, before); /* after @sent: it vouches for it */
}

void pv_halt(const uint32_t *addr, uint32_t expected, const void *lock)
{
	unsigned cpu = platform_cpu_id();
	uint64_t kicks = platform_kicks_received(), began, ended, sent;

	atomic_store64(&pv_due[cpu].before, 0);
	atomic_store64(&pv_due[cpu].sent, 0);
	atomic_store64(&pv_due[cpu].sent_for, 0);
	atomic_full_fence(); /* the clears before the wait's own comparison */
	began = platform_now_ns();
	platform_cpu_wait(addr, expected);
	ended = platform_now_ns();
	bool kicked = platform_kicks_received() != kicks;

	trace_ev(TR_PV_WOKEN, lock, (atomic_load32(addr) == expected) | (unsigned)kicked << 1);
	if (kicked)
		return; /* a kick reached it: not lost, however late */
	uint64_t before = atomic_load64(&pv_due[cpu].before);
	uint64_t sent_for = atomic_load64(&pv_due[cpu].sent_for);
	sent = atomic_load64(&pv_due[cpu].sent);
	if (ended - began < PLATFORM_WAIT_MAX_NS / 10 * 9 || !before || sent_for != before ||
	    !sent || ended < sent || ended - sent < PV_LOST_KICK_NS)
		return;
	if (atomic_xadd64(&pv_counters.lost_kicks, 1) == 0)
		platform_log("pv: cpu %u halted %llu ms on lock %p, to its time bound, and no kick "
			     "reached it, although one was sent %llu ms before it woke: a lost "
			     "wake-up (counted, further ones not shown)",
			     cpu, (unsigned long long)((ended - began) / 1000000),
			     (const void *)lock, (unsigned long long)((ended - sent) / 1000000));
}

struct pv_stats pv_stats(void)
{
#define PV_STAT_X_LOAD(field, group, before, after, plural)                                        \
	.field = atomic_load64_relaxed(&pv_counters.field),
	return (struct pv_stats){PV_STAT_LIST(PV_STAT_X_LOAD)};
#undef PV_STAT_X_LOAD
}

struct pv_stats pv_stats_delta(struct pv_stats after, struct pv_stats before)
{
#define PV_STAT_X_DIFF(field, group, before_, after_, plural) .field = after.field - before.field,
	return (struct pv_stats){PV_STAT_LIST(PV_STAT_X_DIFF)};
#undef PV_STAT_X_DIFF
}

uint64_t pv_stats_bad(const struct pv_stats *s)
{
#define PV_STAT_X_BAD(field, group, before, after, plural)                                         \
	+(PV_STAT_##group == PV_STAT_BAD ? s->field : 0)
	return 0 PV_STAT_LIST(PV_STAT_X_BAD);
#undef PV_STAT_X_BAD
}

/* How each counter is printed, in PV_STAT_LIST's order. */
static const struct {
	enum pv_stat_group group;
	const char *before, *after;
	bool plural;
} pv_stat_texts[PV_STATS_COUNT] = {
#define PV_STAT_X_TEXT(field, group, before, after, plural)                                        \
	{PV_STAT_##group, before, after, plural},
    PV_STAT_LIST(PV_STAT_X_TEXT)
#undef PV_STAT_X_TEXT
};

const char *pv_stats_format(char *buf, size_t size, const struct pv_stats *s)
{
#define PV_STAT_X_VALUE(field, group, before, after, plural) s->field,
	const uint64_t value[PV_STATS_COUNT] = {PV_STAT_LIST(PV_STAT_X_VALUE)};
#undef PV_STAT_X_VALUE
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < PV_STATS_COUNT && n < size; i++) {
		bool starts = i == 0 || pv_stat_texts[i].group != pv_stat_texts[i - 1].group;
		const char *sep = i == 0 ? "" : starts ? "; " : ", ";
		const char *heading =
		    starts && pv_stat_texts[i].group == PV_STAT_BAD ? "bad input: " : "";
		int w = ksnprintf(buf + n, size - n, "%s%s%s%llu%s%s", sep, heading,
				  pv_stat_texts[i].before, (unsigned long long)value[i],
				  pv_stat_texts[i].after,
				  pv_stat_texts[i].plural ? plural(value[i]) : "");

		n += w > 0 ? (size_t)w : 0;
	}
	return buf;
}
