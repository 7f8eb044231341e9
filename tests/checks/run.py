#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""run.py - run the checks of tests/checks/checks.tab: make test, make test-long.

    run.py test | long          validate the table, build, run that part's checks
    run.py only GLOB...         the same for the checks whose names match a GLOB (and
                                the checks whose files they read): a quick look while working
    run.py --validate [TABLE]   only validate (exit 2 and one line per bad line)
    run.py --covers NAMES       every name of the file NAMES is a check of the table
    run.py --estimates          rewrite the seconds column from build/test/*.check

Why a generated Makefile: GNU make's job server already runs N jobs at a time
and starts them in the order given, so the schedule is make's, not a loop
written here.  This script orders the checks longest first (by their estimated
seconds), writes one make target per check into build/test/checks.mk and runs
`make -j SLOTS` on it (SLOTS: the machine's cores, at least 2).  A check
needing more than one core gets them: right after its target the plan has
holder targets, one per extra core, which occupy job slots (they wait, doing
nothing, until the check ends), and the check starts only once its holders
hold their slots.  Make starts ready jobs in the order of the goal, queueing
them first in, first out while the slots are full, and a check and its holders
are ready together and adjacent in that order: nothing can take the slot a
holder waits for, so two checks never wait for each other's slots.  A check that reads another's
files names them (build/test/NAME.serial): it runs after NAME.  A check naming
the whole of build/test (junit-counts) runs after every other.

The verdicts are printed in the order the checks started, each as soon as it
and every check started before it are done: `PASS name (Ns)`.  Each check's
record is build/test/NAME.check (tests/checks/run_one.sh), read by
tools/log/ktap_junit.py and tools/log/ci_summary.py; the run ends with
build/test/junit.xml and the line "N passed, N failed".

CHECK_SLOTS=N runs with N slots; HALVE_CONTROLS=1 gives the must-fail
controls half their cores (the proof that a control still fails when starved).
"""
import fnmatch
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join("tests", "checks", "checks.tab")
LOGDIR = os.path.join("build", "test")
GROUPS = ("host", "model", "tool", "boot", "control", "long")
MUSTS = ("must pass", "must fail")
CORES = ("1", "2", "alone")
FIELDS = "name | group | must pass or must fail | seconds | cores | command"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+\[\]-]*$")
# A word naming a check's file (build/test/NAME.serial, build/test/NAME/...), and one
# naming the whole folder (build/test, build/test/).
READS_RE = re.compile(r"build/test/([^\s'\"]+)")
READS_ALL_RE = re.compile(r"build/test/?(?=[\s'\"]|$)")
SKIP_STATUS = 77  # a check that cannot run here (automake's convention): said, not counted


class Check:
    def __init__(self, lineno, name, group, must, seconds, cores, command):
        self.lineno, self.name, self.group, self.must = lineno, name, group, must
        self.seconds, self.cores, self.command = float(seconds), cores, command
        self.after, self.after_all = [], False

    def slots(self, total, halve_controls):
        want = total if self.cores == "alone" else min(int(self.cores), total)
        if halve_controls and self.group == "control":
            want = max(1, want // 2)
        return want


def command_exists(command):
    """Whether the command's first word (after VAR=VALUE words and `!`) names a program."""
    try:
        words = shlex.split(command)
    except ValueError as err:
        return False, f"a command shlex can split ({err})"
    words = [w for w in words if w != "!"]
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        words.pop(0)
    if not words:
        return False, "a command after the variables"
    first = words[0]
    if "/" in first:
        path = os.path.join(ROOT, first)
        return os.access(path, os.X_OK), f"an executable file, not '{first}'"
    return shutil.which(first) is not None, f"a program on PATH, not '{first}'"


def read_table(path):
    """The checks of PATH, and the list of one-line complaints about its bad lines."""
    checks, problems, seen = [], [], {}
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            where = f"{path}:{lineno}"
            fields = [x.strip() for x in line.split("|", 5)]
            if len(fields) < 6 or not all(fields):
                problems.append(f"{where}: expected 6 fields '{FIELDS}', got {len(fields)}"
                                f"{' (one empty)' if len(fields) == 6 else ''}")
                continue
            name, group, must, seconds, cores, command = fields
            bad = None
            if not NAME_RE.match(name):
                bad = f"a name of letters, digits and _.+[]-, not '{name}'"
            elif group not in GROUPS:
                bad = f"a group of {', '.join(GROUPS)}, not '{group}'"
            elif must not in MUSTS:
                bad = f"'must pass' or 'must fail', not '{must}'"
            elif not re.match(r"^[0-9]+(\.[0-9]+)?$", seconds):
                bad = f"estimated seconds as a number, not '{seconds}'"
            elif cores not in CORES:
                bad = f"cores 1, 2 or alone, not '{cores}'"
            elif name in seen:
                bad = f"a name used once, but '{name}' is also line {seen[name]}"
            else:
                ok, expected = command_exists(command)
                if not ok:
                    bad = f"a command that exists: {expected}"
            if bad:
                problems.append(f"{where}: expected {bad}")
                continue
            seen[name] = lineno
            checks.append(Check(lineno, name, group, must, seconds, cores, command))
    names = {c.name for c in checks}
    for c in checks:
        if READS_ALL_RE.search(c.command):
            c.after_all = True  # every other check of its run: part() names them
            continue
        for word in READS_RE.findall(c.command):
            # build/test/NAME.serial, NAME.check, NAME-2.txt...: the longest check name it starts with.
            owner = max((n for n in names if word == n or word.startswith((n + ".", n + "/"))),
                        key=len, default=None)
            if owner and owner != c.name and owner not in c.after:
                c.after.append(owner)
    return checks, problems


def validate(path):
    checks, problems = read_table(path)
    for p in problems:
        print(p)
    return checks if not problems else None


def part(checks, which, globs=()):
    """make test runs every group but long; make test-long runs long; only, those named."""
    if which == "only":
        chosen = [c for c in checks if any(fnmatch.fnmatchcase(c.name, g) for g in globs)]
    else:
        chosen = [c for c in checks if (c.group == "long") == (which == "long")]
    names = {c.name for c in chosen}
    outside = sorted({a for c in chosen for a in c.after if a not in names})
    if outside:
        # A long check reading a make test check's files: that check runs again here.
        chosen += [c for c in checks if c.name in outside]
    for c in chosen:
        if c.after_all:
            c.after = [o.name for o in chosen if not o.after_all]
    return chosen


def order(checks):
    """Longest first, but never before a check it reads (a stable topological order)."""
    by_cost = sorted(checks, key=lambda c: -c.seconds)
    placed, out = set(), []
    names = {c.name for c in checks}
    while by_cost:
        for c in by_cost:
            if all(a in placed or a not in names for a in c.after):
                break
        else:
            raise SystemExit("tests/checks: checks read each other's files in a cycle: "
                             + ", ".join(c.name for c in by_cost))
        by_cost.remove(c)
        placed.add(c.name)
        out.append(c)
    return out


def write_makefile(checks, slots, halve_controls, path):
    """One target per check, one per held slot; the goal lists them longest first.

    Targets are numbered stamps, not check names: a name may hold [ and ], which make
    would read as a wildcard."""
    stamp = {c.name: f"$(D)/{i}.stamp" for i, c in enumerate(checks)}
    lines = [f"# Generated by tests/checks/run.py from {TABLE}: do not edit.",
             f"D := {LOGDIR}/run", ""]
    goal = []
    for c in checks:
        with open(os.path.join(LOGDIR, "run", c.name + ".cmd"), "w", encoding="utf-8") as f:
            f.write(c.command + "\n")
        want = c.slots(slots, halve_controls)
        deps = " ".join(stamp[a] for a in c.after if a in stamp)
        lines += [f"# {c.name}: {c.cores} cores, {c.seconds:g} s", f"{stamp[c.name]}: {deps}",
                  f"\t@tests/checks/run_one.sh '{c.name}' '{c.must}' {want - 1} && touch $@"]
        for i in range(1, want):
            holder = stamp[c.name].replace(".stamp", f".hold{i}")
            lines += [f".PHONY: {holder}", f"{holder}: {deps}",
                      f"\t@tests/checks/hold_slot.sh '{c.name}' {i}"]
            goal.append(holder)
        goal.insert(len(goal) - (want - 1), stamp[c.name])
    lines += ["", ".PHONY: all", "all: " + " ".join(goal)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def record(name):
    """NAME.check as key=value pairs (the last value of a key wins)."""
    out = {}
    try:
        with open(os.path.join(LOGDIR, name + ".check"), encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("=")
                out[key] = value
    except FileNotFoundError:
        pass
    return out


def report(name, tally):
    """Say one finished check's verdict, as make test always has."""
    rec = record(name)
    secs = rec.get("seconds", "?")
    log = os.path.join(LOGDIR, name + ".log")
    if rec.get("verdict") == "skip":
        with open(log, encoding="utf-8", errors="replace") as f:
            why = (f.read().strip().splitlines() or ["no reason given"])[-1]
        print(f"SKIP {name}: {why}", flush=True)
        return
    with open(os.path.join(LOGDIR, "checks.list"), "a", encoding="utf-8") as f:
        f.write(name + "\n")
    if rec.get("verdict") == "pass":
        tally["passed"] += 1
        print(f"PASS {name} ({secs}s)", flush=True)
        return
    tally["failed"] += 1
    tally["failures"].append(name)
    print(f"FAIL {name} ({secs}s): see {log}; its last lines:")
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f.read().splitlines()[-8:]:
            print("    " + line)
    sys.stdout.flush()


def forget_records(checks):
    """Clear the last run's records: all of them (make test), or only those of CHECKS
    (make test-long, which .ci/run runs after make test: both runs' records stay, in
    checks.list, junit.xml and make summary)."""
    listing = os.path.join(LOGDIR, "checks.list")
    if checks is None:
        stale = glob.glob(os.path.join(LOGDIR, "*.check")) + [listing]
    else:
        names = {c.name for c in checks}
        stale = [os.path.join(LOGDIR, n + ".check") for n in names]
        if os.path.exists(listing):
            kept = [n for n in open(listing).read().split() if n not in names]
            with open(listing, "w", encoding="utf-8") as f:
                f.writelines(n + "\n" for n in kept)
    for path in stale + [os.path.join(LOGDIR, "junit.xml")]:
        if os.path.exists(path):
            os.remove(path)


def run(which, globs=()):
    os.chdir(ROOT)
    checks = validate(TABLE)
    if checks is None:
        print(f"{TABLE}: bad lines: no check runs")
        return 2
    chosen = order(part(checks, which, globs))
    if not chosen:
        print(f"no check of {TABLE} is named {' or '.join(globs)}")
        return 2
    if subprocess.call(["tools/deps.sh", "check"]) != 0:
        return 2
    if subprocess.call(["make", "-s", "-j2", "all"]) != 0:
        print("the build failed: no checks run")
        return 1
    os.makedirs(LOGDIR, exist_ok=True)
    forget_records(chosen if which != "test" else None)
    shutil.rmtree(os.path.join(LOGDIR, "run"), ignore_errors=True)
    os.makedirs(os.path.join(LOGDIR, "run"))
    slots = int(os.environ.get("CHECK_SLOTS") or max(2, os.cpu_count() or 2))
    halve = os.environ.get("HALVE_CONTROLS") == "1"
    plan = os.path.join(LOGDIR, "checks.mk")
    write_makefile(chosen, slots, halve, plan)
    estimate = sum(c.seconds * c.slots(slots, halve) for c in chosen) / slots
    print(f"== {len(chosen)} checks ({ {'long': 'make test-long', 'test': 'make test'}.get(which, 'chosen by name') }), "
          f"{slots} slots{', controls on half their cores' if halve else ''}: "
          f"about {estimate:.0f} s by the estimates")
    make = subprocess.Popen(["make", "--no-print-directory", "-k", f"-j{slots}", "-f", plan, "all"],
                            stdout=open(os.path.join(LOGDIR, "run", "make.log"), "w"),
                            stderr=subprocess.STDOUT)
    started = os.path.join(LOGDIR, "run", "started.list")
    tally = {"passed": 0, "failed": 0, "failures": []}
    said = 0
    while True:
        finished = make.poll() is not None
        names = open(started).read().split() if os.path.exists(started) else []
        while said < len(names) and os.path.exists(os.path.join(LOGDIR, "run", names[said] + ".done")):
            report(names[said], tally)
            said += 1
        if finished and said == len(names):
            break
        time.sleep(0.5)
    missing = [c.name for c in chosen if c.name not in names]
    for name in missing:
        # A check make never started (a check it reads failed to record): a failure, named.
        tally["failed"] += 1
        tally["failures"].append(name)
        print(f"FAIL {name}: never started (see {LOGDIR}/run/make.log)")
    if subprocess.call(["python3", "tools/log/ktap_junit.py", "--checks", LOGDIR,
                        "-o", os.path.join(LOGDIR, "junit.xml")]) != 0:
        print(f"ktap_junit: could not write {LOGDIR}/junit.xml")
    print()
    if tally["failures"]:
        print("failed: " + " ".join(tally["failures"]))
    print(f"{tally['passed']} passed, {tally['failed']} failed")
    return 0 if tally["failed"] == 0 else 1


def covers(names_file):
    """Every name listed in NAMES_FILE is a check of the table (nothing of today's list dropped)."""
    os.chdir(ROOT)
    checks, problems = read_table(TABLE)
    have = {c.name for c in checks}
    with open(names_file, encoding="utf-8") as f:
        want = [w for w in (l.split("#")[0].strip() for l in f) if w]
    lost = [n for n in want if n not in have]
    for n in lost:
        print(f"{names_file}: '{n}' is no check of {TABLE} (make test or make test-long)")
    print(f"{len(want) - len(lost)} of {len(want)} required names are checks")
    return 1 if lost or problems else 0


def estimates():
    """The seconds column from the last run's records: the only way it changes."""
    os.chdir(ROOT)
    out, changed = [], 0
    with open(TABLE, encoding="utf-8") as f:
        for raw in f:
            fields = raw.split("|", 5)
            if raw.lstrip().startswith("#") or len(fields) < 6:
                out.append(raw)
                continue
            secs = record(fields[0].strip()).get("seconds")
            if secs and fields[3].strip() != secs and record(fields[0].strip()).get("verdict") != "skip":
                width = len(fields[3])
                fields[3] = f" {secs}".ljust(width - 1) + " " if width > len(secs) + 2 else f" {secs} "
                changed += 1
            out.append("|".join(fields))
    with open(TABLE, "w", encoding="utf-8") as f:
        f.writelines(out)
    print(f"{TABLE}: {changed} estimates refreshed from {LOGDIR}/*.check")
    checks, _ = read_table(TABLE)
    for which in ("test", "long"):
        chosen = part(checks, which)
        total = sum(c.seconds for c in chosen)
        packed = sum(c.seconds * c.slots(2, False) for c in chosen) / 2
        print(f"make {'test-long' if which == 'long' else 'test'}: {len(chosen)} checks, "
              f"{total:.0f} s added up, at best {packed:.0f} s on 2 cores")
    return 0


def main(argv):
    if argv[:1] == ["--validate"]:
        path = argv[1] if len(argv) > 1 else os.path.join(ROOT, TABLE)
        return 0 if validate(path) is not None else 2
    if argv[:1] == ["--covers"] and len(argv) == 2:
        return covers(argv[1])
    if argv == ["--estimates"]:
        return estimates()
    if argv in (["test"], ["long"]):
        return run(argv[0])
    if argv[:1] == ["only"] and len(argv) > 1:
        return run("only", argv[1:])
    print(__doc__.split("\n\n")[1])
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
