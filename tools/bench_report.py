#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_report.py - turn a benchmark log into a report and a plot.

    tools/bench_report.py LOG OUTDIR [--against LOG2] [--host-cpus N] [--strict]

Reads the `# ENV {json}` line and every `# BENCH {json}` line of LOG: the
serial log of a kernel booted with run=bench (`make bench`), or the output
of the native program that runs the same benchmarks on the host's cores
(`make bench-native`, "platform":"native").  It writes:

    OUTDIR/report.md      the machine, one table per benchmark, warnings
                          where a figure cannot mean much, and the goals of
                          issue 6 with PASS/FAIL and the figures behind them
    OUTDIR/scaling.png    operations per second against CPUs, one line per
                          implementation (gnuplot, tools/bench_scaling.gp)
    OUTDIR/scaling.dat    the plotted data

With --against, LOG2 is the other kind of log (a guest's beside a native
one): the report adds a table setting every benchmark and implementation
both logs measured side by side, with the ratio of their figures.  Each
report says which of its figures describe hardware.

Why a host tool: the kernel has no floating point and no room for tables;
it prints raw figures, and everything that compares them lives here, where
it can be unit-tested (tools/test_bench_report.py).

Exit status: 0 when the report and plot were written, 1 on unusable input
(no ENV line, no BENCH line, a line that is not JSON, a missing field) or
when gnuplot fails, 2 on bad arguments; with --strict, 3 when a goal fails.
Python 3 standard library only.
"""

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys

# The implementations in the order docs/interface.md lists them; others follow, sorted.
IMPL_ORDER = ["xadd", "cas-loop-cmpxchg8b", "cas-loop-cmpxchgq", "spinlock", "spinlock-pv",
              "lockref", "lockref-pv", "lockref-v7", "lockref-locked", "lockref16", "lockref-cmpxchgq",
              "lockref-cmpxchg8b", "qspinlock", "lockref-qspinlock"]
# The two lock kinds (spinlock.kind=): each kind's lock impl and lockref impl.
LOCK_KINDS = [("ticket", "spinlock", "lockref"), ("qspinlock", "qspinlock", "lockref-qspinlock")]
INSN_ORDER = ["xadd", "cmpxchg8b", "cmpxchgq", "cmpxchg16b"]
OP_ORDER = ["insn", "get", "put", "get+put"]
BENCH_ORDER = ["uncontended", "refcount", "convoy", "retry-table", "pathwalk"]
SCALING_BENCHES = ["refcount", "convoy", "pathwalk"]
REQUIRED = ["bench", "impl", "cpus", "trials", "ops_per_sec"]

# Waiman Long's v7 retry-policy table (his cover letter: AIM7 short, 1500 users, 80 cores, JPM).
V7_RETRY_JPM = {
    "lockref-wait-1": 5899907,
    "lockref-wait-2": 6534958,
    "lockref-wait-3": 6868170,
    "lockref-wait-4": 6905332,
    "lockref-nowait-2": 1091273,
    "lockref-nowait-4": 1281867,
    "lockref-nowait-8": 5095203,
    "lockref-nowait-16": 6392709,
    "lockref-nowait-32": 6438080,
}
# The v7 series' uncontended figures (2.4 GHz Westmere, ns per update).
V7_LOCKED_NS = 14.7
V7_LOCKREF_NS = 16.0

# Goals (issues 6 and 21).  Hardware: KVM or bare metal.  Emulated: TCG or Bochs.
GOAL_UNCONTENDED_MAX = 1.1  # lockref get+put <= 1.1x spinlock get+put (the v7 promise)
GOAL_VS_CAS_LOOP_MAX = 1.1  # lockref get+put <= 1.1x the load+cmpxchg loop pair, same instruction
GOAL_WIDE_UNCONTENDED_MAX = 1.15  # uncontended lockref16 get+put <= 1.15x lockref get+put
GOAL_VS_SPINLOCK_MIN = 1.3  # lockref >= 1.3x spinlock at every N >= 2
GOAL_VS_XADD_MIN = 0.25  # lockref >= 0.25x xadd at every N >= 2
GOAL_FALLBACK_MAX = 0.001  # fallbacks < 0.1% of lockref operations (refcount)
GOAL_WIDE_MIN = 0.7  # lockref16 >= 0.7x lockref (refcount throughput)
GOAL_PV_UNCONTENDED_MAX = 1.05  # spinlock-pv get+put <= 1.05x spinlock get+put, nobody waiting
EMULATORS = {"tcg", "bochs"}

# One uncontended LOCK XADD takes about 5 to 25 ns on hardware; far more means the
# guest is not running natively (emulation, or nested virtualization that emulates).
NATIVE_XADD_MAX_NS = 200

# Measurement-quality thresholds for warnings.
OVERLAP_MIN = 0.9  # all CPUs running together for at least 90% of a run
GAP_FACTOR = 20  # a batch gap 20x the mean batch means a CPU was stopped
GAP_MIN_US = 100  # ... and at least this long, so timer noise does not count


class InputError(Exception):
    """A log cannot be read as a benchmark log; the message says where and why."""


def parse_record(kind, payload, where, required):
    """
    The JSON object of a `# ENV` or `# BENCH` line (@kind, with @payload
    after it) at @where ("FILE:LINE"), which must have every @required field.
    Shared by the tools that read BENCH lines (trace_cost.py too).
    """
    try:
        record = json.loads(payload)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}: the {kind} line is not JSON ({e.msg}); "
                         f"was it cut short? {payload[:120]!r}")
    if not isinstance(record, dict):
        raise InputError(f"{where}: the {kind} line is not a JSON object")
    missing = [k for k in required if k not in record]
    if missing:
        raise InputError(f"{where}: {kind} line lacks {', '.join(missing)}")
    return record


def parse_log(path):
    """Return (env, results, notes) from the serial log at @path.

    results maps (bench, impl, op, cpus) to the BENCH record; a repeated key
    keeps the last one and adds a note.
    """
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}")
    env, result, results, notes = None, None, {}, []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().strip("\r")
        m = re.match(r"^# (ENV|BENCH) (.*)$", line)
        if line.startswith("# RESULT "):
            result = line.split()[2]
        if not m:
            continue
        record = parse_record(m.group(1), m.group(2), f"{path}:{number}",
                              REQUIRED if m.group(1) == "BENCH" else [])
        if m.group(1) == "ENV":
            env = record
            continue
        key = (record["bench"], record["impl"], record.get("op", "get+put"), record["cpus"])
        if key in results:
            notes.append(f"{'/'.join(map(str, key))} appears more than once; "
                         f"the last line ({number}) is used")
        results[key] = record
    if env is None:
        raise InputError(f"{path}: no '# ENV {{...}}' line: is this the kernel's serial log?")
    if not results:
        raise InputError(f"{path}: no '# BENCH {{...}}' lines: was the kernel booted with "
                         f"run=bench, and did it get that far?")
    return env, result, results, notes


def host_info(host_cpus=None):
    """The machine the tool runs on (where QEMU ran, under make bench)."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if host_cpus is None:
        host_cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else os.cpu_count()
    return {"node": platform.node(), "model": model, "cpus": host_cpus,
            "system": f"{platform.system()} {platform.release()}"}


