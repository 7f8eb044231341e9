#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_bench_c2c.py - the c2c part of the benchmark report (tools/bench/bench_c2c.py) and
the reading of the curves against the boundaries (tools/bench/bench_curve.py).

    python3 tools/tests/test_bench_c2c.py        (exit status 0 when every check passes)

Made-up c2c lines of a 2-socket machine whose latencies agree with its
topology, then ones that contradict it (same-core pairs slower than other
packages; one relation split into two groups): the report must say so in a
line, say when the figures are an emulator's, and draw the heatmap.
"""
import os
import shutil
import sys
import tempfile
import unittest

import tooldirs  # noqa: E402,F401  (every tool folder on sys.path)
import bench_c2c  # noqa: E402
import bench_curve  # noqa: E402

ENV = {"packages": 2, "cores_per_package": 2, "threads_per_core": 2, "llc_groups": 2,
       "llc_cpus": ["0-3", "4-7"], "topology_source": "cpuid 0xb"}


def machine(ns_of):
    """c2c records of 8 CPUs (siblings 2k, 2k+1; packages 0-3 and 4-7), ns from @ns_of."""
    out = {}
    for a in range(8):
        for b in range(a + 1, 8):
            rel = ("same-core" if a // 2 == b // 2 else
                   "same-llc" if a // 4 == b // 4 else "other-package")
            out[("c2c", "cas", f"{a}-{b}", 2)] = {
                "bench": "c2c", "impl": "cas", "cpus": 2, "trials": 31, "cpu_a": a,
                "cpu_b": b, "relation": rel, "oneway_ns": ns_of(rel, a, b)}
    return out


SANE = {"same-core": 15.0, "same-llc": 45.0, "other-package": 130.0}


class C2cTest(unittest.TestCase):
    def test_groups_follow_topology(self):
        results = machine(lambda rel, a, b: SANE[rel])
        g = bench_c2c.groups(results)
        self.assertEqual(list(g), ["same-core", "same-llc", "other-package"])
        self.assertEqual(len(g["same-core"]), 4)
        self.assertEqual(bench_c2c.contradictions(g), [])
        text = bench_c2c.section_c2c(ENV, results, False)
        self.assertIn("| same-core | 4 | 15.0 | 15.0 | 15.0 |", text)
        self.assertIn("the latencies rise with the distance", text)
        self.assertNotIn("emulator", text)
        self.assertIn("| 0 | 0 | 15.0 | 45.0 | 45.0 | 130.0 |", text)

    def test_contradiction_named(self):
        swapped = dict(SANE, **{"same-core": 200.0})
        g = bench_c2c.groups(machine(lambda rel, a, b: swapped[rel]))
        lines = bench_c2c.contradictions(g)
        self.assertEqual(len(lines), 2, lines)
        self.assertIn("same-core pairs take 200.0 ns (median), more than same-llc", lines[0])
        self.assertIn("does not describe", lines[0])

    def test_hidden_boundary_named(self):
        # other-package pairs split: CPU 7 sits far away from the rest.
        g = bench_c2c.groups(machine(
            lambda rel, a, b: 400.0 if rel == "other-package" and b >= 6 else SANE[rel]))
        lines = bench_c2c.contradictions(g)
        self.assertTrue(any("other-package pairs form more than one group" in l for l in lines),
                        lines)

    def test_emulator_line_and_heatmap(self):
        results = machine(lambda rel, a, b: SANE[rel])
        self.assertIn("describe the emulator", bench_c2c.section_c2c(ENV, results, True))
        self.assertEqual(bench_c2c.section_c2c(ENV, {}, False), "")
        if not shutil.which("gnuplot"):
            self.skipTest("no gnuplot")
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(bench_c2c.write_heatmap(results, d))
            self.assertGreater(os.path.getsize(os.path.join(d, "c2c.png")), 1000)
            with open(os.path.join(d, "c2c.dat")) as f:
                rows = [l.split() for l in f if not l.startswith("#")]
            self.assertEqual(len(rows), 8)
            self.assertEqual(rows[0][1], "15.00")


def refcount(impl, rates):
    return {("refcount", impl, "get+put", n): {"bench": "refcount", "impl": impl, "cpus": n,
                                              "trials": 5, "ops_per_sec": r}
            for n, r in rates.items()}


class CurveTest(unittest.TestCase):
    BOUNDS = {"place": "cores", "llc": 2, "package": 4, "cores": 4}

    def test_plan_line_read(self):
        lines = [(1, "# plan: boundaries (bench.place=cores, bench_plan.h): LLC group at 2, "
                     "package at 4, every core at 4 (0: none)")]
        self.assertEqual(bench_curve.plan_bounds(lines), self.BOUNDS)
        self.assertIsNone(bench_curve.plan_bounds([(1, "# plan: 3 points")]))

    def test_ticket_drop_beside_its_hop(self):
        results = machine(lambda rel, a, b: SANE[rel])
        results.update(refcount("spinlock", {1: 10e6, 2: 12e6, 3: 6e6, 4: 5e6, 8: 4e6}))
        results.update(refcount("lockref", {1: 20e6, 2: 22e6, 3: 24e6, 4: 24e6, 8: 30e6}))
        results.update(refcount("xadd", {1: 60e6, 2: 60e6, 3: 60e6, 4: 60e6, 8: 60e6}))
        text = bench_curve.section_curves(results, self.BOUNDS)
        row = next(l for l in text.splitlines() if l.startswith("| refcount | spinlock"))
        self.assertIn("| 3 (past one LLC group, no c2c other-llc figure) |", row)
        self.assertIn("| 8 (0.40x of 1 CPU; past one package, c2c other-package 130.0 ns) |",
                      row)
        self.assertIn("| 0.50 | 7.50 |", row)
        self.assertIn("one LLC group filled at 2 CPUs", text)

    def test_never_below(self):
        results = refcount("spinlock", {1: 10e6, 2: 12e6})
        text = bench_curve.section_curves(results, None)
        self.assertIn("| never |", text)
        self.assertIn("regions unknown", text)
        self.assertEqual(bench_curve.section_curves(refcount("spinlock", {1: 1e6}), None), "")


if __name__ == "__main__":
    unittest.main()
