#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_trace_cost.py - trace_cost.py on made-up runs.

Why: the real runs are noisy, so their figures cannot show that the tool
takes the right ratios, the right median and the right worst row; made-up
figures can.  And a damaged log (a run that crashed or was cut short, no
uncontended lines, a garbled line, a missing build) must give one clear
line and exit status 1, never a table.  The end-to-end cases run the tool
as make bench-native does, with shell scripts standing in for the two
programs, and check what they were asked to run.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from tooldirs import tool  # noqa: E402
import trace_cost  # noqa: E402


def bench(impl, op, ns, bench_name="uncontended"):
    """One '# BENCH' line as the native program prints it."""
    return "  # BENCH " + json.dumps({"bench": bench_name, "impl": impl, "op": op,
                                      "ns_per_op": ns, "cycles_per_op": ns * 2.1})


def program_output(rows, result="pass"):
    """What bench_native --only=uncontended prints, for @rows [(impl, op, ns)]."""
    return "\n".join(['# ENV {"platform":"native"}', "KTAP version 1", "1..1",
                      "  KTAP version 1", "  # Subtest: bench", "  1..1"] +
                     [bench(*r) for r in rows] +
                     ["  ok 1 uncontended", "ok 1 bench", f"# RESULT {result}"]) + "\n"


def run(round_, build, rows, status=0):
    """One run of a combined log: header, output, exit line."""
    return (f"## trace-cost run {round_} {build}: bench_native --only=uncontended\n"
            f"{program_output(rows)}## trace-cost exit {status}\n")


# Per round: ns/op of each build for the spinlock get+put row and the xadd insn row.
ROUNDS = {
    1: {"untraced": (10.0, 5.0), "off": (10.1, 5.0), "on": (30.0, 5.0)},
    2: {"untraced": (10.0, 5.0), "off": (10.3, 5.1), "on": (40.0, 5.0)},
    3: {"untraced": (20.0, 5.0), "off": (40.0, 5.0), "on": (60.0, 5.0)},  # a disturbed round
}


def good_log(rounds=ROUNDS):
    """Three rounds, each build's rows from @rounds, in the order the tool runs them."""
    text = ""
    for r, build in trace_cost.schedule(len(rounds)):
        spin, xadd = rounds[r][build]
        text += run(r, build, [("xadd", "insn", xadd), ("spinlock", "get+put", spin)])
    return text


