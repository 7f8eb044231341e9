#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""readme_times.py - the README's durations and test counts come from committed runs.

    tools/house/readme_times.py              check README.md and docs/interface.md
    tools/house/readme_times.py --self-test  prove the check fails on planted drifts

Why: "16 tests in 11 s" on the page and 17 tests in a reader's run, or "under 3
minutes" in docs/interface.md beside 237 s in the README, tell a newcomer that
something is broken when only the page is.  So the README's first commands
state their times and counts in one table whose every row names a serial log
committed in docs/runs/boot/, and this check holds each cell to its log:

    <!-- readme_times.py: each row from its log in docs/runs/boot/ -->
    | command | tests | wall time | in the kernel | machine; conditions | log |
    | `make run CMDLINE="run=tests quick"` | 17 | 14 s | 3.9 s | ...; ... | [log](docs/runs/boot/X.log) |
    <!-- readme_times.py: end -->

A log's first line says where, how and how long (the wall time of the make
command, measured by whoever committed it):

    # docs/runs: DATE; MACHINE; COMMAND; CONDITIONS; wall N s

and its `# tally:` line gives the tests and the seconds in the kernel.  Every
other "N tests" of the README's "## First commands" section must be one of the
table's counts, and docs/interface.md's bound for `make run` ("ends in
under N minutes") must hold for every table row of plain `make run` measured
idle (conditions beginning "idle").  One line per problem, exit status 1 if
any, 2 when a file cannot be read.  Python 3 standard library only.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "log"))
import kernel_log  # noqa: E402

BEGIN = "<!-- readme_times.py: each row from its log in docs/runs/boot/ -->"
END = "<!-- readme_times.py: end -->"
SECTION = "## First commands"
HEADER = re.compile(r"^# docs/runs: ([^;]+); ([^;]+); ([^;]+); ([^;]+); wall (\d+) s$")
ROW = re.compile(r"^\| `([^`]+)` \| (\d+) \| (\d+) s \| ([\d.]+) s \| ([^|]+) \| "
                 r"\[log\]\((docs/runs/boot/[\w.-]+\.log)\) \|$")
TESTS = re.compile(r"(?<![\w.])(\d+) tests\b")
BOUND = re.compile(r"`make run` \|[^|]*ends in under (\d+) minutes")


def log_facts(path):
    """(command, machine; conditions, wall s, tests, kernel seconds text) of a run log."""
    lines, _ = kernel_log.read_lines(path)
    if not lines:
        raise OSError(f"{path}: cannot read it, or it is empty")
    m = HEADER.match(lines[0][1])
    if not m:
        raise ValueError(f"{path}: its first line is not '# docs/runs: DATE; MACHINE; "
                         f"COMMAND; CONDITIONS; wall N s'")
    tally = kernel_log.tally(lines)
    if not tally:
        raise ValueError(f"{path}: no '# tally:' line")
    return (m.group(3).strip(), f"{m.group(2).strip()}; {m.group(4).strip()}",
            int(m.group(5)), int(tally["tests"]), f"{tally['seconds']:.1f}")


def problems(readme, interface, facts_of=lambda log: log_facts(os.path.join(ROOT, log))):
    """Every way README.md's table, its test counts and interface.md's bound drift.
    @facts_of(log path): what the log says, as log_facts() gives it."""
    out = []
    if BEGIN not in readme or END not in readme:
        return [f"README.md: no table between '{BEGIN}' and '{END}'"]
    body = readme.split(BEGIN, 1)[1].split(END, 1)[0]
    rows = [line for line in body.strip().splitlines()[2:]]
    counts, plain = set(), []
    for line in rows:
        m = ROW.match(line)
        if not m:
            out.append(f"README.md: a row of the times table not in its form: {line}")
            continue
        command, tests, wall, secs, where, log = m.groups()
        try:
            facts = facts_of(log)
        except (OSError, ValueError) as e:
            out.append(f"README.md: {e}")
            continue
        want = (command, where.strip(), int(wall), int(tests), secs)
        names = ("command", "machine; conditions", "wall time", "tests", "seconds in the kernel")
        for name, said, true in zip(names, want, facts):
            if said != true:
                out.append(f"README.md: `{command}`: {name} {said!r}, its log {log} says {true!r}")
        counts.add(int(tests))
        if command == "make run" and facts[1].split("; ", 1)[1].startswith("idle"):
            plain.append((int(wall), log))
    section = readme.split(SECTION, 1)[1].split("\n## ", 1)[0] if SECTION in readme else ""
    for n in TESTS.findall(section.replace(body, "")):
        if int(n) not in counts:
            out.append(f"README.md: '{n} tests' in '{SECTION}' is no committed run's count "
                       f"({', '.join(map(str, sorted(counts))) or 'none'})")
    m = BOUND.search(interface)
    if not m:
        out.append("docs/interface.md: the `make run` row says no 'ends in under N minutes'")
    else:
        for wall, log in plain:
            if wall >= 60 * int(m.group(1)):
                out.append(f"docs/interface.md: `make run` 'under {m.group(1)} minutes', but "
                           f"{log}, idle, took {wall} s")
    return out


def self_test(readme, interface):
    """Each planted drift must be caught; returns the drifts that were not."""
    body = readme.split(BEGIN, 1)[1].split(END, 1)[0]
    row = next(line for line in body.splitlines() if ROW.match(line))
    m = ROW.match(row)
    plants = {
        "a test count": row.replace(f"| {m.group(2)} |", f"| {int(m.group(2)) + 1} |", 1),
        "a wall time": row.replace(f"| {m.group(3)} s |", f"| {int(m.group(3)) + 1} s |", 1),
        "the kernel's seconds": row.replace(f"| {m.group(4)} s |", "| 999.9 s |", 1),
    }
    missed = [name for name, planted in plants.items()
              if not problems(readme.replace(row, planted), interface)]
    stray = readme.replace(SECTION + "\n", SECTION + "\n\nIt ran 9999 tests.\n", 1)
    if not problems(stray, interface):
        missed.append("a stray test count in the section")
    # An idle plain make run of 9999 s, its log saying so: over interface.md's bound.
    idle = f"| `make run` | 5 | 9999 s | 1.0 s | idle machine; idle | [log]({m.group(6)}) |"
    planted = ("make run", "idle machine; idle", 9999, 5, "1.0")

    def fake(log):
        return planted if log == m.group(6) else log_facts(os.path.join(ROOT, log))

    if not any("under" in p for p in problems(readme.replace(row, idle), interface, fake)):
        missed.append("an idle make run over docs/interface.md's bound")
    return missed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--self-test", action="store_true", help="prove it catches planted drifts")
    args = ap.parse_args(argv)
    try:
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        with open(os.path.join(ROOT, "docs", "interface.md")) as f:
            interface = f.read()
    except OSError as e:
        print(f"readme_times: {e}")
        return 2
    if args.self_test:
        missed = self_test(readme, interface)
        for name in missed:
            print(f"readme_times: self-test: a planted drift of {name} was not caught")
        print(f"readme_times: self-test: {5 - len(missed)} of 5 planted drifts caught")
        return 1 if missed else 0
    found = problems(readme, interface)
    for p in found:
        print(f"readme_times: {p}")
    print(f"readme_times: {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