def xadd_ns(results):
    """ns of one uncontended LOCK XADD, or None if the log has no line that tells.

    From the uncontended benchmark, or else from refcount's xadd on one CPU,
    whose get+put pair is two of them (a run cut short may have only that).
    """
    r = results.get(("uncontended", "xadd", "insn", 1))
    if r and "ns_per_op" in r:
        return r["ns_per_op"]
    r = results.get(("refcount", "xadd", "get+put", 1))
    return r["ns_per_op"] / 2 if r and "ns_per_op" in r else None


def is_native(env):
    """True for the native program's log, False for a kernel's serial log."""
    return env.get("platform") == "native"


def accelerator(env):
    """(label, emulated) from the ENV line's platform and hypervisor fields.

    A kernel's hypervisor is the one its guest runs under; the native
    program's is the one its host OS runs under (none on bare metal).
    """
    hv = str(env.get("hypervisor", "unknown"))
    if is_native(env):
        where = "bare metal" if hv == "none" else f"a host that is itself a {hv.upper()} guest"
        return f"native threads on {where}", hv in EMULATORS
    labels = {"kvm": "KVM", "tcg": "QEMU TCG (emulation)", "bochs": "Bochs (emulation)",
              "none": "bare metal"}
    return labels.get(hv, f"hypervisor '{hv}'"), hv in EMULATORS


def hardware_statement(env, emulated):
    """One paragraph: which figures of this log describe hardware, and why."""
    label, _ = accelerator(env)
    if emulated:
        return (f"These figures come from {label}: the instructions are emulated, so no "
                "figure here describes hardware, absolute or relative; only a gross "
                "inversion (a lock design losing to another by a wide margin) means "
                "anything.")
    if is_native(env) and env.get("hypervisor") == "none":
        return ("These figures describe hardware: the benchmarks ran as threads pinned one "
                "per CPU on bare metal.  Uncontended costs are the CPU's own; contended "
                "figures also hold the host OS's interruptions, which each run's overlap "
                "and largest gap show.")
    if is_native(env):
        return (f"The uncontended figures describe hardware: a {label.split('itself a ')[-1]} "
                "runs user code directly on the CPU, so one core's instruction costs are the "
                "silicon's.  Contended figures describe hardware only while the host's vCPUs "
                "had physical cores to themselves; each run's overlap and largest gap show "
                "when they did not.")
    return (f"These figures come from a kernel under {label}: guest code runs on the CPU, "
            "so the uncontended figures are close to hardware, but the vCPUs share host "
            "cores, and contended figures depend on the host's scheduling.")


def impl_key(impl):
    if impl in IMPL_ORDER:
        return (0, IMPL_ORDER.index(impl), impl)
    return (1, 0, impl)


def fmt_rate(v):
    if v is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v:.3g}"


def fmt_ratio(a, b):
    if a is None or not b:
        return "-"
    return f"{a / b:.2f}x"


def fmt_pct(v):
    return "-" if v is None else f"{100 * v:.3g}%"


def fmt_overlap(r):
    """The median overlap, and the worst trial's where the line gives it."""
    text = f"{r.get('overlap', 0):.3f}"
    return text + (f" (min {r['overlap_min']:.3f})" if "overlap_min" in r else "")


