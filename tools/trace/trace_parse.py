# SPDX-License-Identifier: MIT
"""trace_parse.py - read the "# TRACE" lines of a serial log (docs/tracing.md).

Shared by trace_check.py and trace_convert.py; the log's lines come from
kernel_log.py, the one reader of a serial log.  Why a tolerant reader: the
serial line is the transport, and a log can be cut (a crash, a timeout), a
line can be lost or garbled, a CPU can fail to dump.  Each such defect
becomes a warning naming what is missing, and the rest is still returned,
so a damaged log still shows what it holds.  Leading whitespace and any
prefix before "# TRACE" are ignored (KTAP indentation, console prefixes).
"""
import pathlib
import re

import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "log"))  # kernel_log
import kernel_log

# The letters of the "# TRACE" encoding and what each means: read from
# lib/trace.h's TRACE_EVENT_LIST, their one declaration, so the kernel and
# the tools cannot disagree on an event.
TRACE_H = pathlib.Path(__file__).resolve().parents[2] / "lib" / "trace.h"
EVENT_RE = re.compile(r"^\s*X\((\w+), '(.)', (\w+), \"([^\"]*)\"\)", re.M)


def event_list(text):
    """TRACE_EVENT_LIST's rows in @text (lib/trace.h): [(ID, letter, group, what)]."""
    m = re.search(r"#define TRACE_EVENT_LIST\(X\)(.*?)[^\\]\n(?!\s*X\()", text, re.S)
    rows = EVENT_RE.findall(m.group(1) + "\n" if m else "")
    lines = len(re.findall(r"^\s*X\(", m.group(1), re.M)) if m else 0
    if not rows or len(rows) != lines:
        raise SystemExit(f"trace_parse.py: {TRACE_H} has no TRACE_EVENT_LIST of X(ID, 'letter', "
                         f"GROUP, \"what\") rows it can read ({len(rows)} of {lines} read)")
    return rows


EVENT_NAMES = {letter: what for _, letter, _, what in event_list(TRACE_H.read_text())}
# The arg of "h" (TR_QACQ_* of lib/trace.h): how a qspinlock was taken.
QACQ = {0: "fast path", 1: "pending waiter", 2: "queue head", 3: "trylock"}

LINE_RE = re.compile(r"#\s*TRACE\s+(.*?)\s*$")
TOKEN_RE = re.compile(r"^([A-Za-z])(\d+)\.([0-9a-f]+)\.([0-9a-f]+)$")


class Event:
    __slots__ = ("cpu", "tsc", "kind", "obj", "arg")

    def __init__(self, cpu, tsc, kind, obj, arg):
        self.cpu, self.tsc, self.kind, self.obj, self.arg = cpu, tsc, kind, obj, arg

    def __repr__(self):
        return f"Event(cpu={self.cpu}, tsc={self.tsc:#x}, {self.kind}, obj={self.obj}, arg={self.arg})"


class Trace:
    """What a log holds: events per CPU in order, names, counts, and warnings."""

    def __init__(self):
        self.cpus = 0
        self.khz = 0
        self.capacity = 0
        self.names = {}        # id -> name
        self.declared = {}     # cpu -> (events kept, dropped, first kept index) from its "cpu" line
        self.events = {}       # cpu -> [Event] in recording order
        self.indices = {}      # cpu -> set of event indices seen
        self.warnings = []
        self.ended = False

    def name(self, obj):
        return self.names.get(obj, f"obj{obj}")

    def all_events(self):
        """Every event of every CPU, in TSC order."""
        out = [e for evs in self.events.values() for e in evs]
        out.sort(key=lambda e: (e.tsc, e.cpu))
        return out

    def complete_until(self):
        """
        The TSC up to which every CPU's record is whole: after a lost line a
        CPU's later events may be missing, so judging later moments could
        miss its part.  None: no limit.
        """
        limit = None
        for cpu, (n, dropped, first) in self.declared.items():
            evs = self.events.get(cpu, [])
            if len(self.indices.get(cpu, ())) < n and evs:
                last = evs[-1].tsc
                limit = last if limit is None else min(limit, last)
        return limit

    def complete_from(self):
        """
        The TSC from which every CPU's record is whole: a ring that wrapped
        lost what came before its oldest kept event.  None: no limit.
        """
        limit = None
        for cpu, (n, dropped, first) in self.declared.items():
            evs = self.events.get(cpu, [])
            if dropped and evs:
                limit = evs[0].tsc if limit is None else max(limit, evs[0].tsc)
        return limit

    def judged(self, a, b):
        """Whether the span [a, b] lies where every CPU's record is whole."""
        lo, hi = self.complete_from(), self.complete_until()
        return (lo is None or a >= lo) and (hi is None or b <= hi)

    def ns(self, cycles):
        return cycles * 1e6 / self.khz if self.khz else float(cycles)

    def at(self, tsc):
        """A moment as a person reads it: "812.345 us" after the trace's first event (in
        cycles when the rate is unknown), not the raw TSC."""
        first = min((evs[0].tsc for evs in self.events.values() if evs), default=tsc)
        if not self.khz:
            return f"cycle {int(tsc - first)}"
        return f"{self.ns(tsc - first) / 1000:.3f} us"


