#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""run_ending.py - the last words of `make run` and `make kcsan`, for a person.

    tools/log/run_ending.py LOG [--kcsan] [--left WHAT=PATH ...]

Why: the serial log ends with a tally and a verdict, but what the race
detector found is only inside its `# KCSAN {json}` line, and nothing says
where the run left its files.  This prints, after the boot:

    kcsan: no data race found in 112,588,044 instrumented accesses (31,616 watchpoints armed)
    run: left the serial log in build/run.serial, JUnit in build/junit.xml, the ISO in build/run.iso

With --kcsan (the instrumented kernel) a log without the `# KCSAN` line says
so: the run ended before the detector's summary.  Reads the log through
kernel_log.py.  Exit status 0, or 2 on bad arguments: it reports, it does not
judge (the boot's own status is the run's).
"""

import argparse
import sys

import kernel_log


def kcsan_words(lines, instrumented):
    """One line saying what the race detector found, or None on a plain kernel."""
    summary = kernel_log.kcsan(lines)
    if summary is None:
        return ("kcsan: no `# KCSAN` summary in the log: the run ended before the race "
                "detector's last word" if instrumented else None)
    races, pairs = summary.get("races", 0), summary.get("reported", 0)
    seen = (f"{summary.get('accesses', 0):,} instrumented accesses "
            f"({summary.get('watchpoints', 0):,} watchpoints armed)")
    if not races:
        return f"kcsan: no data race found in {seen}"
    lost = summary.get("unprinted", 0)
    return (f"kcsan: {races} data race{'s' if races != 1 else ''} found in {seen}, "
            f"{pairs} distinct pair{'s' if pairs != 1 else ''} of sites reported above"
            + (f", {lost} more not printed" if lost else "") + ": the run fails")


def left_words(left):
    """"run: left the serial log in A, JUnit in B" from [("the serial log", "A"), ...]."""
    return "run: left " + ", ".join(f"{what} in {path}" for what, path in left)


def main(argv=None):
    ap = argparse.ArgumentParser(description="the last words of make run / make kcsan")
    ap.add_argument("log", help="the run's serial log")
    ap.add_argument("--kcsan", action="store_true", help="the kernel was instrumented")
    ap.add_argument("--left", action="append", default=[], metavar="WHAT=PATH",
                    help="a file the run left, said in the last line (repeatable)")
    args = ap.parse_args(argv)
    left = [tuple(item.split("=", 1)) for item in args.left]
    if any(len(item) != 2 for item in left):
        ap.error("--left takes WHAT=PATH")
    lines, _ = kernel_log.read_lines(args.log)
    words = kcsan_words(lines, args.kcsan)
    if words:
        print(words)
    if left:
        print(left_words(left))
    return 0


if __name__ == "__main__":
    sys.exit(main())
