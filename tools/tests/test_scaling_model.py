#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_scaling_model.py - tools/bench/scaling_model.py on synthetic logs.

    python3 tools/tests/test_scaling_model.py    (exit status 0 when every check passes)

The ticket lock's chain is checked against the closed form of Boyd-Wickizer
et al. (2012), written here independently of the model's solver: P_0 is one
over the sum of a^i n!/(n-i)! prod_{j<=i} (s + c j/2), P_k that term times
P_0, the throughput a sum P_k (n-k).  Its collapse point (the CPU count of
the highest rate) must be the model's, from inputs the model read out of a
log: a solver that got the hand-off cost, the arrival rate or the inputs'
source rows wrong moves it.  Then the bad logs: no c2c rows, no 1-CPU rows;
each must give one line naming what is missing and leave the plot with the
measured points alone.
"""

import io
import json
import math
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

import tooldirs  # noqa: E402,F401  (every tool folder on sys.path)
import bench_log  # noqa: E402
import bench_report  # noqa: E402
import scaling_model  # noqa: E402

# The synthetic machine: a 1000 ns stat of which the final node's get+put is 50 ns
# (so the walk thinks for 950 ns), a 100 ns line transfer.
STAT_NS, COUNT_NS, C2C_NS = 1000.0, 50.0, 100.0


def env_line(hypervisor="none"):
    return "# ENV " + json.dumps({
        "platform": "native", "cpu_model": "Example CPU", "cpus_found": 8, "cpus_online": 8,
        "pinned": True, "tsc_khz": 2000000, "tsc_source": "calibrated", "invariant_tsc": True,
        "hypervisor": hypervisor, "cx16": True, "cmdline": "run=bench", "seed": 1})


def bench(bench_name, impl, cpus, ops, op="get+put", **extra):
    rec = {"bench": bench_name, "impl": impl, "op": op, "cpus": cpus, "trials": 3, "ms": 50,
           "ops_per_sec": int(ops), "ns_per_op": 1e9 * cpus / ops}
    rec.update(extra)
    return "  # BENCH " + json.dumps(rec)


def c2c_lines():
    """Three pairs; the median (100 ns) is the input, the descheduled pair is not."""
    return [bench("c2c", "cas", 2, 1e7, op=f"0-{b}", cpu_a=0, cpu_b=b, oneway_ns=ns,
                  relation="same-llc") for b, ns in ((1, 90.0), (2, C2C_NS), (3, 5e6))]


def curve_lines(counts=(1, 2, 4, 8)):
    """refcount and pathwalk rows; the rates past 1 CPU are what a run might measure."""
    out = [bench("refcount", "lockref-locked", 1, 1e9 / COUNT_NS)]
    for n in counts:
        out.append(bench("refcount", "xadd", n, 40e6 if n == 1 else 15e6))
        out.append(bench("refcount", "spinlock", n, 1e9 / COUNT_NS / n))
        out.append(bench("refcount", "lockref16", n, 1e9 / COUNT_NS))
        out.append(bench("pathwalk", "spinlock", n, 1e9 / STAT_NS * min(n, 3),
                         op="stat-same-path"))
    return out


def write_log(path, lines, hypervisor="none"):
    with open(path, "w") as f:
        f.write("\n".join([env_line(hypervisor), "KTAP version 1", "1..1"] + lines
                          + ["ok 1 bench", "# RESULT pass"]) + "\n")


def closed_form_rate(n, think, s, c):
    """Operations per ns of the paper's ticket-lock chain, from its product form."""
    a = 1.0 / think
    terms = []
    for i in range(n + 1):
        prod = 1.0
        for j in range(1, i + 1):
            prod *= s + c * j / 2
        terms.append(a ** i * math.factorial(n) / math.factorial(n - i) * prod)
    p0 = 1.0 / sum(terms)
    return a * sum(p0 * t * (n - k) for k, t in enumerate(terms))


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "serial.log")
        self.out = os.path.join(self.tmp.name, "out")

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, lines, hypervisor="none"):
        """bench_report on @lines: (status, stderr lines, model.json, scaling.dat text)."""
        write_log(self.log, lines, hypervisor)
        err = io.StringIO()
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            status = bench_report.main([self.log, self.out])
        with open(os.path.join(self.out, "model.json")) as f:
            points = json.load(f)
        with open(os.path.join(self.out, "scaling.dat")) as f:
            dat = f.read()
        self.assertTrue(os.path.getsize(os.path.join(self.out, "scaling.png")) > 0)
        return status, err.getvalue().splitlines(), points, dat


