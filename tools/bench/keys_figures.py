#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""keys_figures.py - the uncontended lock rows of two boots side by side.

    tools/bench/keys_figures.py DEFAULT_LOG BARE_LOG

Why: a boot's benchmarks now run the bare lock path although its tests ran
with the checkers on (the suites' switches, docs/static-keys.md): the keys
are switched off at run time, between the tests and the benchmarks.  The
figures must then be those of a boot whose keys were never on.  This
prints, for the uncontended get+put of the lock and lockref rows and their
baselines, each log's ns per operation, the "path" its BENCH line names,
the row over its baseline in the same boot (BASELINE), and the ratio of the
two boots' figures, as a Markdown table.  Exit status 1 if a row is
missing from either log, or a log's row does not say "bare" where the
other's does.
"""
import json
import sys

ROWS = ["cas-loop-cmpxchg8b", "ticket-inline", "spinlock", "lockref", "lockref16", "lockref-locked"]
# What each row is judged by within its own boot (docs/benchmarks.md): under an emulator on a
# shared machine two boots' absolute figures differ by the load; a row over its baseline less.
BASELINE = {"spinlock": "ticket-inline", "lockref-locked": "ticket-inline",
            "lockref": "cas-loop-cmpxchg8b", "lockref16": "cas-loop-cmpxchg8b"}


def rows(path):
    """{impl: (ns_per_op, path)} of the uncontended get+put lines of @path."""
    found = {}
    for line in open(path, errors="replace"):
        text = line.strip()
        if not text.startswith("# BENCH {"):
            continue
        r = json.loads(text[len("# BENCH "):])
        if r.get("bench") == "uncontended" and r.get("op") == "get+put":
            found[r["impl"]] = (float(r["ns_per_op"]), r.get("path", "-"))
    return found


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    a, b = rows(argv[0]), rows(argv[1])
    problems = []
    print("| impl (uncontended get+put) | default boot ns | / baseline | path "
          "| every switch off ns | / baseline | path | default / off |")
    print("|---|---|---|---|---|---|---|---|")
    for impl in ROWS:
        if impl not in a or impl not in b:
            problems.append(f"{impl}: missing from {argv[0] if impl not in a else argv[1]}")
            continue
        (na, pa), (nb, pb) = a[impl], b[impl]
        if pa != pb:
            problems.append(f"{impl}: path {pa} in the default boot, {pb} in the other")
        base = BASELINE.get(impl)
        ra = f"{na / a[base][0]:.3f}" if base in a else "-"
        rb = f"{nb / b[base][0]:.3f}" if base in b else "-"
        print(f"| {impl} | {na:.1f} | {ra} | {pa} | {nb:.1f} | {rb} | {pb} | {na / nb:.3f} |")
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
