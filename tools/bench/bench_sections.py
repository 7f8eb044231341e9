# SPDX-License-Identifier: MIT
"""bench_sections.py - the parts of the benchmark report, one function each.

Each section is a function of the results (and what else it names) that
returns Markdown, or None when the log has nothing for it.  sections()
gives them in the report's order: one per benchmark the log holds, then
every function of EXTRA_SECTIONS (a comparison across benchmarks, such as
the two lock kinds side by side): a new part of the report is one function
appended there.
"""

import re

from bench_pathwalk import section_pathwalk
from bench_log import (INSN_ORDER, LOCK_KINDS, NATIVE_XADD_MAX_NS, OP_ORDER,
                       accelerator, base_label, cas_loop_limits, fallback_fraction, fmt_overlap,
                       benches, fmt_pct, fmt_rate, fmt_ratio, impl_key, is_native, judged_emulated,
                       scaling_grid, select, side_key, table, xadd_ns)

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

# Measurement-quality thresholds for warnings.
OVERLAP_MIN = 0.9  # all CPUs running together for at least 90% of a run
GAP_FACTOR = 20  # a batch gap 20x the mean batch means a CPU was stopped
GAP_MIN_US = 100  # ... and at least this long, so timer noise does not count

BLURBS = {
    "refcount": "One shared object per implementation, every CPU doing get+put pairs on "
                "it; CPUs above N sit out.  `xadd` is the hardware limit, `spinlock` the "
                "pre-lockref way.",
    "convoy": "As refcount, with CPU 0 also holding the object's lock now and then (see "
              "hold_ns/every_ns in the log): how each policy recovers from lock holders.",
    "pathwalk": "Path lookups through the filesystem's dentry cache (fs/).",
}


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


def section_lock_kinds(results):
    """The lock kinds side by side: each kind's lock, its lockref, and their ratio."""
    if not any(k[1] in (lock, lref) for _, lock, lref in LOCK_KINDS[1:] for k in results):
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
    return "\n".join(["## the lock kinds side by side", "",
                      "The same lock and lockref code on each kind of spinlock "
                      "(`spinlock.kind=`; the benchmarks select the kind per trial).  The "
                      "lockref's lockless path is the same on all; only what it falls back "
                      "to, and how a held lock looks, differ.", "",
                      table([""] + [k for k, _, _ in LOCK_KINDS], rows)])


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


# Sections across benchmarks, after the per-benchmark ones, in this order.
EXTRA_SECTIONS = [section_lock_kinds, section_pathwalk]


def sections(results):
    """The report's benchmark sections, in order: one per benchmark, then EXTRA_SECTIONS."""
    out = []
    for bench in benches(results):
        if bench == "uncontended":
            out.append(section_uncontended(results))
        elif bench == "retry-table":
            out.append(section_retry(results))
        elif bench == "c2c":
            continue  # bench_c2c.section_c2c, which needs the ENV line
        else:
            out.append(section_scaling(results, bench, BLURBS.get(bench, "")))
    out += [extra(results) for extra in EXTRA_SECTIONS]
    return [text for text in out if text]
