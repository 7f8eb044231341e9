# SPDX-License-Identifier: MIT
"""kernel_log.py - the one reader of a kernel serial log (docs/output.md).

Every tool that reads what the kernel (or tests/bench/bench_native.c) printed
opens it here: ktap_check, ktap_junit, ci_summary, screen_check, tsc_check,
screendump, trace_parse, trace_cost and the benchmark report.  It gives

    read(PATH) / split(BYTES)   the numbered lines and what was wrong with them
                                (read_lines(PATH): the same, never raising)
    records(...)                the `# ENV` / `# BENCH` / `# KCSAN` JSON lines as dicts
    env(LINES)                  the machine's `# ENV` object, or None
    kcsan(LINES)                the race detector's `# KCSAN` summary object, or None
    verdict(LINES)              the final verdict word ("pass", "fail"), or None
    tally(LINES)                the `# tally:` line before it, as a dict, or None
    parse(PATH)                 the KTAP tree: suites, tests, crashes, problems

The `# TRACE` lines are no JSON but a compact record of their own; trace_parse.py
reads them from the lines this module gives.

Why one tolerant reader: the serial line is the transport, and a log can be
cut (a crash, a timeout), hold NUL bytes or bytes that are not UTF-8, run two
lines together, or carry a line of garbage.  Each such defect is a problem
naming its line, and the rest of the log is still read: no tool tracebacks
on a damaged log.  The UART ends lines with CRLF (docs/interface.md), so one
CR before the LF is part of the line ending, not a defect.
"""
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

# Longer than any line the kernel prints (PRINTK_MAX is 1 KiB): anything
# longer is garbage or two lines run together, and only its start is kept.
LINE_MAX = 4096
KTAP_INDENT = 2  # spaces per nesting level (Linux Documentation/dev-tools/ktap.rst)

VERSION = re.compile(r"^KTAP version 1$")
SUBTEST = re.compile(r"^# Subtest: (.*)$")
PLAN = re.compile(r"^1\.\.(\d+)$")
RESULT = re.compile(r"^(ok|not ok) (\d+) (?:- )?([^#]*?)\s*(?:# (SKIP)\b\s*(.*))?$")
DURATION = re.compile(r"^# duration: (\d+) ms$")
JSON_LINE = re.compile(r"^\s*# (BENCH|ENV|KCSAN) (.*?)\s*$")
VERDICT = re.compile(r"^# RESULT (\S+)\s*$")
# The line just before the verdict (kernel/cmdline_verdict.c, docs/output.md).
TALLY = re.compile(r"^# tally: (?:(?P<suites>\d+) suites?, (?P<tests>\d+) tests?: "
                   r"(?P<passed>\d+) passed, (?P<failed>\d+) failed, (?P<skipped>\d+) skipped "
                   r"in (?P<seconds>\d+\.\d) s|no test ran \(.*\))"
                   r"(?:; (?P<words>\d+) command-line words? ignored or not understood, "
                   r"(?P<failing>\d+) of them failing the run)?\s*$")
FAIL_DIAG = re.compile(r"^# FAIL\b")


class LogError(Exception):
    """A log a tool cannot use (not one it can read around); the message says where and why."""


def split(data):
    """(lines, problems) of a log's bytes: lines as (number, text), problems as (number, what)."""
    if not data:
        return [], [(0, "the log is empty (the machine printed nothing)")]
    problems = []
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


