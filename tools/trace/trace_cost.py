#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace_cost.py - what the trace hooks cost, off and on, measured side by side.

    tools/trace/trace_cost.py OUTDIR [--cpus N] [--rounds N] [--ms MS] [--trials N]
                        [--untraced BIN] [--traced BIN] [--from LOG] [WORD ...]

Why: the tracing promise (docs/tracing.md) is that hooks compiled in but
switched off cost nothing: the uncontended figures stay within 2% of a build
without hooks.  Figures from two separate runs differ by more than that on a
shared machine, so this tool runs the uncontended benchmark (bench_native
--only=uncontended) in three builds by turns, within one step:

    untraced  OUTDIR/bench_native_untraced (-DTRACE_COMPILED_OUT)
    off       OUTDIR/bench_native, tracing off
    on        OUTDIR/bench_native with trace=all

round after round, the order reversed every other round (untraced off on,
on off untraced, ...) so that a drift of the machine weighs on every build
alike.  For each (impl, op) row it takes, per round, the ratio off/untraced
and on/untraced, and reports the median of those ratios (and the median
ns/op of each build).  WORDs are the main run's kernel words: run= and
trace words are replaced by the tool's own; the rest (spinlock.kind=,
lockref.policy=, seed=) is kept.  How long the step runs follows them
(settings()): `quick` shortens it to about a second (make test runs it
so); a bench.ms= or bench.trials= makes each run take those, over
FOLLOW_ROUNDS rounds (a short main run, a short step: `make bench-native
CMDLINE="run=bench bench.ms=20 bench.trials=2"` spends about 15 s here);
without them, the tool's own FULL settings (about 35-50 s here).
--rounds, --ms and --trials override any of it; make bench-native runs
the step only with TRACE_COST=1.

It writes OUTDIR/trace-cost.log (every run's output, each after a
"## trace-cost run" line) and OUTDIR/trace-cost.md, and prints the table.
--from LOG reads such a log instead of running anything.  The rows without
lock code (the locked instructions, the compare-exchange loops, the xadd
reference count) have no hooks: their ratios show the noise floor when they
scatter around 1, and a difference of the builds themselves (code placement)
when they all lean one way past 2%, which the goal line then says.  The
goal line judges the rest; it is informative, and says so: a goal not met
is reported, never an error (a shared machine's noise exceeds 2%).

Exit status: 0 when the table was written, 1 on unusable input (a run that
failed or was cut short, no uncontended BENCH lines, a line that is not
JSON, a row one build lacks), 2 on bad arguments.
Python 3 standard library only.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "log"))  # kernel_log
import kernel_log

BUILDS = ["untraced", "off", "on"]  # the order of an odd round; an even round reverses it
BUILD_WORDS = {"untraced": [], "off": [], "on": ["trace=all"]}
# The main run's words the tool sets itself.
REPLACED_WORD = re.compile(r"^(run|bench\.ms|bench\.trials|trace(\.[a-z]+)?)=|^quick$")
GIVEN_LENGTH = re.compile(r"^(bench\.ms|bench\.trials)=([1-9][0-9]*)$")
# Rounds, ms per trial and trials: a full step (about 35 s here) and a quick one (about 1 s).
FULL = {"rounds": 8, "ms": 10, "trials": 3}
QUICK = {"rounds": 2, "ms": 2, "trials": 1}
# Rounds when the main run's bench.ms=/bench.trials= set each run's length: the fewest that
# still reverse the order once.
FOLLOW_ROUNDS = 2
FOLLOWED = {"bench.ms": "ms", "bench.trials": "trials"}  # main-run word -> setting
GOAL_OFF_MAX = 1.02  # tracing off: within 2% of the untraced build
# The goal line's label: it decides nothing.
GOAL_LABEL = "goal (informative, decides nothing: a shared machine's noise exceeds 2%)"
# Rows that run no lock code, so no hook: what the machine's noise alone does to a ratio.
NO_HOOK_IMPLS = {"xadd", "cmpxchg8b", "cmpxchgq", "cmpxchg16b", "cas-loop-cmpxchg8b",
                 "cas-loop-cmpxchgq", "ticket-inline", "qspinlock-inline"}
