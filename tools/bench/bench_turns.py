#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_turns.py - two builds of bench_native, one benchmark, by turns.

    tools/bench/bench_turns.py OLD NEW [--rounds N] [--only NAME] [WORD ...]

Why: a change to a fast path must be measured against the code before it,
and two runs made minutes apart differ on a shared machine by more than
the 2% a change may cost.  So OLD and NEW (two bench_native binaries, say
one built from a second worktree at the earlier commit) run the benchmark
NAME (default: uncontended) alternately, the order reversed every other
round, so a drift of the machine weighs on both alike.  For each
(impl, op, cpus) row it prints, as a Markdown table, the median ns/op of
each build and the median (and range) of the per-round ratios new/old:
below 1 is faster.  WORDs are kernel words passed to both (default
`run=bench bench.ms=100 bench.trials=5`).  docs/benchmarks.md ("The lock
layer's cost, by turns") shows one such run.
"""

import argparse
import statistics
import subprocess
import sys

import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "log"))  # kernel_log
import kernel_log

DEFAULT_WORDS = ["run=bench", "bench.ms=100", "bench.trials=5"]


def run_once(binary, only, words):
    """{(impl, op, cpus): ns_per_op} of one run of @binary."""
    done = subprocess.run([binary, f"--only={only}", *words], capture_output=True, check=False)
    if done.returncode != 0:
        raise kernel_log.LogError(f"{binary}: exit status {done.returncode}")
    lines, _ = kernel_log.split(done.stdout)
    rows = {}
    for _, kind, rec in kernel_log.records(lines, binary,
                                           {"BENCH": ("impl", "op", "cpus", "ns_per_op")}):
        if kind == "BENCH":
            rows[(rec["impl"], rec["op"], rec["cpus"])] = rec["ns_per_op"]
    if not rows:
        raise kernel_log.LogError(f"{binary} --only={only}: no BENCH line")
    return rows


def table(old_runs, new_runs):
    """The Markdown table of rows both builds measured in every round."""
    out = ["| row | old ns | new ns | new/old (range) |", "|---|---|---|---|"]
    for key in old_runs[0]:
        if not all(key in r for r in old_runs + new_runs):
            continue
        old = [r[key] for r in old_runs]
        new = [r[key] for r in new_runs]
        ratios = [n / o for n, o in zip(new, old)]
        impl, op, cpus = key
        out.append(f"| {impl} {op} ({cpus} CPU{'s' if cpus != 1 else ''}) "
                   f"| {statistics.median(old):.2f} | {statistics.median(new):.2f} "
                   f"| {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--only", default="uncontended")
    ap.add_argument("words", nargs="*")
    args = ap.parse_intermixed_args()
    if args.rounds < 1:
        print(f"bench_turns: --rounds={args.rounds}: expected 1 or more", file=sys.stderr)
        return 2
    words = args.words or DEFAULT_WORDS
    old_runs, new_runs = [], []
    try:
        for i in range(args.rounds):
            order = [(args.old, old_runs), (args.new, new_runs)]
            for binary, runs in (order if i % 2 == 0 else order[::-1]):
                runs.append(run_once(binary, args.only, words))
    except (kernel_log.LogError, OSError) as e:
        print(f"bench_turns: {e}", file=sys.stderr)
        return 1
    print("\n".join(table(old_runs, new_runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