class Statistics(unittest.TestCase):
    def test_schedule_reverses_every_other_round(self):
        self.assertEqual([b for _, b in trace_cost.schedule(2)],
                         ["untraced", "off", "on", "on", "off", "untraced"])

    def test_words_the_tool_sets_are_replaced(self):
        words = trace_cost.kernel_words(
            ["run=bench", "quick", "bench.ms=200", "bench.trials=5", "trace=all",
             "trace.events=64", "spinlock.kind=qspinlock", "seed=3"],
            {"ms": 4, "trials": 2})
        self.assertEqual(words, ["run=bench", "bench.ms=4", "bench.trials=2",
                                 "spinlock.kind=qspinlock", "seed=3"])

    def test_settings_follow_the_main_run(self):
        chosen, how = trace_cost.settings(["run=bench", "bench.ms=20", "bench.trials=2"])
        self.assertEqual(chosen, {"rounds": trace_cost.FOLLOW_ROUNDS, "ms": 20, "trials": 2})
        self.assertIn("bench.ms=20 and bench.trials=2", how)
        chosen, _ = trace_cost.settings(["bench.ms=7", "seed=3"])
        self.assertEqual(chosen, {"rounds": trace_cost.FOLLOW_ROUNDS, "ms": 7,
                                  "trials": trace_cost.FULL["trials"]})
        self.assertEqual(trace_cost.settings(["run=bench"])[0], trace_cost.FULL)
        self.assertEqual(trace_cost.settings(["bench.ms=x"])[0], trace_cost.FULL)
        self.assertEqual(trace_cost.settings(["quick", "bench.ms=20"])[0], trace_cost.QUICK)

    def test_median_of_per_round_ratios(self):
        table, rounds = trace_cost.compare(trace_cost.parse_runs(good_log(), "log"), "log")
        self.assertEqual(rounds, 3)
        spin = next(r for r in table if r["impl"] == "spinlock")
        # Ratios 1.01, 1.03 and 2.0 (the disturbed round): the median ignores the outlier.
        self.assertAlmostEqual(spin["off"], 1.03)
        self.assertAlmostEqual(spin["on"], 3.0)
        self.assertEqual(spin["ns"], {"untraced": 10.0, "off": 10.3, "on": 40.0})
        self.assertTrue(spin["hooks"])
        xadd = next(r for r in table if r["impl"] == "xadd")
        self.assertFalse(xadd["hooks"])
        self.assertEqual([(r["impl"], r["op"]) for r in table],
                         [("xadd", "insn"), ("spinlock", "get+put")])

    def test_goal_judges_hooked_rows_only(self):
        table, _ = trace_cost.compare(trace_cost.parse_runs(good_log(), "log"), "log")
        line = trace_cost.goal_line(table)
        self.assertIn("not met (worst row spinlock get+put: 1.030)", line)
        self.assertTrue(line.startswith(trace_cost.GOAL_LABEL + ": tracing off within 2%"), line)
        self.assertIn("noise floor (rows without hooks): xadd insn 1.000", line)
        quiet = {r: {b: (10.0 * (1.01 if b == "off" else 1.0), v[1]) for b, v in bs.items()}
                 for r, bs in ROUNDS.items()}
        table, _ = trace_cost.compare(trace_cost.parse_runs(good_log(quiet), "log"), "log")
        self.assertIn("2% of the untraced build: met (worst row spinlock get+put: 1.010)",
                      trace_cost.goal_line(table))

    def test_unhooked_rows_leaning_one_way_are_no_noise(self):
        # Every row without hooks 6% slower in the hooked build: the builds differ.
        table = [{"impl": "xadd", "op": "insn", "hooks": False, "off": 1.06},
                 {"impl": "cas-loop-cmpxchgq", "op": "get+put", "hooks": False, "off": 1.09},
                 {"impl": "spinlock", "op": "get+put", "hooks": True, "off": 1.07}]
        line = trace_cost.goal_line(table)
        self.assertIn("rows without hooks: 1.060 to 1.090, every one the same way", line)
        self.assertNotIn("noise floor", line)

    def test_other_benchmarks_lines_are_ignored(self):
        text = good_log().replace("## trace-cost exit 0",
                                  bench("spinlock", "get", 9.0, "refcount") +
                                  "\n## trace-cost exit 0")
        table, _ = trace_cost.compare(trace_cost.parse_runs(text, "log"), "log")
        self.assertEqual(len(table), 2)


class Damaged(unittest.TestCase):
    def error(self, text):
        with self.assertRaises(trace_cost.InputError) as cm:
            trace_cost.compare(trace_cost.parse_runs(text, "cost.log"), "cost.log")
        return str(cm.exception)

    def test_crashed_run(self):
        text = good_log() + run(4, "untraced", [("spinlock", "get+put", 1.0)], status=139)
        self.assertIn("run 4 (untraced) exited with status 139", self.error(text))

    def test_cut_short(self):
        text = good_log().rsplit("## trace-cost exit", 1)[0]
        self.assertIn("run 3 (on) has no '## trace-cost exit' line: cut short?",
                      self.error(text))

    def test_no_uncontended_lines(self):
        text = good_log() + run(4, "off", [])
        self.assertIn("run 4 (off) printed no uncontended", self.error(text))

    def test_garbled_bench_line(self):
        text = good_log().replace('"ns_per_op": 10.3', '"ns_per_op": 10.3, "cyc', 1)
        self.assertRegex(self.error(text), r"^cost\.log:\d+: the BENCH line is not JSON")

    def test_missing_field(self):
        text = good_log().replace('"ns_per_op": 10.3', '"ns": 10.3', 1)
        self.assertRegex(self.error(text), r"^cost\.log:\d+: BENCH line lacks ns_per_op")

    def test_figure_not_a_number(self):
        text = good_log().replace('"ns_per_op": 10.3', '"ns_per_op": "fast"', 1)
        self.assertIn("ns_per_op 'fast' is not a positive number", self.error(text))

    def test_a_round_lacks_a_build(self):
        text = good_log().replace("## trace-cost run 2 off:", "## trace-cost run 4 off:")
        self.assertIn("round 2 lacks the off run", self.error(text))

    def test_a_build_lacks_a_row(self):
        text = good_log() + "".join(run(4, b, [("xadd", "insn", 5.0)])
                                    for b in trace_cost.BUILDS)
        self.assertIn("round 4 (untraced) differs in its rows from round 1 (untraced): "
                      "spinlock/get+put", self.error(text))

    def test_not_a_trace_cost_log(self):
        self.assertIn("no '## trace-cost run' lines", self.error(program_output([])))


