#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_kernel_log.py - the one serial-log reader (tools/log/kernel_log.py), on damaged logs.

    python3 tools/tests/test_kernel_log.py        (exit status 0 when every check passes)

Why here and only here: every tool reads a serial log through kernel_log.py,
so its tolerance is tested once.  Each damage the serial line can do (a cut
last line, NUL bytes, CRLF and a stray CR, a 100 KB line, a JSON line that
is not JSON, bytes that are not UTF-8, an empty or missing file) must come
back as a problem naming its line with the rest of the log still read; then
every tool that reads a log is run as a program on each damaged log and must
answer in lines of its own, never with a traceback.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from tooldirs import tool  # noqa: E402
import kernel_log  # noqa: E402

HUGE_LINE = 100 * 1024
ENV = {"platform": "kernel", "cpus_found": 2, "cpus_online": 2, "tsc_khz": 2000000,
       "tsc_source": "pit", "hypervisor": "kvm", "seed": 7}
BENCH = {"bench": "refcount", "impl": "lockref", "cpus": 2, "trials": 1, "ops_per_sec": 5e6}
GOOD = ["lockref demo kernel: booting", "# ENV " + json.dumps(ENV),
        "KTAP version 1", "1..1",
        "  KTAP version 1", "  # Subtest: boot", "  1..1",
        "  # BENCH " + json.dumps(BENCH),
        "  # duration: 3 ms", "  ok 1 cpus_online",
        "ok 1 boot", "# TRACE v1 cpus=2 khz=1000000 events=16 groups=1f",
        "# TRACE end cpus=2", "# tally: 1 suite, 1 test: 1 passed, 0 failed, 0 skipped in 0.4 s",
        "# RESULT pass"]


def good_bytes():
    return ("\r\n".join(GOOD) + "\r\n").encode()  # the UART's line ends


def line_of(data, marker):
    return data[:data.index(marker)].count(b"\n") + 1


# name: (damaged log, the problem's line, words of the problem)
def damaged():
    good = good_bytes()
    cut = good[:good.index(b"ok 1 boot") + 4]
    cases = {
        "cut": (cut, cut.count(b"\n") + 1, "the last line is cut off"),
        "nul": (good.replace(b"ok 1 boot", b"ok 1 b\0\0oot"), None, "2 NUL byte(s)"),
        "cr": (good.replace(b"ok 1 boot", b"ok 1 bo\rot"), None,
               "a carriage return inside the line"),
        "huge": (good.replace(b"# duration: 3 ms", b"# " + b"x" * HUGE_LINE), None,
                 f"a line of {HUGE_LINE + 4} bytes"),
        "json": (good.replace(b'"trials": 1,', b'"trials": 1'), None,
                 "'# BENCH' line is not JSON"),
        "utf8": (good.replace(b"ok 1 boot", b"ok 1 b\xff\xfeoot"), None,
                 "bytes that are not UTF-8"),
        "empty": (b"", 0, "the log is empty"),
    }
    markers = {"nul": b"\0", "cr": b"bo\rot", "huge": b"xxxx", "json": b"# BENCH",
               "utf8": b"\xff"}
    return {name: (data, line if line is not None else line_of(data, markers[name]), what)
            for name, (data, line, what) in cases.items()}


