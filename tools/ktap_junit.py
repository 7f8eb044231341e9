#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ktap_junit.py - serial logs (KTAP version 1) and check results as JUnit XML.

    ktap_junit.py --checks DIR -o OUT     every check tools/test.sh recorded in DIR
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
and on which line.  docs/ci.md describes the layout; the module's parser is
shared with tools/ci_summary.py.
"""
import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

# Longer than any line the kernel prints (PRINTK_MAX is 1 KiB): anything
# longer is garbage or two lines run together, and is cut to this for XML.
LINE_MAX = 4096
KTAP_INDENT = 2  # spaces per nesting level (Linux Documentation/dev-tools/ktap.rst)
SYSTEM_OUT_MAX_LINES = 400  # per <system-out>: enough to read, small enough to open
CHECK_CASE = "check"  # the testcase holding a check's own verdict
LOG_CASE = "serial log"  # the testcase holding what was wrong with the log itself
CHECK_LOG_TAIL = 20  # lines of a failed check's output in its <failure>

VERSION = re.compile(r"^KTAP version 1$")
SUBTEST = re.compile(r"^# Subtest: (.*)$")
PLAN = re.compile(r"^1\.\.(\d+)$")
RESULT = re.compile(r"^(ok|not ok) (\d+) (?:- )?([^#]*?)\s*(?:# (SKIP)\b\s*(.*))?$")
DURATION = re.compile(r"^# duration: (\d+) ms$")
JSON_LINE = re.compile(r"^# (BENCH|ENV) (.*)$")
VERDICT = re.compile(r"^# RESULT (pass|fail)$")
FAIL_DIAG = re.compile(r"^# FAIL\b")
# Characters XML 1.0 cannot hold (GRUB's escape codes, NUL bytes).
XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass
class Case:
    """One KTAP test: a result line, the lines before it at its level, its subtests."""
    name: str
    number: int
    status: str  # pass, fail, skip, error
    line: int  # of its result line (or where it should have been)
    message: str = ""  # skip reason, or what went wrong for an error case
    diagnostics: list = field(default_factory=list)  # (line number, text)
    children: list = field(default_factory=list)
    duration_ms: int = None


@dataclass
class Block:
    """A KTAP block being read: the top level, or a subtest's lines."""
    name: str = ""
    plan: int = None
    results: list = field(default_factory=list)
    pending: list = field(default_factory=list)  # diagnostics waiting for their result
    duration_ms: int = None
    closed: list = None  # a nested block that ended and waits for its result line


@dataclass
class Run:
    """What one serial log says: its tests, verdict and every problem found."""
    path: str
    cases: list = field(default_factory=list)
    header: list = field(default_factory=list)  # lines before "KTAP version 1"
    top_diagnostics: list = field(default_factory=list)
    verdict: str = None  # "pass" / "fail" from "# RESULT"
    env: dict = None
    problems: list = field(default_factory=list)  # (line number, what)
    last_line: tuple = (0, "")
    first_fail: tuple = None  # (line number, text) of the first FAIL or PANIC line