def fallback_fraction(r):
    ops = r.get("lockref_ops")
    if not ops or "fallbacks" not in r:
        return None
    return r["fallbacks"] / ops


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def select(results, bench, op=None):
    return {k: v for k, v in results.items() if k[0] == bench and (op is None or k[2] == op)}


def scaling_grid(results, bench):
    """{label: {cpus: record}} of a scaling benchmark, and the sorted CPU counts.

    The label is the impl, or "impl/op" when the benchmark has several
    operations (pathwalk), so that rows of different operations stay apart.
    """
    recs = select(results, bench)
    multi = len({k[2] for k in recs}) > 1
    grid, order = {}, {}
    for (_b, impl, op, cpus), r in recs.items():
        label = f"{impl}/{op}" if multi else impl
        grid.setdefault(label, {})[cpus] = r
        order[label] = (op,) + impl_key(impl)
    cpus = sorted({n for per in grid.values() for n in per})
    return dict(sorted(grid.items(), key=lambda kv: order[kv[0]])), cpus


def base_label(label, base):
    """The row of implementation @base doing the same operation as row @label."""
    return f"{base}/{label.split('/', 1)[1]}" if "/" in label else base


def lockref_on(results, insn):
    """(impl, uncontended get+put record) of the lockref that exchanges with @insn, or None.

    The plain `lockref` runs the boot instruction (its BENCH line's cas
    field); `lockref-<insn>` the other one.
    """
    for impl in ("lockref-" + insn, "lockref"):
        r = results.get(("uncontended", impl, "get+put", 1))
        if r and (impl != "lockref" or r.get("cas", "cmpxchg8b") == insn):
            return impl, r
    return None


def cas_loop_limits(results):
    """Per instruction: (insn, lockref impl, its get+put ns, the cas-loop pair's ns, the
    chained pair's ns (two `insn` lines) or None), where both get+put lines are there."""
    out = []
    for insn in ("cmpxchg8b", "cmpxchgq"):
        lr = lockref_on(results, insn)
        loop = results.get(("uncontended", "cas-loop-" + insn, "get+put", 1))
        if not (lr and loop and loop.get("ns_per_op")):
            continue
        chain = results.get(("uncontended", insn, "insn", 1))
        out.append((insn, lr[0], lr[1]["ns_per_op"], loop["ns_per_op"],
                    2 * chain["ns_per_op"] if chain and chain.get("ns_per_op") else None))
    return out


def section_uncontended(results):
    rows = []
    recs = select(results, "uncontended")

    def order(k):
        if k[2] == "insn":
            return (0, INSN_ORDER.index(k[1]) if k[1] in INSN_ORDER else 9, k[1], 0)
        return (1,) + impl_key(k[1])[:2] + (OP_ORDER.index(k[2]) if k[2] in OP_ORDER else 9,)
    for key in sorted(recs, key=order):
        r = recs[key]
        _, impl, op, _ = key
        label = op
        if impl == "spinlock" and op in ("get", "put"):
            label = f"{op} (lock, {'inc' if op == 'get' else 'dec'}, unlock)"
        base = results.get(("uncontended", "spinlock", op, 1))
        rows.append([impl, "lock " + impl if op == "insn" else label,
                     f"{r.get('ns_per_op', 0):.2f}", f"{r.get('cycles_per_op', 0):.1f}",
                     fmt_ratio(r.get("ns_per_op"), base.get("ns_per_op")) if base and op != "insn"
                     else "-", fmt_rate(r["ops_per_sec"])])
    text = ["## uncontended: one CPU, nobody else looking", "",
            "Time per operation with the empty-loop cost taken off (median of trials). "
            "`vs spinlock` divides by the ticket lock's time for the same operation: "
            "below 1 is faster.", "",
            table(["impl", "operation", "ns/op", "cycles/op", "vs spinlock", "ops/s"], rows)]
    lr = results.get(("uncontended", "lockref", "get+put", 1))
    sl = results.get(("uncontended", "spinlock", "get+put", 1))
    if lr and sl:
        text += ["", f"v7 series (2.4 GHz Westmere): lock/update/unlock {V7_LOCKED_NS} ns, "
                     f"lockref get/put {V7_LOCKREF_NS} ns per update "
                     f"({V7_LOCKREF_NS / V7_LOCKED_NS:.2f}x).  Here: "
                     f"{sl['ns_per_op'] / 2:.2f} ns against {lr['ns_per_op'] / 2:.2f} ns "
                     f"({lr['ns_per_op'] / sl['ns_per_op']:.2f}x)."]
    limits = cas_loop_limits(results)
    if limits:
        rows = [[insn, impl, f"{ns:.2f}", f"{loop:.2f}", f"{ns / loop:.2f}x",
                 f"{ns / chain:.2f}x" if chain else "-"]
                for insn, impl, ns, loop, chain in limits]
        text += ["", "The limit: a get+put against the textbook loop on the same instruction "
                     "(`cas-loop-*`: load, add, `lock cmpxchg`, retry; one call per operation, "
                     "as the lockref pays), and against the older chained figure (two `insn` "
                     "exchanges back to back, no load, no call).", "",
                 table(["instruction", "lockref impl", "get+put ns", "cas-loop pair ns",
                        "vs cas-loop", "vs chained pair"], rows)]
    return "\n".join(text)


