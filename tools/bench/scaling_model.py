# SPDX-License-Identifier: MIT
"""scaling_model.py - what the contended benchmarks should do at N CPUs, from
one run's own figures: a model per shape, checked against the measured points
and drawn past the machine (to PROJECT_MAX CPUs).

Every model is a machine-repairman chain (one shared cache line is the
server): state k = CPUs at the line (holding it or queued for it), n CPUs in
all.  A CPU away from the line comes back after its think time Z (rate
(n-k)/Z); the line finishes one operation in D_k ns (rate 1/D_k).  The
birth-death chain's balance gives P_k; the throughput is the flow through it,
sum P_k (n-k)/Z.  With no think time (refcount) every CPU is always queued:
the rate is 1/D_n.  The models differ only in D_k, the ns the shared line
spends on one operation (a get+put pair, or one stat) in state k:

  ticket   Boyd-Wickizer, Kaashoek, Morris and Zeldovich, "Non-scalable locks
           are dangerous" (Linux Symposium 2012), section 3: arrivals (n-k)a,
           service 1/(s + c k/2) per acquisition, because the releasing
           store must reach every waiter and the next holder's read comes
           back after half of them on average.  Their closed form is the
           product solution of that chain, P_k = P_0 a^k n!/(n-k)!
           prod_{i=1..k} (s + c i/2); tools/tests/test_scaling_model.py
           checks this solver's collapse point against it.  A get+put takes
           the lock twice: D_k = T1 + 2 c k/2.
  queued   the queued spinlock.  With 2 CPUs the waiter spins on the lock
           word (the pending bit): one transfer per hand-off, D = T1 + 2 c.
           From 3 CPUs a queue forms and a hand-off moves QUEUE_HANDOFF
           lines in turn: the lock word to the releaser's store, to the
           queue head's read and exchange, to the next arrival's tail
           exchange, and the successor's node to the head's flag store:
           D = T1 + 2 QUEUE_HANDOFF c.
  xadd     one `lock xadd` pair per operation, the line moving once per
           operation; a queued stream of transfers overlaps the request leg
           of the next (QUEUED_SHARE): D = max(T1, QUEUED_SHARE c).
  lockref  the compare-exchange loop: a read for the old value, then the
           exchange's upgrade, two transfers per operation, and one more
           per failed exchange f: D = max(T1, h (2 + f)), h = QUEUED_SHARE c.
           f is what the row measured (its retries_per_op, per lockref call,
           times the LOCKS_PER_OP calls of an operation); where no row was
           measured (the projection) an exchange fails when another CPU's
           write lands in the window w between its load and its exchange (w:
           the lockref's own 1-CPU cost over a bare xadd's, per update):
           p = 1 - exp(-(n-1)/n w/h), f = 2 p/(1-p).
  pathwalk a stat is the walk's reads (shared read-only, so they scale: the
           think time Z = T1(stat) - T1(the count's own get+put)) and one
           get+put on the final node, served by the count's model (ticket
           for the locked filesystem, lockref otherwise); a stat of a
           CPU's own file shares no written line: n / T1.

Inputs, all from the one log (never fitted to a point): T1, the 1-CPU row's
ns per operation (1e9 / its ops_per_sec, so the 1-CPU point is an input, not
a prediction); c, the median one-way latency of the c2c rows between the CPUs
a point ran on (all pairs for the projection); f, the lockref's failed
exchanges per operation, counted by the benchmark in the point's own row.
The report prints each input beside the row it came from.

The domain: the chain has no preemption, no runs of operations by one owner
of the line, and inputs measured once.  domain() names, from the log's own
figures, the points where one of those does not hold; such a point is shown
but not judged, and nothing is projected from its curve (docs/scaling-model.md).
"""

import json
import math
import os
import statistics

from bench_c2c import pairs
from bench_log import fmt_rate, table