class Reader(unittest.TestCase):
    def test_crlf_is_a_line_end(self):
        lines, problems = kernel_log.split(good_bytes())
        self.assertEqual(problems, [])
        self.assertEqual([t for _, t in lines], GOOD)

    def test_each_damage_names_its_line_and_the_rest_is_read(self):
        for name, (data, line, what) in damaged().items():
            with self.subTest(name):
                lines, problems = kernel_log.split(data)
                problems += kernel_log.json_problems(lines)
                self.assertTrue(any(n == line and what in w for n, w in problems), problems)
                if data:
                    self.assertEqual(kernel_log.env(lines), ENV)

    def test_huge_line_is_cut_to_the_limit(self):
        data, line, _ = damaged()["huge"]
        lines, _ = kernel_log.split(data)
        self.assertEqual(len(lines[line - 1][1]), kernel_log.LINE_MAX)

    def test_missing_file(self):
        lines, problems = kernel_log.read_lines("/nonexistent/serial.log")
        self.assertEqual((lines, problems[0][0]), ([], 0))
        self.assertIn("cannot read /nonexistent/serial.log", problems[0][1])
        with self.assertRaises(kernel_log.LogError):
            kernel_log.read("/nonexistent/serial.log")

    def test_records_and_verdict(self):
        lines, _ = kernel_log.split(good_bytes())
        got = [(kind, rec) for _, kind, rec in kernel_log.records(lines, "log")]
        self.assertEqual(got, [("ENV", ENV), ("BENCH", BENCH)])
        self.assertEqual(kernel_log.verdict(lines), "pass")
        self.assertIsNone(kernel_log.verdict(lines[:-1]))

    def test_kcsan_summary(self):
        lines, _ = kernel_log.split(good_bytes())
        self.assertIsNone(kernel_log.kcsan(lines))
        summary = {"accesses": 9, "watchpoints": 2, "races": 1}
        lines += [(90, "# KCSAN {not json"), (91, "# KCSAN " + json.dumps(summary))]
        self.assertEqual(kernel_log.kcsan(lines), summary)
        self.assertEqual(kernel_log.json_problems(lines)[0][0], 90)

    def test_bad_record_names_file_and_line(self):
        data, line, _ = damaged()["json"]
        lines, _ = kernel_log.split(data)
        with self.assertRaisesRegex(kernel_log.LogError, f"^log:{line}: the BENCH line is not "
                                                         "JSON"):
            list(kernel_log.records(lines, "log"))
        with self.assertRaisesRegex(kernel_log.LogError, "BENCH line lacks impl, cpus"):
            kernel_log.record("BENCH", '{"bench": "x"}', "log:3", ["bench", "impl", "cpus"])

    def test_ktap_tree(self):
        with tempfile.NamedTemporaryFile(suffix=".serial") as f:
            f.write(good_bytes())
            f.flush()
            run = kernel_log.parse(f.name)
        self.assertEqual((run.plan, run.verdict, run.problems), (1, "pass", []))
        self.assertEqual([(d, c.name, c.status) for d, c in kernel_log.walk(run.cases)],
                         [(0, "boot", "pass"), (1, "cpus_online", "pass")])

    def test_tally(self):
        lines, _ = kernel_log.split(good_bytes())
        self.assertEqual(kernel_log.tally(lines),
                         {"suites": 1, "tests": 1, "passed": 1, "failed": 0, "skipped": 0,
                          "words": 0, "failing": 0, "seconds": 0.4, "ran": True,
                          "number": len(GOOD) - 1})
        words = "# tally: 2 suites, 9 tests: 7 passed, 1 failed, 1 skipped in 75.2 s; " \
                "3 command-line words ignored or not understood, 1 of them failing the run"
        got = kernel_log.tally([(1, words)])
        self.assertEqual((got["suites"], got["tests"], got["words"], got["failing"],
                          got["seconds"]), (2, 9, 3, 1, 75.2))
        got = kernel_log.tally([(5, "# tally: no test ran (the run ended before its test "
                                    "runner started)")])
        self.assertEqual((got["ran"], got["tests"], got["number"]), (False, 0, 5))
        self.assertIsNone(kernel_log.tally([(1, "# tally: 2 suite")]))


class TallyCheck(unittest.TestCase):
    """ktap_check.py holds the tally to the results: a wrong or misplaced one fails the log."""

    def check(self, lines):
        with tempfile.NamedTemporaryFile("w", suffix=".serial") as f:
            f.write("\n".join(lines) + "\n")
            f.flush()
            return subprocess.run([sys.executable, tool("ktap_check.py"), f.name],
                                  capture_output=True, text=True, timeout=60)

    def test_good_passes(self):
        self.assertEqual(self.check(GOOD).returncode, 0, self.check(GOOD).stdout)

    def test_planted_wrong_counts_fail(self):
        for old, new, what in (("1 passed, 0 failed", "0 passed, 1 failed", "passed 0 where"),
                               ("1 suite,", "2 suites,", "suites 2 where")):
            lines = [t.replace(old, new) for t in GOOD]
            r = self.check(lines)
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertIn("the tally disagrees with the results", r.stdout)
            self.assertIn(what, r.stdout)

    def test_missing_or_misplaced_fails(self):
        r = self.check([t for t in GOOD if not t.startswith("# tally")])
        self.assertIn("no '# tally:' line before the verdict", r.stdout)
        moved = GOOD[:-2] + ["# extra line", GOOD[-2], GOOD[-1]]
        moved[-3], moved[-2] = moved[-2], moved[-3]
        r = self.check(moved)
        self.assertIn("the tally is not the line just before the verdict", r.stdout)


class EveryTool(unittest.TestCase):
    """Each tool that reads a serial log, as a program, on each damaged log."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def tool(self, *argv):
        return subprocess.run([sys.executable, tool(argv[0]), *argv[1:]],
                              capture_output=True, text=True, timeout=120)

    def test_no_traceback(self):
        """Every damage at once (the last line cut too), and an empty log."""
        good = os.path.join(self.tmp.name, "good.serial")
        with open(good, "wb") as f:
            f.write(good_bytes())
        every = good_bytes()
        for old, new in ((b"ok 1 boot", b"ok 1 b\0o\rot\xff"), (b'"trials": 1,', b'"trials": 1'),
                         (b"# duration: 3 ms", b"# " + b"x" * HUGE_LINE)):
            every = every.replace(old, new)
        for name, data in (("every", every[:-3]), ("empty", b"")):
            log = os.path.join(self.tmp.name, f"{name}.serial")
            with open(log, "wb") as f:
                f.write(data)
            out = os.path.join(self.tmp.name, name)
            for argv in (["ktap_check.py", log], ["tsc_check.py", good, log],
                         ["screen_check.py", log], ["trace_check.py", log],
                         ["ktap_junit.py", "--run", log, "--status", "1", "-o", out + ".xml"],
                         ["bench_report.py", log, out]):
                with self.subTest(name=name, tool=argv[0]):
                    r = self.tool(*argv)
                    self.assertNotIn("Traceback", r.stdout + r.stderr)
                    said = (r.stdout + r.stderr).strip() or os.path.exists(out + ".xml")
                    self.assertTrue(said, "a tool said nothing")

if __name__ == "__main__":
    unittest.main()
