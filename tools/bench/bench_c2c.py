# SPDX-License-Identifier: MIT
"""bench_c2c.py - the c2c benchmark's part of the report: the one-way
latency matrix, its heatmap, and the groups the latencies form, checked
against the topology the log's ENV line names.

bench/bench_c2c.c prints one `# BENCH` line per pair of CPUs ("bench":"c2c",
"cpu_a", "cpu_b", "oneway_ns", "relation": same-core, same-llc, other-llc,
other-package, from the topology the benchmark ran on).  The relations come
nearest first; on hardware each one's latencies sit above the nearer ones'
(a line moved inside a core is cheaper than across a cache, which is
cheaper than across a socket).  A machine whose figures say otherwise has a
topology that does not describe it: the report says so in one line.
"""

import os
import shutil
import statistics
import subprocess

RELATIONS = ["same-core", "same-llc", "other-llc", "other-package"]
# A nearer relation's median this far above a farther one's contradicts the topology.
CONTRADICTION_FACTOR = 1.25
# Within one relation, a spread wider than this suggests a boundary the topology misses.
SPLIT_FACTOR = 2.0
MATRIX_MAX = 64  # CPUs shown in the Markdown matrix (the heatmap takes every measured pair)


def pairs(results):
    """{(cpu_a, cpu_b): record} of every c2c line."""
    return {(r["cpu_a"], r["cpu_b"]): r for (bench, _, _, _), r in results.items()
            if bench == "c2c" and "cpu_a" in r and "oneway_ns" in r}


def groups(results):
    """{relation: [one-way ns, ...]} in RELATIONS order, relations without pairs left out."""
    out = {}
    for r in pairs(results).values():
        out.setdefault(r.get("relation", "other-package"), []).append(float(r["oneway_ns"]))
    return {rel: sorted(out[rel]) for rel in RELATIONS if rel in out}


def contradictions(grouped):
    """One line per way the latencies contradict the topology's relations."""
    out = []
    medians = {rel: statistics.median(v) for rel, v in grouped.items()}
    rels = list(medians)
    for i, near in enumerate(rels):
        for far in rels[i + 1:]:
            if medians[near] > CONTRADICTION_FACTOR * medians[far]:
                out.append(f"{near} pairs take {medians[near]:.1f} ns (median), more than "
                           f"{far} pairs ({medians[far]:.1f} ns): the reported topology does "
                           f"not describe this machine's caches")
    for rel, v in grouped.items():
        if len(v) >= 4 and v[0] > 0 and v[len(v) // 4] * SPLIT_FACTOR < v[-(len(v) // 4) - 1]:
            out.append(f"{rel} pairs form more than one group ({v[0]:.1f} .. {v[-1]:.1f} ns, "
                       f"quartiles {v[len(v) // 4]:.1f} and {v[-(len(v) // 4) - 1]:.1f}): a "
                       f"boundary the reported topology does not name")
    return out


def section_c2c(env, results, emulated):
    """The report's c2c section, or "" without c2c lines."""
    p = pairs(results)
    if not p:
        return ""
    grouped = groups(results)
    cpus = sorted({c for ab in p for c in ab})
    parts = ["## c2c: the cache-line hop", "",
             "Two CPUs bounce one cache line by compare-exchange; the figure is the one-way "
             "latency, the median round trip / 2 (bench/bench_c2c.c). Topology from the ENV "
             f"line: {env.get('packages', '?')} package(s) x {env.get('cores_per_package', '?')}"
             f" core(s) x {env.get('threads_per_core', '?')} thread(s), "
             f"{env.get('llc_groups', '?')} LLC group(s) "
             f"{' '.join(env.get('llc_cpus', [])) or '(list cut)'} "
             f"({env.get('topology_source', '?')}).", ""]
    if emulated:
        parts += ["Under an emulator: these figures describe the emulator's threads and "
                  "locks, not the CPU's caches.", ""]
    parts += ["| relation | pairs | min ns | median ns | max ns |", "|---|---|---|---|---|"]
    for rel, v in grouped.items():
        parts.append(f"| {rel} | {len(v)} | {v[0]:.1f} | {statistics.median(v):.1f} | "
                     f"{v[-1]:.1f} |")
    bad = contradictions(grouped)
    parts += ["", "Against the topology: " + ("; ".join(bad) if bad else
                                              "the latencies rise with the distance the "
                                              "topology names (nearer relations cheaper)."), ""]
    shown = cpus[:MATRIX_MAX]
    parts += ["One-way ns, row CPU to column CPU ('-': not measured):", "",
              "| CPU | " + " | ".join(str(c) for c in shown) + " |",
              "|---|" + "---|" * len(shown)]
    for a in shown:
        cells = []
        for b in shown:
            r = p.get((a, b)) or p.get((b, a))
            cells.append("0" if a == b else f"{float(r['oneway_ns']):.1f}" if r else "-")
        parts.append(f"| {a} | " + " | ".join(cells) + " |")
    if len(cpus) > MATRIX_MAX:
        parts += ["", f"({len(cpus) - MATRIX_MAX} more CPUs in c2c.png and the log.)"]
    parts += ["", "![one-way latency between CPUs](c2c.png)"]
    return "\n".join(parts)


def write_heatmap(results, outdir):
    """c2c.dat (the matrix, NaN where not measured) and c2c.png; nothing without c2c lines.
    Returns an error message, or None."""
    p = pairs(results)
    if not p:
        return None
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return "gnuplot not found: install gnuplot-nox (make deps) for c2c.png"
    cpus = sorted({c for ab in p for c in ab})
    dat = os.path.join(outdir, "c2c.dat")
    with open(dat, "w") as f:
        f.write("# one-way ns, row CPU to column CPU, in the order: "
                + " ".join(map(str, cpus)) + "\n")
        for a in cpus:
            row = []
            for b in cpus:
                r = p.get((a, b)) or p.get((b, a))
                row.append("0" if a == b else f"{float(r['oneway_ns']):.2f}" if r else "NaN")
            f.write(" ".join(row) + "\n")
    terms = subprocess.run([gnuplot, "-e", "set terminal"], capture_output=True, text=True)
    term = "pngcairo" if "pngcairo" in terms.stdout + terms.stderr else "png"
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_c2c.gp")
    labels = " ".join(map(str, cpus))
    args = [f"datafile='{dat}'", f"outfile='{os.path.join(outdir, 'c2c.png')}'",
            f"term='{term}'", f"ncpus={len(cpus)}", f"labels='{labels}'"]
    run = subprocess.run([gnuplot, "-e", "; ".join(args), script], capture_output=True,
                         text=True)
    return f"gnuplot failed on c2c.png: {run.stderr.strip()}" if run.returncode else None
