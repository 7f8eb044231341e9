#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""readme_sample_check.py - README.md's boot sample against a real boot.

    tools/house/readme_sample_check.py README.md SERIAL_LOG     compare; exit 1 on a difference
    tools/house/readme_sample_check.py --self-test README.md SERIAL_LOG

README's "What a boot looks like" shows the serial output of the command it
names (`make run SMP=4 ACCEL=tcg CMDLINE=run=boot`).  Text pasted once goes
stale without anyone noticing: a new `# ENV` field, a new boot test.  So
`make test` boots that command and this tool holds the sample to the log:

  - the command: the sample's `# ENV` cmdline and CPU count are the boot's;
  - the `# ENV` keys, the same and in the same order (values differ by
    machine: only the keys are the interface's);
  - the test plan: every suite and test line (`ok N name`, plans, subtest
    names), in order, and the tally's suite and test counts;
  - the kinds of the boot lines: each `word:` that starts a line of the
    sample starts a line of the boot, and the other way round.

Figures (durations, frequencies, addresses) are left alone: they are the
machine's.  --self-test plants a missing key, a renamed test and a line kind
no boot prints into the sample, and each must be caught.
"""
import argparse
import re
import sys
from pathlib import Path

import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "log"))  # kernel_log
import kernel_log  # noqa: E402

HEADING = "## What a boot looks like"
COMMAND = re.compile(r"`make run ((?:[A-Z]+=\S+ ?)+)`")
PLAN_LINE = re.compile(r"^\s*(?:KTAP version 1|1\.\.\d+|# Subtest: .*|(?:not )?ok \d+ .*)$")
KIND = re.compile(r"^([a-z_0-9]+): ")


def sample(readme_text):
    """(command variables, sample lines) of the first code block after the heading."""
    at = readme_text.find(HEADING)
    if at < 0:
        raise ValueError(f"README.md has no '{HEADING}' section")
    rest = readme_text[at:]
    m = COMMAND.search(rest)
    if not m:
        raise ValueError(f"'{HEADING}' names no `make run VAR=...` command")
    variables = dict(word.split("=", 1) for word in m.group(1).split())
    block = re.search(r"^```\n(.*?)^```$", rest, re.M | re.S)
    if not block:
        raise ValueError(f"'{HEADING}' has no code block")
    return variables, block.group(1).splitlines()


def numbered(lines):
    """The (number, text) pairs tools/log/kernel_log.py reads."""
    return list(enumerate(lines, 1))


def env_of(lines, where):
    env = kernel_log.env(numbered(lines))
    if env is None:
        raise ValueError(f"{where}: no # ENV line that is a JSON object")
    return env


def plan_of(lines):
    """The KTAP skeleton: version, plans, subtest names and result lines without diagnostics."""
    return [text.strip() for text in lines if PLAN_LINE.match(text)]


def tally_counts(lines):
    got = kernel_log.tally(numbered(lines))
    return None if got is None else (got["suites"], got["tests"], got["passed"], got["failed"])


def kinds(lines):
    return {m.group(1) for text in lines if (m := KIND.match(text))}


def differences(variables, shown, booted):
    """One line per way the sample @shown differs from the boot's lines @booted."""
    out = []
    env_shown, env_booted = env_of(shown, "README's sample"), env_of(booted, "the boot")
    cmdline = variables.get("CMDLINE", "")
    if env_shown.get("cmdline") != cmdline or env_booted.get("cmdline") != cmdline:
        out.append(f"the command says CMDLINE={cmdline!r}; the sample's # ENV says "
                   f"{env_shown.get('cmdline')!r}, the boot's {env_booted.get('cmdline')!r}")
    smp = variables.get("SMP")
    if smp and not (str(env_shown.get("cpus_online")) == smp == str(env_booted.get("cpus_online"))):
        out.append(f"the command says SMP={smp}; cpus_online is {env_shown.get('cpus_online')} "
                   f"in the sample, {env_booted.get('cpus_online')} in the boot")
    if list(env_shown) != list(env_booted):
        missing = [k for k in env_booted if k not in env_shown]
        extra = [k for k in env_shown if k not in env_booted]
        out.append("# ENV keys differ: " + "; ".join(
            part for part in (f"the sample lacks {', '.join(missing)}" if missing else "",
                              f"the boot has no {', '.join(extra)}" if extra else "",
                              "same keys, another order" if not missing and not extra else "")
            if part))
    plan_shown, plan_booted = plan_of(shown), plan_of(booted)
    if plan_shown != plan_booted:
        for i, (a, b) in enumerate(zip(plan_shown + [""] * len(plan_booted),
                                       plan_booted + [""] * len(plan_shown))):
            if a != b:
                out.append(f"the test plan differs at its line {i + 1}: the sample shows {a!r}, "
                           f"the boot printed {b!r}")
                break
    if tally_counts(shown) != tally_counts(booted):
        out.append(f"the tally differs: the sample counts {tally_counts(shown)} "
                   f"(suites, tests, passed, failed), the boot {tally_counts(booted)}")
    only_shown, only_booted = kinds(shown) - kinds(booted), kinds(booted) - kinds(shown)
    if only_shown:
        out.append(f"lines the boot no longer prints: {', '.join(sorted(only_shown))}:")
    if only_booted:
        out.append(f"lines the sample lacks: {', '.join(sorted(only_booted))}:")
    return out


def self_test(variables, shown, booted):
    """Each planted drift must be caught; the sample as it is must not be (checked by main)."""
    plants = {
        "a # ENV key removed": [re.sub(r'"seed":\d+,', "", t) if t.startswith("# ENV ") else t
                                for t in shown],
        "a test renamed": [re.sub(r"^(\s*ok 2 )\S+", r"\1renamed_test", t) for t in shown],
        "a line kind no boot prints": shown[:1] + ["warp: engaged"] + shown[1:],
        "the tally's count changed": [re.sub(r"(\d+) tests:", lambda m: f"{int(m[1]) + 1} tests:",
                                             t) if t.startswith("# tally:") else t for t in shown],
    }
    bad = 0
    for name, planted in plants.items():
        if planted == shown:
            print(f"readme_sample_check: self-test: planting {name} changed nothing")
            bad += 1
        elif not differences(variables, planted, booted):
            print(f"readme_sample_check: self-test: {name} was not caught")
            bad += 1
        else:
            print(f"readme_sample_check: self-test: {name}: caught")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--self-test", action="store_true",
                    help="also plant drifts into the sample; each must be caught")
    ap.add_argument("readme", help="README.md")
    ap.add_argument("serial", help="the serial log of a boot of the command the sample names")
    args = ap.parse_args()
    try:
        variables, shown = sample(Path(args.readme).read_text())
        lines, problems = kernel_log.read(args.serial)
        booted = [text for _, text in lines]
        found = differences(variables, shown, booted)
    except (OSError, ValueError, kernel_log.LogError) as e:
        print(f"readme_sample_check: {e}")
        return 1
    for what in kernel_log.warnings(args.serial, problems):
        print(f"readme_sample_check: {what}")
    for what in found:
        print(f"readme_sample_check: {args.readme}: {what}")
    if found:
        print(f"readme_sample_check: README's boot sample is stale: boot "
              f"`make run {' '.join(f'{k}={v}' for k, v in variables.items())}` and paste it")
        return 1
    print(f"readme_sample_check: README's boot sample matches {args.serial}: "
          f"{len(env_of(shown, 'README'))} # ENV keys, {len(plan_of(shown))} plan lines, "
          f"{len(kinds(shown))} line kinds")
    if args.self_test:
        return 1 if self_test(variables, shown, booted) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