RUN_HEADER = re.compile(r"^## trace-cost run (\d+) (\w+): (.*)$")
RUN_EXIT = re.compile(r"^## trace-cost exit (-?\d+)$")
REQUIRED = ["impl", "op", "ns_per_op"]


def settings(words):
    """(rounds/ms/trials, how they were chosen): quick, the main run's bench.ms= and
    bench.trials= (the later of a key given twice), or the tool's own."""
    if "quick" in words:
        return dict(QUICK), "quick: a smoke test, too short to judge"
    given = {}
    for w in words:
        m = GIVEN_LENGTH.match(w)
        if m:
            given[m.group(1)] = int(m.group(2))
    if given:
        named = " and ".join(f"{k}={v}" for k, v in given.items())
        return ({**FULL, "rounds": FOLLOW_ROUNDS, **{FOLLOWED[k]: v for k, v in given.items()}},
                f"each run as the main run's {named}, over {FOLLOW_ROUNDS} rounds")
    return dict(FULL), "the tool's own settings (the main run gave no bench.ms=/bench.trials=)"


# The runs cannot be compared; the message says which and why.
InputError = kernel_log.LogError


def kernel_words(words, settings):
    """The words each run gets: the main run's own, minus those the tool sets, plus its own."""
    kept = [w for w in words if not REPLACED_WORD.match(w)]
    return ["run=bench", f"bench.ms={settings['ms']}",
            f"bench.trials={settings['trials']}"] + kept


def schedule(rounds):
    """(round, build) in run order: untraced off on, then on off untraced, and so on."""
    order = []
    for r in range(1, rounds + 1):
        order += [(r, b) for b in (BUILDS if r % 2 else reversed(BUILDS))]
    return order


def run_all(binaries, words, cpus, rounds, log_path):
    """Run every (round, build) and write the combined log; returns its text."""
    chunks = []
    for r, build in schedule(rounds):
        argv = [binaries[build], "--only=uncontended"] + ([f"--cpus={cpus}"] if cpus else [])
        argv += words + BUILD_WORDS[build]
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=600)
            out, status = p.stdout.decode("utf-8", errors="replace"), p.returncode
        except OSError as e:
            out, status = f"cannot run {argv[0]}: {e.strerror}\n", 127
        if out and not out.endswith("\n"):
            out += "\n"
        chunks.append(f"## trace-cost run {r} {build}: {' '.join(argv)}\n{out}"
                      f"## trace-cost exit {status}\n")
    text = "".join(chunks)
    with open(log_path, "w") as f:
        f.write(text)
    return text


def parse_runs(text, name):
    """Return {(round, build): {(impl, op): ns_per_op}} from a combined log: its
    text, or its numbered lines as kernel_log.read_lines gives them.

    Every run must have ended with status 0 and printed at least one
    uncontended BENCH line; anything else names the run and the line.
    """
    runs, current, where = {}, None, None
    lines = kernel_log.split(text.encode("utf-8"))[0] if isinstance(text, str) else text
    for number, raw in lines:
        line = raw.strip()
        header, end = RUN_HEADER.match(line), RUN_EXIT.match(line)
        if header:
            if current is not None:
                raise InputError(f"{name}:{where}: run {current[0]} ({current[1]}) has no "
                                 f"'## trace-cost exit' line: cut short?")
            if header.group(2) not in BUILDS:
                raise InputError(f"{name}:{number}: unknown build {header.group(2)!r}, "
                                 f"expected one of {', '.join(BUILDS)}")
            current, where = (int(header.group(1)), header.group(2)), number
            runs[current] = {}
        elif end:
            if current is None:
                raise InputError(f"{name}:{number}: an exit line outside a run")
            if int(end.group(1)) != 0:
                raise InputError(f"{name}:{where}: run {current[0]} ({current[1]}) exited with "
                                 f"status {end.group(1)}; its output is in {name}")
            if not runs[current]:
                raise InputError(f"{name}:{where}: run {current[0]} ({current[1]}) printed no "
                                 f"uncontended '# BENCH {{...}}' line")
            current = None
        elif line.startswith("# BENCH ") and current is not None:
            record = parse_bench(line, name, number)
            if record.get("bench") == "uncontended":
                runs[current][(record["impl"], record["op"])] = float(record["ns_per_op"])
    if current is not None:
        raise InputError(f"{name}:{where}: run {current[0]} ({current[1]}) has no "
                         f"'## trace-cost exit' line: cut short?")
    if not runs:
        raise InputError(f"{name}: no '## trace-cost run' lines: not a trace-cost log")
    return runs