def section_scaling(results, bench, blurb):
    grid, cpus = scaling_grid(results, bench)
    if not grid:
        return None
    head = ["impl"] + [f"{n} CPU{'s' if n > 1 else ''}" for n in cpus]

    def rate(impl, n):
        r = grid.get(impl, {}).get(n)
        return r["ops_per_sec"] if r else None

    text = [f"## {bench}", "", blurb, "",
            "Aggregate operations per second (median of trials; min and max in the "
            "details below):", "",
            table(head, [[impl] + [fmt_rate(rate(impl, n)) for n in cpus] for impl in grid])]
    for base in ("spinlock", "xadd"):
        if any(base_label(label, base) in grid for label in grid):
            text += ["", f"Throughput against `{base}` at the same CPU count:", "",
                     table(head, [[label] + [fmt_ratio(rate(label, n),
                                                       rate(base_label(label, base), n))
                                             for n in cpus] for label in grid])]
    rows = []
    for impl, per in grid.items():
        for n in cpus:
            r = per.get(n)
            if not r:
                continue
            rows.append([impl, n, f"{fmt_rate(r.get('ops_per_sec_min'))} .. "
                                  f"{fmt_rate(r.get('ops_per_sec_max'))}",
                         f"{r.get('ns_per_op', 0):.1f}", f"{r.get('jain', 0):.3f}",
                         f"{r.get('min_mean', 0):.3f}",
                         f"{r['retries_per_op']:.3f}" if "retries_per_op" in r else "-",
                         fmt_pct(fallback_fraction(r)), fmt_overlap(r),
                         r.get("max_gap_us", "-"), r.get("overruns", 0)])
    text += ["", "Details: ns/op is one operation as one CPU sees it; Jain's index 1.0 is "
                 "perfectly fair, 1/N is one CPU doing all; retries per lockref operation; "
                 "fallbacks as a share of lockref operations; overlap is the share of the "
                 "run during which every CPU was running (median, and the worst trial); max "
                 "gap is the longest stop of any CPU, where a descheduled CPU or thread "
                 "shows.", "",
             table(["impl", "CPUs", "ops/s min .. max", "ns/op", "Jain", "min/mean",
                    "retries/op", "fallbacks", "overlap", "max gap us", "overruns"], rows)]
    return "\n".join(text)


def section_retry(results):
    recs = select(results, "retry-table")
    if not recs:
        return None

    def order(key):
        m = re.match(r"lockref-(wait|nowait)-(\d+)$", key[1])
        return (m.group(1) != "wait", int(m.group(2))) if m else (2, key[1])
    keys = sorted(recs, key=order)
    best = max(recs[k]["ops_per_sec"] for k in keys) or 1
    v7_best = max(V7_RETRY_JPM.values())
    rows = []
    for key in keys:
        r = recs[key]
        med, lo, hi = r["ops_per_sec"], r.get("ops_per_sec_min"), r.get("ops_per_sec_max")
        spread = f"{100 * (hi - lo) / med:.0f}%" if med and lo is not None and hi is not None \
            else "-"
        v7 = V7_RETRY_JPM.get(key[1])
        rows.append([key[1], key[3], fmt_rate(med), f"{fmt_rate(lo)} .. {fmt_rate(hi)}", spread,
                     f"{med / best:.2f}",
                     f"{r['retries_per_op']:.3f}" if "retries_per_op" in r else "-",
                     fmt_pct(fallback_fraction(r)),
                     f"{v7:,}" if v7 else "-", f"{v7 / v7_best:.2f}" if v7 else "-"])
    return "\n".join([
        "## retry-table: the v7 series' policy table", "",
        "The refcount workload at every CPU under each lockless policy: wait until the lock "
        "is free then try N times, or try N times without waiting.  Spread is (max - min) / "
        "median over the trials.  `relative` divides by the best policy here; the v7 series' "
        "column is AIM7 jobs per minute on 80 cores, with its own relative figure, for the "
        "shape of the curve (the absolute figures measure different things).", "",
        table(["policy", "CPUs", "ops/s", "min .. max", "spread", "relative", "retries/op",
               "fallbacks", "v7 JPM", "v7 relative"], rows)])


def goal(name, ok, figures):
    verdict = "n/a" if ok is None else ("PASS" if ok else "FAIL")
    return {"name": name, "verdict": verdict, "figures": figures}


def goal_uncontended(results, impl, base, bound, base_name=None):
    """Uncontended: @impl's get+put costs at most @bound times @base's (one goal row)."""
    name = f"uncontended {impl} get+put <= {bound}x {base_name or base}"
    a = results.get(("uncontended", impl, "get+put", 1))
    b = results.get(("uncontended", base, "get+put", 1))
    if not (a and b and b["ns_per_op"]):
        return goal(name, None, f"no uncontended {impl}/{base} get+put lines")
    ratio = a["ns_per_op"] / b["ns_per_op"]
    return goal(name, ratio <= bound,
                f"{a['ns_per_op']:.2f} ns vs {b['ns_per_op']:.2f} ns = {ratio:.2f}x")


