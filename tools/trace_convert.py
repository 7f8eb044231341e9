#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace_convert.py - a serial log's "# TRACE" lines to pictures a person opens.

Writes, into OUTDIR:
  trace.json    Chrome trace-event format (Perfetto UI, chrome://tracing):
                one track per CPU, complete ("X") slices for waiting,
                holding, lockless attempts, sleeping, barriers and tests,
                instants for failed exchanges, and flow arrows from each pv
                kick to the wake-up it caused;
  timeline.png  through gnuplot: a short window around the longest wait
                (the worst convoy), one lane per CPU, with a legend, and
                histograms of wait and hold times per lock kind.
Why gnuplot: it is installed by `make deps`, and needs no Python package.
A damaged trace converts with warnings naming what is missing
(trace_parse.py).  --check-json FILE checks a trace.json against the
trace-event format instead (required fields, matched begin/end and flow
pairs, one named track per CPU), for make test.
Usage: trace_convert.py SERIAL_LOG OUTDIR [--no-png] | --check-json FILE
"""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_parse  # noqa: E402

# Slice kinds: their track label and colour (timeline.png and the legend).
KINDS = {
    "wait": ("waiting for the lock", "#e07b39"),
    "hold": ("holding the lock", "#c0392b"),
    "lockless": ("lockless success", "#2e86c1"),
    "fallback": ("lockless attempts, then the lock", "#f1c40f"),
    "sleep": ("pv sleep", "#7d3c98"),
    "barrier": ("at a barrier", "#b3b6b7"),
}
# The timeline's window: this many times the longest wait (margins on both sides), and never narrower than this.
WINDOW_SPAN = 1.4
WINDOW_MIN_NS = 20000


def kind_of_lock(name):
    """The lock kind a histogram groups by: the name up to '[' or '-'."""
    return name.split("[")[0].split("-")[0] if not name.startswith("anon:") else "unnamed"


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
        if s.kind in ("wait", "hold"):
            args["ticket"] = s.arg
        if s.kind == "lockless":
            args["outcome"] = {"L": "lockless success", "B": "fallback to the lock",
                               "G": "gave up"}.get(s.outcome, s.outcome)
        out.append({"ph": "X", "name": f"{s.kind} {name}", "cat": s.kind, "pid": 0, "tid": s.cpu,
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


def choose_window(t, sl):
    """Around the longest wait (the worst convoy); else the busiest stretch's start."""
    waits = [s for s in sl if s.kind == "wait"]
    if waits:
        w = max(waits, key=lambda s: s.end - s.start)
        span = max(t.ns(w.end - w.start) * WINDOW_SPAN, WINDOW_MIN_NS)
        mid = (w.start + w.end) / 2
        half = span / 2 * (t.khz / 1e6 if t.khz else 1)
        return mid - half, mid + half, w
    locked = [s for s in sl if s.kind in ("hold", "lockless")]
    start = locked[0].start if locked else min(s.start for s in sl)
    return start, start + WINDOW_MIN_NS * (t.khz / 1e6 if t.khz else 1), None


def histogram(values):
    """Counts in power-of-two nanosecond bins: [(bin_ns, count)]."""
    bins = {}
    for v in values:
        b = 2 ** max(0, math.ceil(math.log2(max(v, 1))))
        bins[b] = bins.get(b, 0) + 1
    return sorted(bins.items())


def to_png(t, sl, outdir, png):
    lo, hi, worst = choose_window(t, sl)
    cpus = sorted(t.events)
    data = os.path.join(outdir, "timeline.dat")
    lane_of = {"barrier": -0.3, "wait": -0.15, "sleep": 0.0, "hold": 0.15, "lockless": 0.3,
               "fallback": 0.3}
    with open(data, "w") as f:
        for kind in KINDS:
            f.write(f"# {kind}\n")
            for s in sl:
                shown = "fallback" if s.kind == "lockless" and s.outcome != "L" else s.kind
                if shown != kind or s.end < lo or s.start > hi:
                    continue
                a, b = (max(s.start, lo) - lo), (min(s.end, hi) - lo)
                y = cpus.index(s.cpu) + lane_of[shown]
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
    hist = os.path.join(outdir, "hist.dat")
    series = []
    with open(hist, "w") as f:
        for kind in ("wait", "hold"):
            by = {}
            for s in sl:
                if s.kind == kind:
                    by.setdefault(kind_of_lock(t.name(s.obj)), []).append(t.ns(s.end - s.start))
            for lk, vals in sorted(by.items()):
                f.write(f"# {kind} {lk}\n")
                for b, n in histogram(vals):
                    f.write(f"{b} {n}\n")
                f.write("\n\n")
                series.append((kind, lk, len(vals)))
    title = "window of %.1f us" % (t.ns(hi - lo) / 1000)
    if worst:
        title += " around the longest wait: cpu %d, %.1f us for %s" % (
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
plot {', '.join(plots)}
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
    if "--no-png" not in argv:
        png = os.path.join(outdir, "timeline.png")
        to_png(t, sl, outdir, png)
        print(f"trace_convert: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
