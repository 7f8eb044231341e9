# SPDX-License-Identifier: MIT
"""bench_curve.py - the report's reading of each scaling curve against the
machine's boundaries and the cache-line hop (issue 29, item 5).

A contended curve bends where its threads start to pay a dearer line
transfer: past one last-level cache group, past one package, onto SMT
siblings.  The benchmark log names those boundaries (the `# plan:
boundaries` line of bench/bench_plan.c, for the bench.place= the run used)
and the price of each transfer (the c2c lines, by relation).  For every
contended benchmark this module says: where the ticket lock's rate first
falls below its own 1-thread rate, where it is lowest, lockref against
xadd and against the ticket lock at the largest count, and beside each
count the c2c figure of the region it reaches.
"""

import re
import statistics

from bench_c2c import groups
from bench_log import scaling_grid

PLAN_BOUNDS = re.compile(r"# plan: boundaries \(bench\.place=(\w+)[^)]*\): LLC group at (\d+), "
                         r"package at (\d+), every core at (\d+)")
CONTENDED = ["refcount", "convoy", "pathwalk"]
LOCK_IMPLS = ["spinlock", "qspinlock"]


def plan_bounds(lines):
    """{"place", "llc", "package", "cores"} from the log's plan line, or None."""
    for _, text in lines:
        m = PLAN_BOUNDS.search(text)
        if m:
            return {"place": m.group(1), "llc": int(m.group(2)), "package": int(m.group(3)),
                    "cores": int(m.group(4))}
    return None


def region(n, bounds):
    """(name, c2c relation) of the farthest pair among the first @n CPUs of the plan."""
    if not bounds:
        return "?", None
    if bounds["package"] and n > bounds["package"]:
        return "past one package", "other-package"
    if bounds["llc"] and n > bounds["llc"]:
        return "past one LLC group", "other-llc"
    if bounds["cores"] and n > bounds["cores"]:
        return "onto SMT siblings", "same-core"
    return "within one LLC group", "same-llc"


def hop(n, bounds, c2c):
    """"within one LLC group, c2c same-llc 45.0 ns" for count @n."""
    name, rel = region(n, bounds)
    if rel in c2c:
        return f"{name}, c2c {rel} {statistics.median(c2c[rel]):.1f} ns"
    return f"{name}, no c2c {rel} figure" if rel else name


def rate(rec):
    return rec["ops_per_sec"] if rec else None


def section_curves(results, bounds):
    """The report's "curves against the machine" section, or "" without scaling lines."""
    c2c = groups(results)
    rows = []
    for bench in CONTENDED:
        grid, cpus = scaling_grid(results, bench)
        if len(cpus) < 2:
            continue
        top = cpus[-1]
        for label, per in grid.items():
            impl = label.split("/", 1)[0]
            if impl not in LOCK_IMPLS or 1 not in per:
                continue
            op = "/" + label.split("/", 1)[1] if "/" in label else ""
            one = rate(per[1])
            below = next((n for n in sorted(per) if n > 1 and rate(per[n]) < one), None)
            low = min(per, key=lambda n: rate(per[n]))
            lockref = grid.get(("lockref" if impl == "spinlock" else "lockref-qspinlock") + op,
                               {})
            xadd = grid.get("xadd" + op, {})
            ratio_x = (f"{rate(lockref[top]) / rate(xadd[top]):.2f}"
                       if top in lockref and top in xadd and rate(xadd[top]) else "-")
            ratio_l = (f"{rate(lockref[top]) / rate(per[top]):.2f}"
                       if top in lockref and top in per and rate(per[top]) else "-")
            rows.append(
                f"| {bench}{op} | {impl} | "
                + (f"{below} ({hop(below, bounds, c2c)})" if below else "never")
                + f" | {low} ({rate(per[low]) / one:.2f}x of 1 CPU; {hop(low, bounds, c2c)}) | "
                + f"{ratio_x} | {ratio_l} | {top} ({hop(top, bounds, c2c)}) |")
    if not rows:
        return ""
    where = (f"bench.place={bounds['place']}: one LLC group filled at {bounds['llc']} CPUs, "
             f"one package at {bounds['package']}, every core at {bounds['cores']} (0: none)"
             if bounds else "no `# plan: boundaries` line in the log: regions unknown")
    return "\n".join([
        "## The curves against the machine", "",
        f"Boundaries ({where}); each count is set beside the c2c one-way latency of the "
        "farthest pair its threads span.", "",
        "| benchmark | lock | first below its 1-CPU rate at | lowest at | lockref/xadd at "
        "the most CPUs | lockref/lock at the most CPUs | most CPUs |",
        "|---|---|---|---|---|---|---|"] + rows)