FAKE = """#!/bin/sh
# A stand-in for bench_native: records its arguments, prints made-up figures.
echo "$*" >> "{calls}"
case " $* " in *" trace=all "*) ns=30.0 ;; *) ns={ns} ;; esac
{crash}
cat <<EOF
  # BENCH {{"bench":"uncontended","impl":"spinlock","op":"get+put","ns_per_op":$ns}}
  # BENCH {{"bench":"uncontended","impl":"xadd","op":"insn","ns_per_op":5.0}}
# RESULT pass
EOF
"""


class Tool(unittest.TestCase):
    """The program as make bench-native and make test run it."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name
        self.calls = os.path.join(self.d, "calls")

    def tearDown(self):
        self.dir.cleanup()

    def fake(self, name, ns, crash=""):
        path = os.path.join(self.d, name)
        with open(path, "w") as f:
            f.write(FAKE.format(calls=self.calls, ns=ns, crash=crash))
        os.chmod(path, 0o755)
        return path

    def tool(self, *args):
        p = subprocess.run([sys.executable, tool("trace_cost.py"), *args],
                           capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def test_runs_three_builds_and_writes_the_table(self):
        status, out, err = self.tool("--untraced", self.fake("untraced", 10.0),
                                     "--traced", self.fake("traced", 10.1), "--cpus=1",
                                     self.d, "run=bench", "quick", "bench.ms=200",
                                     "spinlock.kind=ticket")
        self.assertEqual(status, 0, err)
        with open(os.path.join(self.d, "trace-cost.md")) as f:
            md = f.read()
        self.assertIn(md.strip(), out)
        self.assertIn("| spinlock | get+put | yes | 10.00 | 10.10 | 1.010 | 30.00 | 3.000 |",
                      md)
        self.assertIn("| xadd | insn | no hooks | 5.00 | 5.00 | 1.000 | 5.00 | 1.000 |", md)
        self.assertIn("met (worst row spinlock get+put: 1.010); noise floor (rows without "
                      "hooks): xadd insn 1.000; a quick run, too short to judge", md)
        with open(self.calls) as f:
            calls = f.read().splitlines()
        rounds = trace_cost.QUICK["rounds"]
        self.assertEqual(len(calls), 3 * rounds)
        self.assertEqual(sum("trace=all" in c for c in calls), rounds)
        want = (f"--only=uncontended --cpus=1 run=bench bench.ms={trace_cost.QUICK['ms']} "
                f"bench.trials={trace_cost.QUICK['trials']} spinlock.kind=ticket")
        self.assertTrue(all(c.startswith(want) for c in calls), calls)
        self.assertTrue(os.path.exists(os.path.join(self.d, "trace-cost.log")))

    def test_log_read_back(self):
        path = os.path.join(self.d, "cost.log")
        with open(path, "w") as f:
            f.write(good_log())
        status, out, err = self.tool("--from", path, self.d)
        self.assertEqual(status, 0, err)
        self.assertIn("| spinlock | get+put | yes | 10.00 | 10.30 | 1.030 | 40.00 | 3.000 |",
                      out)

    def test_crashing_program(self):
        status, out, err = self.tool("--untraced", self.fake("untraced", 10.0),
                                     "--traced", self.fake("traced", 10.0, crash="exit 139"),
                                     self.d, "quick")
        self.assertEqual(status, 1)
        self.assertRegex(err, r"^trace_cost: .*trace-cost\.log:\d+: run 1 \(off\) exited with "
                              r"status 139")
        self.assertEqual(out, "")
        self.assertFalse(os.path.exists(os.path.join(self.d, "trace-cost.md")))

    def test_missing_program(self):
        status, _, err = self.tool("--untraced", os.path.join(self.d, "nowhere"),
                                   "--traced", self.fake("traced", 10.0), self.d, "quick")
        self.assertEqual(status, 1)
        self.assertIn("run 1 (untraced) exited with status 127", err)

    def test_missing_log(self):
        status, _, err = self.tool("--from", os.path.join(self.d, "nope.log"), self.d)
        self.assertEqual(status, 1)
        self.assertIn("cannot read", err)

    def test_bad_count(self):
        status, _, err = self.tool("--rounds=0", self.d)
        self.assertEqual(status, 2)
        self.assertIn("--rounds=0: expected a count of at least 1", err)


if __name__ == "__main__":
    unittest.main()
