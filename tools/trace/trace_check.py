#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace_check.py - the trace as an independent judge of the locks.

Reads the "# TRACE" lines of a serial log and checks, trusting no counter
the kernel printed, only the stamped events (docs/tracing.md):
  1. hold intervals of one lock never overlap between CPUs (every lock
     kind alike: a ticket lock's "A"/"R", a word lock's "h"/"R");
  2. a ticket lock is granted in ticket order (the next grant's ticket is
     the last one's plus a step; a gap is allowed only on a lock where a
     paravirtual waiter slept: the documented pass-over);
  3. every pv sleep ends, by a kick to that CPU or by the time bound
     (or an early return the platform allows, counted and shown), a
     qspinlock's halted queue waiters' as the ticket lock's sleepers';
     but a sleep that lasted to its time bound, whose wake-up says no
     kick reached the CPU (bit 1 of its arg clear), although a kick to it
     was stamped LOST_KICK_NS or more before it ended, is a lost wake-up
     (the kick should have ended it; a kick that did reach it, late, was
     a busy host, not a lost kick; the kernel judges the same,
     lib/pv_stats.h);
     events on other objects during a sleep are an interrupt's (interrupts
     are on for the halt) and do not end it, but a second sleep does not
     begin inside one (an interrupt only try-locks);
  4. a lockref lockless success never lies wholly inside another CPU's
     hold of the same lockref;
  5. a qspinlock's queue is FIFO: a CPU that queued behind CPU p takes the
     lock only after p took it at the end of the wait p queued in.
