#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_report.py - turn a benchmark log into a report and a plot.

    tools/bench/bench_report.py LOG OUTDIR [--against LOG2] [--host-cpus N] [--strict]

Reads the `# ENV {json}` line and every `# BENCH {json}` line of LOG: the
serial log of a kernel booted with run=bench (`make bench`), or the output
of the native program that runs the same benchmarks on the host's cores
(`make bench-native`, "platform":"native").  It writes:

    OUTDIR/report.md      the machine, one table per benchmark, warnings
                          where a figure cannot mean much, and the goals of
                          issue 6 with PASS/FAIL and the figures behind them
    OUTDIR/scaling.png    operations per second against CPUs, one line per
                          implementation (gnuplot, tools/bench/bench_scaling.gp)
    OUTDIR/scaling.dat    the plotted data
    OUTDIR/c2c.png        with c2c lines: the one-way latency heatmap
                          (bench_c2c.py, tools/bench/bench_c2c.gp), c2c.dat its matrix
    OUTDIR/model.json     the scaling model's prediction beside each measured
                          point it covers (scaling_model.py; its curves are the
                          plot's dashed lines, its error table ends report.md)

With --against, LOG2 is the other kind of log (a guest's beside a native
one): the report adds a table setting every benchmark and implementation
both logs measured side by side, with the ratio of their figures.  Each
report says which of its figures describe hardware.

Why a host tool: the kernel has no floating point and no room for tables;
it prints raw figures, and everything that compares them lives here, where
it can be unit-tested (tools/tests/test_bench_report.py).  The log is read by
bench_log.py (through kernel_log.py), judged by bench_goals.py, and each
part of the report is a function of bench_sections.py.

Exit status: 0 when the report and plot were written, 1 on unusable input
(no ENV line, no BENCH line, a line that is not JSON, a missing field) or
when gnuplot fails, 2 on bad arguments; with --strict, 3 when a goal fails.
Python 3 standard library only.
"""

import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "log"))  # kernel_log
import kernel_log
import scaling_model
from bench_c2c import section_c2c, write_heatmap
from bench_curve import plan_bounds, section_curves
from bench_goals import INFORMATIVE, judge, verdict_cell
from bench_log import InputError, SCALING_BENCHES, accelerator, benches, host_info, \
    is_native, judged_emulated, parse_log, scaling_grid, table
from bench_sections import environment_warnings, hardware_statement, quality_warnings, \
    section_side_by_side, sections


# How each ENV tsc_source was measured, in words (kernel/tsc.c; tests/bench/bench_native.c).
TSC_SOURCES = {"calibrated": "(calibrated against the host OS's clock)",
               "pit": "(measured against the PIT)", "hpet": "(measured against the HPET)"}


def build_report(env, result, results, notes, host, against=None, bounds=None, strict=False):
    label, _ = accelerator(env)
    emulated = judged_emulated(env, results)
    native = is_native(env)
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
                 ["TSC", f"{env.get('tsc_khz', 0) / 1e6:.3f} GHz "
                         f"{TSC_SOURCES.get(env.get('tsc_source'), 'from ' + str(env.get('tsc_source', '?')))}"
                         f", invariant: "
                         f"{str(env.get('invariant_tsc', '?')).lower()}"],
                 ["timing end", any_rec.get("clock_end", "?")],
                 ["CMPXCHG16B", str(env.get("cx16", "?")).lower()],
                 ["lockref policy", env.get("lockref_policy", "?")],
                 ["trials", f"{any_rec['trials']} of {any_rec.get('ms', '?')} ms each, "
                            f"after one warm-up"],
                 ["command line", f"`{env.get('cmdline', '')}`"],
                 ["seed", env.get("seed", "?")],
                 ["verdict", (f"{result} (the run's own checks; the goals below "
                              + ("decide too: --strict)" if strict else
                                 "are informative: they decide only with --strict)"))
                  if result else "missing (the run did not finish)"],
                 ["benchmarks", ", ".join(benches(results))]])]
    warnings = environment_warnings(env, host, results) + quality_warnings(results) + notes
    parts += ["", "## What these figures describe", "", hardware_statement(env, emulated)]
    parts += ["", "## Warnings", ""]
    parts += [f"- {w}" for w in warnings] if warnings else ["None."]
    judged, info = judge(results, emulated)
    parts += ["", "## Goals", "",
              ("With --strict, a judged goal not met fails the report (exit status 3)."
               if strict else "Informative: a goal not met fails neither the run nor this "
               "report; `tools/bench/bench_report.py --strict` makes the judged goals decide (exit "
               "status 3 when one fails)."), "",
              f"Judged for {label}" + (", running as an emulator: there only the absence of "
                                       "inversions and the paravirtual lock's uncontended cost "
                                       "are goals; the hardware goals are shown for "
                                       "information." if emulated else "."), "",
              table(["goal", "figures", "verdict"],
                    [[g["name"], g["figures"], verdict_cell(g["verdict"], strict)]
                     for g in judged]
                    + [[g["name"], g["figures"], f"({g['verdict']}, not judged here)"]
                       for g in info])]
    for section in sections(results):
        parts += ["", section]
    for extra in (section_c2c(env, results, emulated), section_curves(results, bounds)):
        if extra:
            parts += ["", extra]
    if against:
        parts += ["", section_side_by_side((env, results), against)]
    parts += ["", "![operations per second against CPUs](scaling.png)", ""]
    return "\n".join(parts), judged


def write_plot(results, outdir, model):
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
            last, model_blocks = index - 1, scaling_model.write_curves(f, model, bench,
                                                                     list(grid), index)
            index = model_blocks[1] + 1
            panels.append((bench, first, last, " ".join(grid), model_blocks))
        pfirst, plast, ptitles, pcolours = scaling_model.write_projection(
            f, model, {bench: titles.split() for bench, _, _, titles, _ in panels}, index)
    if not panels:
        raise InputError("no refcount, convoy or pathwalk lines: nothing to plot")
    terms = subprocess.run([gnuplot, "-e", "set terminal"], capture_output=True, text=True)
    term = "pngcairo" if "pngcairo" in terms.stdout + terms.stderr else "png"
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_scaling.gp")
    # The panels span what was measured; the model past it has a panel of its own.
    maxcpus = max(k[3] for k in results if k[0] in SCALING_BENCHES)
    args = [f"datafile='{dat}'", f"outfile='{os.path.join(outdir, 'scaling.png')}'",
            f"term='{term}'", f"maxcpus={maxcpus}", f"npanels={len(panels)}",
            f"pfirst={pfirst}", f"plast={plast}", f"ptitles='{ptitles}'",
            f"pcolours='{pcolours}'",
            f"projectmax={scaling_model.PROJECT_MAX}"]
    for i, (bench, first, last, titles, (mfirst, mlast, colours)) in enumerate(panels, 1):
        args += [f"bench{i}='{bench}'", f"first{i}={first}", f"last{i}={last}",
                 f"titles{i}='{titles}'", f"mfirst{i}={mfirst}", f"mlast{i}={mlast}",
                 f"mcolours{i}='{colours}'"]
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
    ap.add_argument("--strict", action="store_true",
                    help="exit 3 if a judged goal fails (else the goals are informative)")
    args = ap.parse_args(argv)
    try:
        env, result, results, notes = parse_log(args.log)
        against = None
        if args.against:
            other_env, _, other_results, _ = parse_log(args.against)
            against = (other_env, other_results)
        os.makedirs(args.outdir, exist_ok=True)
        bounds = plan_bounds(kernel_log.read(args.log)[0])
        report, judged = build_report(env, result, results, notes, host_info(args.host_cpus),
                                      against, bounds, args.strict)
        model = scaling_model.predict(results, judged_emulated(env, results))
        with open(os.path.join(args.outdir, "report.md"), "w") as f:
            f.write(report + scaling_model.section(model))
        if model["problem"]:
            print(f"bench_report: {model['problem']}", file=sys.stderr)
        scaling_model.write_json(model, args.outdir)
        write_plot(results, args.outdir, model)
        problem = write_heatmap(results, args.outdir)
        if problem:
            raise InputError(problem)
    except InputError as e:
        print(f"bench_report: {e}", file=sys.stderr)
        return 1
    failed = [g for g in judged if g["verdict"] == "FAIL"]
    # The console gets the model's result in a few lines; every point is in report.md.
    for line in scaling_model.summary(model):
        print(line)
    print(f"bench_report: wrote {os.path.join(args.outdir, 'report.md')} and scaling.png; "
          f"goals: {sum(g['verdict'] == 'PASS' for g in judged)} pass, {len(failed)} fail, "
          f"{sum(g['verdict'] == 'n/a' for g in judged)} n/a"
          + ("" if args.strict or not failed else f" ({INFORMATIVE})"))
    return 3 if failed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
