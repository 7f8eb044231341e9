#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_trace_tools.py - trace_check.py and trace_convert.py on made-up traces.

Why: the kernel's traces are all good or all busted; the judge must also
be seen to catch each kind of violation alone, and the converter to
survive damaged input (a lost line, a garbled token, a CPU that never
dumped, a cut dump), with a warning naming what is missing.  Each case
writes a small "# TRACE" log and runs the tools as make test does.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from tooldirs import tool as tool_path  # noqa: E402
import trace_convert  # noqa: E402

KHZ = 1000000  # 1 GHz: one cycle is one nanosecond


def log(cpus, names=None, dropped=None, end=True, header=True, indent="  "):
    """A serial log: @cpus maps cpu -> [(tsc, token-without-delta)], 16 to a line."""
    out = ["KTAP version 1", "ok 1 lockref"]
    if header:
        out.append(f"# TRACE v1 cpus={len(cpus)} khz={KHZ} events=4096 groups=1f")
    for i, n in (names or {0: "torture:lockref-hot"}).items():
        out.append(f"# TRACE name {i} {n}")
    for cpu, evs in cpus.items():
        out.append(f"# TRACE cpu {cpu} events={len(evs)} dropped={(dropped or {}).get(cpu, 0)}")
        for first in range(0, len(evs), 16):
            chunk = evs[first:first + 16]
            base = chunk[0][0]
            toks = " ".join(f"{tok}.{tsc - base:x}" for tsc, tok in chunk)
            out.append(f"{indent}# TRACE e {cpu} {first} {base:x} {toks}")
    if end:
        out.append(f"# TRACE end cpus={len(cpus)}")
    out.append("# RESULT pass")
    return "\n".join(out) + "\n"


def holds(*spans, lock=0):
    """Wait/acquire/release tokens for (cpu, ticket, acquire, release) spans."""
    cpus = {}
    for cpu, ticket, a, r in spans:
        cpus.setdefault(cpu, []).extend([(a - 5, f"W{lock}.{ticket:x}"), (a, f"A{lock}.{ticket:x}"),
                                         (r, f"R{lock}.0")])
    return cpus


def qholds(*spans, lock=0):
    """
    qspinlock tokens for (cpu, how, wait, acquire, release) spans: a wait
    ("w" at @wait, None for none) ending in "h" with @how (trylock: 3), or,
    with how a (cpu, tsc) pair, a queued wait ("q" at tsc, behind cpu; -1 none).
    """
    cpus = {}
    for cpu, how, wait, a, r in spans:
        evs = cpus.setdefault(cpu, [])
        if wait is not None:
            evs.append((wait, f"w{lock}.101"))
        if isinstance(how, tuple):
            pred, queued = how
            evs.append((queued, f"q{lock}.{pred + 1:x}"))
            how = 2
        evs.extend([(a, f"h{lock}.{how:x}"), (r, f"R{lock}.0")])
    return cpus