def goals_refcount_vs(grid, cpus, impl, lock):
    """refcount: @impl at least the bounds times @lock's and xadd's rate at every N >= 2."""
    out = []
    mine = grid.get(impl, {})
    for base, bound in ((lock, GOAL_VS_SPINLOCK_MIN), ("xadd", GOAL_VS_XADD_MIN)):
        other = grid.get(base, {})
        pairs = [(n, mine[n]["ops_per_sec"], other[n]["ops_per_sec"]) for n in cpus
                 if n >= 2 and n in mine and n in other and other[n]["ops_per_sec"]]
        name = f"refcount: {impl} >= {bound}x {base} at every N >= 2"
        if not pairs:
            out.append(goal(name, None, "needs refcount lines at 2 or more CPUs"))
            continue
        out.append(goal(name, all(a >= bound * b for _, a, b in pairs),
                        ", ".join(f"N={n}: {a / b:.2f}x" for n, a, b in pairs)))
    return out


def goal_pv_uncontended(results):
    """The paravirtual lock costs what the plain one does while nobody sleeps (lib/spinlock_pv.c)."""
    return goal_uncontended(results, "spinlock-pv", "spinlock", GOAL_PV_UNCONTENDED_MAX,
                            "ticket lock")


def goals_hardware(results):
    out = [goal_uncontended(results, "lockref", "spinlock", GOAL_UNCONTENDED_MAX, "ticket lock")]
    limits = {insn: (impl, ns, loop) for insn, impl, ns, loop, _ in cas_loop_limits(results)}
    for insn in ("cmpxchg8b", "cmpxchgq"):
        name = f"uncontended lockref get+put <= {GOAL_VS_CAS_LOOP_MAX}x cas-loop-{insn} pair"
        if insn not in limits:
            out.append(goal(name, None, f"no uncontended lockref/cas-loop-{insn} get+put lines"))
            continue
        impl, ns, loop = limits[insn]
        out.append(goal(name, ns <= GOAL_VS_CAS_LOOP_MAX * loop,
                        f"{impl} {ns:.2f} ns vs {loop:.2f} ns = {ns / loop:.2f}x"))
    grid, cpus = scaling_grid(results, "refcount")
    lref = grid.get("lockref", {})
    out += goals_refcount_vs(grid, cpus, "lockref", "spinlock")
    fb = [(n, fallback_fraction(lref[n])) for n in sorted(lref)
          if fallback_fraction(lref[n]) is not None]
    name = f"refcount: lockref fallbacks < {100 * GOAL_FALLBACK_MAX:g}% of operations"
    out.append(goal(name, all(f < GOAL_FALLBACK_MAX for _, f in fb) if fb else None,
                    ", ".join(f"N={n}: {fmt_pct(f)}" for n, f in fb) or "no lockref lines"))
    wide = grid.get("lockref16", {})
    pairs = [(n, wide[n]["ops_per_sec"], lref[n]["ops_per_sec"]) for n in sorted(wide)
             if n in lref and lref[n]["ops_per_sec"]]
    figures = [f"N={n}: {a / b:.2f}x" for n, a, b in pairs]
    checks = [a >= GOAL_WIDE_MIN * b for _, a, b in pairs]
    out.append(goal(f"refcount: lockref16 >= {GOAL_WIDE_MIN}x the 8-byte lockref (throughput)",
                    all(checks) if checks else None, ", ".join(figures) or "no lockref16 lines"))
    out.append(goal_uncontended(results, "lockref16", "lockref", GOAL_WIDE_UNCONTENDED_MAX))
    return out


def goals_qspinlock(results):
    """The issue-6 goals again with the queued spinlock under the lockref; none without its lines."""
    lr = results.get(("uncontended", "lockref-qspinlock", "get+put", 1))
    ql = results.get(("uncontended", "qspinlock", "get+put", 1))
    grid, cpus = scaling_grid(results, "refcount")
    if not (lr or ql or grid.get("lockref-qspinlock")):
        return []
    return [goal_uncontended(results, "lockref-qspinlock", "qspinlock", GOAL_UNCONTENDED_MAX)
            ] + goals_refcount_vs(grid, cpus, "lockref-qspinlock", "qspinlock")


