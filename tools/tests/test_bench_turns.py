#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_bench_turns.py - bench_turns.py against two fake bench_native programs.

Why: the tool's figures go into the docs as the proof that a change costs
less than 2%, so its ratios (new/old, per round, then the median), its
alternating order and its refusals must be right.  The fakes are shell
scripts printing fixed BENCH lines: "old" 10 ns, "new" 11 ns per op, so
every ratio is 1.100.
"""
import os
import stat
import subprocess
import sys

from tooldirs import tool  # noqa: E402
import tempfile
import unittest

TOOL = tool("bench_turns.py")

FAKE = """#!/bin/sh
echo "$0 $*" >> "{log}"
echo '  # BENCH {{"bench":"uncontended","impl":"lockref","op":"get","cpus":1,"ns_per_op":{ns}}}'
echo '  # BENCH {{"bench":"uncontended","impl":"spinlock","op":"get","cpus":1,"ns_per_op":{ns}}}'
"""


class BenchTurns(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.dir.name, "calls")
        self.old = self.fake("old", 10, FAKE)
        self.new = self.fake("new", 11, FAKE)

    def tearDown(self):
        self.dir.cleanup()

    def fake(self, name, ns, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text.format(log=self.log, ns=ns))
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path

    def run_tool(self, *args):
        return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)

    def test_ratio_and_order(self):
        r = self.run_tool(self.old, self.new, "--rounds", "3", "seed=2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("| lockref get (1 CPU) | 10.00 | 11.00 | 1.100 (1.100-1.100) |", r.stdout)
        with open(self.log) as f:
            calls = [line.split()[0] for line in f]
        self.assertEqual(calls, [self.old, self.new, self.new, self.old, self.old, self.new])
        with open(self.log) as f:
            self.assertIn("--only=uncontended seed=2", f.read())

    def test_refusals(self):
        r = self.run_tool(self.old, self.new, "--rounds", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--rounds=0: expected 1 or more", r.stderr)
        empty = self.fake("empty", 0, "#!/bin/sh\necho nothing\n")
        r = self.run_tool(self.old, empty, "--rounds", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no BENCH line", r.stderr)
        bad = self.fake("bad", 0, "#!/bin/sh\necho '# BENCH {{\"impl\":'\n")
        r = self.run_tool(bad, self.new, "--rounds", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not JSON", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