# An unqueued transfer (what c2c times) is three legs: the request to the
# line's home, the snoop to its owner, the data to the requester.  When the
# next request already waits at the home, its first leg overlaps the current
# transfer, so a saturated stream pays two of the three.
QUEUED_SHARE = 2 / 3
LOCKS_PER_OP = 2        # a refcount get+put, or a stat's get and put, takes a lock twice
PROJECT_MAX = 80        # the seeds' machine: 8 sockets x 10 cores
RATIO_COUNTS = (10, 20, 40, 80)
MISS = 0.25             # beyond this relative error the docs must name the effect left out
QUEUE_HANDOFF = 4       # lines a queued lock's hand-off moves once 3 CPUs queue (see above)
# The fewest times each mechanism moves its line per operation (a get+put, or a stat's get
# and put): xadd once, the lockref's read and upgrade, a lock's hand-off once per
# acquisition.  A row faster than that many transfers allow kept its line for runs of
# operations (domain() below).
FEWEST_MOVES = {"xadd": 1, "lockref": 2, "ticket": LOCKS_PER_OP, "queued": LOCKS_PER_OP}
# The domain (domain() below): a 1-CPU input whose trials spread wider than this was
# not one figure; a point whose threads ran together less than this share of the run,
# or stopped for this share of one trial, was preempted, which the chain leaves out.
INPUT_SPREAD = 1.25
OVERLAP_MIN = 0.95
STALL_SHARE = 0.2
# The kinds of domain() reason, as the console's summary explains them.
DOMAIN_WORDS = {
    "unsteady input": f"a 1-CPU row's trials spread over {INPUT_SPREAD}x",
    "preempted input": "a 1-CPU row's thread was stopped",
    "preempted": f"threads together under {OVERLAP_MIN:.0%} of the run, or one stopped for "
                 f"{STALL_SHARE:.0%} of a trial",
    "ownership runs": "a row beat the c2c transfers its mechanism needs per operation: the "
                      "line stayed with one CPU for runs of operations",
}

# The curves a model covers: (bench, impl, op, model, the 1-CPU row of the final
# node's count for pathwalk, whether the plot draws it).  The locked filesystem takes
# the lockref's lock for each count change, as refcount's lockref-locked does.  The
# lockref's other forms (16-byte word, the other instruction, over the queued lock,
# over the spin-then-halt lock) check the same loop with their own T1; only their
# points are reported, so the plot's key stays readable.
COVERED = [
    ("refcount", "xadd", "get+put", "xadd", None, True),
    ("refcount", "spinlock", "get+put", "ticket", None, True),
    ("refcount", "lockref", "get+put", "lockref", None, True),
    ("refcount", "qspinlock", "get+put", "queued", None, True),
    ("refcount", "lockref16", "get+put", "lockref", None, False),
    ("refcount", "lockref-cmpxchgq", "get+put", "lockref", None, False),
    ("refcount", "lockref-qspinlock", "get+put", "lockref", None, False),
    ("refcount", "lockref-pv", "get+put", "lockref", None, False),
    ("pathwalk", "lockref", "stat-same-path", "lockref", ("refcount", "lockref"), True),
    ("pathwalk", "spinlock", "stat-same-path", "ticket", ("refcount", "lockref-locked"), True),
    ("pathwalk", "lockref", "stat-own-file", "private", None, True),
    ("pathwalk", "spinlock", "stat-own-file", "private", None, True),
]
# The lockref/lock pairs projected to RATIO_COUNTS: (bench, lockref curve, lock curve).
RATIOS = [("refcount", ("lockref", "get+put"), ("spinlock", "get+put")),
          ("pathwalk", ("lockref", "stat-same-path"), ("spinlock", "stat-same-path"))]


def chain_rate(n, think, service):
    """Operations per ns of the chain: @n CPUs, @think ns away, service(k) ns in state k.

    Solved by the cut equations P_k (n-k)/Z = P_{k+1} / D_{k+1}, in logarithms
    so 80 CPUs with a tiny think time do not overflow.
    """
    if think <= 0:
        return 1.0 / service(n)
    logw = [0.0]
    for k in range(1, n + 1):
        logw.append(logw[-1] + math.log((n - k + 1) / think) + math.log(service(k)))
    top = max(logw)
    weights = [math.exp(x - top) for x in logw]
    total = sum(weights)
    return sum(w / total * (n - k) / think for k, w in enumerate(weights))


def service_time(model, n, t1, c, w=0.0, fails=None):
    """D_k of @model at @n CPUs as a function of k (ns per operation on the line); @fails:
    the lockref's measured failed exchanges per operation, or None for the window's
    estimate."""
    h = QUEUED_SHARE * c
    if n == 1 or model == "private":
        return lambda k: t1             # nobody else moves the line
    if model == "ticket":
        return lambda k: t1 + LOCKS_PER_OP * c * k / 2
    if model == "queued":
        handoff = 1 if n == 2 else QUEUE_HANDOFF
        return lambda k: t1 + LOCKS_PER_OP * handoff * c
    if model == "xadd":
        return lambda k: max(t1, h)
    if model != "lockref":
        raise ValueError(f"scaling_model: no model named {model!r}")
    if fails is None:
        p = 1 - math.exp(-(n - 1) / n * w / h)   # an exchange fails: a write lands within w
        fails = 2 * p / (1 - p)
    return lambda k: max(t1, h * (2 + fails))