def read(path):
    """(lines, problems) of the log at @path, as split() gives them; LogError when the
    file cannot be read at all."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise LogError(f"cannot read {path}: {e.strerror}")
    return split(data)


def read_lines(path):
    """As read(), but never raising: an unreadable file is a problem at line 0."""
    try:
        return read(path)
    except LogError as e:
        return [], [(0, str(e))]


def warnings(path, problems):
    """One line per problem, naming the file and the line."""
    return [f"{path}:{number}: {what}" for number, what in problems]


def record(kind, payload, where, required=()):
    """
    The JSON object of a `# ENV` or `# BENCH` line (@kind, with @payload
    after it) at @where ("FILE:LINE"), which must have every @required field;
    LogError says which line and why not.
    """
    try:
        value = json.loads(payload)
    except json.JSONDecodeError as e:
        raise LogError(f"{where}: the {kind} line is not JSON ({e.msg}); "
                       f"was it cut short? {payload[:120]!r}")
    if not isinstance(value, dict):
        raise LogError(f"{where}: the {kind} line is not a JSON object")
    missing = [k for k in required if k not in value]
    if missing:
        raise LogError(f"{where}: {kind} line lacks {', '.join(missing)}")
    return value


def records(lines, name, required=None):
    """(number, kind, object) of every `# ENV` and `# BENCH` line (indented or not),
    in order; @required maps a kind to its required fields.  A bad line raises LogError."""
    for number, text in lines:
        m = JSON_LINE.match(text)
        if m:
            kind = m.group(1)
            yield number, kind, record(kind, m.group(2), f"{name}:{number}",
                                       (required or {}).get(kind, ()))


def json_problems(lines):
    """(number, what) for each `# ENV` / `# BENCH` line that is not JSON: for tolerant readers."""
    out = []
    for number, text in lines:
        m = JSON_LINE.match(text)
        if m:
            try:
                json.loads(m.group(2))
            except ValueError as e:
                out.append((number, f"'# {m.group(1)}' line is not JSON ({e})"))
    return out


def objects(lines, kind):
    """The JSON objects of the `# KIND` lines (ENV, BENCH, KCSAN), in order, skipping
    the lines that are not JSON objects (json_problems names those)."""
    for _, text in lines:
        m = JSON_LINE.match(text)
        if m and m.group(1) == kind:
            try:
                value = json.loads(m.group(2))
            except ValueError:
                continue
            if isinstance(value, dict):
                yield value


def env(lines):
    """The object of the first `# ENV` line that is a JSON object, or None."""
    return next(objects(lines, "ENV"), None)


def kcsan(lines):
    """The object of the last `# KCSAN` line (make kcsan's summary, docs/kcsan.md), or None:
    a plain kernel prints none, and a cut log may lack it."""
    found = list(objects(lines, "KCSAN"))
    return found[-1] if found else None


def verdict(lines):
    """The word of the last unindented verdict line ("pass", "fail", ...), or None."""
    words = [m.group(1) for _, text in lines if (m := VERDICT.match(text))]
    return words[-1] if words else None


def tally(lines):
    """The last unindented `# tally:` line as a dict (suites, tests, passed, failed, skipped,
    words, failing: ints; seconds: float; ran: False for "no test ran"; number: its line),
    or None.  The counts of a run that never reached its tests are 0."""
    found = None
    for number, text in lines:
        m = TALLY.match(text)
        if m:
            found = (number, m)
    if found is None:
        return None
    number, m = found
    out = {k: int(m.group(k) or 0) for k in ("suites", "tests", "passed", "failed", "skipped",
                                              "words", "failing")}
    out["seconds"] = float(m.group("seconds") or 0)
    out["ran"] = m.group("suites") is not None
    out["number"] = number
    return out


# --- the KTAP tree ---------------------------------------------------------


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
    lines: list = field(default_factory=list)  # (number, text), as read_lines gives them
    cases: list = field(default_factory=list)
    plan: int = None  # the top-level plan
    header: list = field(default_factory=list)  # lines before "KTAP version 1"
    top_diagnostics: list = field(default_factory=list)
    verdict: str = None  # "pass" / "fail" from the verdict line
    env: dict = None
    problems: list = field(default_factory=list)  # (line number, what), every kind
    read_problems: list = field(default_factory=list)  # those of the bytes and JSON lines
    last_line: tuple = (0, "")
    first_fail: tuple = None  # (line number, text) of the first FAIL or PANIC line


def indentation(text):
    """(depth, content) of a KTAP line; an odd indentation rounds down."""
    content = text.lstrip(" ")
    return (len(text) - len(content)) // KTAP_INDENT, content


def is_ktap(content):
    """Whether a line's content is KTAP (shapes the tree) rather than other output."""
    return bool(VERSION.match(content) or PLAN.match(content) or RESULT.match(content)
                or content.startswith("#"))


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


def parse(path, read_result=None):
    """Read a serial log into a Run (from @read_result, read()'s, where the caller
    has it); problems are collected, never raised."""
    lines, problems = read_result or read_lines(path)
    read_problems = sorted(problems + json_problems(lines), key=lambda p: p[0])
    run = Run(path=str(path), lines=lines, problems=list(read_problems),
              read_problems=read_problems)
    run.env = env(lines)
    if lines:
        run.last_line = lines[-1]
    for number, text in lines:
        note_failure(run, number, text.strip())
    start = next((i for i, (_, t) in enumerate(lines) if VERSION.match(t)), None)
    if start is None:
        run.header = lines
        number, text = run.last_line
        run.problems.append((number, "no 'KTAP version 1' line: the kernel never reached "
                             "its test runner (last line "
                             f"{number}: {text.strip()[:200]!r})"))
        return run
    run.header = lines[:start]
    stack = [Block()]  # stack[d]: the open block at nesting depth d
    for number, text in lines[start + 1:]:
        depth, content = indentation(text)
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
    run.plan = top.plan
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


def walk(cases):
    """Every case of a tree, depth first, with its depth (0: a suite)."""
    for case in cases:
        yield 0, case
        for depth, child in walk(case.children):
            yield depth + 1, child


def first_crash(cases):
    """The first case that never reported (depth first), or None."""
    return next((case for _, case in walk(cases) if case.status == "error"), None)