class TestTicketClosedForm(Case):
    def curve(self):
        write_log(self.log, c2c_lines() + curve_lines())
        _, _, results, _ = bench_log.parse_log(self.log)
        curves, lines, problem = scaling_model.inputs(results)
        self.assertIsNone(problem)
        return curves[("pathwalk", "spinlock", "stat-same-path")], lines

    def test_inputs_come_from_their_rows(self):
        curve, lines = self.curve()
        self.assertEqual(curve["model"], "ticket")
        self.assertAlmostEqual(curve["c"], C2C_NS)           # the median, not the mean
        self.assertAlmostEqual(curve["t1"], COUNT_NS, places=3)
        self.assertAlmostEqual(curve["think"], STAT_NS - COUNT_NS, places=3)
        text = "\n".join(lines)
        self.assertIn("median one-way latency of 3 c2c rows", text)
        self.assertIn("pathwalk spinlock stat-same-path cpus=1", text)
        self.assertIn("refcount lockref-locked get+put cpus=1", text)

    def test_collapse_point_is_the_closed_forms(self):
        curve, _ = self.curve()
        counts = range(2, scaling_model.PROJECT_MAX + 1)
        # A get+put takes the lock twice: per operation the hand-off term is 2 c k/2.
        closed = {n: 1e9 * closed_form_rate(n, curve["think"], curve["t1"],
                                            scaling_model.LOCKS_PER_OP * curve["c"])
                  for n in counts}
        model = {n: scaling_model.rate(curve, n) for n in counts}
        for n in counts:
            self.assertAlmostEqual(model[n] / closed[n], 1.0, places=9, msg=f"{n} CPUs")
        peak = max(counts, key=closed.get)
        self.assertEqual(max(counts, key=model.get), peak)
        # A collapse, not a plateau: a peak inside the range, and far less past it.
        self.assertTrue(2 < peak < scaling_model.PROJECT_MAX, peak)
        self.assertLess(model[scaling_model.PROJECT_MAX], 0.5 * model[peak])

    def test_no_think_time_queues_every_cpu(self):
        write_log(self.log, c2c_lines() + curve_lines())
        _, _, results, _ = bench_log.parse_log(self.log)
        curves, _, _ = scaling_model.inputs(results)
        spin = curves[("refcount", "spinlock", "get+put")]
        self.assertEqual(spin["think"], 0.0)
        for n in (2, 4, 80):   # state n always: 1 / (T1 + 2 c n/2)
            self.assertAlmostEqual(scaling_model.rate(spin, n),
                                   1e9 / (COUNT_NS + C2C_NS * n), places=3)
        self.assertAlmostEqual(scaling_model.rate(spin, 1), 1e9 / COUNT_NS, places=3)


class TestReport(Case):
    def test_model_json_and_curves(self):
        status, err, points, dat = self.report(c2c_lines() + curve_lines())
        self.assertEqual(status, 0)
        self.assertFalse([line for line in err if "scaling model" in line])
        keys = {(p["bench"], p["impl"], p["cpus"]) for p in points}
        self.assertIn(("refcount", "spinlock", 8), keys)
        self.assertIn(("pathwalk", "spinlock", 4), keys)
        for p in points:
            self.assertEqual(set(p), {"bench", "impl", "op", "cpus", "measured", "predicted",
                                      "error", "domain"})
            self.assertAlmostEqual(p["error"], p["predicted"] / p["measured"] - 1, places=3)
        # The lockref's other forms are checked, not drawn.
        self.assertIn(("refcount", "lockref16", 8), keys)
        self.assertNotIn("# model refcount lockref16", dat)
        self.assertIn("# refcount lockref16", dat)
        # The judged predictions at the measured counts in the benchmark's panel; to
        # PROJECT_MAX in the projection panel, for a curve that missed nowhere (xadd) and
        # not for one that did (spinlock).
        block = dat.split("# model refcount spinlock:")[1].split("\n\n")[0].strip().splitlines()
        self.assertEqual(block[1:], [f"{p['cpus']} {p['predicted']}" for p in points
                                     if p["impl"] == "spinlock" and p["bench"] == "refcount"])
        self.assertEqual([line.split()[0] for line in block[1:]], ["1", "2", "4", "8"])
        block = dat.split("# projection refcount xadd get+put:")[1].split("\n\n")[0]
        self.assertEqual(len(block.strip().splitlines()) - 1, scaling_model.PROJECT_MAX)
        self.assertNotIn("# projection refcount spinlock", dat)
        with open(os.path.join(self.out, "report.md")) as f:
            text = f.read()
        self.assertIn("| refcount spinlock get+put | 8 |", text)
        self.assertNotIn("Under an emulator: the inputs", text)

    def test_emulated_log_is_said(self):
        self.report(c2c_lines() + curve_lines(), hypervisor="tcg")
        with open(os.path.join(self.out, "report.md")) as f:
            self.assertIn("Under an emulator: the inputs describe", f.read())