def parse_bench(line, name, number):
    """One '# BENCH {json}' line as a dict with the fields the table needs."""
    record = kernel_log.record("BENCH", line[len("# BENCH "):], f"{name}:{number}", REQUIRED)
    try:
        if float(record["ns_per_op"]) <= 0:
            raise ValueError
    except (TypeError, ValueError):
        raise InputError(f"{name}:{number}: ns_per_op {record['ns_per_op']!r} is not a "
                         f"positive number")
    return record


def compare(runs, name):
    """Per row: median ns/op of each build and the medians of the per-round ratios.

    Returns a list of dicts in the order the benchmark printed its rows.
    Every round must have all three builds, and every build the same rows.
    """
    rounds = sorted({r for r, _ in runs})
    for r in rounds:
        missing = [b for b in BUILDS if (r, b) not in runs]
        if missing:
            raise InputError(f"{name}: round {r} lacks the {', '.join(missing)} run")
    first = runs[(rounds[0], BUILDS[0])]
    for key, rows in runs.items():
        if set(rows) != set(first):
            lost = sorted(set(first) ^ set(rows))
            raise InputError(f"{name}: round {key[0]} ({key[1]}) differs in its rows from round "
                             f"{rounds[0]} (untraced): {', '.join('/'.join(k) for k in lost)}")
    table = []
    for row in first:
        ns = {b: [runs[(r, b)][row] for r in rounds] for b in BUILDS}
        table.append({
            "impl": row[0], "op": row[1], "hooks": row[0] not in NO_HOOK_IMPLS,
            "ns": {b: statistics.median(v) for b, v in ns.items()},
            "off": statistics.median(o / u for o, u in zip(ns["off"], ns["untraced"])),
            "on": statistics.median(o / u for o, u in zip(ns["on"], ns["untraced"])),
        })
    return table, len(rounds)


def goal_line(table):
    """The verdict on the hooked rows, and the noise floor the unhooked rows show."""
    hooked = [r for r in table if r["hooks"]]
    floor = [r for r in table if not r["hooks"]]
    text = ""
    if hooked:
        worst = max(hooked, key=lambda r: r["off"])
        verdict = "met" if worst["off"] <= GOAL_OFF_MAX else "not met"
        text += (f"{GOAL_LABEL}: tracing off within 2% of the untraced build: {verdict} "
                 f"(worst row {worst['impl']} {worst['op']}: {worst['off']:.3f})")
    else:
        text += f"{GOAL_LABEL}: tracing off within 2% of the untraced build: n/a (no row with hooks)"
    if floor:
        lo, hi = min(r["off"] for r in floor), max(r["off"] for r in floor)
        spread = max(floor, key=lambda r: abs(r["off"] - 1))
        # Rows that all lean one way past the goal's margin are no noise: the two builds
        # differ by more than their hooks (code placement, alignment of the loops).
        if lo > GOAL_OFF_MAX or hi < 2 - GOAL_OFF_MAX:
            text += (f"; rows without hooks: {lo:.3f} to {hi:.3f}, every one the same way: "
                     f"not noise but a difference of the builds besides the hooks (code "
                     f"placement), which the hooked rows' ratios hold too")
        else:
            text += (f"; noise floor (rows without hooks): {spread['impl']} {spread['op']} "
                     f"{spread['off']:.3f}")
    return text