def section_lock_kinds(results):
    """Ticket and qspinlock side by side: each kind's lock, its lockref, and their ratio."""
    if not any(k[1] in ("qspinlock", "lockref-qspinlock") for k in results):
        return None
    rows = []

    def ns(impl):
        r = results.get(("uncontended", impl, "get+put", 1))
        return r.get("ns_per_op") if r else None
    cells = {kind: (ns(lock), ns(lref)) for kind, lock, lref in LOCK_KINDS}
    rows.append(["uncontended lock, inc, unlock (get+put), ns"]
                + [f"{cells[k][0]:.2f}" if cells[k][0] else "-" for k, _, _ in LOCK_KINDS])
    rows.append(["uncontended lockref get+put, ns"]
                + [f"{cells[k][1]:.2f}" if cells[k][1] else "-" for k, _, _ in LOCK_KINDS])
    rows.append(["uncontended lockref / its lock"]
                + [fmt_ratio(cells[k][1], cells[k][0]) for k, _, _ in LOCK_KINDS])
    grid, cpus = scaling_grid(results, "refcount")
    xadd = grid.get("xadd", {})
    for n in cpus:
        def rate(impl):
            r = grid.get(impl, {}).get(n)
            return r["ops_per_sec"] if r else None
        rows.append([f"refcount N={n}: lock, ops/s"]
                    + [fmt_rate(rate(lock)) if rate(lock) else "-" for _, lock, _ in LOCK_KINDS])
        rows.append([f"refcount N={n}: lockref, ops/s"]
                    + [fmt_rate(rate(lref)) if rate(lref) else "-" for _, _, lref in LOCK_KINDS])
        rows.append([f"refcount N={n}: lockref / its lock"]
                    + [fmt_ratio(rate(lref), rate(lock)) for _, lock, lref in LOCK_KINDS])
        if n in xadd:
            rows.append([f"refcount N={n}: lockref / xadd"]
                        + [fmt_ratio(rate(lref), xadd[n]["ops_per_sec"])
                           for _, _, lref in LOCK_KINDS])
    return "\n".join(["## ticket and qspinlock side by side", "",
                      "The same lock and lockref code on either kind of spinlock "
                      "(`spinlock.kind=`; the benchmarks select the kind per trial).  The "
                      "lockref's lockless path is the same on both; only what it falls back "
                      "to, and how a held lock looks, differ.", "",
                      table(["", "ticket", "qspinlock"], rows)])


def goals_emulated(results):
    grid, cpus = scaling_grid(results, "refcount")
    lref, spin = grid.get("lockref", {}), grid.get("spinlock", {})
    pairs = [(n, lref[n]["ops_per_sec"], spin[n]["ops_per_sec"]) for n in cpus
             if n >= 2 and n in lref and n in spin and spin[n]["ops_per_sec"]]
    name = "refcount: no inversion, lockref >= spinlock at every N >= 2"
    if not pairs:
        return [goal(name, None, "needs refcount lines at 2 or more CPUs")]
    return [goal(name, all(a >= b for _, a, b in pairs),
                 ", ".join(f"N={n}: {a / b:.2f}x" for n, a, b in pairs))]


def quality_warnings(results):
    """One line per benchmark whose runs were measured badly."""
    bad = {}
    for (bench, impl, op, cpus), r in results.items():
        why = []
        if cpus > 1 and r.get("overlap", 1) < OVERLAP_MIN:
            why.append("overlap")
        gap, batch = r.get("max_gap_us", 0), r.get("batch_us", 0)
        if gap >= GAP_MIN_US and batch and gap > GAP_FACTOR * batch:
            why.append("gap")
        if r.get("overruns"):
            why.append("overrun")
        for w in why:
            bad.setdefault((bench, w), []).append(f"{impl}@{cpus}")
    text = {"overlap": f"the CPUs ran together for less than {OVERLAP_MIN:.0%} of the run",
            "gap": f"a CPU stopped for over {GAP_FACTOR}x its mean batch time (a preempted "
                   f"vCPU or thread, an SMI)",
            "overrun": "a CPU missed the stop flag and stopped on its own"}
    return [f"{bench}: {text[w]} in {len(runs)} run(s): {', '.join(sorted(runs)[:8])}"
            f"{' ...' if len(runs) > 8 else ''}" for (bench, w), runs in sorted(bad.items())]


def environment_warnings(env, host, results):
    out = []
    label, emulated = accelerator(env)
    online = env.get("cpus_online", 0)
    if emulated:
        out.append(f"Under {label} PAUSE leaves the vCPU loop and atomics are emulated: "
                   "absolute figures and ratios do not describe hardware; only gross "
                   "inversions mean anything.")
    if is_native(env) and env.get("pinned") is False:
        out.append("The threads could not be pinned to CPUs: the OS may have moved them "
                   "or put two on one CPU, so contended figures are unreliable.")
    if not is_native(env) and env.get("hypervisor") != "none" and host["cpus"] \
            and online > host["cpus"]:
        out.append(f"{online} vCPUs on {host['cpus']} host CPUs: vCPUs are preempted while "
                   "holding or waiting for locks, so contended figures measure the host's "
                   "scheduler more than the locks.")
    ns = xadd_ns(results)
    if not emulated and ns is not None and ns > NATIVE_XADD_MAX_NS:
        out.append(f"One uncontended LOCK XADD took {ns:.0f} ns (hardware: about 5 to 25 ns): "
                   f"under this {label} the guest does not run at native speed (the "
                   "hypervisor emulates it), so it is judged as an emulator.")
    if env.get("invariant_tsc") is False:
        out.append("The TSC is not invariant: nanosecond figures assume a constant rate.")
    if env.get("tsc_source") in ("guess",):
        out.append("The TSC frequency was guessed, not measured: nanoseconds are unreliable.")
    return out


def judged_emulated(env, results):
    """Whether a log is judged as an emulator's: by its ENV line, or by how slow LOCK XADD ran."""
    _, emulated = accelerator(env)
    ns = xadd_ns(results)
    return emulated or (ns is not None and ns > NATIVE_XADD_MAX_NS)