def parse(lines):
    """Parse an iterable of text lines (the whole serial log is fine)."""
    t = Trace()
    seen_header = False
    for lineno, raw in enumerate(lines, 1):
        m = LINE_RE.search(raw)
        if not m:
            continue
        words = m.group(1).split()
        if not words:
            t.warnings.append(f"line {lineno}: empty # TRACE line")
            continue
        try:
            if words[0] == "v1":
                seen_header = True
                kv = dict(w.split("=", 1) for w in words[1:] if "=" in w)
                t.cpus = int(kv.get("cpus", 0))
                t.khz = int(kv.get("khz", 0))
                t.capacity = int(kv.get("events", 0))
            elif words[0] == "name":
                t.names[int(words[1])] = " ".join(words[2:])
            elif words[0] == "cpu":
                kv = dict(w.split("=", 1) for w in words[2:])
                t.declared[int(words[1])] = (int(kv["events"]), int(kv["dropped"]),
                                             int(kv.get("first", 0)))
            elif words[0] == "e":
                parse_events(t, lineno, words)
            elif words[0] == "end":
                t.ended = True
            else:
                t.warnings.append(f"line {lineno}: unknown # TRACE record '{words[0]}'")
        except (ValueError, IndexError, KeyError):
            t.warnings.append(f"line {lineno}: corrupted # TRACE line, skipped: {raw.strip()[:80]}")
    if not seen_header:
        t.warnings.append("no '# TRACE v1' header: CPU count and TSC rate unknown (times in cycles)")
    if not t.ended:
        t.warnings.append("no '# TRACE end': the dump was cut; what came before is used")
    for cpu in range(t.cpus):
        if cpu not in t.declared and cpu not in t.events:
            t.warnings.append(f"cpu {cpu}: never dumped (no '# TRACE cpu {cpu}' line, no events)")
    for cpu, (n, dropped, first) in sorted(t.declared.items()):
        got = len(t.indices.get(cpu, ()))
        if got < n:
            missing = sorted(set(range(first, first + n)) - t.indices.get(cpu, set()))
            t.warnings.append(f"cpu {cpu}: {n - got} of {n} events missing (lost lines), "
                              f"first missing index {missing[0]}")
        if dropped:
            t.warnings.append(f"cpu {cpu}: ring wrapped, its {dropped} oldest events overwritten; "
                              f"the last {n} kept")
    for cpu, evs in t.events.items():
        evs.sort(key=lambda e: e.tsc)
    return t


def parse_events(t, lineno, words):
    cpu, first, base = int(words[1]), int(words[2]), int(words[3], 16)
    evs = t.events.setdefault(cpu, [])
    seen = t.indices.setdefault(cpu, set())
    for i, tok in enumerate(words[4:]):
        m = TOKEN_RE.match(tok)
        if not m or m.group(1) not in EVENT_NAMES:
            t.warnings.append(f"line {lineno}: cpu {cpu}: bad event '{tok[:20]}', "
                              f"the rest of the line skipped")
            return
        idx = first + i
        if idx in seen:
            t.warnings.append(f"line {lineno}: cpu {cpu}: event {idx} given twice, the second ignored")
            continue
        seen.add(idx)
        evs.append(Event(cpu, base + int(m.group(4), 16), m.group(1), int(m.group(2)),
                         int(m.group(3), 16)))


