#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""junit_counts.py - read a JUnit file with junitparser and compare its counts.

    junit_counts.py JUNIT --passed N --failed N [--failure-in SUITE=REGEX ...]

The JUnit file of tools/log/ktap_junit.py is checked by a reader not written
here (Debian's python3-junitparser; run under /usr/bin/python3, where
Debian's Python packages import): the testcases named "check" (one per
testsuite, each check's own verdict) must count N passed and N failed, as
tests/checks/run.py's last line does, and each SUITE named must hold a <failure>
whose message matches REGEX (a negative control failing on its invariant).
One line says what differs; exit status 0 when nothing does.
"""
import argparse
import re
import sys

try:
    from junitparser import Failure, JUnitXml
except ImportError:
    print("junit_counts: junitparser is missing: install python3-junitparser (make deps) "
          "and run this with /usr/bin/python3")
    sys.exit(2)

CHECK_CASE = "check"  # tools/log/ktap_junit.py: the testcase holding a check's verdict


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("junit")
    ap.add_argument("--passed", type=int, required=True)
    ap.add_argument("--failed", type=int, required=True)
    ap.add_argument("--failure-in", action="append", default=[], metavar="SUITE=REGEX")
    args = ap.parse_args()
    try:
        xml = JUnitXml.fromfile(args.junit)
    except (OSError, SyntaxError) as e:  # ElementTree's ParseError is a SyntaxError
        print(f"junit_counts: {args.junit}: not readable as JUnit XML: {e}")
        return 1
    suites = {suite.name: suite for suite in xml}
    verdicts = [case.is_passed for suite in suites.values() for case in suite
                if case.name == CHECK_CASE]
    passed, failed = sum(verdicts), len(verdicts) - sum(verdicts)
    problems = []
    if (passed, failed) != (args.passed, args.failed):
        problems.append(f"junitparser counts {passed} passed, {failed} failed checks; "
                        f"the run counted {args.passed} passed, {args.failed} failed")
    for wanted in args.failure_in:
        name, _, regex = wanted.partition("=")
        messages = [result.message or "" for case in suites.get(name, []) for result in
                    case.result if isinstance(result, Failure)]
        if not any(re.search(regex, m) for m in messages):
            problems.append(f"testsuite {name!r} has no <failure> matching /{regex}/ "
                            f"({len(messages)} failures)")
    for problem in problems:
        print(f"junit_counts: {args.junit}: {problem}")
    if not problems:
        print(f"junit_counts: {args.junit}: {passed} passed, {failed} failed, as counted; "
              f"{len(suites)} testsuites, {sum(len(list(s)) for s in suites.values())} testcases")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
