#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_ktap_junit.py - tests of ktap_junit.py and ci_summary.py on made-up logs.

Each test writes serial logs and the records tests/checks/run.py leaves (checks.list,
NAME.check), runs the tools as CI does (as programs, in a temporary
directory), and reads what they wrote: the JUnit XML with ElementTree, the
summary as text.  Good runs, failures, skips, crashes, and a garbled log
(cut mid-line, empty) must give a clear <error> and summary row, never a
traceback; every other kind of damage is the reader's, tested once in
test_kernel_log.py.
"""
import subprocess
import sys

from tooldirs import tool  # noqa: E402
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path


HEADER = ["", "lockref demo kernel: booting", "\x1b[2Jboot: loader 'GRUB', seed 7",
          '# ENV {"platform":"kernel","cpus_online":2,"seed":7}']


def good_run():
    """Two suites: boot (a pass and a skip) and lockref (a pass and a BENCH line)."""
    return HEADER + [
        "KTAP version 1", "1..2",
        "  KTAP version 1", "  # Subtest: boot", "  1..2",
        "  # duration: 12 ms", "  ok 1 cpus_online",
        "  # duration: 0 ms", "  ok 2 x2apic # SKIP no x2APIC here",
        "ok 1 boot",
        "  KTAP version 1", "  # Subtest: lockref", "  1..1",
        "  # lockref: ops 100",
        '  # BENCH {"bench":"refcount","impl":"lockref","cpus":2}',
        "  # duration: 2500 ms", "  ok 1 torture_mainline_8",
        "ok 2 lockref", "# RESULT pass"]


def failed_run():
    """lockref's torture fails on an invariant: the kernel's diagnostic lines."""
    return HEADER + [
        "KTAP version 1", "1..1",
        "  KTAP version 1", "  # Subtest: lockref", "  1..2",
        "  # duration: 5 ms", "  ok 1 smoke",
        "  # FAIL cpu 1: invariant hold-verify broken: the count moved (seed=7)",
        "  # FAIL cpu 0: invariant count-range broken: saw 6 (seed=7)",
        "  # duration: 300 ms", "  not ok 2 torture_mainline_8",
        "not ok 1 lockref", "# RESULT fail"]


def crashed_run():
    """A panic in lockref's second test: the stream stops inside the subtest."""
    return HEADER + [
        "KTAP version 1", "1..2",
        "  KTAP version 1", "  # Subtest: lockref", "  1..3",
        "  ok 1 smoke",
        "PANIC: CPU 1 (APIC id 1): exception 14 #PF page fault",
        "  #0 0000000000111811", "# RESULT fail"]


