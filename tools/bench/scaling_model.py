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
  queued   the queued spinlock: each waiter spins on its own node, so a
           hand-off is one transfer whatever the queue: D_k = T1 + 2 c.
  xadd     one `lock xadd` pair per operation, the line moving once per
           operation; a queued stream of transfers overlaps the request leg
           of the next (QUEUED_SHARE): D = max(T1, QUEUED_SHARE c).
  lockref  the compare-exchange loop: a read for the old value, then the
           exchange's upgrade, two transfers per operation, and one more
           per failed exchange; an exchange fails when another CPU's write
           lands in the window w between its load and its exchange (w: the
           lockref's own 1-CPU cost over a bare xadd's, per update), so the
           failures grow with the contenders: p = 1 - exp(-(n-1)/n w/h),
           D = max(T1, h (2 + 2 p/(1-p))), h = QUEUED_SHARE c.
  pathwalk a stat is the walk's reads (shared read-only, so they scale: the
           think time Z = T1(stat) - T1(the count's own get+put)) and one
           get+put on the final node, served by the count's model (ticket
           for the locked filesystem, lockref otherwise); a stat of a
           CPU's own file shares no written line: n / T1.

Inputs, all from the one log (never fitted to a point): T1, the 1-CPU row's
ns per operation (1e9 / its ops_per_sec, so the 1-CPU point is an input, not
a prediction); c, the median one-way latency of the c2c rows.  The report
prints each input beside the row it came from.
"""

import json
import math
import os
import statistics

from bench_c2c import pairs
from bench_log import fmt_rate, scaling_grid, table

# An unqueued transfer (what c2c times) is three legs: the request to the
# line's home, the snoop to its owner, the data to the requester.  When the
# next request already waits at the home, its first leg overlaps the current
# transfer, so a saturated stream pays two of the three.
QUEUED_SHARE = 2 / 3
LOCKS_PER_OP = 2        # a refcount get+put, or a stat's get and put, takes a lock twice
PROJECT_MAX = 80        # the seeds' machine: 8 sockets x 10 cores
RATIO_COUNTS = (10, 20, 40, 80)
MISS = 0.25             # beyond this relative error the docs must name the effect left out

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


def service_time(model, n, t1, c, w=0.0):
    """D_k of @model at @n CPUs as a function of k (ns per operation on the line)."""
    h = QUEUED_SHARE * c
    if n == 1 or model == "private":
        return lambda k: t1             # nobody else moves the line
    if model == "ticket":
        return lambda k: t1 + LOCKS_PER_OP * c * k / 2
    if model == "queued":
        return lambda k: t1 + LOCKS_PER_OP * c
    if model == "xadd":
        return lambda k: max(t1, h)
    if model != "lockref":
        raise ValueError(f"scaling_model: no model named {model!r}")
    p = 1 - math.exp(-(n - 1) / n * w / h)   # an exchange fails: a write lands within w
    return lambda k: max(t1, h * (2 + 2 * p / (1 - p)))


def rate(curve, n):
    """Predicted operations per second of @curve (an inputs() entry) at @n CPUs."""
    if curve["model"] == "private":
        return n * 1e9 / curve["t1"]
    return 1e9 * chain_rate(n, curve["think"],
                            service_time(curve["model"], n, curve["t1"], curve["c"],
                                         curve.get("w", 0.0)))


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
    wanted = 0
    for bench, impl, op, model, count, drawn in COVERED:
        measured = [k[3] for k in results if k[:3] == (bench, impl, op)]
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
        curves[(bench, impl, op)] = curve
        lines.append(text)
    missing = ([] if lats or not wanted else
               ["c2c rows (bench_native --only=c2c: the line-transfer cost)"]) \
        + (["1-CPU rows of " + ", ".join(lacking)] if lacking else [])
    problem = None
    if missing:
        problem = ("scaling model: the log has no " + "; no ".join(missing)
                   + (": the plot shows the measured points alone" if not curves
                      else ": the curves that need them are not modelled"))
    return curves, lines, problem


def predict(results, emulated=False):
    """The model of a log: curves, input lines, the problem line, and one point per
    measured count a model covers (bench, impl, cpus, measured, predicted, error).
    @emulated: the log is an emulator's (bench_log.judged_emulated), said in the section."""
    curves, lines, problem = inputs(results)
    points = []
    for (bench, impl, op), curve in curves.items():
        for n in sorted(k[3] for k in results if k[:3] == (bench, impl, op)):
            measured = results[(bench, impl, op, n)]["ops_per_sec"]
            predicted = rate(curve, n)
            points.append({"bench": bench, "impl": impl, "op": op, "cpus": n,
                           "measured": measured, "predicted": round(predicted),
                           "error": round(predicted / measured - 1, 4) if measured else None})
    return {"curves": curves, "inputs": lines, "problem": problem, "points": points,
            "emulated": emulated}


