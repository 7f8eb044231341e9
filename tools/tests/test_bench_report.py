#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_bench_report.py - tools/bench/bench_report.py on small synthetic serial logs.

    python3 tools/tests/test_bench_report.py        (exit status 0 when every check passes)

Each test writes a log the way the kernel prints one (noise, an ENV line,
indented KTAP, BENCH lines), runs the tool, and checks the tables, ratios,
warnings and goal verdicts it must produce, and the errors it must give for
logs it cannot use.  The figures are chosen so every goal's verdict is known
in advance; a report that computed a ratio upside down, lost a row or judged
a TCG run by the hardware goals would fail here.
"""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

import tooldirs  # noqa: E402,F401  (every tool folder on sys.path)
import bench_report  # noqa: E402
from bench_goals import DECIDING, INFORMATIVE  # noqa: E402

FAIL_CELL = f"| FAIL ({INFORMATIVE}) |"  # a judged goal not met, without --strict

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def env_line(hypervisor="kvm", cpus=2):
    return "# ENV " + json.dumps({
        "cpus_found": cpus, "cpus_online": cpus, "apic": "x2apic", "tsc_khz": 2000000,
        "tsc_source": "hypervisor", "invariant_tsc": True, "hypervisor": hypervisor,
        "cx16": True, "cmdline": "run=bench", "seed": 1, "lockref_policy": "mainline"})


def native_env_line(hypervisor="none", pinned=True):
    """The ENV line of tests/bench/bench_native.c."""
    return "# ENV " + json.dumps({
        "platform": "native", "cpu_model": "Example CPU 9000", "cpus_found": 2,
        "cpus_online": 2, "pinned": pinned, "tsc_khz": 3000000, "tsc_source": "calibrated",
        "invariant_tsc": True, "hypervisor": hypervisor, "cx16": True,
        "cmdline": "run=bench", "seed": 1, "lockref_policy": "mainline"})


def native_lines(hypervisor="none", pinned=True, scale=4):
    """good_lines() as the native program prints them, every rate @scale times higher."""
    out = [native_env_line(hypervisor, pinned)]
    for line in good_lines()[2:]:
        if "# BENCH " not in line:
            out.append(line)
            continue
        rec = json.loads(line.split("# BENCH ", 1)[1])
        rec["platform"] = "native"
        for k in ("ops_per_sec", "ops_per_sec_min", "ops_per_sec_max"):
            rec[k] *= scale
        rec["ns_per_op"] /= scale
        out.append("  # BENCH " + json.dumps(rec))
    return out


def bench_line(bench, impl, cpus, ops, op="get+put", **extra):
    rec = {"bench": bench, "impl": impl, "op": op, "cpus": cpus, "trials": 5, "ms": 50,
           "ops_per_sec": ops, "ops_per_sec_min": ops * 9 // 10,
           "ops_per_sec_max": ops * 11 // 10, "ns_per_op": 1e9 * cpus / ops,
           "cycles_per_op": 2e9 * cpus / ops, "jain": 0.99, "min_mean": 0.95,
           "overlap": 0.99, "max_gap_us": 5, "batch_us": 2.0, "overruns": 0,
           "clock_end": "lfence-rdtsc"}
    rec.update(extra)
    return "  # BENCH " + json.dumps(rec)


def good_lines(hypervisor="kvm"):
    """A two-CPU run in which every hardware goal passes."""
    lr = {"retries_per_op": 0.01, "fallbacks": 0, "lockref_ops": 10 ** 6}
    lines = ["\x1b[2J garbage from the boot loader", env_line(hypervisor), "KTAP version 1",
             "1..1", "  KTAP version 1", "  # Subtest: bench", "  1..3"]
    for impl, ns in (("spinlock", 20.0), ("spinlock-pv", 20.5), ("lockref", 21.0),
                     ("lockref16", 23.0), ("lockref-cmpxchgq", 20.5),
                     ("cas-loop-cmpxchg8b", 20.0), ("cas-loop-cmpxchgq", 19.0)):
        cas = {"cas": "cmpxchgq" if impl == "lockref-cmpxchgq" else "cmpxchg8b"} \
            if impl.startswith("lockref") and impl != "lockref16" else {}
        lines.append(bench_line("uncontended", impl, 1, int(1e9 / ns), ns_per_op=ns, **cas))
    lines.append(bench_line("uncontended", "cmpxchg8b", 1, 10 ** 8, op="insn", ns_per_op=10.0))
    # refcount: lockref is 2x spinlock and 0.5x xadd at 2 CPUs.
    for cpus, xadd, spin, lref, wide in ((1, 100e6, 50e6, 48e6, 40e6),
                                          (2, 80e6, 20e6, 40e6, 30e6)):
        lines.append(bench_line("refcount", "xadd", cpus, int(xadd)))
        lines.append(bench_line("refcount", "spinlock", cpus, int(spin)))
        lines.append(bench_line("refcount", "lockref", cpus, int(lref), **lr))
        lines.append(bench_line("refcount", "lockref16", cpus, int(wide), **lr))
        lines.append(bench_line("convoy", "lockref", cpus, int(lref / 2), **lr))
    lines.append(bench_line("retry-table", "lockref-wait-4", 2, 30 * 10 ** 6, **lr))
    lines.append(bench_line("retry-table", "lockref-nowait-2", 2, 10 * 10 ** 6, **lr))
    lines += ["  ok 1 refcount", "ok 1 bench", "# RESULT pass"]
    return lines


class ReportCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "out")

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, lines, *extra):
        log = os.path.join(self.tmp.name, "serial.log")
        with open(log, "w") as f:
            f.write("\r\n".join(lines) + "\r\n")
        err, out = io.StringIO(), io.StringIO()
        with redirect_stderr(err), redirect_stdout(out):
            status = bench_report.main([log, self.out, "--host-cpus", "2", *extra])
        self.stderr = err.getvalue()
        self.report = ""
        if os.path.exists(os.path.join(self.out, "report.md")):
            with open(os.path.join(self.out, "report.md")) as f:
                self.report = f.read()
        return status

    def goal_row(self, words):
        rows = [l for l in self.report.splitlines() if l.startswith("| ") and words in l]
        self.assertEqual(len(rows), 1, f"one goal row with {words!r}: {rows}")
        return rows[0]


class TestGoodLog(ReportCase):
    def test_tables_ratios_and_plot(self):
        self.assertEqual(self.run_tool(good_lines()), 0, self.stderr)
        for heading in ("## uncontended", "## refcount", "## convoy", "## retry-table",
                        "## Goals", "## Warnings"):
            self.assertIn(heading, self.report)
        self.assertIn("| accelerator | KVM |", self.report)
        self.assertIn("2.000 GHz from hypervisor", self.report)
        # Impl-by-CPU table, then the ratios against spinlock and xadd.
        self.assertIn("| lockref | 48 M | 40 M |", self.report)
        self.assertIn("| lockref | 0.96x | 2.00x |", self.report)
        self.assertIn("| lockref | 0.48x | 0.50x |", self.report)
        # Uncontended: 21 ns against 20 ns.
        self.assertIn("| lockref | get+put | 21.00 |", self.report)
        self.assertIn("1.05x", self.report)
        # Retry table: relative to the best policy, and the v7 series' figure beside it.
        self.assertIn("| lockref-nowait-2 | 2 | 10 M |", self.report)
        self.assertIn("0.33", self.report)
        self.assertIn("1,091,273", self.report)
        with open(os.path.join(self.out, "scaling.png"), "rb") as f:
            self.assertEqual(f.read(8), PNG_MAGIC)
        self.assertIn("None.", self.report)  # no warnings for a clean KVM run

    def test_hardware_goals_pass(self):
        self.run_tool(good_lines())
        for words in ("uncontended lockref get+put <= 1.1x ticket", "lockref >= 1.3x spinlock",
                      "lockref >= 0.25x xadd", "fallbacks < 0.1%", "lockref16 >= 0.7x",
                      "spinlock-pv get+put <= 1.05x", "1.1x cas-loop-cmpxchg8b pair",
                      "1.1x cas-loop-cmpxchgq pair", "lockref16 get+put <= 1.15x lockref"):
            self.assertTrue(self.goal_row(words).endswith("| PASS |"), self.goal_row(words))
        self.assertIn("(PASS, not judged here)", self.goal_row("no inversion"))

    def test_cas_loop_limit_table(self):
        self.run_tool(good_lines())
        # lockref (cas cmpxchg8b) 21 ns: 1.05x the 20 ns loop pair, 1.05x two 10 ns exchanges;
        # lockref-cmpxchgq 20.5 ns against its 19 ns loop pair, no chained cmpxchgq line.
        self.assertIn("| cmpxchg8b | lockref | 21.00 | 20.00 | 1.05x | 1.05x |", self.report)
        self.assertIn("| cmpxchgq | lockref-cmpxchgq | 20.50 | 19.00 | 1.08x | - |", self.report)
        self.assertIn("lockref 21.00 ns vs 20.00 ns = 1.05x",
                      self.goal_row("1.1x cas-loop-cmpxchg8b pair"))

    def test_limit_goals_fail(self):
        drop = ('"cas-loop-cmpxchgq"', '"lockref16", "op": "get+put", "cpus": 1')
        lines = [l for l in good_lines() if not any(d in l for d in drop)]
        lines.insert(-3, bench_line("uncontended", "cas-loop-cmpxchgq", 1, int(1e9 / 15.0),
                                    ns_per_op=15.0))
        lines.insert(-3, bench_line("uncontended", "lockref16", 1, int(1e9 / 25.0),
                                    ns_per_op=25.0))
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("= 1.37x", self.goal_row("1.1x cas-loop-cmpxchgq pair"))
        self.assertTrue(self.goal_row("1.1x cas-loop-cmpxchgq pair").endswith(FAIL_CELL))
        self.assertTrue(self.goal_row("1.1x cas-loop-cmpxchg8b pair").endswith("| PASS |"))
        self.assertIn("= 1.19x", self.goal_row("lockref16 get+put <= 1.15x"))
        self.assertTrue(self.goal_row("lockref16 get+put <= 1.15x").endswith(FAIL_CELL))
        self.assertEqual(self.run_tool(lines, "--strict"), 3)

    def test_lock_kinds_side_by_side(self):
        """Ticket and qspinlock columns, each lockref over its own lock, and the qspinlock goals."""
        self.run_tool(good_lines())
        self.assertNotIn("## the lock kinds side by side", self.report)  # no qspinlock lines, no section
        self.assertNotIn("lockref-qspinlock >=", self.report)
        lines = good_lines()
        extra = [bench_line("uncontended", "qspinlock", 1, int(1e9 / 20.0), ns_per_op=20.0),
                 bench_line("uncontended", "lockref-qspinlock", 1, int(1e9 / 23.0),
                            ns_per_op=23.0)]
        # refcount at 2 CPUs: lockref-qspinlock 1.5x qspinlock and 0.5x xadd; 1 CPU: 0.8x.
        for cpus, q, lq in ((1, 50e6, 40e6), (2, 26e6, 40e6)):
            extra.append(bench_line("refcount", "qspinlock", cpus, int(q)))
            extra.append(bench_line("refcount", "lockref-qspinlock", cpus, int(lq)))
        lines[-3:-3] = extra
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("## the lock kinds side by side", self.report)
        self.assertIn("| uncontended lockref get+put, ns | 21.00 | 23.00 |", self.report)
        self.assertIn("| uncontended lockref / its lock | 1.05x | 1.15x |", self.report)
        self.assertIn("| refcount N=2: lockref / its lock | 2.00x | 1.54x |", self.report)
        self.assertIn("| refcount N=2: lockref / xadd | 0.50x | 0.50x |", self.report)
        self.assertIn("= 1.15x", self.goal_row("lockref-qspinlock get+put <= 1.1x"))
        self.assertTrue(self.goal_row("lockref-qspinlock get+put").endswith(FAIL_CELL))
        self.assertIn("N=2: 1.54x", self.goal_row("lockref-qspinlock >= 1.3x qspinlock"))
        self.assertTrue(self.goal_row("1.3x qspinlock").endswith("| PASS |"))
        self.assertTrue(self.goal_row("lockref-qspinlock >= 0.25x").endswith("| PASS |"))

    def test_goal_failures_are_reported(self):
        lines = [l for l in good_lines() if '"lockref", "op": "get+put", "cpus": 2' not in l
                 or '"refcount"' not in l]
        # lockref at 2 CPUs: slower than spinlock, and 5% fallbacks.
        lines.insert(-3, bench_line("refcount", "lockref", 2, int(10e6), retries_per_op=3.0,
                                    fallbacks=50000, lockref_ops=10 ** 6))
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("N=2: 0.50x", self.goal_row("1.3x spinlock"))
        self.assertTrue(self.goal_row("1.3x spinlock").endswith(FAIL_CELL))
        self.assertTrue(self.goal_row("fallbacks <").endswith(FAIL_CELL))
        # Never "pass" beside a FAIL that does not say what it decides.
        verdict = self.goal_row("| verdict | pass")
        self.assertIn("pass (the run's own checks; the goals below are informative", verdict)
        self.assertIn("Informative: a goal not met fails neither the run", self.report)
        unlabelled = [l for l in self.report.splitlines() if l.endswith("| FAIL |")]
        self.assertEqual(unlabelled, [])
        self.assertEqual(self.run_tool(lines, "--strict"), 3)
        self.assertTrue(self.goal_row("fallbacks <").endswith(f"| FAIL ({DECIDING}) |"))
        self.assertIn("the goals below decide too: --strict", self.goal_row("| verdict | pass"))

    def test_pv_uncontended_cost_judged_everywhere(self):
        for hypervisor in ("kvm", "tcg"):
            lines = [l for l in good_lines(hypervisor) if '"spinlock-pv"' not in l]
            lines.insert(-3, bench_line("uncontended", "spinlock-pv", 1, int(1e9 / 22.0),
                                        ns_per_op=22.0))
            self.assertEqual(self.run_tool(lines, "--strict"), 3, hypervisor)
            self.assertIn("= 1.10x", self.goal_row("spinlock-pv get+put"))
            self.assertTrue(self.goal_row("spinlock-pv get+put").endswith(f"| FAIL ({DECIDING}) |"))

    def test_tcg_judged_by_inversion_only(self):
        lines = good_lines("tcg")
        lines[1] = env_line("tcg", cpus=4)
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("QEMU TCG", self.report)
        self.assertIn("PAUSE leaves the vCPU loop", self.report)
        self.assertIn("4 vCPUs on 2 host CPUs", self.report)
        self.assertTrue(self.goal_row("no inversion").endswith("| PASS |"))
        self.assertIn("(PASS, not judged here)", self.goal_row("1.3x spinlock"))

    def test_kvm_that_emulates_is_judged_as_emulator(self):
        lines = good_lines()
        lines.insert(-3, bench_line("uncontended", "xadd", 1, 10 ** 5, op="insn",
                                    ns_per_op=10000.0))
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("LOCK XADD took 10000 ns", self.report)
        self.assertTrue(self.goal_row("no inversion").endswith("| PASS |"))
        self.assertIn("not judged here", self.goal_row("1.3x spinlock"))

    def test_emulating_kvm_seen_from_refcount_alone(self):
        lines = [l for l in good_lines() if '"uncontended"' not in l
                 and not ('"refcount", "impl": "xadd"' in l and '"cpus": 1,' in l)]
        lines.insert(-3, bench_line("refcount", "xadd", 1, 60000, ns_per_op=16000.0))
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("LOCK XADD took 8000 ns", self.report)
        self.assertTrue(self.goal_row("no inversion").endswith("| PASS |"))

    def test_measurement_quality_warnings(self):
        lines = good_lines()
        lines.insert(-3, bench_line("pathwalk", "lockref", 2, 10 ** 6, overlap=0.5,
                                    max_gap_us=5000, batch_us=2.0, overruns=1))
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("## pathwalk", self.report)
        for words in ("the CPUs ran together for less than 90%", "a CPU stopped for over 20x",
                      "a CPU missed the stop flag"):
            self.assertIn(f"pathwalk: {words}", self.report)

    def test_worst_overlap_shown(self):
        lines = good_lines()
        lines.insert(-3, bench_line("pathwalk", "lockref", 2, 10 ** 6, overlap=0.95,
                                    overlap_min=0.4))
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("| 0.950 (min 0.400) |", self.report)

    def test_operations_kept_apart(self):
        lines = good_lines()
        for op, spin, lref in (("same-path", 10 ** 6, 4 * 10 ** 6), ("own-file", 10 ** 6, 10 ** 6)):
            lines.insert(-3, bench_line("pathwalk", "spinlock", 2, spin, op=op))
            lines.insert(-3, bench_line("pathwalk", "lockref", 2, lref, op=op))
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("| lockref/same-path | 4.00x |", self.report)
        self.assertIn("| lockref/own-file | 1.00x |", self.report)

    def pathwalk_walk_lines(self, rcu_lref, rcu_spin, walk="rcu"):
        """good_lines() with same-path in both walks at 2 CPUs, and a mixed pair."""
        lines = good_lines()
        for impl, op, ops, extra in (
                ("lockref", "stat-same-path", rcu_lref, {"walk": walk, "steps": 9}),
                ("spinlock", "stat-same-path", rcu_spin, {"walk": walk, "steps": 9}),
                ("lockref", "stat-same-path-refwalk", 10 ** 6, {"walk": "ref", "steps": 9}),
                ("spinlock", "stat-same-path-refwalk", 5 * 10 ** 5, {"walk": "ref"}),
                ("lockref", "stat-mixed", 2 * 10 ** 6,
                 {"walk": walk, "restarts_per_op": 0.0123, "walk_fallbacks": 3,
                  "misses": 7, "writes": 100}),
                ("lockref", "stat-mixed-refwalk", 10 ** 6, {"walk": "ref"})):
            lines.insert(-3, bench_line("pathwalk", impl, 2, ops, op=op, **extra))
        return lines

    def test_pathwalk_walks_section(self):
        self.assertEqual(self.run_tool(self.pathwalk_walk_lines(4 * 10 ** 6, 2 * 10 ** 6)), 0,
                         self.stderr)
        self.assertIn("## pathwalk: the walks and the locks", self.report)
        self.assertIn("| same-path | 2 | rcu | 4 M | 2 M | 2.00x | 1 M | 500 k | 2.00x | 4.00x "
                      "| 4.00x |", self.report)
        self.assertIn("| 2 | rcu | 2 M | 1 M | 2.00x | 0.0123 | 3 | 7 | 100 |", self.report)
        self.assertIn("the lockref does 2.00x the locked fs (goal 1.3x: met) and 4.00x its "
                      "own ref-walk (goal 1x: met)", self.report)
        self.assertIn("So the seeds' claim holds on the walk", self.report)
        self.assertIn("20 per stat in the ref-walk", self.report)
        self.assertIn("1.2% of the walks restarted and 3 fell back", self.report)

    def test_pathwalk_walks_goal_not_met(self):
        self.assertEqual(self.run_tool(self.pathwalk_walk_lines(9 * 10 ** 5, 10 ** 6)), 0,
                         self.stderr)
        self.assertIn("0.90x the locked fs (goal 1.3x: not met) and 0.90x its own ref-walk "
                      "(goal 1x: not met)", self.report)
        self.assertIn("The lockref does not beat the lock here", self.report)

    def test_pathwalk_walks_ref_boot_says_so(self):
        self.assertEqual(self.run_tool(self.pathwalk_walk_lines(10 ** 6, 5 * 10 ** 5, "ref")), 0,
                         self.stderr)
        self.assertIn("both columns measure the ref-walk", self.report)

    def test_pathwalk_walks_section_needs_both_walks(self):
        lines = good_lines()
        lines.insert(-3, bench_line("pathwalk", "lockref", 2, 10 ** 6, op="stat-same-path"))
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertNotIn("## pathwalk: the walks", self.report)

    def test_repeated_line_noted(self):
        lines = good_lines()
        lines.insert(-3, bench_line("refcount", "xadd", 1, int(90e6)))
        self.assertEqual(self.run_tool(lines), 0, self.stderr)
        self.assertIn("refcount/xadd/get+put/1 appears more than once", self.report)
        self.assertIn("| xadd | 90 M |", self.report)


class TestNative(ReportCase):
    def test_bare_metal_describes_hardware(self):
        self.assertEqual(self.run_tool(native_lines()), 0, self.stderr)
        self.assertIn("| platform | native (tests/bench/bench_native.c) |", self.report)
        self.assertIn("| accelerator | native threads on bare metal |", self.report)
        self.assertIn("Example CPU 9000, 2 threads on 2 CPUs, pinned one per CPU", self.report)
        self.assertIn("These figures describe hardware", self.report)
        self.assertTrue(self.goal_row("lockref >= 1.3x spinlock").endswith("| PASS |"))
        self.assertIn("not judged here", self.goal_row("no inversion"))
        self.assertIn("None.", self.report)

    def test_host_that_is_a_guest(self):
        self.assertEqual(self.run_tool(native_lines("kvm")), 0, self.stderr)
        self.assertIn("native threads on a host that is itself a KVM guest", self.report)
        self.assertIn("The uncontended figures describe hardware", self.report)
        self.assertIn("Contended figures describe hardware only while", self.report)
        self.assertNotIn("vCPUs on", self.report)  # a guest's warning, not a native run's

    def test_unpinned_threads_warned(self):
        self.assertEqual(self.run_tool(native_lines(pinned=False)), 0, self.stderr)
        self.assertIn("could not be pinned", self.report)
        self.assertIn("not pinned", self.report)

    def test_tcg_says_nothing_describes_hardware(self):
        self.run_tool(good_lines("tcg"))
        self.assertIn("no figure here describes hardware", self.report)


class TestSideBySide(ReportCase):
    def write(self, name, lines):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def check_table(self):
        self.assertIn("## Guest and native side by side", self.report)
        self.assertIn("Guest: QEMU TCG (emulation).  Native: native threads on bare metal.",
                      self.report)
        # refcount lockref at 2 CPUs: 40 M in the guest, 160 M native; 2x its spinlock in both.
        self.assertIn("| refcount/lockref | 2 | 40 M | 160 M | 4.00x | 50.00 | 12.50 | 2.00x "
                      "| 2.00x |", self.report)
        self.assertIn("| uncontended/cmpxchg8b insn | 1 |", self.report)
        self.assertIn("- Guest: These figures come from QEMU TCG", self.report)
        self.assertIn("- Native: These figures describe hardware", self.report)

    def test_native_log_against_guest(self):
        guest = self.write("guest.log", good_lines("tcg"))
        self.assertEqual(self.run_tool(native_lines(), "--against", guest), 0, self.stderr)
        self.check_table()

    def test_guest_log_against_native(self):
        native = self.write("native.log", native_lines())
        self.assertEqual(self.run_tool(good_lines("tcg"), "--against", native), 0, self.stderr)
        self.check_table()

    def test_nothing_in_common(self):
        guest = self.write("guest.log", [env_line("tcg"), bench_line("refcount", "xadd", 7, 10)])
        self.assertEqual(self.run_tool(native_lines(), "--against", guest), 0, self.stderr)
        self.assertIn("no benchmark, implementation and CPU count in common", self.report)

    def test_unusable_second_log(self):
        self.assertEqual(self.run_tool(native_lines(), "--against",
                                       self.write("bad.log", ["no log here"])), 1)
        self.assertIn("no '# ENV", self.stderr)


class TestOneImplementation(ReportCase):
    """A log of one implementation of one benchmark: one panel, whose key names that one
    line (no empty key, no model panel with nothing in it)."""

    def plot_args(self, lines):
        """bench_report on @lines: {name: value} of the variables it gave gnuplot."""
        calls, real = [], bench_report.subprocess.run

        def run(cmd, **kw):
            calls.append(cmd)
            return real(cmd, **kw)
        bench_report.subprocess.run = run
        try:
            self.assertEqual(self.run_tool(lines), 0, self.stderr)
        finally:
            bench_report.subprocess.run = real
        script = [c for c in calls if c[-1].endswith("bench_scaling.gp")]
        self.assertEqual(len(script), 1, calls)
        return dict(a.strip().split("=", 1) for a in script[0][2].split(";"))

    def test_one_panel_one_title(self):
        lines = [env_line(), bench_line("refcount", "spinlock", 1, 50 * 10 ** 6),
                 bench_line("refcount", "spinlock", 2, 20 * 10 ** 6), "# RESULT pass"]
        args = self.plot_args(lines)
        self.assertEqual(args["npanels"], "1")
        self.assertEqual(args["titles1"], "'spinlock'")
        # No model (the log has no c2c rows): no dashed curve and no projection panel.
        self.assertGreater(int(args["mfirst1"]), int(args["mlast1"]))
        self.assertGreater(int(args["pfirst"]), int(args["plast"]))
        self.assertIn("no c2c rows", self.stderr)
        with open(os.path.join(self.out, "scaling.png"), "rb") as f:
            self.assertEqual(f.read(8), PNG_MAGIC)


class TestBadLogs(ReportCase):
    def expect_error(self, lines, words):
        self.assertEqual(self.run_tool(lines), 1)
        self.assertIn(words, self.stderr)

    def test_no_env(self):
        self.expect_error([l for l in good_lines() if "# ENV" not in l], "no '# ENV")

    def test_no_bench(self):
        self.expect_error([l for l in good_lines() if "# BENCH" not in l], "no '# BENCH")

    def test_cut_line(self):
        lines = good_lines()
        lines.insert(-3, bench_line("refcount", "xadd", 3, 10 ** 6)[:90])
        self.expect_error(lines, "is not JSON")

    def test_missing_field(self):
        lines = good_lines()
        lines.insert(-3, '# BENCH {"bench": "refcount", "impl": "xadd", "cpus": 3}')
        self.expect_error(lines, "lacks trials, ops_per_sec")

    def test_missing_log(self):
        self.assertEqual(bench_report.main([os.path.join(self.tmp.name, "nope"), self.out]), 1)


if __name__ == "__main__":
    unittest.main(verbosity=1)