def side_key(key):
    bench, impl, op, cpus = key
    return (BENCH_ORDER.index(bench) if bench in BENCH_ORDER else 99, bench,
            OP_ORDER.index(op) if op in OP_ORDER else 9, op) + impl_key(impl) + (cpus,)


def section_side_by_side(mine, other):
    """Guest against native: every (bench, impl, op, cpus) both logs measured.

    @mine and @other are (env, results) pairs; the guest's column comes first
    whichever log was given first.  Throughput compares ops/s, uncontended
    compares time per operation; `native / guest` is how many times more
    operations the native run did in the same time.  The spinlock columns
    set each log's figure against its own spinlock's, so the shapes can be
    compared where the absolute figures cannot.
    """
    guest, native = (other, mine) if is_native(mine[0]) else (mine, other)
    g_label, n_label = accelerator(guest[0])[0], accelerator(native[0])[0]
    common = sorted(set(guest[1]) & set(native[1]), key=side_key)
    if not common:
        return "\n".join(["## Guest and native side by side", "",
                          "The two logs have no benchmark, implementation and CPU count in "
                          "common."])

    def vs_spin(results, key, rate):
        base = results.get((key[0], "spinlock", key[2], key[3]))
        return fmt_ratio(rate, base["ops_per_sec"]) if base and key[1] != "spinlock" else "-"

    rows = []
    for key in common:
        g, n = guest[1][key], native[1][key]
        rows.append(["/".join([key[0], key[1]]) + ("" if key[2] == "get+put" else f" {key[2]}"),
                     key[3], fmt_rate(g["ops_per_sec"]), fmt_rate(n["ops_per_sec"]),
                     fmt_ratio(n["ops_per_sec"], g["ops_per_sec"]),
                     f"{g.get('ns_per_op', 0):.2f}", f"{n.get('ns_per_op', 0):.2f}",
                     vs_spin(guest[1], key, g["ops_per_sec"]),
                     vs_spin(native[1], key, n["ops_per_sec"])])
    return "\n".join([
        "## Guest and native side by side", "",
        f"Guest: {g_label}.  Native: {n_label}.  Same benchmark, implementation, operation "
        "and CPU count in both logs; ops/s and ns/op are medians of trials.  `native / "
        "guest` divides the native throughput by the guest's; `vs spinlock` divides each "
        "log's throughput by its own spinlock's at the same CPU count.", "",
        f"- Guest: {hardware_statement(guest[0], judged_emulated(*guest))}",
        f"- Native: {hardware_statement(native[0], judged_emulated(*native))}", "",
        table(["benchmark/impl", "CPUs", "guest ops/s", "native ops/s", "native / guest",
               "guest ns/op", "native ns/op", "guest vs spinlock", "native vs spinlock"],
              rows)])


def build_report(env, result, results, notes, host, against=None):
    label, _ = accelerator(env)
    emulated = judged_emulated(env, results)
    native = is_native(env)
    benches = sorted({k[0] for k in results},
                     key=lambda b: (BENCH_ORDER.index(b) if b in BENCH_ORDER else 99, b))
    any_rec = next(iter(results.values()))
    machine = (["CPU", f"{env.get('cpu_model', '?')}, {env.get('cpus_online', '?')} threads "
                       f"on {env.get('cpus_found', '?')} CPUs, "
                       f"{'pinned one per CPU' if env.get('pinned') else 'not pinned'}"]
               if native else
               ["guest CPUs", f"{env.get('cpus_online', '?')} online of "
                              f"{env.get('cpus_found', '?')} found, {env.get('apic', '?')}"])
    parts = ["# Benchmark report", "",
             table(["", ""], [
                 ["host", f"{host['node']}: {host['model']}, {host['cpus']} CPUs, "
                          f"{host['system']}"],
                 ["platform", "native (tests/bench/bench_native.c)" if native
                  else "kernel (serial log)"],
                 ["accelerator", label],
                 machine,
                 ["TSC", f"{env.get('tsc_khz', 0) / 1e6:.3f} GHz from "
                         f"{env.get('tsc_source', '?')}, invariant: "
                         f"{str(env.get('invariant_tsc', '?')).lower()}"],
                 ["timing end", any_rec.get("clock_end", "?")],
                 ["CMPXCHG16B", str(env.get("cx16", "?")).lower()],
                 ["lockref policy", env.get("lockref_policy", "?")],
                 ["trials", f"{any_rec['trials']} of {any_rec.get('ms', '?')} ms each, "
                            f"after one warm-up"],
                 ["command line", f"`{env.get('cmdline', '')}`"],
                 ["seed", env.get("seed", "?")],
                 ["verdict", result or "missing (the run did not finish)"],
                 ["benchmarks", ", ".join(benches)]])]
    warnings = environment_warnings(env, host, results) + quality_warnings(results) + notes
    parts += ["", "## What these figures describe", "", hardware_statement(env, emulated)]
    parts += ["", "## Warnings", ""]
    parts += [f"- {w}" for w in warnings] if warnings else ["None."]
    hw, emu = goals_hardware(results) + goals_qspinlock(results), goals_emulated(results)
    judged, info = (emu, hw) if emulated else (hw, emu)
    judged = judged + [goal_pv_uncontended(results)]  # a ratio of two locks: judged everywhere
    parts += ["", "## Goals", "",
              f"Judged for {label}" + (", running as an emulator: there only the absence of "
                                       "inversions and the paravirtual lock's uncontended cost "
                                       "are goals; the hardware goals are shown for "
                                       "information." if emulated else "."), "",
              table(["goal", "figures", "verdict"],
                    [[g["name"], g["figures"], g["verdict"]] for g in judged]
                    + [[g["name"], g["figures"], f"({g['verdict']}, not judged here)"]
                       for g in info])]
    blurbs = {
        "refcount": "One shared object per implementation, every CPU doing get+put pairs on "
                    "it; CPUs above N sit out.  `xadd` is the hardware limit, `spinlock` the "
                    "pre-lockref way.",
        "convoy": "As refcount, with CPU 0 also holding the object's lock now and then (see "
                  "hold_ns/every_ns in the log): how each policy recovers from lock holders.",
        "pathwalk": "Path lookups through the filesystem's dentry cache (fs/).",
    }
    for bench in benches:
        if bench == "uncontended":
            parts += ["", section_uncontended(results)]
        elif bench == "retry-table":
            parts += ["", section_retry(results)]
        else:
            parts += ["", section_scaling(results, bench, blurbs.get(bench, ""))]
    kinds = section_lock_kinds(results)
    if kinds:
        parts += ["", kinds]
    if against:
        parts += ["", section_side_by_side((env, results), against)]
    parts += ["", "![operations per second against CPUs](scaling.png)", ""]
    return "\n".join(parts), judged


