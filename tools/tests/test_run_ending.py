#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_run_ending.py - the last words of make run and make kcsan (run_ending.py).

    python3 tools/tests/test_run_ending.py    (exit status 0 when every check passes)

Why: `make kcsan` states its race count only inside `# KCSAN {json}`, and a
person reads the words after it.  Each case writes a small serial log and
holds the words to its summary line: no race, races (with the pairs and the
ones not printed), an instrumented run cut before the summary, a plain
kernel (no kcsan line at all), and the line naming where the files are.
"""
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stdout

import tooldirs  # noqa: E402,F401  (every tool folder on sys.path)
import run_ending  # noqa: E402


def summary(**fields):
    base = {"accesses": 112588044, "marked": 59658592, "watchpoints": 31616,
            "rare_site_watchpoints": 5112, "races": 0, "reported": 0, "unprinted": 0,
            "slots": 64, "skip": 2000, "delay_us": 80}
    base.update(fields)
    return "# KCSAN " + json.dumps(base)


class Ending(unittest.TestCase):
    def words(self, lines, *args):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.serial")
            with open(path, "w") as f:
                f.write("\n".join(["KTAP version 1", "1..1"] + lines + ["# RESULT pass"]) + "\n")
            out = io.StringIO()
            with redirect_stdout(out):
                status = run_ending.main([path, *args])
        self.assertEqual(status, 0)
        return out.getvalue().splitlines()

    def test_no_race(self):
        self.assertEqual(self.words([summary()], "--kcsan"),
                         ["kcsan: no data race found in 112,588,044 instrumented accesses "
                          "(31,616 watchpoints armed)"])

    def test_races_in_words(self):
        said = self.words([summary(races=3, reported=2, unprinted=1)], "--kcsan")
        self.assertEqual(said, ["kcsan: 3 data races found in 112,588,044 instrumented "
                                "accesses (31,616 watchpoints armed), 2 distinct pairs of "
                                "sites reported above, 1 more not printed: the run fails"])
        one = self.words([summary(races=1, reported=1)], "--kcsan")[0]
        self.assertIn("1 data race found", one)
        self.assertIn("1 distinct pair of sites", one)

    def test_cut_before_the_summary(self):
        self.assertIn("no `# KCSAN` summary", self.words([], "--kcsan")[0])

    def test_plain_kernel_says_nothing_of_kcsan(self):
        self.assertEqual(self.words([]), [])

    def test_where_the_files_are(self):
        said = self.words([], "--left", "the serial log=build/run.serial",
                          "--left", "JUnit=build/junit.xml")
        self.assertEqual(said, ["run: left the serial log in build/run.serial, JUnit in "
                                "build/junit.xml"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