def rate(curve, n, c=None, fails=None):
    """Predicted operations per second of @curve (an inputs() entry) at @n CPUs, with the
    line transfer @c (default: the median over every pair) and the lockref's measured
    failed exchanges per operation @fails (default: the window's estimate)."""
    if curve["model"] == "private":
        return n * 1e9 / curve["t1"]
    return 1e9 * chain_rate(n, curve["think"],
                            service_time(curve["model"], n, curve["t1"],
                                         curve["c"] if c is None else c,
                                         curve.get("w", 0.0), fails))


def measured_fails(curve, row):
    """The lockref's failed exchanges per operation that @row counted (its retries_per_op
    is per lockref call, LOCKS_PER_OP calls an operation), or None: not a lockref curve,
    or a row without the count."""
    if curve["model"] != "lockref" or row.get("retries_per_op") is None:
        return None
    return LOCKS_PER_OP * float(row["retries_per_op"])


def cpu_set(text):
    """{0, 1, 2, 5} from a row's cpu_list "0-2,5"."""
    out = set()
    for part in filter(None, str(text).split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def span_c(results, row):
    """The median one-way latency of the c2c pairs among the CPUs @row ran on, or None."""
    cpus = cpu_set(row.get("cpu_list", ""))
    lats = [float(r["oneway_ns"]) for (a, b), r in pairs(results).items()
            if a in cpus and b in cpus]
    return statistics.median(lats) if lats else None


def one_cpu(results, bench, impl, op):
    """(ns per operation, source text) of the 1-CPU row, or None."""
    r = results.get((bench, impl, op, 1))
    if not r or not r.get("ops_per_sec"):
        return None
    return 1e9 / r["ops_per_sec"], (f"{bench} {impl} {op} cpus=1: ops_per_sec "
                                    f"{r['ops_per_sec']}")


def inputs(results):
    """({(bench, impl, op): curve}, input lines, the missing-input line or None).

    A curve is a dict: model, t1, c, think, w, and whether the plot draws it.
    Only curves the log measured at 2 or more CPUs are modelled.
    """
    lines, lacking, curves = [], [], {}
    lats = sorted(float(r["oneway_ns"]) for r in pairs(results).values())
    if lats:
        c = statistics.median(lats)
        lines.append(f"c = {c:.1f} ns: the median one-way latency of {len(lats)} c2c rows "
                     f"(bench c2c, min {lats[0]:.1f}, max {lats[-1]:.1f})")
    xadd = one_cpu(results, "refcount", "xadd", "get+put")
    wanted, counts = 0, set()
    for bench, impl, op, model, count, drawn in COVERED:
        measured = [k[3] for k in results if k[:3] == (bench, impl, op)]
        counts.update(measured)
        if not measured or max(measured) < 2:
            continue
        wanted += 1
        need = [(bench, impl, op)] + ([count + ("get+put",)] if count else []) \
            + ([("refcount", "xadd", "get+put")] if model == "lockref" else [])
        rows = [one_cpu(results, *key) for key in need]
        lacking += ["/".join(key) for key, row in zip(need, rows)
                    if row is None and "/".join(key) not in lacking]
        if None in rows or not lats:
            continue
        t1 = rows[0][0]
        curve = {"model": model, "t1": t1, "c": c, "think": 0.0, "drawn": drawn}
        text = f"{bench}/{impl}/{op} ({model}): T1 = {t1:.1f} ns from {rows[0][1]}"
        if count:
            curve["t1"] = rows[1][0]
            curve["think"] = max(0.0, t1 - rows[1][0])
            text += (f"; the count's T1 = {rows[1][0]:.1f} ns from {rows[1][1]}, think "
                     f"time Z = {curve['think']:.1f} ns")
        if model == "lockref":
            curve["w"] = max(0.0, (curve["t1"] - xadd[0]) / 2)
            text += f"; window w = {curve['w']:.1f} ns against {xadd[1]}"
            fails = [(n, measured_fails(curve, results[(bench, impl, op, n)]))
                     for n in sorted(measured) if n > 1]
            if any(f is not None for _, f in fails):
                text += (f"; failed exchanges per operation f, each row's retries_per_op x "
                         f"{LOCKS_PER_OP}: " + ", ".join(f"{f:.2f} at {n}" for n, f in fails
                                                         if f is not None))
        curve["shaky"] = [why for why in (shaky_input(results, key) for key in need) if why]
        curves[(bench, impl, op)] = curve
        lines.append(text)
    missing = ([] if lats or not wanted else
               ["c2c rows (bench_native --only=c2c: the line-transfer cost)"]) \
        + (["1-CPU rows of " + ", ".join(lacking)] if lacking else []) \
        + ([f"rows at 2 or more CPUs: it measured one CPU count ({min(counts)}), the "
            f"model's input, and nothing to predict"] if counts and not wanted else [])
    problem = None
    if missing:
        problem = ("scaling model: the log has no " + "; no ".join(missing)
                   + (": the plot shows the measured points alone" if not curves
                      else ": the curves that need them are not modelled"))
    return curves, lines, problem


def stalled(r):
    """Why the threads of row @r did not run together all along, or None."""
    overlap, gap = r.get("overlap", 1.0), r.get("max_gap_us", 0) / 1000.0
    if r["cpus"] > 1 and overlap < OVERLAP_MIN:
        return f"threads ran together {overlap:.0%} of the run"
    if r.get("ms") and gap >= STALL_SHARE * r["ms"]:
        return f"a thread stopped for {gap:.1f} ms of a {r['ms']} ms trial"
    return None


def shaky_input(results, key):
    """Why the 1-CPU row of @key (bench, impl, op) is not one figure, or None."""
    r = results[key + (1,)]
    lo, hi = r.get("ops_per_sec_min"), r.get("ops_per_sec_max")
    name = "/".join(key)
    if lo and hi and hi > INPUT_SPREAD * lo:
        return (f"unsteady input: {name} at 1 CPU, trials {fmt_rate(lo)} to "
                f"{fmt_rate(hi)} ({hi / lo:.2f}x)")
    why = stalled(r)
    return f"preempted input: {name} at 1 CPU, {why}" if why else None


def domain(results, curve, key, n, c):
    """Why point @n of @curve lies outside the model's domain, or None: its inputs are not
    one figure, its threads were preempted, or the line stayed with one owner for runs of
    operations: the point's row did more operations than FEWEST_MOVES transfers of @c each
    allow (a walk's think time aside: the line's transfers are one after another)."""
    if n == 1:
        return None
    if curve["shaky"]:
        return curve["shaky"][0]
    row = results[key + (n,)]
    why = stalled(row)
    if why:
        return f"preempted: {why}"
    moves = FEWEST_MOVES.get(curve["model"])
    if moves and row.get("ops_per_sec"):
        limit = 1e9 / (moves * QUEUED_SHARE * c)
        if row["ops_per_sec"] > (1 + MISS) * limit:
            name = key[1] + ("" if key[0] == "refcount" else " " + key[2])
            return (f"ownership runs: {name} at {n} CPUs did {fmt_rate(row['ops_per_sec'])}/s, "
                    f"over the {fmt_rate(limit)}/s that {moves} transfer{'s' * (moves > 1)} of "
                    f"the c2c pair ({c:.0f} ns) per operation allow{'s' * (moves == 1)}, so "
                    f"the line stayed with one CPU for runs of operations")
    return None


def predict(results, emulated=False):
    """The model of a log: curves, input lines, the problem line, and one point per
    measured count a model covers (bench, impl, cpus, measured, predicted, error, and
    domain: None, or why the point is outside the model's domain).
    @emulated: the log is an emulator's (bench_log.judged_emulated), said in the section."""
    curves, lines, problem = inputs(results)
    points = []
    for key, curve in curves.items():
        bench, impl, op = key
        for n in sorted(k[3] for k in results if k[:3] == key):
            row = results[key + (n,)]
            measured = row["ops_per_sec"]
            c = span_c(results, row) or curve["c"]
            predicted = rate(curve, n, c, measured_fails(curve, row))
            points.append({"bench": bench, "impl": impl, "op": op, "cpus": n,
                           "measured": measured, "predicted": round(predicted),
                           "error": round(predicted / measured - 1, 4) if measured else None,
                           "domain": domain(results, curve, key, n, c)})
    return {"curves": curves, "inputs": lines, "problem": problem, "points": points,
            "emulated": emulated}


def verdict(p):
    """"input", "out of domain", "MISS" or "" (within MISS) for point @p."""
    if p["cpus"] == 1:
        return "input"
    if p["domain"]:
        return "out of domain"
    return "MISS" if p["error"] is not None and abs(p["error"]) > MISS else ""


def misses(model):
    """The judged points (model.json objects) whose error is over MISS."""
    return [p for p in model["points"] if verdict(p) == "MISS"]


def projectable(model, key):
    """Whether curve @key may be projected: judged at some count past 1 CPU, missed at none.
    A point outside the domain is not a miss: the model says nothing of it."""
    marks = [verdict(p) for p in model["points"]
             if (p["bench"], p["impl"], p["op"]) == key and p["cpus"] > 1]
    return "" in marks and "MISS" not in marks


def unprojectable(model, key):
    """Why curve @key is not projected, in words (projectable() is false)."""
    missed = [p["cpus"] for p in misses(model) if (p["bench"], p["impl"], p["op"]) == key]
    if missed:
        return f"{' '.join(key)} missed at {', '.join(map(str, missed))} CPUs"
    return f"{' '.join(key)} was judged at no count (every point outside the domain)"


def error_table(model):
    """The per-point table: predicted beside measured, the relative error, misses marked,
    and the points outside the model's domain with the reason."""
    rows = []
    for p in model["points"]:
        err = p["error"]
        mark = verdict(p)
        rows.append([f"{p['bench']} {p['impl']} {p['op']}", p["cpus"], fmt_rate(p["measured"]),
                     fmt_rate(p["predicted"]), "-" if err is None else f"{100 * err:+.0f}%",
                     mark + (f": {p['domain']}" if p["domain"] else "")])
    return table(["curve", "CPUs", "measured ops/s", "predicted ops/s", "error",
                  f"over {100 * MISS:.0f}%, or why not judged"], rows)


def tally(model):
    """{"judged", "within", "missed", "outside"} counts over the points past 1 CPU."""
    marks = [verdict(p) for p in model["points"] if p["cpus"] > 1]
    return {"judged": sum(m in ("", "MISS") for m in marks), "within": marks.count(""),
            "missed": marks.count("MISS"), "outside": marks.count("out of domain")}


def summary(model):
    """The model's result in a few lines, for the console (the full table is report.md's)."""
    if not model["points"]:
        return []
    t = tally(model)
    lines = [f"scaling model: {t['within']} of {t['judged']} judged points within "
             f"{100 * MISS:.0f}% of the measured, {t['missed']} missed; {t['outside']} "
             f"outside its domain, not judged (report.md has every point and why)"]
    lines += [f"  missed: {p['bench']} {p['impl']} {p['op']} at {p['cpus']} CPUs: "
              f"{fmt_rate(p['measured'])}/s measured, {fmt_rate(p['predicted'])}/s predicted "
              f"({100 * p['error']:+.0f}%)" for p in misses(model)]
    # Every point outside the domain by name, one line per reason, a curve's counts together.
    reasons = {}
    for p in model["points"]:
        if verdict(p) == "out of domain":
            name = p["impl"] + ("" if p["bench"] == "refcount" else " " + p["op"])
            reasons.setdefault(p["domain"].split(":")[0], {}).setdefault(name, []).append(
                str(p["cpus"]))
    for why, curves in reasons.items():
        lines.append(f"  outside, {why} ({DOMAIN_WORDS[why]}): " + ", ".join(
            f"{name}@{','.join(counts)}" for name, counts in curves.items()))
    ratios = ratio_rows(model)
    lines += [f"  projected {r[0]}: " + ", ".join(
        f"{v} at {n}" for v, n in zip(r[1:], RATIO_COUNTS)) for r in ratios["rows"]]
    lines += [f"  not projected: {why}" for why in ratios["not"]]
    return lines


def ratio_rows(model):
    """{"rows": predicted lockref/lock at RATIO_COUNTS, "not": why a pair is not projected}.
    A pair is projected only when both curves were judged at every measured count and
    missed at none."""
    rows, why = [], []
    for bench, (limpl, lop), (kimpl, kop) in RATIOS:
        lref = model["curves"].get((bench, limpl, lop))
        lock = model["curves"].get((bench, kimpl, kop))
        if not (lref and lock):
            continue
        name = f"{bench} {lop}: {limpl} / {kimpl}"
        bad = [unprojectable(model, k) for k in ((bench, limpl, lop), (bench, kimpl, kop))
               if not projectable(model, k)]
        if bad:
            why.append(f"{name}: {'; '.join(bad)}")
            continue
        rows.append([name] + [f"{rate(lref, n) / rate(lock, n):.2f}x" for n in RATIO_COUNTS])
    return {"rows": rows, "not": why}


def ratio_table(model):
    """Predicted lockref/lock at RATIO_COUNTS, where both curves held (Markdown, or "")."""
    rows = ratio_rows(model)["rows"]
    return table(["predicted"] + [f"{n} CPUs" for n in RATIO_COUNTS], rows) if rows else ""


def section(model):
    """The report's model section (Markdown)."""
    parts = ["", "## Scaling model", "",
             "tools/bench/scaling_model.py: one chain per shape (ticket lock, queued lock, xadd, "
             "lockref loop, path walk), fed by this log's own figures (each point's c: the "
             "median over the c2c pairs of the CPUs it ran on; the lockref's failed "
             "exchanges: its row's count); the dashed curves of scaling.png, and its last "
             f"panel to {PROJECT_MAX} CPUs (the failures estimated there) for the curves that "
             "missed nowhere.  A point outside the model's domain "
             "(docs/scaling-model.md) is shown with the reason and not judged.", ""]
    if model["problem"]:
        parts += [model["problem"] + ".", ""]
    if model["emulated"] and model["points"]:
        parts += ["Under an emulator: the inputs describe the emulator's threads, not a "
                  "cache, and so do the predictions; only a native or hardware log tests "
                  "the model.", ""]
    if model["inputs"]:
        parts += ["Inputs:", ""] + [f"- {line}" for line in model["inputs"]] + [""]
    if model["points"]:
        parts += [error_table(model), ""]
        ratios = ratio_table(model)
        if ratios:
            parts += ["Projected with the same inputs (one c for every pair of CPUs):", "",
                      ratios, ""]
        not_projected = ratio_rows(model)["not"]
        parts += [f"Not projected: {why}." for why in not_projected]
        parts += [""] if not_projected else []
    return "\n".join(parts)


def write_json(model, outdir):
    """OUTDIR/model.json: the list of points (empty when nothing is modelled)."""
    with open(os.path.join(outdir, "model.json"), "w") as f:
        json.dump(model["points"], f, indent=1)
        f.write("\n")


def write_curves(f, model, bench, labels, index):
    """Append to scaling.dat one index block per drawn modelled curve of @bench: its
    predictions at the counts the log measured, each from that point's own inputs (c, the
    lockref's failures), so the dashed line passes through what the error table judged;
    return (first block, last block, the measured line's number for each)."""
    first = index
    colours = []
    for (b, impl, op), curve in model["curves"].items():
        label = f"{impl}/{op}" if f"{impl}/{op}" in labels else impl
        if b != bench or label not in labels or not curve["drawn"]:
            continue
        f.write(f"# model {bench} {label}: cpus ops_per_sec\n")
        for p in model["points"]:
            if (p["bench"], p["impl"], p["op"]) == (b, impl, op):
                f.write(f"{p['cpus']} {p['predicted']}\n")
        f.write("\n\n")
        colours.append(str(labels.index(label) + 1))
        index += 1
    # gnuplot reads the colour list even for an empty range: "1" stands in for none.
    return first, index - 1, " ".join(colours) or "1"


def write_projection(f, model, labels, index):
    """Append one index block per drawn curve that may be projected (projectable(); not
    the private walks, which share nothing), 1 to PROJECT_MAX CPUs, for the plot's own
    projection panel; @labels: {bench: its panel's line names}.  Return (first block, last
    block, the titles "bench/impl[/op]" and the colours of the measured lines, each
    space-separated)."""
    first, titles, colours = index, [], []
    for key, curve in model["curves"].items():
        bench, impl, op = key
        names = labels.get(bench, [])
        label = f"{impl}/{op}" if f"{impl}/{op}" in names else impl
        if not curve["drawn"] or curve["model"] == "private" or label not in names \
                or not projectable(model, key):
            continue
        f.write(f"# projection {' '.join(key)}: cpus ops_per_sec\n")
        for n in range(1, PROJECT_MAX + 1):
            f.write(f"{n} {rate(curve, n):.0f}\n")
        f.write("\n\n")
        titles.append(f"{bench}/{label}")
        colours.append(str(names.index(label) + 1))
        index += 1
    return first, index - 1, " ".join(titles), " ".join(colours) or "1"