Checks 2 and 5 apply only where a lock's events carry an order (a ticket,
a "q" queued stamp): a word lock that promises none (lib/spinlock.h's kinds
without fifo, e.g. the test-and-set lock) is judged by 1, 3 and 4 alone.
Why these are sound with the kernel's stamps: an acquisition is stamped
after the load that saw the turn (LFENCE;RDTSC), a release before the
store that hands the lock on, and the TSC is one clock for every CPU, so
true holds of one lock are disjoint in TSC; a lockless success's exchange
happened between its operation's start and success stamps, so if that
whole window lies inside another CPU's hold the exchange succeeded while
the lock was held.  A missing event can hide an overlap but never make one
(a hold needs both its stamps), so checks 1 and 4 use every event kept;
checks 2, 3 and 5, where a missing grant or wake-up would look like a
fault, judge only the span every CPU recorded whole.
Check 5 with the stamps: a queued CPU c's tail XCHG lies between its "w"
and "q" stamps; p's wait began ("w") before p's XCHG, which came before
c's, and p's acquisition ("h", stamped once p saw a tail not its own, so
after c's XCHG) came after c's XCHG; so p's wait meets c's span [w, q].  If several of
p's waits do (c was slow to stamp), the earliest has the earliest "h",
and c's "h" must still follow it: the check can miss, never accuse wrongly.
Prints one line per finding (at most MAX_SHOWN of a kind, then a count),
exit status 1 on any violation, 2 on an unreadable trace.
Usage: trace_check.py [--warned] SERIAL_LOG   (--warned: the log's warnings were printed already)
"""
import bisect
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_parse  # noqa: E402

MAX_SHOWN = 5
TICKET_STEP = 2
TICKET_MOD = 1 << 16
# PLATFORM_WAIT_MAX_NS (lib/platform.h): a sleep's time bound.
WAIT_MAX_NS = 100 * 1000 * 1000
# PV_LOST_KICK_NS (lib/pv_stats.h): a sleep to its bound this long after its kick lost it.
LOST_KICK_NS = WAIT_MAX_NS // 2
# TR_PV_WOKEN's arg (lib/trace.h): bit 1, a kick reached the CPU during the sleep.
WOKEN_KICK_RECEIVED = 2


class Report:
    def __init__(self, t):
        self.t = t
        self.found = {}

    def fail(self, kind, text):
        self.found.setdefault(kind, []).append(text)

    def window(self, a, b):
        ns = self.t.ns(b - a)
        return f"{self.t.at(a)} to {self.t.at(b)} ({ns:.0f} ns)"


def judged(t, sl):
    return [s for s in sl if t.judged(s.start, s.end)]


def check_overlap(r, holds):
    by_lock = {}
    for h in holds:
        by_lock.setdefault(h.obj, []).append(h)
    for obj, hs in by_lock.items():
        hs.sort(key=lambda h: h.start)
        widest = None
        for h in hs:
            if widest is not None and h.start < widest.end and h.cpu != widest.cpu:
                r.fail("overlap", f"overlap: lock {r.t.name(obj)} held by cpu {widest.cpu} "
                       f"({r.window(widest.start, widest.end)}) and cpu {h.cpu} "
                       f"({r.window(h.start, h.end)}): both in "
                       f"{r.window(h.start, min(h.end, widest.end))}")
            if widest is None or h.end > widest.end:
                widest = h


def check_tickets(r, t, holds, sleeps):
    slept_on = {s.obj for s in sleeps}
    inits = {}
    for e in t.all_events():
        if e.kind == "I":
            inits.setdefault(e.obj, []).append(e.tsc)
    by_lock = {}
    for h in holds:
        by_lock.setdefault(h.obj, []).append(h)
    for obj, hs in by_lock.items():
        hs.sort(key=lambda h: h.start)
        for prev, h in zip(hs, hs[1:]):
            step = (h.arg - prev.arg) % TICKET_MOD
            if step == TICKET_STEP or any(prev.start < i < h.start for i in inits.get(obj, ())):
                continue  # in order, or the lock was made free again (its tickets restart)
            if step == 0 or step >= TICKET_MOD // 2:
                why = "granted again" if step == 0 else "granted before an earlier ticket"
            elif obj in slept_on:
                continue  # a sleeping waiter passed over (docs/paravirtual.md)
            else:
                why = f"{step // TICKET_STEP - 1} ticket(s) skipped with no sleeper"
            r.fail("order", f"ticket order: lock {r.t.name(obj)}: ticket {h.arg} to cpu {h.cpu} "
                   f"after ticket {prev.arg} to cpu {prev.cpu}: {why}, "
                   f"{r.window(prev.start, h.start)}")


def check_queue_order(r, t, waits):
    """Check 5 on the qspinlock waits that queued; returns how many it judged."""
    mine = {}
    for w in waits:
        mine.setdefault((w.cpu, w.obj), []).append(w)
    n = 0
    for c in waits:
        if c.pred is None or c.pred < 0 or not t.judged(c.start, c.end):
            continue
        met = [w for w in mine.get((c.pred, c.obj), ())
               if w.pred is not None and w.start <= c.queued_at and w.end >= c.start]
        if not met:
            continue  # the predecessor's wait was not kept whole
        n += 1
        p = min(met, key=lambda w: w.start)
        if p.end >= c.end:
            r.fail("queue", f"queue order: lock {t.name(c.obj)}: cpu {c.cpu} queued behind cpu "
                   f"{p.cpu} (at {t.at(c.queued_at)}) and took the lock at {t.at(c.end)}, before "
                   f"cpu {p.cpu} did at {t.at(p.end)} (its wait {r.window(p.start, p.end)})")
    return n


def check_sleeps(r, t, sl):
    kicks = {}
    for e in t.all_events():
        if e.kind == "K":
            kicks.setdefault(e.arg, []).append(e.tsc)
    for v in kicks.values():
        v.sort()
    kicked = timed = early = 0
    for s in (s for s in sl if s.kind == "sleep"):
        k = kicks.get(s.cpu, [])
        i = bisect.bisect_left(k, s.start)
        long_sleep = t.ns(s.end - s.start) >= WAIT_MAX_NS * 0.9
        received = s.end_arg & WOKEN_KICK_RECEIVED
        if (i < len(k) and k[i] <= s.end and long_sleep and not received
                and t.ns(s.end - k[i]) >= LOST_KICK_NS):
            r.fail("lost wake-up", f"lost wake-up: cpu {s.cpu} slept on {t.name(s.obj)} "
                   f"{r.window(s.start, s.end)}, to its time bound, and no kick reached it, "
                   "although a kick to it "
                   f"was stamped at {t.at(k[i])}, {t.ns(s.end - k[i]) / 1e6:.0f} ms before "
                   "it woke")
        elif i < len(k) and k[i] <= s.end:
            kicked += 1
        elif long_sleep:
            timed += 1
        else:
            early += 1
    # A sleep with no wake-up while its CPU recorded on: the sleep never ended.
    limit = t.complete_until()
    for cpu, evs in t.events.items():
        asleep = None
        for e in evs:
            if e.kind == "S":
                # An interrupt's locking only try-locks (the console's status line): it never
                # sleeps, so a sleep begun before the last one ended means the CPU ran on.
                if asleep is not None and (limit is None or e.tsc <= limit):
                    r.fail("sleep", f"pv sleep: cpu {cpu} slept on {t.name(asleep.obj)} at "
                           f"{t.at(asleep.tsc)} and slept again on {t.name(e.obj)} at "
                           f"{t.at(e.tsc)} with no wake-up")
                asleep = e
            elif e.kind == "Z":
                asleep = None
            elif asleep is not None and e.obj != asleep.obj:
                # Interrupts are on for the halt (platform_cpu_wait): an interrupt's own
                # locking, e.g. the status tick's try-lock of the console, runs while the CPU
                # sleeps; the sleeper itself stamps its wake-up before doing anything with its
                # lock, and an interrupt's try-lock of that lock fails (the sleeper's own ticket
                # or queue node holds it contended) and a failed try-lock stamps nothing.
                continue
            elif asleep is not None and (limit is None or e.tsc <= limit):
                r.fail("sleep", f"pv sleep: cpu {cpu} slept on {t.name(asleep.obj)} at "
                       f"{t.at(asleep.tsc)} and ran on at {t.at(e.tsc)} with no wake-up")
                asleep = None
    return kicked, timed, early


def check_lockless(r, t, holds):
    by_lock = {}
    for h in holds:
        by_lock.setdefault(h.obj, []).append(h)
    for hs in by_lock.values():
        hs.sort(key=lambda h: h.start)
    starts = {obj: [h.start for h in hs] for obj, hs in by_lock.items()}
    n = 0
    for cpu, evs in t.events.items():
        begun = {}
        for e in evs:
            if e.kind == "s":
                begun[e.obj] = e.tsc
            elif e.kind == "L" and e.obj in begun:
                n += 1
                ws, we = begun.pop(e.obj), e.tsc
                hs = by_lock.get(e.obj, [])
                i = bisect.bisect_right(starts.get(e.obj, []), ws) - 1
                # Holds of a working lock are disjoint: only the last one begun can contain it.
                for h in hs[max(0, i - 3):i + 1]:
                    if h.cpu != cpu and h.start <= ws and we <= h.end:
                        r.fail("lockless", f"lockless inside a hold: lock {t.name(e.obj)}: "
                               f"cpu {cpu} updated without the lock in {r.window(ws, we)}, "
                               f"inside cpu {h.cpu}'s hold {r.window(h.start, h.end)}")
                        break
    return n


def main(argv):
    # --warned: trace_convert.py already printed the log's warnings (make trace): count them.
    warned = "--warned" in argv
    argv = [a for a in argv if a != "--warned"]
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    t = trace_parse.parse_file(argv[1])
    if warned and t.warnings:
        print(f"trace_check: judged with the {len(t.warnings)} warning(s) above")
    for w in [] if warned else t.warnings:
        print(f"trace_check: warning: {w}")
    if not t.events:
        print("trace_check: no events in the trace")
        return 2
    sl = trace_parse.slices(t)
    holds = [s for s in sl if s.kind == "hold"]
    ticket_holds = [h for h in holds if not h.queued_kind]
    queued_waits = [s for s in sl if s.kind == "wait" and s.queued_kind]
    sleeps = [s for s in sl if s.kind == "sleep"]
    # A qspinlock's halted waiters sleep on the lock too: check 3 judges them like the ticket's.
    q_locks = {h.obj for h in holds if h.queued_kind}
    q_sleeps = [s for s in sleeps if s.obj in q_locks]
    r = Report(t)
    check_overlap(r, holds)
    check_tickets(r, t, judged(t, ticket_holds), sleeps)
    kicked, timed, early = check_sleeps(r, t, sl)
    n_lockless = check_lockless(r, t, holds)
    n_queue = check_queue_order(r, t, queued_waits)
    nev = sum(len(v) for v in t.events.values())
    print(f"trace_check: {nev} events on {len(t.events)} CPUs; {len(holds)} holds of "
          f"{len({h.obj for h in holds})} locks ({len(holds) - len(ticket_holds)} without "
          f"tickets: a qspinlock or another word lock), {n_lockless} lockless successes, "
          f"{len(sleeps)} pv sleeps ({kicked} kicked, {timed} time bound, {early} early return; "
          f"{len(q_sleeps)} on a qspinlock), "
          f"{n_queue} queued acquisitions judged for queue order")
    bad = 0
    for kind, lines in r.found.items():
        for line in lines[:MAX_SHOWN]:
            print(f"trace_check: FAIL {line}")
        if len(lines) > MAX_SHOWN:
            print(f"trace_check: FAIL ... {len(lines) - MAX_SHOWN} more of kind '{kind}'")
        bad += len(lines)
    print(f"trace_check: {'FAIL' if bad else 'ok'}: {bad} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