class Tools(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.names = []

    def tearDown(self):
        self.tmp.cleanup()

    def add_boot(self, name, content, verdict="pass", expect_fail=None,
                 env=(("ACCEL", "tcg"), ("SMP", "2"), ("CMDLINE", "run=lockref quick"))):
        """A boot as tests/checks/run.py records it; content: lines, or raw bytes."""
        serial = self.dir / f"{name}.serial"
        if isinstance(content, bytes):
            serial.write_bytes(content)
        else:
            serial.write_text("\r\n".join(content) + "\r\n")  # the UART's line ends
        record = [f"serial={serial}", "target=run"] + [f"env.{k}={v}" for k, v in env]
        if expect_fail:
            record.append(f"expect_fail={expect_fail}")
        self.add_check(name, verdict, record)

    def add_check(self, name, verdict, record=()):
        log = self.dir / f"{name}.log"
        log.write_text(f"output of {name}\nits last line\n")
        record = list(record) + [f"verdict={verdict}", f"status={0 if verdict == 'pass' else 1}",
                                 "seconds=3", f"log={log}"]
        (self.dir / f"{name}.check").write_text("\n".join(record) + "\n")
        self.names.append(name)
        (self.dir / "checks.list").write_text("\n".join(self.names) + "\n")

    def run_tool(self, *args):
        result = subprocess.run([sys.executable, *args], capture_output=True, text=True)
        self.assertNotIn("Traceback", result.stdout + result.stderr)
        return result

    def junit(self):
        out = self.dir / "junit.xml"
        result = self.run_tool(tool("ktap_junit.py"), "--checks", str(self.dir), "-o",
                               str(out))
        self.assertEqual(result.returncode, 0, result.stderr)
        return ET.parse(out).getroot()

    def summary(self):
        result = self.run_tool(tool("ci_summary.py"), str(self.dir))
        self.assertEqual(result.returncode, 0, result.stdout)
        return result.stdout

    def suite(self, root, name):
        return next(s for s in root.iter("testsuite") if s.get("name") == name)

    def case(self, suite, classname, name):
        return next(c for c in suite.iter("testcase")
                    if (c.get("classname"), c.get("name")) == (classname, name))

    def test_good_run_every_level(self):
        self.add_boot("tcg", good_run())
        suite = self.suite(self.junit(), "tcg")
        names = [(c.get("classname"), c.get("name")) for c in suite.iter("testcase")]
        self.assertEqual(names, [("tcg", "check"), ("tcg", "boot"),
                                 ("tcg.boot", "cpus_online"), ("tcg.boot", "x2apic"),
                                 ("tcg", "lockref"), ("tcg.lockref", "torture_mainline_8")])
        self.assertEqual(self.case(suite, "tcg.boot", "cpus_online").get("time"), "0.012")
        self.assertEqual(self.case(suite, "tcg.lockref", "torture_mainline_8").get("time"),
                         "2.500")
        skipped = self.case(suite, "tcg.boot", "x2apic").find("skipped")
        self.assertEqual(skipped.get("message"), "no x2APIC here")
        self.assertIn("# lockref: ops 100",
                      self.case(suite, "tcg.lockref", "torture_mainline_8").find("system-out").text)
        self.assertEqual((suite.get("tests"), suite.get("failures"), suite.get("errors"),
                          suite.get("skipped")), ("6", "0", "0", "1"))
        self.assertIn("serial log:", suite.find("system-out").text)
        self.assertIn("| tcg | pass |", self.summary())

    def test_failure_carries_the_invariant_at_every_level(self):
        self.add_boot("smp2", failed_run(), verdict="fail")
        suite = self.suite(self.junit(), "smp2")
        test = self.case(suite, "smp2.lockref", "torture_mainline_8").find("failure")
        self.assertIn("invariant hold-verify broken", test.get("message"))
        self.assertIn("invariant count-range broken", test.text)
        self.assertIn("invariant hold-verify broken",
                      self.case(suite, "smp2", "lockref").find("failure").get("message"))
        self.assertIsNone(self.case(suite, "smp2.lockref", "smoke").find("failure"))
        self.assertIsNotNone(self.case(suite, "smp2", "check").find("failure"))
        row = next(l for l in self.summary().splitlines() if l.startswith("| smp2 "))
        self.assertIn("**FAIL**", row)
        self.assertIn("invariant hold-verify broken", row)
        self.assertIn("seed 7", row)
        self.assertIn('`make run ACCEL=tcg SMP=2 CMDLINE="run=lockref quick seed=7"`', row)

    def test_expected_failure_is_a_passing_check_with_failures(self):
        self.add_boot("busted", failed_run(), expect_fail="invariant [a-z-]+ broken")
        suite = self.suite(self.junit(), "busted")
        check = self.case(suite, "busted", "check")
        self.assertIsNone(check.find("failure"))
        self.assertIn("negative control", check.find("system-out").text)
        self.assertIsNotNone(self.case(suite, "busted", "lockref").find("failure"))
        page = self.summary()
        self.assertIn("| busted | pass (expected failure) |", page)
        self.assertIn("- busted (a negative control: expected): count-range, hold-verify", page)

    def test_crash_names_the_last_line_read(self):
        self.add_boot("crash", crashed_run(), verdict="fail")
        suite = self.suite(self.junit(), "crash")
        errors = [(c.get("classname"), c.get("name"), c.find("error").get("message"))
                  for c in suite.iter("testcase") if c.find("error") is not None]
        self.assertEqual([e[:2] for e in errors], [
            ("crash", "lockref"), ("crash.lockref", "tests 2-3 of lockref's plan 1..3: no result"),
            ("crash", "test 2 of the top level's plan 1..2: no result")])
        self.assertIn("'# RESULT fail'", errors[0][2])
        crashed = self.case(suite, "crash.lockref", "tests 2-3 of lockref's plan 1..3: no result")
        self.assertIn("PANIC: CPU 1", crashed.find("error").text)
        row = next(l for l in self.summary().splitlines() if l.startswith("| crash "))
        self.assertIn("PANIC: CPU 1", row)
        self.assertIn("crashed: the stream ends after line", row)

    def test_panic_before_any_suite_is_a_crash_of_the_plan(self):
        self.add_boot("gp", HEADER + ["KTAP version 1", "1..1",
                                      "fault_inject: raising #GP on purpose",
                                      "PANIC: CPU 0 (APIC id 0): exception 13 #GP",
                                      "# RESULT fail"],
                      expect_fail="^PANIC: CPU 0 .*#GP")
        suite = self.suite(self.junit(), "gp")
        crashed = self.case(suite, "gp", "test 1 of the top level's plan 1..1: no result")
        self.assertIn("PANIC: CPU 0", crashed.find("error").text)

    def test_no_ktap_at_all(self):
        self.add_boot("early", HEADER[:3] + ["PANIC: CPU 0: exception 6 #UD"], verdict="fail")
        error = self.case(self.suite(self.junit(), "early"), "early", "serial log").find("error")
        self.assertIn("no 'KTAP version 1' line", error.get("message"))
        self.assertIn("PANIC: CPU 0", next(l for l in self.summary().splitlines()
                                           if l.startswith("| early ")))

    def garbled(self, name, data, what, line):
        """A garbled log gives a 'serial log' <error> and a summary row naming what and where."""
        self.add_boot(name, data, verdict="fail")
        error = self.case(self.suite(self.junit(), name), name, "serial log").find("error")
        self.assertIsNotNone(error, name)
        self.assertIn(f"{name}.serial:{line}: ", error.text)
        self.assertIn(what, error.text)
        row = next(l for l in self.summary().splitlines() if l.startswith(f"| {name} "))
        self.assertIn("**FAIL**", row)

    def good_bytes(self):
        return ("\n".join(good_run()) + "\n").encode()

    def test_cut_mid_line(self):
        data = self.good_bytes()
        cut = data.index(b"  ok 1 torture_mainline_8") + 6
        lines_before = data[:cut].count(b"\n")
        self.garbled("cut", data[:cut], "the last line is cut off", lines_before + 1)

    def test_crlf_line_ends_are_normal(self):
        self.add_boot("crlf", good_run())  # add_boot writes CRLF, as the UART does
        suite = self.suite(self.junit(), "crlf")
        self.assertEqual(suite.get("errors"), "0")

    def test_empty_log(self):
        self.garbled("empty", b"", "the log is empty", 0)

    def test_host_check_and_replay_quoting(self):
        self.add_check("host-unit", "fail")
        self.add_boot("acpi-off", good_run(), verdict="fail",
                      env=(("ACCEL", "tcg"), ("QEMU_EXTRA", "-machine acpi=off"),
                           ("CMDLINE", 'run=boot say="$HOME"')))
        root = self.junit()
        host = self.suite(root, "host-unit")
        self.assertEqual([c.get("name") for c in host.iter("testcase")], ["check"])
        self.assertIn("its last line", host.find("testcase/failure").text)
        page = self.summary()
        self.assertIn("last line of", next(l for l in page.splitlines()
                                           if l.startswith("| host-unit ")))
        self.assertIn('make run ACCEL=tcg QEMU_EXTRA="-machine acpi=off" '
                      'CMDLINE="run=boot say=\\"\\$HOME\\" seed=7"', page)

    def test_make_run_mode(self):
        serial = self.dir / "run.serial"
        serial.write_text("\n".join(failed_run()) + "\n")
        out = self.dir / "junit.xml"
        result = self.run_tool(tool("ktap_junit.py"), "--run", str(serial), "--status", "1",
                               "-o", str(out))
        self.assertEqual(result.returncode, 0, result.stderr)
        suite = self.suite(ET.parse(out).getroot(), "make run")
        self.assertIsNotNone(self.case(suite, "make run", "check").find("failure"))
        self.assertIsNotNone(self.case(suite, "make run.lockref", "torture_mainline_8")
                             .find("failure"))

    def test_no_record_is_one_line(self):
        result = self.run_tool(tool("ci_summary.py"), str(self.dir / "nothing"))
        self.assertEqual(result.returncode, 1)
        self.assertEqual(len(result.stdout.splitlines()), 1)
        self.assertIn("run make test first", result.stdout)

    def test_bench_report_in_summary(self):
        self.add_check("bench-native", "pass")
        report = self.dir / "report.md"
        report.write_text("# Benchmarks\n\n| impl | ops |\n|---|---|\n| lockref | 5 |\n")
        result = self.run_tool(tool("ci_summary.py"), str(self.dir), "--bench-report",
                               str(report))
        self.assertIn("### Benchmarks (", result.stdout)
        self.assertIn("| lockref | 5 |", result.stdout)
        self.assertIn("### Benchmarks\n", result.stdout)  # its heading, below the page's


if __name__ == "__main__":
    unittest.main()