class Tools(unittest.TestCase):
    def run_tool(self, text, *args, tool="trace_check.py"):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "serial.log")
            with open(path, "w") as f:
                f.write(text)
            p = subprocess.run([sys.executable, tool_path(tool), path, *args],
                               capture_output=True, text=True,
                               cwd=d)
            js = None
            if os.path.exists(os.path.join(d, "out", "trace.json")):
                with open(os.path.join(d, "out", "trace.json")) as f:
                    js = json.load(f)
            return p.returncode, p.stdout + p.stderr, js

    def test_good_holds_pass(self):
        rc, out, _ = self.run_tool(log(holds((0, 0, 100, 200), (1, 2, 300, 400), (0, 4, 500, 600))))
        self.assertEqual(rc, 0, out)
        self.assertIn("ok: 0 violation", out)

    def test_overlap_is_named(self):
        rc, out, _ = self.run_tool(log(holds((0, 0, 100, 300), (1, 2, 200, 400))))
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, r"overlap: lock torture:lockref-hot held by cpu 0 .* and cpu 1 .*"
                              r"both in 0\.105 us to 0\.205 us \(100 ns\)")

    def test_ticket_order(self):
        rc, out, _ = self.run_tool(log(holds((0, 4, 100, 200), (1, 2, 300, 400))))
        self.assertEqual(rc, 1, out)
        self.assertIn("granted before an earlier ticket", out)
        rc, out, _ = self.run_tool(log(holds((0, 0, 100, 200), (1, 6, 300, 400))))
        self.assertIn("skipped with no sleeper", out)

    def test_lockless_inside_hold(self):
        cpus = holds((0, 0, 100, 500))
        cpus[1] = [(200, "s0.0"), (250, "L0.0")]
        rc, out, _ = self.run_tool(log(cpus))
        self.assertEqual(rc, 1, out)
        self.assertIn("lockless inside a hold: lock torture:lockref-hot: cpu 1", out)
        # A window that began before the hold: the exchange may have won first.
        cpus[1] = [(50, "s0.0"), (250, "L0.0")]
        rc, out, _ = self.run_tool(log(cpus))
        self.assertEqual(rc, 0, out)

    def test_sleeps(self):
        kicked = {0: [(100, "S0.0"), (400, "Z0.0"), (500, "A0.0"), (600, "R0.0")],
                  1: [(300, "K1.0")]}
        rc, out, _ = self.run_tool(log(kicked, names={0: "torture:spinlock", 1: "anon:0"}))
        self.assertEqual(rc, 0, out)
        self.assertIn("1 kicked", out)
        # An interrupt takes and drops another lock while the CPU is halted: the sleep goes on.
        nested = {0: [(100, "S0.0"), (200, "h1.3"), (250, "R1.0"), (400, "Z0.0"), (500, "A0.0"),
                      (600, "R0.0")], 1: [(300, "K1.0")]}
        rc, out, _ = self.run_tool(log(nested, names={0: "torture:spinlock", 1: "kernel:console"}))
        self.assertEqual(rc, 0, out)
        # The status tick draws (a ticket try-lock of the console) inside a ticket sleep.
        ticked = {0: [(100, "S0.0"), (200, "A1.0"), (250, "R1.0"), (400, "Z0.0"), (500, "A0.0"),
                      (600, "R0.0")], 1: [(300, "K1.0")]}
        rc, out, _ = self.run_tool(log(ticked, names={0: "torture:spinlock", 1: "kernel:console"}))
        self.assertEqual(rc, 0, out)
        # A sleep to its 100 ms bound (1 GHz: ns = cycles) with a kick 90 ms before it ended:
        # the kick did not end it, a lost wake-up.  A kick 10 ms before the end: a race, not
        # judged; no kick at all: a plain time-bound sleep.
        ms = 1000000
        lost_kick = {0: [(ms, "S0.0"), (101 * ms, "Z0.0"), (102 * ms, "A0.0"),
                         (103 * ms, "R0.0")], 1: [(11 * ms, "K1.0")]}
        rc, out, _ = self.run_tool(log(lost_kick, names={0: "torture:spinlock", 1: "anon:0"}))
        self.assertEqual(rc, 1, out)
        self.assertIn("lost wake-up: cpu 0 slept on torture:spinlock", out)
        self.assertIn("90 ms before it woke", out)
        # The same sleep whose wake-up says a kick reached it (arg bit 1): late, not lost.
        received = {0: [(ms, "S0.0"), (101 * ms, "Z0.2"), (102 * ms, "A0.0"), (103 * ms, "R0.0")],
                    1: lost_kick[1]}
        rc, out, _ = self.run_tool(log(received, names={0: "torture:spinlock", 1: "anon:0"}))
        self.assertEqual(rc, 0, out)
        late_kick = {0: lost_kick[0], 1: [(91 * ms, "K1.0")]}
        rc, out, _ = self.run_tool(log(late_kick, names={0: "torture:spinlock", 1: "anon:0"}))
        self.assertEqual(rc, 0, out)
        self.assertIn("1 kicked", out)
        no_kick = {0: lost_kick[0], 1: [(200 * ms, "A1.0"), (201 * ms, "R1.0")]}
        rc, out, _ = self.run_tool(log(no_kick, names={0: "torture:spinlock", 1: "anon:0"}))
        self.assertEqual(rc, 0, out)
        self.assertIn("1 time bound", out)
        never = {0: [(100, "S0.0"), (500, "A0.0"), (600, "R0.0")]}
        rc, out, _ = self.run_tool(log(never))
        self.assertEqual(rc, 1, out)
        self.assertIn("with no wake-up", out)
        # A lost wake-up with an interrupt's locking inside: still the sleeper running on.
        lost = {0: [(100, "S0.0"), (200, "A1.0"), (250, "R1.0"), (500, "A0.0"), (600, "R0.0")]}
        rc, out, _ = self.run_tool(log(lost, names={0: "torture:spinlock", 1: "kernel:console"}))
        self.assertEqual(rc, 1, out)
        self.assertIn("slept on torture:spinlock at 0.000 us and ran on at 0.400 us", out)
        # A sleep inside a sleep: an interrupt never sleeps, so the first one never ended.
        again = {0: [(100, "S0.0"), (200, "S1.0"), (300, "Z1.0"), (400, "A1.0"), (450, "R1.0")]}
        rc, out, _ = self.run_tool(log(again, names={0: "torture:spinlock", 1: "kernel:console"}))
        self.assertEqual(rc, 1, out)
        self.assertIn("slept again on kernel:console at 0.100 us with no wake-up", out)

    def test_timeline_names_another_lock(self):
        # CPU 0 holds the console lock inside its sleep on the torture lock; CPU 1 holds the
        # torture lock twice, the window's busiest: only the console's bar is named.
        cpus = {0: [(100, "W0.0"), (120, "S0.0"), (300, "A1.0"), (500, "R1.0"), (900, "K1.0"),
                    (1000, "A0.0"), (1100, "R0.0")],
                1: [(50, "W0.0"), (60, "A0.0"), (400, "R0.0"), (1200, "A0.0"), (1300, "R0.0")]}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "serial.log")
            with open(path, "w") as f:
                f.write(log(cpus, names={0: "torture:lockref-hot", 1: "kernel:console"}))
            t = trace_convert.trace_parse.parse_file(path)
        sl = trace_convert.trace_parse.slices(t)
        lanes = {"barrier": -0.3, "wait": -0.15, "sleep": 0.0, "hold": 0.15, "lockless": 0.3}
        labels = trace_convert.other_lock_labels(t, sl, 0, 2000, sorted(t.events), lanes)
        self.assertIn('"kernel:console" at 0.300,0.24', labels)
        self.assertNotIn("torture:lockref-hot", labels)

    def test_qspinlock_holds_skip_ticket_order(self):
        # Its "h" args say how, not a ticket: no ticket order is read into them.
        good = qholds((0, 3, None, 100, 200), (1, 1, 150, 300, 400), (0, 0, 450, 500, 600))
        rc, out, _ = self.run_tool(log(good))
        self.assertEqual(rc, 0, out)
        self.assertIn("3 holds of 1 locks (3 without tickets: a qspinlock or another word lock)", out)
        rc, out, _ = self.run_tool(log(qholds((0, 0, 50, 100, 300), (1, 1, 60, 200, 400))))
        self.assertEqual(rc, 1, out)
        self.assertIn("overlap: lock torture:lockref-hot held by cpu 0", out)

    def test_lockless_inside_qspinlock_hold(self):
        cpus = qholds((0, 0, None, 100, 500))
        cpus[1] = [(200, "s0.0"), (250, "L0.0")]
        rc, out, _ = self.run_tool(log(cpus))
        self.assertEqual(rc, 1, out)
        self.assertIn("lockless inside a hold: lock torture:lockref-hot: cpu 1", out)

    def test_queue_order(self):
        # cpu 1 queues behind cpu 0, cpu 2 behind cpu 1: granted 0, 1, 2.
        fifo = qholds((0, (-1, 20), 10, 100, 200), (1, (0, 40), 30, 210, 300),
                      (2, (1, 60), 50, 310, 400))
        rc, out, _ = self.run_tool(log(fifo))
        self.assertEqual(rc, 0, out)
        self.assertIn("2 queued acquisitions judged for queue order", out)
        # Made up to violate it: cpu 2 queued behind cpu 1 yet takes the lock before it
        # (the holds do not overlap, so only the queue order can tell).
        jumped = qholds((0, (-1, 20), 10, 100, 200), (1, (0, 40), 30, 310, 400),
                        (2, (1, 60), 50, 210, 300))
        rc, out, _ = self.run_tool(log(jumped))
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL queue order: lock torture:lockref-hot: cpu 2 queued behind cpu 1 "
                      "(at 0.050 us) and took the lock at 0.200 us, before cpu 1 did at 0.300 us "
                      "(its wait 0.020 us to 0.300 us (280 ns))", out)
        # A predecessor slow to stamp: of its waits that meet cpu 1's "w".."q", the earliest counts.
        slow = qholds((0, (-1, 20), 10, 100, 200), (1, (0, 300), 30, 320, 400),
                      (0, (1, 310), 250, 410, 500))
        rc, out, _ = self.run_tool(log(slow))
        self.assertEqual(rc, 0, out)

    def test_window_shows_fallback_and_kick(self):
        # The longest wait (cpu 0, far to the left) shows neither; the window must
        # move to the stretch with a fallback and a kicked sleep, and say so.
        cpus = {0: [(100, "W0.2"), (90100, "A0.2"), (90200, "R0.0")],
                1: [(500000, "s0.0"), (500100, "B0.0"), (500200, "W0.4"), (500300, "S0.4"),
                    (501000, "Z0.0"), (501100, "A0.4"), (501200, "R0.0")],
                2: [(500050, "A0.0"), (500700, "K0.1"), (500800, "R0.0")]}
        rc, out, _ = self.run_tool(log(cpus), "out", "--no-png", tool="trace_convert.py")
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"window [0-9.]+ us to [0-9.]+ us after the first event \([0-9.]+ us\) shows: "
                              r"fallbacks=1 sleeps=1 kicked_sleeps=1 kicks=1 waits=1\n")
        # No fallback and no sleep anywhere: the line says so, and the converter still succeeds.
        rc, out, _ = self.run_tool(log(holds((0, 0, 100, 200), (1, 2, 300, 400))), "out",
                                   "--no-png", tool="trace_convert.py")
        self.assertEqual(rc, 0, out)
        self.assertIn("shows: fallbacks=0 sleeps=0 kicked_sleeps=0 kicks=0 waits=2", out)

    def test_picture_without_waits_or_holds(self):
        # Only lockless successes (a quick native run's rings): the histogram has nothing
        # to scale to, and the picture must still be drawn.
        cpus = {0: [(100 * i, "s0.0") for i in range(1, 9)] + [(100 * i + 50, "L0.0")
                                                                for i in range(1, 9)]}
        rc, out, _ = self.run_tool(log(cpus), "out", tool="trace_convert.py")
        self.assertEqual(rc, 0, out)
        self.assertIn("timeline.png", out)

    def test_qspinlock_slices_named(self):
        cpus = qholds((0, (-1, 20), 10, 100, 200), (1, 1, 30, 210, 300))
        rc, out, js = self.run_tool(log(cpus), "out", "--no-png", tool="trace_convert.py")
        self.assertEqual(rc, 0, out)
        names = {e["name"]: e.get("args", {}) for e in js["traceEvents"] if e.get("ph") == "X"}
        self.assertEqual(names["wait (queued) torture:lockref-hot"]["queued behind"], "nobody")
        self.assertIn("wait (pending) torture:lockref-hot", names)
        self.assertEqual(names["hold torture:lockref-hot"]["how"], "pending waiter")
        self.assertEqual(trace_convert.check_json(js), [])

    def test_damaged_input_converts_with_warnings(self):
        cpus = holds(*[(c, 2 * i, 1000 * i + 100 * c, 1000 * i + 100 * c + 50)
                       for i in range(20) for c in (0,)])
        cpus[1] = [(30 + 1000 * i, "s0.0") for i in range(20)]
        text = log(cpus, end=False).splitlines()
        text = [ln for ln in text if not ln.strip().startswith("# TRACE e 0 16 ")]  # a lost line
        text = [ln.replace("s0.0.", "s0!0.") if ln.strip().startswith("# TRACE e 1 16") else ln
                for ln in text]  # a garbled token
        text = [ln.replace("cpus=2", "cpus=3") for ln in text]  # cpu 2 never dumps
        rc, out, js = self.run_tool("\n".join(text) + "\n", "out", "--no-png",
                                    tool="trace_convert.py")
        self.assertEqual(rc, 0, out)
        self.assertIn("cpu 0: 16 of 60 events missing (lost lines), first missing index 16", out)
        self.assertIn("bad event 's0!0", out)
        self.assertIn("cpu 2: never dumped", out)
        self.assertIn("no '# TRACE end'", out)
        self.assertEqual(trace_convert.check_json(js), [])
        self.assertTrue(any(e.get("ph") == "X" and e["tid"] == 0 for e in js["traceEvents"]))

    def test_wrapped_ring_limits_judging(self):
        # cpu 1's ring wrapped and kept from 350 on: its earlier holds are gone, so a
        # ticket gap before 350 must not be judged.
        cpus = holds((0, 0, 100, 140), (0, 4, 300, 340), (0, 8, 500, 600))
        cpus[1] = [(380, "W0.6"), (400, "A0.6"), (450, "R0.0")]
        rc, out, _ = self.run_tool(log(cpus, dropped={1: 9}))
        self.assertEqual(rc, 0, out)
        self.assertIn("cpu 1: ring wrapped, its 9 oldest events overwritten", out)
        rc, out, _ = self.run_tool(log(cpus))
        self.assertEqual(rc, 1, out)
        self.assertIn("skipped with no sleeper", out)

    def test_json_checker_catches(self):
        good = {"traceEvents": [
            {"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "CPU 0"}},
            {"ph": "B", "name": "x", "ts": 1, "pid": 0, "tid": 0},
            {"ph": "E", "ts": 2, "pid": 0, "tid": 0}]}
        self.assertEqual(trace_convert.check_json(good), [])
        bad = {"traceEvents": good["traceEvents"][:2] + [
            {"ph": "X", "name": "y", "ts": 1, "pid": 0, "tid": 3, "dur": 1},
            {"ph": "X", "name": "z", "pid": 0, "tid": 0, "dur": 1}]}
        problems = " | ".join(trace_convert.check_json(bad))
        self.assertIn("missing ts", problems)
        self.assertIn("never ended", problems)
        self.assertIn("track 3: not one 'CPU n' name", problems)


class EventList(unittest.TestCase):
    """The event letters are declared once, in lib/trace.h's TRACE_EVENT_LIST:
    trace_parse.py reads them from there, and every letter the tools match
    an event against must be one of them."""

    def test_letters_read_from_the_header(self):
        import trace_parse
        rows = trace_parse.event_list(trace_parse.TRACE_H.read_text())
        letters = [letter for _, letter, _, _ in rows]
        self.assertEqual(len(letters), len(set(letters)), f"a letter twice: {letters}")
        self.assertEqual(list(trace_parse.EVENT_NAMES), letters)
        groups = set(re.findall(r"#define TRACE_GROUP_(\w+)", trace_parse.TRACE_H.read_text()))
        for ident, _, group, _ in rows:
            self.assertIn(group, groups, f"TR_{ident}'s group {group} is no TRACE_GROUP_*")

    def test_unreadable_row_is_refused(self):
        import trace_parse
        text = trace_parse.TRACE_H.read_text().replace("X(SPIN_ACQ, 'A',", "X(SPIN_ACQ, \"A\",")
        with self.assertRaises(SystemExit):
            trace_parse.event_list(text)

    def test_tools_match_only_declared_letters(self):
        import trace_parse
        used = set(trace_parse.OPENERS) | set(trace_parse.CLOSERS)
        for tool in ("trace_parse.py", "trace_check.py", "trace_convert.py", "trace_cost.py"):
            with open(tool_path(tool)) as f:
                used |= set(re.findall(r'\b(?:kind|outcome) *[!=]= *"([A-Za-z])"', f.read()))
        self.assertGreater(len(used), 10, "the scan of the tools found too few letters")
        self.assertEqual(sorted(used - set(trace_parse.EVENT_NAMES)), [],
                         "letters the tools match that lib/trace.h's TRACE_EVENT_LIST lacks")


if __name__ == "__main__":
    unittest.main()