def parse_file(path):
    """The trace of the serial log at @path; what the log reader found damaged is warned of."""
    lines, problems = kernel_log.read_lines(path)
    t = parse(text for _, text in lines)
    t.warnings[:0] = [f"line {number}: {what}" for number, what in problems]
    return t


class Slice:
    """
    One interval of a CPU.  opener is the letter that began it ("w" and "h":
    a qspinlock's wait and hold), outcome the one that ended it, end_arg that
    event's arg (a qspinlock wait's: how it was taken).  A qspinlock wait
    that queued has pred (the predecessor's CPU, -1 none) and queued_at (the
    "q" stamp); any other slice has pred None.
    """
    __slots__ = ("cpu", "kind", "obj", "start", "end", "arg", "outcome", "opener", "end_arg",
                 "pred", "queued_at")

    def __init__(self, cpu, kind, obj, start, end, arg=0, outcome="", opener="", end_arg=0):
        self.cpu, self.kind, self.obj, self.start, self.end = cpu, kind, obj, start, end
        self.arg, self.outcome, self.opener, self.end_arg = arg, outcome, opener, end_arg
        self.pred, self.queued_at = None, None

    @property
    def queued_kind(self):
        """Whether this is a qspinlock's wait or hold (no ticket in its arg)."""
        return self.opener in ("w", "h")


# Which event opens a slice, which close it, and the slice's kind.
OPENERS = {"W": "wait", "A": "hold", "s": "lockless", "S": "sleep", "T": "test", "b": "barrier",
           "w": "wait", "h": "hold"}
CLOSERS = {"A": "wait", "R": "hold", "L": "lockless", "B": "lockless", "G": "lockless",
           "Z": "sleep", "E": "test", "l": "barrier", "h": "wait"}


def slices(t):
    """
    The intervals each CPU spent waiting, holding, trying locklessly,
    sleeping, in a test or at a barrier: [Slice].  A slice whose end is
    missing (a lost line, a full ring) is left out.  A hold's arg is its
    ticket: the last one the CPU took while waiting (a passed-over waiter
    queues again with a new ticket), else the acquired event's.  A
    qspinlock's "q" marks the wait it falls in as queued.
    """
    out = []
    for cpu, evs in t.events.items():
        open_, queued = {}, {}
        for e in evs:
            if e.kind == "q" and ("wait", e.obj) in open_:
                queued[e.obj] = e
                continue
            kind = CLOSERS.get(e.kind)
            if kind:
                start = open_.pop((kind, e.obj), None)
                if start is not None:
                    s = Slice(cpu, kind, e.obj, start.tsc, e.tsc, start.arg, e.kind, start.kind,
                              e.arg)
                    q = queued.pop(e.obj, None) if kind == "wait" else None
                    if q is not None:
                        s.pred, s.queued_at = q.arg - 1, q.tsc
                    out.append(s)
            kind = OPENERS.get(e.kind)
            if kind:
                arg = e.arg
                if e.kind == "W" and ("wait", e.obj) in open_:
                    # Queued again after a pass-over: one wait, the newest ticket.
                    first = open_[("wait", e.obj)]
                    open_[("wait", e.obj)] = Event(cpu, first.tsc, "W", e.obj, e.arg)
                    continue
                if e.kind == "w":
                    queued.pop(e.obj, None)
                if e.kind == "A" and out and out[-1].cpu == cpu and out[-1].kind == "wait" \
                        and out[-1].obj == e.obj and out[-1].end == e.tsc:
                    arg = out[-1].arg
                open_[(kind, e.obj)] = Event(cpu, e.tsc, e.kind, e.obj, arg)
    out.sort(key=lambda s: (s.start, s.cpu))
    return out
