#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ktap_junit.py - serial logs (KTAP version 1) and check results as JUnit XML.

    ktap_junit.py --checks DIR -o OUT     every check tests/checks/run.py recorded in DIR
                                          (DIR/checks.list, DIR/NAME.check sidecars)
    ktap_junit.py --run LOG --status N -o OUT
                                          one boot (make run): LOG, run-qemu.sh's status N

CI systems show tests from JUnit XML, not from KTAP, so this turns each check
into one <testsuite>: a first <testcase name="check"> carrying the check's
own verdict (what `make test` counts), then one <testcase> per KTAP test at
every level of its serial log (classname: the check, then the suite names),
with <failure> holding the test's "FAIL" diagnostics, <skipped> for SKIP,
<system-out> for its other diagnostics and time from its "# duration" line.
A log that cannot be read as KTAP (cut, NUL bytes, stray carriage returns,
overlong lines, bytes that are not UTF-8, a "# BENCH" line that is not
JSON, missing results after a crash) gives an <error> case that says what
and on which line.  docs/ci.md describes the layout; the log is read into
its KTAP tree by tools/log/kernel_log.py, as tools/log/ci_summary.py reads it.
"""
import argparse
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from kernel_log import FAIL_DIAG, parse, read_lines

SYSTEM_OUT_MAX_LINES = 400  # per <system-out>: enough to read, small enough to open
CHECK_CASE = "check"  # the testcase holding a check's own verdict
LOG_CASE = "serial log"  # the testcase holding what was wrong with the log itself
CHECK_LOG_TAIL = 20  # lines of a failed check's output in its <failure>
# Characters XML 1.0 cannot hold (GRUB's escape codes, NUL bytes).
XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def clean(text):
    """Text XML 1.0 can hold."""
    return XML_INVALID.sub("\ufffd", text)


def lines_text(numbered, limit=SYSTEM_OUT_MAX_LINES):
    shown = [f"{n}: {t}" for n, t in numbered[:limit]]
    if len(numbered) > limit:
        shown.append(f"... {len(numbered) - limit} more lines in the log")
    return clean("\n".join(shown))


def add_text(parent, tag, text, **attrs):
    element = ET.SubElement(parent, tag, {k: clean(v) for k, v in attrs.items()})
    if text:
        element.text = clean(text)
    return element


def failure_lines(case):
    """The FAIL and PANIC lines of a case, else of its subtests: what a suite failed on."""
    own = [(n, t) for n, t in case.diagnostics if FAIL_DIAG.match(t) or t.startswith("PANIC:")]
    if own:
        return own
    return [line for child in case.children for line in failure_lines(child)]


def case_elements(suite, classname, cases):
    """A <testcase> for each KTAP case, its subtests after it, depth first."""
    for case in cases:
        attrs = {"classname": classname, "name": case.name or f"test {case.number}"}
        if case.duration_ms is not None:
            attrs["time"] = f"{case.duration_ms / 1000:.3f}"
        element = add_text(suite, "testcase", None, **attrs)
        if case.status == "error":
            add_text(element, "error", lines_text(case.diagnostics), message=case.message,
                     type="crashed")
        elif case.status == "fail":
            fails = failure_lines(case)
            first = fails[0][1] if fails else f"not ok {case.number} {case.name} (line {case.line})"
            add_text(element, "failure", lines_text(fails) or first, message=first,
                     type="not ok")
        elif case.status == "skip":
            add_text(element, "skipped", None, message=case.message or "SKIP")
        if case.diagnostics:
            add_text(element, "system-out", lines_text(case.diagnostics))
        case_elements(suite, f"{classname}.{case.name}", case.children)


def log_problem_case(suite, classname, run):
    if not run.problems:
        return
    number, what = run.problems[0]
    element = add_text(suite, "testcase", None, classname=classname, name=LOG_CASE)
    add_text(element, "error", "\n".join(f"{run.path}:{n}: {w}" for n, w in run.problems),
             message=f"{run.path}:{number}: {what}", type="unreadable log")


def check_case(suite, name, check, replay):
    """The check's own verdict, as tests/checks/run.py judged it."""
    attrs = {"classname": name, "name": CHECK_CASE}
    if check.get("seconds"):
        attrs["time"] = check["seconds"]
    element = add_text(suite, "testcase", None, **attrs)
    tail = check_log_tail(check.get("log"))
    if check.get("verdict") != "pass":
        add_text(element, "failure", tail,
                 message=f"{name} failed (exit status {check.get('status', '?')}); "
                         f"see {check.get('log', 'its log')}",
                 type="check failed")
    out = [f"log: {check['log']}"] if check.get("log") else []
    if check.get("expect_fail"):
        out.append(f"negative control: the run must FAIL with a line matching "
                   f"/{check['expect_fail']}/; its KTAP failures below are that expected "
                   "failure")
    if replay:
        out.append(f"replay: {replay}")
    out.append(tail)
    add_text(element, "system-out", "\n".join(out))