def write_plot(results, outdir):
    """scaling.dat (one gnuplot index block per bench and impl) and scaling.png."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        raise InputError("gnuplot not found: install gnuplot-nox (make deps) for scaling.png")
    panels = []
    dat = os.path.join(outdir, "scaling.dat")
    index = 0
    with open(dat, "w") as f:
        for bench in SCALING_BENCHES:
            grid, _ = scaling_grid(results, bench)
            if not grid:
                continue
            first = index
            for impl, per in grid.items():
                f.write(f"# {bench} {impl}: cpus ops_per_sec min max\n")
                for n in sorted(per):
                    r = per[n]
                    f.write(f"{n} {r['ops_per_sec']} {r.get('ops_per_sec_min', r['ops_per_sec'])}"
                            f" {r.get('ops_per_sec_max', r['ops_per_sec'])}\n")
                f.write("\n\n")
                index += 1
            panels.append((bench, first, index - 1, " ".join(grid)))
    if not panels:
        raise InputError("no refcount, convoy or pathwalk lines: nothing to plot")
    terms = subprocess.run([gnuplot, "-e", "set terminal"], capture_output=True, text=True)
    term = "pngcairo" if "pngcairo" in terms.stdout + terms.stderr else "png"
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_scaling.gp")
    maxcpus = max(k[3] for k in results if k[0] in SCALING_BENCHES)
    args = [f"datafile='{dat}'", f"outfile='{os.path.join(outdir, 'scaling.png')}'",
            f"term='{term}'", f"maxcpus={maxcpus}", f"npanels={len(panels)}"]
    for i, (bench, first, last, titles) in enumerate(panels, 1):
        args += [f"bench{i}='{bench}'", f"first{i}={first}", f"last{i}={last}",
                 f"titles{i}='{titles}'"]
    run = subprocess.run([gnuplot, "-e", "; ".join(args), script], capture_output=True,
                         text=True)
    if run.returncode != 0:
        raise InputError(f"gnuplot failed: {run.stderr.strip()}")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Benchmark log to report.md and scaling.png")
    ap.add_argument("log", help="serial log of a boot with run=bench")
    ap.add_argument("outdir", help="directory for report.md, scaling.png, scaling.dat")
    ap.add_argument("--against", metavar="LOG2",
                    help="a second log (a guest's beside a native one) to set side by side")
    ap.add_argument("--host-cpus", type=int, default=None,
                    help="CPUs of the host QEMU ran on (default: this machine's)")
    ap.add_argument("--strict", action="store_true", help="exit 3 if a judged goal fails")
    args = ap.parse_args(argv)
    try:
        env, result, results, notes = parse_log(args.log)
        against = None
        if args.against:
            other_env, _, other_results, _ = parse_log(args.against)
            against = (other_env, other_results)
        os.makedirs(args.outdir, exist_ok=True)
        report, judged = build_report(env, result, results, notes, host_info(args.host_cpus),
                                      against)
        with open(os.path.join(args.outdir, "report.md"), "w") as f:
            f.write(report)
        write_plot(results, args.outdir)
    except InputError as e:
        print(f"bench_report: {e}", file=sys.stderr)
        return 1
    failed = [g for g in judged if g["verdict"] == "FAIL"]
    print(f"bench_report: wrote {os.path.join(args.outdir, 'report.md')} and scaling.png; "
          f"goals: {sum(g['verdict'] == 'PASS' for g in judged)} pass, {len(failed)} fail, "
          f"{sum(g['verdict'] == 'n/a' for g in judged)} n/a")
    return 3 if failed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
