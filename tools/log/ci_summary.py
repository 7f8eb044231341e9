#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ci_summary.py - the last `make test` as a Markdown page (make summary).

    ci_summary.py [DIR] [--bench-report REPORT_MD]
                              DIR: where tests/checks/run.py left its records (build/test)

A CI page shows this as the run's summary ($GITHUB_STEP_SUMMARY), and it
reads the same in a terminal: one row per check with its verdict; for a
failed boot the first FAIL or PANIC line, the seed and the `make run ...`
line that replays it; the invariants the runs reported broken; what was
wrong with a serial log that could not be read, and where; then the
benchmark tables of build/bench/report.md (make bench) or, without one,
of the short native run make test keeps.  Reads only what tests/checks/run.py
recorded (docs/ci.md); never raises on a bad log.
"""
import argparse
import re
import sys
from pathlib import Path

from kernel_log import first_crash, parse, read_lines
from ktap_junit import recorded_checks, replay_command

INVARIANT = re.compile(r"invariant ([a-z0-9-]+) broken")
BENCH_REPORTS = ["build/bench/report.md", "build/test/bench-native/report.md"]
HEADING = re.compile(r"^(#+) ", re.MULTILINE)
CELL_MAX = 300  # characters of a log line in a table cell


def cell(text):
    """Text that stays inside one Markdown table cell."""
    text = text if len(text) <= CELL_MAX else text[:CELL_MAX] + "..."
    return text.replace("|", "\\|").replace("`", "'")


def code(text):
    return f"`{cell(text)}`"


def describe(name, check, run):
    """(verdict, details, invariants) of one check."""
    passed = check.get("verdict") == "pass"
    expected_fail = bool(check.get("expect_fail"))
    verdict = ("pass (expected failure)" if expected_fail else "pass") if passed else "**FAIL**"
    details = []
    invariants = []
    if run is not None:
        if run.first_fail:
            number, text = run.first_fail
            details.append(f"line {number}: {code(text)}")
        invariants = sorted({m.group(1) for _, t in run.lines if "FAIL" in t
                             for m in INVARIANT.finditer(t)})
        crash = first_crash(run.cases)
        if crash and not (passed and expected_fail):
            details.append(f"crashed: {cell(crash.message)}")
        elif run.problems and not (passed and expected_fail):
            number, what = run.problems[0]
            details.append(f"serial log {cell(run.path)}:{number}: {cell(what)}")
        if not passed:
            seed = (run.env or {}).get("seed", "not printed")
            details.append(f"seed {seed}")
    replay = replay_command(check, run)
    if not passed:
        if replay:
            details.append(f"replay: {code(replay)}")
        if run is None:
            log = check.get("log", "no log")
            tail = last_line(log)
            details.append(f"exit status {cell(check.get('status', '?'))}; last line of "
                           f"{cell(log)}: {code(tail) if tail else '(no output)'}")
    return verdict, details, invariants


def last_line(path):
    lines = [t for _, t in read_lines(path)[0] if t.strip()]
    return lines[-1].strip() if lines else ""


def bench_report(candidates):
    """(path, text) of the first benchmark report that exists, or (None, None)."""
    for path in candidates:
        if Path(path).is_file():
            return path, Path(path).read_text(errors="replace")
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory", nargs="?", default="build/test")
    ap.add_argument("--bench-report", action="append", metavar="REPORT_MD",
                    help="benchmark report(s) to show, the first that exists "
                         f"(default: {', '.join(BENCH_REPORTS)})")
    args = ap.parse_args()
    directory = args.directory
    try:
        checks = recorded_checks(directory)
    except OSError as e:
        print(f"ci_summary: {directory}: no record of checks ({e.strerror}): run make test first")
        return 1
    rows, broken = [], []
    for name, check in checks:
        run = parse(check["serial"]) if check.get("serial") else None
        verdict, details, invariants = describe(name, check, run)
        rows.append((name, verdict, check.get("seconds", "?"), details))
        if invariants:
            broken.append((name, check.get("expect_fail"), invariants))
    passed = sum(1 for _, check in checks if check.get("verdict") == "pass")
    print(f"## make test: {passed} passed, {len(checks) - passed} failed\n")
    print("| check | verdict | seconds | first failure, seed, replay |")
    print("|---|---|---|---|")
    for name, verdict, seconds, details in rows:
        print(f"| {cell(name)} | {verdict} | {cell(seconds)} | {'<br>'.join(details)} |")
    if broken:
        print("\n### Invariants reported broken\n")
        for name, expected, invariants in broken:
            why = " (a negative control: expected)" if expected else ""
            print(f"- {name}{why}: {', '.join(invariants)}")
    path, report = bench_report(args.bench_report or BENCH_REPORTS)
    if report:
        print(f"\n### Benchmarks ({path})\n")
        print(HEADING.sub(r"\1## ", report))  # below this page's own headings
    return 0


if __name__ == "__main__":
    sys.exit(main())