def check_log_tail(path):
    if not path:
        return ""
    lines, _ = read_lines(path)
    return lines_text(lines[-CHECK_LOG_TAIL:])


def testsuite(parent, name, check, run):
    """One <testsuite>: the check's verdict, then its serial log's tests."""
    suite = ET.SubElement(parent, "testsuite", {"name": clean(name)})
    replay = replay_command(check, run)
    props = ET.SubElement(suite, "properties")
    for key, value in (("serial", check.get("serial")), ("replay", replay),
                       ("expect_fail", check.get("expect_fail")), ("log", check.get("log"))):
        if value:
            ET.SubElement(props, "property", {"name": key, "value": clean(value)})
    check_case(suite, name, check, replay)
    if run is not None:
        log_problem_case(suite, name, run)
        case_elements(suite, name, run.cases)
        out = [f"serial log: {run.path}"]
        if run.env is not None:
            out.append(f"seed: {run.env.get('seed')}")
        add_text(suite, "system-out", "\n".join(out) + "\n" +
                 lines_text(run.header + run.top_diagnostics))
    cases = suite.findall("testcase")
    counts = {"tests": len(cases),
              "failures": sum(c.find("failure") is not None for c in cases),
              "errors": sum(c.find("error") is not None for c in cases),
              "skipped": sum(c.find("skipped") is not None for c in cases)}
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("time", check.get("seconds", "0"))
    return counts


def read_check(path):
    """A check's sidecar (tests/checks/run.py): key=value lines, env.VAR=VALUE for a boot's variables."""
    check = {"env": []}
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        return {"env": [], "verdict": "fail", "status": f"no record: {e.strerror}"}
    for raw in text.splitlines():
        key, sep, value = raw.partition("=")
        if not sep:
            continue
        if key.startswith("env."):
            check["env"].append((key[4:], value))
        else:
            check[key] = value
    return check


def replay_command(check, run):
    """The shell line that reboots the same machine: `make TARGET VAR=VALUE ...`.

    The seed the log printed joins CMDLINE when CMDLINE does not name one, so
    the line replays the same pseudo-random choices even if the default changes.
    """
    if check.get("replay") or not check.get("target"):
        return check.get("replay")
    env = list(check["env"])
    seed = (run.env or {}).get("seed") if run else None
    cmdline = dict(env).get("CMDLINE", "")
    if seed is not None and "seed=" not in cmdline:
        with_seed = f"{cmdline} seed={seed}".strip()
        env = [(k, v) for k, v in env if k != "CMDLINE"] + [("CMDLINE", with_seed)]
    words = [f"make {check['target']}"]
    for key, value in env:
        if re.fullmatch(r"[A-Za-z0-9_.,=:+/-]*", value):
            words.append(f"{key}={value}")
        else:
            escaped = re.sub(r'(["\\$`])', r"\\\1", value)
            words.append(f'{key}="{escaped}"')
    return " ".join(words)


def recorded_checks(directory):
    """[(name, check)] in the order tests/checks/run.py ran them."""
    listing = Path(directory) / "checks.list"
    names = listing.read_text(encoding="utf-8").split()
    return [(name, read_check(Path(directory) / f"{name}.check")) for name in names]


def write(root, out):
    ET.indent(root)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(out, encoding="utf-8", xml_declaration=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--checks", metavar="DIR", help="the checks tests/checks/run.py recorded in DIR")
    what.add_argument("--run", metavar="LOG", help="one serial log (make run)")
    ap.add_argument("--status", type=int, default=None,
                    help="with --run: tools/boot/run-qemu.sh's exit status (0 = pass)")
    ap.add_argument("-o", "--output", required=True, metavar="OUT")
    args = ap.parse_args()
    root = ET.Element("testsuites", {"name": "lockref kernel"})
    if args.run:
        check = {"verdict": "pass" if args.status == 0 else "fail",
                 "status": str(args.status), "serial": args.run}
        testsuite(root, "make run", check, parse(args.run))
    else:
        try:
            checks = recorded_checks(args.checks)
        except OSError as e:
            print(f"ktap_junit: {args.checks}: no record of checks ({e.strerror}): run "
                  "make test first", file=sys.stderr)
            return 2
        for name, check in checks:
            run = parse(check["serial"]) if check.get("serial") else None
            testsuite(root, name, check, run)
    write(root, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