class TestDomain(Case):
    """Each domain rule sets aside the points it should, with its reason, and only those;
    a curve that missed at a judged count is not projected."""

    def model(self, lines):
        write_log(self.log, c2c_lines() + lines)
        _, _, results, _ = bench_log.parse_log(self.log)
        model = scaling_model.predict(results)
        return model, {(p["impl"], p["cpus"]): p for p in model["points"]}

    def refcount(self, xadd2=15e6, lockref2=7.3e6, spin2=1e9 / (COUNT_NS + 2 * C2C_NS),
                 **extra):
        """xadd, spinlock and lockref at 1 and 2 CPUs, the ticket lock by default at its
        model's rate; @extra: fields of the spinlock's 2-CPU row."""
        lines = [bench("refcount", "xadd", 1, 40e6), bench("refcount", "xadd", 2, xadd2),
                 bench("refcount", "lockref", 1, 30e6),
                 bench("refcount", "lockref", 2, lockref2),
                 bench("refcount", "spinlock", 1, 1e9 / COUNT_NS)]
        fields = {"ms": 100}
        fields.update(extra)
        lines.append(bench("refcount", "spinlock", 2, spin2, **fields))
        return lines

    def test_steady_points_are_judged(self):
        model, pts = self.model(self.refcount())
        self.assertIsNone(pts[("spinlock", 2)]["domain"])
        self.assertEqual(scaling_model.verdict(pts[("spinlock", 2)]), "")
        self.assertTrue(scaling_model.ratio_rows(model)["rows"])

    def test_ownership_runs(self):
        # One transfer (2/3 of 100 ns) per pair allows 15 M xadd pairs a second; the lockref
        # and a lock move the line twice, 7.5 M.  Over 1.25 times that means runs of
        # operations, each row judged by its own rate.
        model, pts = self.model(self.refcount(xadd2=40e6))
        self.assertTrue(pts[("xadd", 2)]["domain"].startswith(
            "ownership runs: xadd at 2 CPUs did 40 M/s, over the 15 M/s that 1 transfer "),
            pts[("xadd", 2)])
        self.assertIsNone(pts[("lockref", 2)]["domain"])
        self.assertIsNone(pts[("spinlock", 2)]["domain"])
        self.assertIn("outside, ownership runs", "\n".join(scaling_model.summary(model)))
        model, pts = self.model(self.refcount(lockref2=20e6, spin2=12e6))
        self.assertIn("): spinlock@2, lockref@2", "\n".join(scaling_model.summary(model)))
        for impl in ("lockref", "spinlock"):
            self.assertIn(f"ownership runs: {impl} at 2 CPUs", pts[(impl, 2)]["domain"])
            self.assertIn("7.5 M/s that 2 transfers", pts[(impl, 2)]["domain"])
        self.assertIsNone(pts[("xadd", 2)]["domain"])
        # A walk takes its final node's lock twice a stat: its transfers, one after another
        # whatever the walk between them, bound its stats too.
        walk = [bench("refcount", "lockref-locked", 1, 1e9 / COUNT_NS),
                bench("pathwalk", "spinlock", 1, 1e9 / STAT_NS, op="stat-same-path"),
                bench("pathwalk", "spinlock", 2, 12e6, op="stat-same-path")]
        model, _ = self.model(self.refcount() + walk)
        why = [p["domain"] for p in model["points"] if p["bench"] == "pathwalk"][1]
        self.assertIn("ownership runs: spinlock stat-same-path at 2 CPUs did 12 M/s", why)

    def test_lockref_reads_its_measured_failures(self):
        # retries_per_op counts per lockref call; a get+put makes two: f = 0.5 a pair.
        lines = [line.replace('"cpus": 2, "trials": 3, "ms": 50, "ops_per_sec": 7300000,',
                              '"cpus": 2, "trials": 3, "ms": 50, "ops_per_sec": 7300000, '
                              '"retries_per_op": 0.25,')
                 for line in self.refcount()]
        model, pts = self.model(lines)
        h = scaling_model.QUEUED_SHARE * C2C_NS
        self.assertEqual(pts[("lockref", 2)]["predicted"], round(1e9 / (h * 2.5)))
        self.assertIn("failed exchanges per operation f, each row's retries_per_op x 2: "
                      "0.50 at 2", "\n".join(model["inputs"]))
        # Without the count (or past the machine) the window's estimate stands in.
        _, pts = self.model(self.refcount())
        self.assertGreater(pts[("lockref", 2)]["predicted"], round(1e9 / (h * 2.5)))

    def test_preempted_point(self):
        _, pts = self.model(self.refcount(overlap=0.9, max_gap_us=100))
        self.assertEqual(pts[("spinlock", 2)]["domain"],
                         "preempted: threads ran together 90% of the run")
        _, pts = self.model(self.refcount(overlap=1.0, max_gap_us=30000))
        self.assertEqual(pts[("spinlock", 2)]["domain"],
                         "preempted: a thread stopped for 30.0 ms of a 100 ms trial")

    def test_unsteady_input(self):
        lines = [line.replace('"ops_per_sec": 20000000,',
                              '"ops_per_sec": 20000000, "ops_per_sec_min": 10000000, '
                              '"ops_per_sec_max": 30000000,')
                 for line in self.refcount()]
        model, pts = self.model(lines)
        self.assertIn("unsteady input: refcount/spinlock/get+put at 1 CPU",
                      pts[("spinlock", 2)]["domain"])
        self.assertEqual(scaling_model.verdict(pts[("spinlock", 2)]), "out of domain")
        self.assertEqual(scaling_model.ratio_rows(model)["rows"], [])

    def test_a_miss_is_not_projected(self):
        lines = [line for line in self.refcount() if not ('"spinlock"' in line
                                                          and '"cpus": 2,' in line)]
        lines.append(bench("refcount", "spinlock", 2, 1e6))
        model, pts = self.model(lines)
        self.assertEqual(scaling_model.verdict(pts[("spinlock", 2)]), "MISS")
        self.assertEqual(scaling_model.ratio_rows(model)["rows"], [])
        self.assertIn("refcount spinlock get+put missed at 2 CPUs", scaling_model.ratio_rows(model)["not"][0])
        self.assertIn("missed: refcount spinlock get+put at 2 CPUs",
                      "\n".join(scaling_model.summary(model)))


