#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace_convert.py - a serial log's "# TRACE" lines to pictures a person opens.

Writes, into OUTDIR:
  trace.json    Chrome trace-event format (Perfetto UI, chrome://tracing):
                one track per CPU, complete ("X") slices for waiting,
                holding, lockless attempts, sleeping, barriers and tests,
                instants for failed exchanges, and flow arrows from each pv
                kick to the wake-up it caused;
  timeline.png  through gnuplot: a short window, one lane per CPU, with a
                legend, and histograms of wait and hold times per lock kind.
                The window is the candidate (around a long wait, or around
                a pv sleep and its kick) that shows the most kinds of what
                the trace is for: a fallback to the lock, a sleep with its
                kick, a wait; among equals the one with the longest wait.
                One line says what it shows ("window ... shows:
                fallbacks=N sleeps=N kicked_sleeps=N kicks=N waits=N"),
                for a person and for make test's checks.
Why gnuplot: it is installed by `make deps`, and needs no Python package.
A damaged trace converts with warnings naming what is missing
(trace_parse.py).  --check-json FILE checks a trace.json against the
trace-event format instead (required fields, matched begin/end and flow
pairs, one named track per CPU), for make test.
Usage: trace_convert.py SERIAL_LOG OUTDIR [--no-png] | --check-json FILE
"""
import bisect
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_parse  # noqa: E402

# Slice kinds: their track label and colour (timeline.png and the legend).
KINDS = {
    "wait": ("waiting for a lock", "#e07b39"),
    "hold": ("holding a lock", "#c0392b"),
    "lockless": ("lockless success", "#2e86c1"),
    "fallback": ("lockless attempts, then the lock", "#f1c40f"),
    "sleep": ("pv sleep", "#7d3c98"),
    "barrier": ("at a barrier", "#b3b6b7"),
}
# A wait, hold or sleep on another lock than the window's busiest is named on the timeline,
# up to this many times (the first of each lock on each CPU), when at least this share wide.
OTHER_LOCK_LABELS = 12
OTHER_LOCK_MIN_SHARE = 0.005
# The timeline's window: this many times what it is around (margins on both sides), and never narrower than this.
WINDOW_SPAN = 1.4
WINDOW_MIN_NS = 20000
# Windows are tried around this many of the longest waits (and around every kicked sleep).
WINDOW_WAITS = 8
# A window may grow to this many times its width to take in a kind of event it lacks.
WINDOW_GROW = 4
# A pv sleep is drawn at least this fraction of the window wide, so a short one shows.
SLEEP_MIN_DRAWN = 1 / 300
# How the JSON names a qspinlock wait by how it ended (trace_parse.QACQ).
QWAIT_NAMES = {0: "wait (word free)", 1: "wait (pending)", 2: "wait (queued)"}


def kind_of_lock(name, queued):
    """
    The lock kind a histogram groups by: the family of its name (up to '[',
    '/' or '-': "fs:/a/b" is "fs", "torture:lockref[3]" "torture:lockref")
    and the spinlock under it, ticket or qspinlock (@queued).
    """
    family = re.split(r"[\[/-]", name, maxsplit=1)[0].rstrip(":")
    if name.startswith("anon:"):
        family = "unnamed"
    return f"{family} ({'qspinlock' if queued else 'ticket'})"


def to_json(t, sl):
    t0 = min((e.tsc for evs in t.events.values() for e in evs), default=0)

    def us(tsc):
        return round(t.ns(tsc - t0) / 1000.0, 3)

    out = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "lockref demo"}}]
    for cpu in sorted(t.events):
        out.append({"ph": "M", "name": "thread_name", "pid": 0, "tid": cpu,
                    "args": {"name": f"CPU {cpu}"}})
        out.append({"ph": "M", "name": "thread_sort_index", "pid": 0, "tid": cpu,
                    "args": {"sort_index": cpu}})
    for s in sl:
        name = t.name(s.obj) if s.kind != "test" else t.name(s.obj).replace("test:", "")
        args = {"lock": t.name(s.obj)}
        label = s.kind
        if s.kind in ("wait", "hold") and not s.queued_kind:
            args["ticket"] = s.arg
        elif s.kind == "hold":
            args["how"] = trace_parse.QACQ.get(s.arg, s.arg)
        elif s.kind == "wait":
            label = QWAIT_NAMES.get(s.end_arg, "wait")
            args["lock word seen"] = f"{s.arg:#x}"
            if s.pred is not None:
                args["queued behind"] = f"cpu {s.pred}" if s.pred >= 0 else "nobody"
        if s.kind == "lockless":
            args["outcome"] = {"L": "lockless success", "B": "fallback to the lock",
                               "G": "gave up"}.get(s.outcome, s.outcome)
        out.append({"ph": "X", "name": f"{label} {name}", "cat": s.kind, "pid": 0, "tid": s.cpu,
                    "ts": us(s.start), "dur": max(round(t.ns(s.end - s.start) / 1000.0, 3), 0.001),
                    "args": args})
    flow = 0
    wakes = {}
    for s in sl:
        if s.kind == "sleep":
            wakes.setdefault(s.cpu, []).append(s)
    for e in t.all_events():
        if e.kind == "F":
            out.append({"ph": "i", "s": "t", "name": "exchange failed", "cat": "lockless",
                        "pid": 0, "tid": e.cpu, "ts": us(e.tsc),
                        "args": {"reason": "lock held" if e.arg == 1 else "value changed"}})
        elif e.kind == "K":
            woken = next((w for w in wakes.get(e.arg, []) if w.start <= e.tsc <= w.end), None)
            out.append({"ph": "X", "name": f"kick cpu {e.arg}", "cat": "pv", "pid": 0,
                        "tid": e.cpu, "ts": us(e.tsc), "dur": 0.001, "args": {}})
            if woken:
                flow += 1
                out.append({"ph": "s", "id": flow, "name": "kick", "cat": "pv", "pid": 0,
                            "tid": e.cpu, "ts": us(e.tsc)})
                out.append({"ph": "f", "bp": "e", "id": flow, "name": "kick", "cat": "pv",
                            "pid": 0, "tid": woken.cpu, "ts": us(woken.end)})
    return {"traceEvents": out, "displayTimeUnit": "ns",
            "otherData": {"warnings": t.warnings, "tsc_khz": t.khz}}


# Fields every event of a phase must carry (the trace-event format's own list, trimmed to ours).
REQUIRED = {"X": ("name", "ts", "dur", "pid", "tid"), "B": ("name", "ts", "pid", "tid"),
            "E": ("ts", "pid", "tid"), "i": ("name", "ts", "pid", "tid", "s"),
            "s": ("id", "ts", "pid", "tid"), "f": ("id", "ts", "pid", "tid"),
            "M": ("name", "pid", "args")}


def check_json(doc):
    """Problems of a trace-event document, as strings; [] if it is well formed."""
    problems = []
    evs = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(evs, list):
        return ["no traceEvents list"]
    open_b, flows, tracks, used = {}, {}, {}, set()
    for i, e in enumerate(evs):
        ph = e.get("ph")
        if ph not in REQUIRED:
            problems.append(f"event {i}: unknown phase {ph!r}")
            continue
        missing = [k for k in REQUIRED[ph] if k not in e]
        if missing:
            problems.append(f"event {i} ({ph}): missing {', '.join(missing)}")
            continue
        if ph == "M":
            if e["name"] == "thread_name":
                tracks.setdefault(e.get("tid"), []).append(e["args"].get("name"))
            continue
        used.add(e["tid"])
        if ph == "X" and e["dur"] < 0:
            problems.append(f"event {i}: negative duration")
        elif ph == "B":
            open_b.setdefault(e["tid"], []).append(e)
        elif ph == "E":
            if not open_b.get(e["tid"]):
                problems.append(f"event {i}: end without a begin on track {e['tid']}")
            else:
                open_b[e["tid"]].pop()
        elif ph in "sf":
            flows.setdefault(e["id"], []).append(ph)
    problems += [f"track {tid}: {len(v)} begin(s) never ended" for tid, v in open_b.items() if v]
    problems += [f"flow {fid}: {''.join(v)} is not one start and one finish"
                 for fid, v in flows.items() if sorted(v) != ["f", "s"]]
    for tid in sorted(used):
        names = tracks.get(tid, [])
        if len(names) != 1 or not str(names[0]).startswith("CPU "):
            problems.append(f"track {tid}: not one 'CPU n' name ({names})")
    if len({n[0] for n in tracks.values() if n}) != len(tracks):
        problems.append("two tracks share a name")
    return problems


def kicked_sleeps(t, sl):
    """Each pv sleep that a kick to its CPU ended, with that kick: [(sleep, kick tsc)]."""
    kicks = {}
    for e in t.all_events():
        if e.kind == "K":
            kicks.setdefault(e.arg, []).append(e.tsc)
    out = []
    for s in sl:
        if s.kind == "sleep":
            k = next((k for k in kicks.get(s.cpu, ()) if s.start <= k <= s.end), None)
            if k is not None:
                out.append((s, k))
    return out


class Moments:
    """
    What a window can show, sorted once so that a window's counts are
    bisections: the fallbacks, pv sleeps and waits as (starts, ends), the
    kicks, and the kicked sleeps.
    """

    def __init__(self, t, sl):
        def spans(kind, outcome=None):
            ss = [s for s in sl if s.kind == kind and (outcome is None or s.outcome == outcome)]
            return sorted(s.start for s in ss), sorted(s.end for s in ss), ss

        self.fallbacks = spans("lockless", "B")
        self.sleeps = spans("sleep")
        self.waits = spans("wait")
        self.kicks = sorted(e.tsc for e in t.all_events() if e.kind == "K")
        self.pairs = kicked_sleeps(t, sl)


def meeting(spans, lo, hi):
    """How many of the (starts, ends) spans meet [lo, hi]: those begun by hi, less those ended before lo."""
    starts, ends = spans[0], spans[1]
    return bisect.bisect_right(starts, hi) - bisect.bisect_left(ends, lo)


class Shown:
    """What a window [lo, hi] shows of the trace: the counts its line prints."""

    def __init__(self, m, lo, hi, whole=True):
        self.lo, self.hi, self.whole = lo, hi, whole
        self.fallbacks = meeting(m.fallbacks, lo, hi)
        self.sleeps = meeting(m.sleeps, lo, hi)
        self.kicked = sum(1 for s, k in m.pairs if lo <= k <= hi and lo <= s.end <= hi)
        self.kicks = bisect.bisect_right(m.kicks, hi) - bisect.bisect_left(m.kicks, lo)
        self.waits = meeting(m.waits, lo, hi)
        self.worst = max((w for w in m.waits[2] if w.start <= hi and w.end >= lo),
                         key=lambda w: min(w.end, hi) - max(w.start, lo), default=None)

    def score(self):
        """
        More kinds shown first, then around moments every CPU's ring kept
        (else some lanes are empty), then more of the worst wait shown, then
        the narrower window.
        """
        kinds = (self.fallbacks > 0) + (self.kicked > 0) + (self.waits > 0)
        w = self.worst
        worst = min(w.end, self.hi) - max(w.start, self.lo) if w else 0
        return (kinds, self.whole, worst, self.lo - self.hi)

    def line(self, t):
        return (f"window {t.at(self.lo)} to {t.at(self.hi)} after the first event "
                f"({t.ns(self.hi - self.lo) / 1000:.1f} us) shows: fallbacks={self.fallbacks} "
                f"sleeps={self.sleeps} kicked_sleeps={self.kicked} kicks={self.kicks} "
                f"waits={self.waits}")


def around(t, a, b):
    """A window centred on [a, b]: WINDOW_SPAN times as wide, at least WINDOW_MIN_NS."""
    cycles_per_ns = t.khz / 1e6 if t.khz else 1
    half = max((b - a) * WINDOW_SPAN, WINDOW_MIN_NS * cycles_per_ns) / 2
    mid = (a + b) / 2
    return mid - half, mid + half


def take_in(lo, hi, a, b):
    """[lo, hi] grown to hold [a, b] with a margin, or None if that is WINDOW_GROW times as wide."""
    margin = (hi - lo) * (WINDOW_SPAN - 1) / 2
    nlo, nhi = min(lo, a - margin), max(hi, b + margin)
    return (nlo, nhi) if nhi - nlo <= (hi - lo) * WINDOW_GROW else None


def choose_window(t, sl):
    """
    The window the timeline draws, as a Shown.  Candidates: around each of
    the longest waits and each kicked sleep, and each of those grown to take
    in the nearest fallback or kicked sleep it lacks; the best score wins.
    A candidate is "whole" if what it is around lies where every CPU's
    ring kept its events (trace_parse.Trace.judged).
    """
    m = Moments(t, sl)
    pairs, fallbacks = m.pairs, m.fallbacks[2]
    waits = sorted(m.waits[2], key=lambda s: s.start - s.end)
    spans = [(s.start, s.end) for s in waits[:WINDOW_WAITS]]
    spans += [(min(s.start, k), s.end) for s, k in pairs]
    if not spans:
        locked = [s for s in sl if s.kind in ("hold", "lockless")] or sl
        start = min(s.start for s in locked)
        spans = [(start, start)]
    wanted = [[(s.start, s.end) for s in fallbacks], [(min(s.start, k), s.end) for s, k in pairs]]
    candidates = []
    for a, b in spans:
        lo, hi = around(t, a, b)
        candidates.append((lo, hi, t.judged(a, b)))
        for kind in wanted:
            if kind:
                mid = (lo + hi) / 2
                na, nb = min(kind, key=lambda ab: abs((ab[0] + ab[1]) / 2 - mid))
                grown = take_in(lo, hi, na, nb)
                if grown:
                    candidates.append((*grown, t.judged(min(a, na), max(b, nb))))
    return max((Shown(m, *c) for c in candidates), key=Shown.score)


def histogram(values):
    """Counts in power-of-two nanosecond bins: [(bin_ns, count)]."""
    bins = {}
    for v in values:
        b = 2 ** max(0, math.ceil(math.log2(max(v, 1))))
        bins[b] = bins.get(b, 0) + 1
    return sorted(bins.items())


def other_lock_labels(t, sl, lo, hi, cpus, lane_of):
    """gnuplot `set label` lines naming the lock of each bar that is not the window's
    busiest lock (a console lock held inside a pv sleep, the heap's lock): the bars'
    colours say what a CPU did, these say on what."""
    inside = [s for s in sl if s.kind in ("wait", "hold", "sleep") and s.end >= lo
              and s.start <= hi]
    holds = {}
    for s in inside:
        if s.kind == "hold":
            holds[s.obj] = holds.get(s.obj, 0) + 1
    main = max(holds, key=holds.get) if holds else None
    out, seen = [], set()
    for s in sorted(inside, key=lambda s: s.start):
        key = (s.cpu, s.obj, s.kind)
        wide = (min(s.end, hi) - max(s.start, lo)) >= OTHER_LOCK_MIN_SHARE * (hi - lo)
        if s.obj == main or key in seen or not wide or len(out) >= OTHER_LOCK_LABELS:
            continue
        seen.add(key)
        x = t.ns(max(s.start, lo) - lo) / 1000
        y = cpus.index(s.cpu) + lane_of[s.kind] + 0.09
        out.append(f"set label {len(out) + 1} \"{t.name(s.obj)}\" at {x:.3f},{y:.2f} "
                   f"font ',8' textcolor rgb '{KINDS[s.kind][1]}' front")
    return "\n".join(out)


def to_png(t, sl, outdir, png, shown):
    lo, hi, worst = shown.lo, shown.hi, shown.worst
    cpus = sorted(t.events)
    data = os.path.join(outdir, "timeline.dat")
    lane_of = {"barrier": -0.3, "wait": -0.15, "sleep": 0.0, "hold": 0.15, "lockless": 0.3,
               "fallback": 0.3}
    with open(data, "w") as f:
        for kind in KINDS:
            # A point below the lanes: gnuplot skips an empty block, and the indices would shift.
            f.write(f"# {kind}\n0 0 -5\n")
            for s in sl:
                drawn = "fallback" if s.kind == "lockless" and s.outcome != "L" else s.kind
                if drawn != kind or s.end < lo or s.start > hi:
                    continue
                a, b = (max(s.start, lo) - lo), (min(s.end, hi) - lo)
                if kind == "sleep":
                    b = max(b, a + (hi - lo) * SLEEP_MIN_DRAWN)
                y = cpus.index(s.cpu) + lane_of[drawn]
                f.write(f"{t.ns(a) / 1000:.3f} {t.ns(b) / 1000:.3f} {y:.2f}\n")
            f.write("\n\n")
        f.write("# kicks\n")
        wakes = [s for s in sl if s.kind == "sleep"]
        for e in t.all_events():
            if e.kind != "K" or not lo <= e.tsc <= hi or e.arg not in cpus:
                continue
            w = next((w for w in wakes if w.cpu == e.arg and w.start <= e.tsc <= w.end), None)
            end = w.end if w else e.tsc
            f.write(f"{t.ns(e.tsc - lo) / 1000:.3f} {cpus.index(e.cpu) + 0.15:.2f} "
                    f"{t.ns(end - e.tsc) / 1000:.3f} {cpus.index(e.arg) - cpus.index(e.cpu):.2f}\n")
        f.write("0 -5 0 0\n\n\n")
    labels = other_lock_labels(t, sl, lo, hi, cpus, lane_of)
    hist = os.path.join(outdir, "hist.dat")
    series = []
    with open(hist, "w") as f:
        for kind in ("wait", "hold"):
            by = {}
            for s in sl:
                if s.kind == kind:
                    by.setdefault(kind_of_lock(t.name(s.obj), s.queued_kind), []).append(
                        t.ns(s.end - s.start))
            for lk, vals in sorted(by.items()):
                f.write(f"# {kind} {lk}\n")
                for b, n in histogram(vals):
                    f.write(f"{b} {n}\n")
                f.write("\n\n")
                series.append((kind, lk, len(vals)))
    title = "window of %.1f us: %d fallbacks, %d pv sleeps (%d with their kick), %d waits" % (
        t.ns(hi - lo) / 1000, shown.fallbacks, shown.sleeps, shown.kicked, shown.waits)
    if worst:
        title += "; longest: cpu %d, %.1f us for %s" % (
            worst.cpu, t.ns(worst.end - worst.start) / 1000, t.name(worst.obj))
    plots = []
    for i, (kind, (label, colour)) in enumerate(KINDS.items()):
        plots.append(f"'{data}' index {i} using 1:3:1:2:($3-0.06):($3+0.06) with boxxyerror "
                     f"fs solid 0.9 noborder lc rgb '{colour}' title '{label}'")
    plots.append(f"'{data}' index {len(KINDS)} using 1:2:3:4 with vectors head filled "
                 f"lc rgb 'black' title 'pv kick -> wake-up'")
    hplots = [f"'{hist}' index {i} using 1:2 with linespoints lw 2 title '{k} {lk} (n={n})'"
              for i, (k, lk, n) in enumerate(series)] or ["NaN title 'no waits or holds'"]
    script = f"""
set terminal pngcairo size 1400,900 font ',10'
set output '{png}'
set multiplot layout 2,1 title "lockref demo trace: {title}"
set size 1,0.62
set origin 0,0.36
set xlabel 'microseconds from the window start'
set ylabel 'CPU'
set ytics ({', '.join(f'"CPU {c}" {i}' for i, c in enumerate(cpus))})
set yrange [-0.6:{len(cpus) - 0.4}]
set xrange [0:{t.ns(hi - lo) / 1000:.3f}]
set key outside right top
set grid xtics
{labels}
plot {', '.join(plots)}
unset label
set size 1,0.34
set origin 0,0
unset ytics
set ytics auto
set autoscale
set logscale x 2
set format x '%.0s%c'
set logscale y
set xlabel 'duration (ns, power-of-two bins)'
set ylabel 'count'
set title 'wait and hold times per lock kind'
{'' if series else 'set xrange [1:2]; set yrange [1:2]  # nothing to scale to'}
plot {', '.join(hplots)}
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if "--check-json" in argv and len(args) == 1:
        with open(args[0]) as f:
            problems = check_json(json.load(f))
        for p in problems[:20]:
            print(f"trace_convert: {args[0]}: {p}")
        print(f"trace_convert: {args[0]}: {'ok' if not problems else 'FAIL'}, "
              f"{len(problems)} problem(s)")
        return 1 if problems else 0
    if len(args) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    log, outdir = args
    t = trace_parse.parse_file(log)
    for w in t.warnings:
        print(f"trace_convert: warning: {w}")
    if not t.events:
        print("trace_convert: no # TRACE events in the log (was trace= given?)")
        return 1
    os.makedirs(outdir, exist_ok=True)
    sl = trace_parse.slices(t)
    with open(os.path.join(outdir, "trace.json"), "w") as f:
        json.dump(to_json(t, sl), f)
    print(f"trace_convert: {outdir}/trace.json: {len(sl)} slices on {len(t.events)} CPU tracks")
    shown = choose_window(t, sl)
    print(f"trace_convert: {shown.line(t)}")
    if "--no-png" not in argv:
        png = os.path.join(outdir, "timeline.png")
        to_png(t, sl, outdir, png, shown)
        print(f"trace_convert: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