def markdown(table, rounds, measured, quick=False, how="", seconds=None):
    """The table, the goal line and how it was measured (@how: why these settings;
    @seconds: the step's length), as Markdown."""
    lines = [
        "## Trace cost: uncontended, three builds side by side", "",
        f"{rounds} interleaved rounds ({measured}){'; ' + how if how else ''}"
        f"{f'; the step took {seconds:.0f} s' if seconds is not None else ''}. "
        "ns/op are medians over the rounds, "
        "ratios the medians of the per-round ratios to the untraced build. "
        "Rows marked `no hooks` run no lock code: their ratios are what the builds differ "
        "by besides the hooks, noise when they scatter around 1, the builds' code placement "
        "when they all lean one way (the goal line says which).", "",
        "| impl | op | hooks | untraced ns/op | off ns/op | off/untraced | on ns/op "
        "| on/untraced |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in table:
        lines.append(f"| {r['impl']} | {r['op']} | {'yes' if r['hooks'] else 'no hooks'} "
                     f"| {r['ns']['untraced']:.2f} | {r['ns']['off']:.2f} | {r['off']:.3f} "
                     f"| {r['ns']['on']:.2f} | {r['on']:.3f} |")
    lines += ["", goal_line(table) + ("; a quick run, too short to judge" if quick else ""), ""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Trace hook cost: untraced, off and on builds")
    ap.add_argument("outdir", help="bench-native build directory: binaries in, results out")
    ap.add_argument("words", nargs="*", help="the main run's kernel words (quick shortens)")
    ap.add_argument("--cpus", type=int, help="bench_native --cpus= (make bench-native CPUS=)")
    ap.add_argument("--rounds", type=int, help="rounds of the three builds")
    ap.add_argument("--ms", type=int, help="bench.ms= of each run")
    ap.add_argument("--trials", type=int, help="bench.trials= of each run")
    ap.add_argument("--untraced", help="the hooks-out program (OUTDIR/bench_native_untraced)")
    ap.add_argument("--traced", help="the hooks-in program (OUTDIR/bench_native)")
    ap.add_argument("--from", dest="source", metavar="LOG", help="read LOG, run nothing")
    args = ap.parse_args(argv)
    chosen, how = settings(args.words)
    for k in chosen:
        if getattr(args, k) is not None:
            if getattr(args, k) < 1:
                ap.error(f"--{k}={getattr(args, k)}: expected a count of at least 1")
            chosen[k] = getattr(args, k)
            how = "set by --rounds/--ms/--trials"
    log_path = os.path.join(args.outdir, "trace-cost.log")
    start = time.monotonic()
    try:
        if args.source:
            text, _ = kernel_log.read(args.source)
            name = args.source
            measured = f"read from {args.source}"
        else:
            binaries = {"untraced": args.untraced or os.path.join(args.outdir,
                                                                  "bench_native_untraced"),
                        "off": args.traced or os.path.join(args.outdir, "bench_native")}
            binaries["on"] = binaries["off"]
            os.makedirs(args.outdir, exist_ok=True)
            words = kernel_words(args.words, chosen)
            text = run_all(binaries, words, args.cpus, chosen["rounds"], log_path)
            name = log_path
            measured = f"`{' '.join(words)}`, each round's order reversed from the last"
        table, rounds = compare(parse_runs(text, name), name)
    except InputError as e:
        print(f"trace_cost: {e}", file=sys.stderr)
        return 1
    report = markdown(table, rounds, measured, quick="quick" in args.words,
                      how="" if args.source else how,
                      seconds=None if args.source else time.monotonic() - start)
    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "trace-cost.md"), "w") as f:
        f.write(report)
    print(report)
    print(f"trace_cost: wrote {os.path.join(args.outdir, 'trace-cost.md')} "
          f"({time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