def read_lines(path):
    """(lines, problems) of a serial log: lines as (number, text), never raising.

    The UART ends lines with CRLF (docs/interface.md), so one CR before the LF
    is part of the line ending; anything else odd is a problem with its line.
    """
    problems = []
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return [], [(0, f"cannot read {path}: {e.strerror}")]
    if not data:
        return [], [(0, "the log is empty (the machine printed nothing)")]
    raw_lines = data.split(b"\n")
    if raw_lines[-1] == b"":
        raw_lines.pop()
    else:
        problems.append((len(raw_lines), "the last line is cut off (no newline at the end: "
                         "the machine stopped mid-line)"))
    lines = []
    for number, raw in enumerate(raw_lines, 1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        nuls = raw.count(b"\0")
        if nuls:
            problems.append((number, f"{nuls} NUL byte(s)"))
            raw = raw.replace(b"\0", b"")
        if b"\r" in raw:
            problems.append((number, "a carriage return inside the line (lines run together)"))
            raw = raw.replace(b"\r", b"")
        if len(raw) > LINE_MAX:
            problems.append((number, f"a line of {len(raw)} bytes (no line of the kernel is "
                             f"longer than {LINE_MAX}): kept only its start"))
            raw = raw[:LINE_MAX]
        text = raw.decode("utf-8", errors="replace")
        if "\ufffd" in text:
            problems.append((number, "bytes that are not UTF-8"))
        lines.append((number, text))
    return lines, problems


def indentation(text):
    """(depth, content) of a KTAP line; an odd indentation rounds down."""
    content = text.lstrip(" ")
    return (len(text) - len(content)) // KTAP_INDENT, content


def is_ktap(content):
    """Whether a line's content is KTAP (shapes the tree) rather than other output."""
    return bool(VERSION.match(content) or PLAN.match(content) or RESULT.match(content)
                or content.startswith("#"))


def check_json(run, number, content):
    m = JSON_LINE.match(content)
    if not m:
        return
    try:
        record = json.loads(m.group(2))
    except ValueError as e:
        run.problems.append((number, f"'# {m.group(1)}' line is not JSON ({e})"))
        return
    if m.group(1) == "ENV" and isinstance(record, dict):
        run.env = record


def note_failure(run, number, content):
    if run.first_fail is None and (FAIL_DIAG.match(content) or content.startswith("PANIC:")):
        run.first_fail = (number, content)


def close_to(stack, depth):
    """Close the blocks deeper than @depth: each waits in its parent for a result line."""
    while len(stack) - 1 > depth:
        block = stack.pop()
        stack[-1].closed = block  # its trailing lines stay with it: a crash's are the crash


def add_result(run, block, number, m):
    status, skip = m.group(1), m.group(4)
    sub = block.closed
    case = Case(name=m.group(3), number=int(m.group(2)),
                status="skip" if skip else ("pass" if status == "ok" else "fail"),
                line=number, message=(m.group(5) or "").strip(), diagnostics=block.pending,
                duration_ms=block.duration_ms)
    if sub is not None:
        case.children = sub.results + missing_cases(run, sub)
        if len(sub.results) >= (sub.plan or 0):
            case.diagnostics = sub.pending + case.diagnostics
        if sub.name and sub.name != case.name:
            run.problems.append((number, f"result '{case.name}' closes subtest '{sub.name}'"))
    expected = len(block.results) + 1
    if case.number != expected:
        run.problems.append((number, f"test number {case.number} where {expected} was due"))
    block.results.append(case)
    block.pending, block.duration_ms, block.closed = [], None, None


def missing_cases(run, block):
    """Error cases for the tests a block's plan promised and the stream never reported."""
    if block.plan is None or len(block.results) >= block.plan:
        return []
    number, text = run.last_line
    first = len(block.results) + 1
    what = f"test {first}" if first == block.plan else f"tests {first}-{block.plan}"
    where = f"{block.name or 'the top level'}'s plan 1..{block.plan}"
    return [Case(name=f"{what} of {where}: no result", number=first, status="error",
                 line=number, diagnostics=block.pending,
                 message=f"the stream ends after line {number} ({text.strip()[:200]!r}) "
                         f"with {what} of {where} unreported: crashed or cut off")]


def parse(path):
    """Read a serial log into a Run; problems are collected, never raised."""
    lines, problems = read_lines(path)
    run = Run(path=str(path), problems=problems)
    if lines:
        run.last_line = lines[-1]
    start = next((i for i, (_, t) in enumerate(lines) if VERSION.match(t)), None)
    if start is None:
        for number, text in lines:
            note_failure(run, number, text.strip())
        run.header = lines
        number, text = run.last_line
        run.problems.append((number, "no 'KTAP version 1' line: the kernel never reached "
                             "its test runner (last line "
                             f"{number}: {text.strip()[:200]!r})"))
        return run
    run.header = lines[:start]
    for number, text in run.header:
        note_failure(run, number, text.strip())
        check_json(run, number, text.strip())
    stack = [Block()]  # stack[d]: the open block at nesting depth d
    for number, text in lines[start + 1:]:
        depth, content = indentation(text)
        note_failure(run, number, content)
        check_json(run, number, content)
        if not is_ktap(content):
            stack[-1].pending.append((number, text.strip()))  # output of the running test
            continue
        opens_block = VERSION.match(content) or SUBTEST.match(content)
        if depth > len(stack) - 1 and not opens_block:
            stack[-1].pending.append((number, text.strip()))  # e.g. an indented backtrace
            continue
        if depth > len(stack) - 1:
            if stack[-1].closed is not None:
                run.problems.append((number, "a subtest begins before the result line of "
                                     "the one before it"))
            elif depth > len(stack):
                run.problems.append((number, f"a subtest indented {depth} levels inside a "
                                     f"block of level {len(stack) - 1}"))
            while len(stack) - 1 < depth:
                stack.append(Block())
        close_to(stack, depth)
        block = stack[-1]
        m = RESULT.match(content)
        if VERSION.match(content) and not block.results and block.plan is None:
            continue
        if SUBTEST.match(content):
            block.name = SUBTEST.match(content).group(1)
        elif PLAN.match(content) and block.plan is None and not block.results:
            block.plan = int(PLAN.match(content).group(1))
        elif m:
            add_result(run, block, number, m)
        elif DURATION.match(content):
            block.duration_ms = int(DURATION.match(content).group(1))
        elif depth == 0 and VERDICT.match(content):
            run.verdict = VERDICT.match(content).group(1)
        else:
            block.pending.append((number, content))
    close_to(stack, 0)
    top = stack[0]
    if top.plan is None:
        run.problems.append((lines[start][0], "no top-level plan '1..N' after the version line"))
    if top.closed is not None:  # a subtest whose result line never came
        sub = top.closed
        number, text = run.last_line
        top.results.append(Case(
            name=sub.name or "(unnamed subtest)", number=len(top.results) + 1, status="error",
            line=number, children=sub.results + missing_cases(run, sub),
            message=f"the stream ends after line {number} ({text.strip()[:200]!r}) inside "
                    f"subtest {sub.name or '(unnamed)'}: crashed or cut off"))
    run.cases = top.results + missing_cases(run, top)
    run.top_diagnostics = top.pending
    if run.verdict is None:
        number, text = run.last_line
        run.problems.append((number, f"no '# RESULT' line: the run did not finish (last line "
                             f"{number}: {text.strip()[:200]!r})"))
    return run


def first_crash(cases):
    """The first case that never reported (depth first), or None."""
    for case in cases:
        if case.status == "error":
            return case
        found = first_crash(case.children)
        if found:
            return found
    return None


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
    """The check's own verdict, as tools/test.sh judged it."""
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
    """A check's sidecar (tools/test.sh): key=value lines, env.VAR=VALUE for a boot's variables."""
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
    """[(name, check)] in the order tools/test.sh ran them."""
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
    what.add_argument("--checks", metavar="DIR", help="the checks tools/test.sh recorded in DIR")
    what.add_argument("--run", metavar="LOG", help="one serial log (make run)")
    ap.add_argument("--status", type=int, default=None,
                    help="with --run: tools/run-qemu.sh's exit status (0 = pass)")
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
                  "tools/test.sh (make test) first", file=sys.stderr)
            return 2
        for name, check in checks:
            run = parse(check["serial"]) if check.get("serial") else None
            testsuite(root, name, check, run)
    write(root, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