class TestBadInput(Case):
    def expect_measured_alone(self, lines, words):
        status, err, points, dat = self.report(lines)
        self.assertEqual(status, 0)
        said = [line for line in err if "scaling model" in line]
        self.assertEqual(len(said), 1, err)
        for w in words:
            self.assertIn(w, said[0])
        self.assertIn("measured points alone", said[0])
        self.assertEqual(points, [])
        self.assertNotIn("# model", dat)
        self.assertIn("# refcount spinlock", dat)

    def test_no_c2c_rows(self):
        self.expect_measured_alone(curve_lines(), ["no c2c rows"])

    def test_no_one_cpu_rows(self):
        lines = [line for line in c2c_lines() + curve_lines(counts=(2, 4, 8))
                 if '"cpus": 1,' not in line]
        self.expect_measured_alone(lines, ["1-CPU rows of", "refcount/spinlock/get+put",
                                           "pathwalk/spinlock/stat-same-path"])

    def test_one_curve_lacks_its_row(self):
        lines = [line for line in c2c_lines() + curve_lines()
                 if not ('"lockref16"' in line and '"cpus": 1,' in line)]
        status, err, points, dat = self.report(lines)
        said = [line for line in err if "scaling model" in line]
        self.assertEqual(len(said), 1, err)
        self.assertIn("1-CPU rows of refcount/lockref16/get+put: the curves that need them",
                      said[0])
        self.assertNotIn("lockref16", {p["impl"] for p in points})
        self.assertIn("# model refcount spinlock", dat)

    def test_one_cpu_count_only(self):
        lines = c2c_lines() + [line for line in curve_lines() if '"cpus": 1,' in line]
        self.expect_measured_alone(lines, ["one CPU count (1)", "rows at 2 or more CPUs"])

    def test_nothing_to_model_says_nothing(self):
        write_log(self.log, [bench("uncontended", "xadd", 1, 1e8, op="insn")])
        _, _, results, _ = bench_log.parse_log(self.log)
        self.assertEqual(scaling_model.inputs(results), ({}, [], None))


if __name__ == "__main__":
    unittest.main(verbosity=1)