def error_table(model):
    """The per-point table: predicted beside measured, the relative error, misses marked."""
    rows = []
    for p in model["points"]:
        err = p["error"]
        mark = "input" if p["cpus"] == 1 else ("MISS" if err is not None and abs(err) > MISS
                                              else "")
        rows.append([f"{p['bench']} {p['impl']} {p['op']}", p["cpus"], fmt_rate(p["measured"]),
                     fmt_rate(p["predicted"]), "-" if err is None else f"{100 * err:+.0f}%",
                     mark])
    return table(["curve", "CPUs", "measured ops/s", "predicted ops/s", "error",
                  f"over {100 * MISS:.0f}%"], rows)


def ratio_table(model):
    """Predicted lockref/lock at RATIO_COUNTS, where both curves are modelled."""
    rows = []
    for bench, (limpl, lop), (kimpl, kop) in RATIOS:
        lref = model["curves"].get((bench, limpl, lop))
        lock = model["curves"].get((bench, kimpl, kop))
        if lref and lock:
            rows.append([f"{bench} {lop}: {limpl} / {kimpl}"]
                        + [f"{rate(lref, n) / rate(lock, n):.2f}x" for n in RATIO_COUNTS])
    return table(["predicted"] + [f"{n} CPUs" for n in RATIO_COUNTS], rows) if rows else ""


def section(model):
    """The report's model section (Markdown)."""
    parts = ["", "## Scaling model", "",
             "tools/bench/scaling_model.py: one chain per shape (ticket lock, queued lock, xadd, "
             "lockref loop, path walk), fed by this log's own figures; the dashed curves of "
             "scaling.png, to " f"{PROJECT_MAX} CPUs.", ""]
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
    return "\n".join(parts)


def write_json(model, outdir):
    """OUTDIR/model.json: the list of points (empty when nothing is modelled)."""
    with open(os.path.join(outdir, "model.json"), "w") as f:
        json.dump(model["points"], f, indent=1)
        f.write("\n")


def write_curves(f, model, results, bench, labels, index):
    """Append to scaling.dat one index block per modelled curve of @bench, 1..PROJECT_MAX
    CPUs; return (first block, last block, the measured line's number for each)."""
    first = index
    colours = []
    _, measured = scaling_grid(results, bench)
    top = max([PROJECT_MAX] + measured)
    for (b, impl, op), curve in model["curves"].items():
        label = f"{impl}/{op}" if f"{impl}/{op}" in labels else impl
        if b != bench or label not in labels or not curve["drawn"]:
            continue
        f.write(f"# model {bench} {label}: cpus ops_per_sec\n")
        for n in range(1, top + 1):
            f.write(f"{n} {rate(curve, n):.0f}\n")
        f.write("\n\n")
        colours.append(str(labels.index(label) + 1))
        index += 1
    # gnuplot reads the colour list even for an empty range: "1" stands in for none.
    return first, index - 1, " ".join(colours) or "1"
