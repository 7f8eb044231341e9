#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ktap_check.py - judge a kernel serial log.

    ktap_check.py LOG                      the run must have passed
    ktap_check.py LOG --expect-fail REGEX  the run must have FAILED, and some
                                           line must match REGEX (negative controls)

A passing run has: the KTAP version line, a top-level plan 1..N followed
by exactly N top-level results, every suite's block (its "# BENCH" lines
included) indented by two spaces as Linux's ktap.rst writes a subtest, no
"not ok" at any level, no "PANIC:" line, and a final "# RESULT pass".  Anything else is a failure, said in one line
naming what was missing or wrong.  Exit status 0 when the expectation holds.
"""
import argparse
import re
import sys

PLAN = re.compile(r"^1\.\.(\d+)\s*$")
# A suite's subtest block, one nesting level deep (ktap.rst: two spaces a level).
SUBTEST_LINE = re.compile(r"^(\s*)(# Subtest: |# BENCH )")
SUBTEST_INDENT = "  "
RESULT_LINE = re.compile(r"^(not ok|ok) (\d+)\b(.*)$")


def problems_of(lines):
    """Reasons the log is not a clean pass (empty list when it is)."""
    problems = []
    if not any(l.strip() == "KTAP version 1" for l in lines):
        problems.append("no 'KTAP version 1' line (the kernel never reached its tests)")
    plan = None
    top_results = []
    for l in lines:
        if l.startswith(" "):
            if RESULT_LINE.match(l.strip()) and l.strip().startswith("not ok"):
                problems.append("subtest failed: " + l.strip())
            continue
        m = PLAN.match(l)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = RESULT_LINE.match(l)
        if m:
            top_results.append(m)
            if m.group(1) == "not ok":
                problems.append("suite failed: " + l.strip())
    if plan is None:
        problems.append("no top-level plan '1..N'")
    elif len(top_results) != plan:
        problems.append(f"plan says {plan} suites but {len(top_results)} results were "
                        "printed (crash or hang mid-run?)")
    for number, l in enumerate(lines, 1):
        m = SUBTEST_LINE.match(l)
        if m and m.group(1) != SUBTEST_INDENT:
            problems.append(f"line {number}: a suite's line is indented by {len(m.group(1))} "
                            f"spaces, not {len(SUBTEST_INDENT)}: {l.strip()[:60]}")
            break
    for l in lines:
        if l.startswith("PANIC:"):
            problems.append("panic: " + l.strip())
            break
    results = [l.strip() for l in lines if l.startswith("# RESULT ")]
    if not results:
        problems.append("no '# RESULT' line (the run did not finish)")
    elif results[-1] != "# RESULT pass":
        problems.append("kernel reported: " + results[-1])
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--expect-fail", metavar="REGEX",
                    help="require a failed run with a line matching REGEX")
    args = ap.parse_args()
    try:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            lines = [l.rstrip("\r\n").replace("\r", "") for l in f]
    except OSError as e:
        print(f"ktap_check: cannot read {args.log}: {e}")
        return 2
    problems = problems_of(lines)
    if args.expect_fail:
        pattern = re.compile(args.expect_fail)
        if not problems:
            print(f"ktap_check: {args.log}: expected a FAILED run, but it passed")
            return 1
        if not any(pattern.search(l) for l in lines):
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
