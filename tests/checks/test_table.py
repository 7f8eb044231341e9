#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_table.py - tests/checks/run.py refuses bad table lines, one line each.

Planted tables, each with one bad line among good ones: a missing field, an empty
field, an unknown group, a must that is neither, an estimate that is not a number,
cores that are not 1, 2 or alone, a command that does not exist, a name used twice.
Each must be refused (exit status 2) with exactly one line naming its file and line and
what was expected; a good table must pass; and the dependency read from a command
(build/test/NAME.serial) must put NAME first, though the reader is the longer by
its estimate (longest first alone would start it first).
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402

GOOD = ["a-boot | boot | must pass | 10 | 2 | tests/checks/boot.sh a-boot SMP=2",
        "reads-it | boot | must pass | 20 | 1 | grep -q x build/test/a-boot.serial",
        "a-control | control | must fail | 3.5 | alone | tests/checks/boot.sh a-control --expect-fail y"]

BAD = {
    "missing field": ("b | tool | must pass | 1 | true", "expected 6 fields"),
    "empty field": ("b | tool |  | 1 | 1 | true", "expected 6 fields"),
    "unknown group": ("b | slow | must pass | 1 | 1 | true", "expected a group of host, model"),
    "must neither": ("b | tool | should pass | 1 | 1 | true", "expected 'must pass' or 'must fail'"),
    "estimate not a number": ("b | tool | must pass | ten | 1 | true", "expected estimated seconds as a number"),
    "cores": ("b | tool | must pass | 1 | 3 | true", "expected cores 1, 2 or alone"),
    "no such program": ("b | tool | must pass | 1 | 1 | no-such-program-here --x", "expected a command that exists"),
    "no such script": ("b | tool | must pass | 1 | 1 | tests/checks/no_such.sh", "expected a command that exists"),
    "duplicate name": ("a-boot | tool | must pass | 1 | 1 | true", "expected a name used once"),
}


def validate(lines):
    with tempfile.NamedTemporaryFile("w", suffix=".tab", delete=False) as f:
        f.write("# a comment line\n\n" + "\n".join(lines) + "\n")
    try:
        p = subprocess.run([sys.executable, os.path.join(HERE, "run.py"), "--validate", f.name],
                           capture_output=True, text=True)
        return p.returncode, p.stdout.splitlines(), f.name
    finally:
        os.unlink(f.name)


def main():
    failures = 0
    status, out, _ = validate(GOOD)
    if status != 0 or out:
        print(f"FAIL a good table was refused: {out}")
        failures += 1
    for what, (line, expected) in BAD.items():
        status, out, path = validate(GOOD + [line])
        where = f"{path}:{len(GOOD) + 3}: "  # after the comment, the blank line and GOOD
        if status != 2 or len(out) != 1 or not out[0].startswith(where) or expected not in out[0]:
            print(f"FAIL {what}: exit {status}, said {out}; wanted one line '{where}...{expected}...'")
            failures += 1
        else:
            print(f"ok {what}: {out[0]}")
    with tempfile.NamedTemporaryFile("w", suffix=".tab", delete=False) as f:
        f.write("\n".join(GOOD) + "\n")
    checks, problems = run.read_table(f.name)
    os.unlink(f.name)
    order = [c.name for c in run.order(checks)]
    if problems or order.index("a-boot") > order.index("reads-it"):
        print(f"FAIL reads-it must run after a-boot, whose serial it reads: {order} {problems}")
        failures += 1
    print(f"{len(BAD) + 2 - failures} of {len(BAD) + 2} cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
