#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ktap_check.py - judge a kernel serial log.

    ktap_check.py LOG                      the run must have passed
    ktap_check.py LOG --expect-fail REGEX  the run must have FAILED, and some
                                           line must match REGEX (negative controls)

A passing run has: the KTAP version line, a top-level plan 1..N followed
by exactly N top-level results, every suite's block (its "# BENCH" lines
included) indented by two spaces as Linux's ktap.rst writes a subtest, no
"not ok" at any level, no "PANIC:" line, and a final verdict line saying
pass, with the `# tally:` line just before it agreeing with the results
(its suites the plan, its tests passed, failed and skipped those of the
suites' blocks); and where the boot said lock-order checking was on,
lockdep's "# lockdep:" summary line (a boot whose checker stopped still
prints it).  Anything else is a failure, said in one line naming what was
missing or wrong.  The log is read by tools/log/kernel_log.py: what it found damaged (a
cut line, NUL bytes, bytes that are not UTF-8) is printed as a warning.
Exit status 0 when the expectation holds.
"""
import argparse
import re
import sys

import kernel_log

# lockdep's line at boot when it checks (kernel/cmdline_apply.c), and its summary at the end
# (kernel/ktest.c): a boot with the first must have the second.
LOCKDEP_ON = re.compile(r"^lockdep: lock-order checking on ")
LOCKDEP_SUMMARY = re.compile(r"^# lockdep: \d+ classes, ")

# A suite's subtest block, one nesting level deep (ktap.rst: two spaces a level).
SUBTEST_LINE = re.compile(r"^(\s*)(# Subtest: |# BENCH )")
SUBTEST_INDENT = "  "


def problems_of(run):
    """Reasons the log (a kernel_log.Run) is not a clean pass (empty list when it is)."""
    problems = []
    texts = [text for _, text in run.lines]
    if not any(kernel_log.VERSION.match(t) for t in texts):
        problems.append("no 'KTAP version 1' line (the kernel never reached its tests)")
    for depth, case in kernel_log.walk(run.cases):
        line = f"not ok {case.number} {case.name}"
        if case.status == "fail":
            problems.append(("suite failed: " if depth == 0 else "subtest failed: ") + line)
    reported = [c for c in run.cases if c.status != "error"]
    if run.plan is None:
        problems.append("no top-level plan '1..N'")
    elif run.plan is not None and len(reported) != run.plan:
        problems.append(f"plan says {run.plan} suites but {len(reported)} results were "
                        "printed (crash or hang mid-run?)")
    for number, text in run.lines:
        m = SUBTEST_LINE.match(text)
        if m and m.group(1) != SUBTEST_INDENT:
            problems.append(f"line {number}: a suite's line is indented by {len(m.group(1))} "
                            f"spaces, not {len(SUBTEST_INDENT)}: {text.strip()[:60]}")
            break
    if any(LOCKDEP_ON.match(t) for t in texts) and not any(LOCKDEP_SUMMARY.match(t) for t in texts):
        problems.append("lock-order checking was on but no '# lockdep:' summary line was printed")
    panic = next((t for t in texts if t.startswith("PANIC:")), None)
    if panic:
        problems.append("panic: " + panic.strip())
    verdict = kernel_log.verdict(run.lines)
    if verdict is None:
        problems.append("no verdict line (the run did not finish)")
    elif verdict != "pass":
        problems.append(f"kernel reported the verdict '{verdict}'")
    problems += tally_problems(run)
    return problems


def tally_problems(run):
    """Whether the `# tally:` line is there, just before the verdict, and counts what ran."""
    tally = kernel_log.tally(run.lines)
    verdict_at = next((n for n, t in reversed(run.lines) if kernel_log.VERDICT.match(t)), None)
    if tally is None:
        return ["no '# tally:' line before the verdict"] if verdict_at is not None else []
    problems = []
    numbers = [n for n, _ in run.lines]
    if verdict_at is not None and numbers.index(verdict_at) != numbers.index(tally["number"]) + 1:
        problems.append(f"line {tally['number']}: the tally is not the line just before the "
                        f"verdict (line {verdict_at})")
    tests = [c for d, c in kernel_log.walk(run.cases) if d == 1]
    counted = {s: sum(c.status == s for c in tests) for s in ("pass", "fail", "skip")}
    want = {"suites": run.plan or 0, "passed": counted["pass"], "failed": counted["fail"],
            "skipped": counted["skip"]}
    wrong = [f"{k} {tally[k]} where the results say {v}" for k, v in want.items()
             if tally[k] != v]
    if tally["ran"] and tally["tests"] < sum(counted.values()):
        wrong.append(f"tests {tally['tests']} where {sum(counted.values())} reported")
    if wrong:
        problems.append(f"line {tally['number']}: the tally disagrees with the results: "
                        + "; ".join(wrong))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--expect-fail", metavar="REGEX",
                    help="require a failed run with a line matching REGEX")
    args = ap.parse_args()
    try:
        run = kernel_log.parse(args.log, kernel_log.read(args.log))
    except kernel_log.LogError as e:
        print(f"ktap_check: {e}")
        return 2
    for warning in kernel_log.warnings(args.log, run.read_problems):
        print(f"ktap_check: warning: {warning}")
    problems = problems_of(run)
    if args.expect_fail:
        pattern = re.compile(args.expect_fail)
        if not problems:
            print(f"ktap_check: {args.log}: expected a FAILED run, but it passed")
            return 1
        if not any(pattern.search(text) for _, text in run.lines):
            print(f"ktap_check: {args.log}: failed as expected, but no line matches "
                  f"/{args.expect_fail}/ (first problem: {problems[0]})")
            return 1
        print(f"ktap_check: {args.log}: failed as expected ({problems[0]})")
        return 0
    if problems:
        for p in problems:
            print(f"ktap_check: {args.log}: {p}")
        return 1
    print(f"ktap_check: {args.log}: pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
