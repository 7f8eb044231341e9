#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_lockdep_decode.py - lockdep_decode.py on a real report of the host checker.

Why: a decoder that prints a plausible file:line for the wrong byte is
worse than none.  build/host/plain/test_lockdep -report plants an ABBA and
prints the report and main's run-time address; the ELF's symbol table gives
main's link address, so the load offset is known, and the decoded report
must name the two lines of test_lockdep.c marked "site: order-first" and
"site: order-second", on both sides.  Damaged input gives one line and
status 1.
"""
import os
import re
import subprocess
import sys
import unittest

from tooldirs import ROOT, tool  # noqa: E402
import lockdep_decode  # noqa: E402

BIN = os.path.join(ROOT, "build/host/plain/test_lockdep")
SRC = os.path.join(ROOT, "tests/host/test_lockdep.c")


def marked_line(mark):
    """The line number of test_lockdep.c whose comment says "site: MARK"."""
    with open(SRC) as f:
        for n, line in enumerate(f, 1):
            if f"site: {mark} " in line:
                return n
    raise AssertionError(f"no 'site: {mark}' in {SRC}")


class Decode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        subprocess.run(["make", "-s", "-C", os.path.join(ROOT, "tests/host"),
                        "../../build/host/plain/test_lockdep"], check=True)
        cls.out = subprocess.run([BIN, "-report"], check=True, capture_output=True,
                                 text=True).stdout
        main_run = int(re.search(r"main at (0x[0-9a-f]+)", cls.out).group(1), 16)
        nm = subprocess.run(["nm", BIN], check=True, capture_output=True, text=True).stdout
        main_elf = int(re.search(r"^([0-9a-f]+) T main$", nm, re.M).group(1), 16)
        cls.offset = main_run - main_elf

    def test_both_sides_decode_to_the_marked_lines(self):
        lines = [line for line in self.out.splitlines() if line.startswith("lockdep:")]
        self.assertEqual(len(lines), 3, self.out)
        got = lockdep_decode.decode_lines(lines, BIN, self.offset)
        first, second = marked_line("order-first"), marked_line("order-second")
        for line in got[1:]:  # "now" (cpu 1) and "before" (cpu 0)
            self.assertIn(f"test_lockdep.c:{first})", line)
            self.assertIn(f"test_lockdep.c:{second})", line)
        self.assertIn("'test:b' taken at", got[1])
        self.assertIn("'test:a' taken at", got[2])

    def test_kcsan_line_names_sites_and_variable(self):
        nm = subprocess.run(["nm", "-S", "--defined-only", BIN], check=True, capture_output=True,
                            text=True).stdout
        var = next(m for m in re.finditer(r"^([0-9a-f]+) ([0-9a-f]+) [bBdD] (\w+)$", nm, re.M)
                   if int(m.group(2), 16) > 1)
        data = int(var.group(1), 16) + self.offset
        main_run = int(re.search(r"main at (0x[0-9a-f]+)", self.out).group(1), 16)
        line = (f"kcsan: data race in 'x' on {data + 1:#x}: cpu 0 read 1 bytes at "
                f"{main_run + 1:#x}, value changed by an access not seen (unknown origin)")
        got = lockdep_decode.decode_lines([line], BIN, self.offset)[0]
        self.assertIn(f"on {data + 1:#x} ({var.group(3)}+0x1): cpu 0", got)
        self.assertIn(f"at {main_run + 1:#x} (main test_lockdep.c:", got)
        # An address in no object is left as it is.
        nowhere = "kcsan: data race in 'x' on 0xffffffffffff0000: none"
        self.assertEqual(lockdep_decode.decode_lines([nowhere], BIN, 0), [nowhere])

    def test_kernel_names_replaced_and_frames_decoded(self):
        main_run = int(re.search(r"main at (0x[0-9a-f]+)", self.out).group(1), 16)
        named = (f"kcsan: data race in 'x' on 0x10: cpu 0 read 1 bytes at {main_run + 1:#x} "
                 "(main+0x1/0x80), value changed by an access not seen (unknown origin)")
        frame = f"  #1 {main_run + 1:#x} (main+0x1/0x80)"
        lines = ["PANIC: backtrace (addr2line -e build/kernel.elf ADDR):", frame, "other"]
        got = lockdep_decode.decode_lines([named] + lines, BIN, self.offset)
        self.assertIn(f"at {main_run + 1:#x} (main test_lockdep.c:", got[0])
        self.assertNotIn("main+0x1/0x80", got[0])
        self.assertRegex(got[2], rf"^  #1 {main_run + 1:#x} \(main test_lockdep.c:\d+\)$")
        # --sites: only the lines with code addresses.
        sites = lockdep_decode.decode_lines([named] + lines, BIN, self.offset, sites_only=True)
        self.assertEqual(sites, [got[0], got[2]])

    def test_other_lines_pass_unchanged(self):
        lines = ["boot: hello at 0x1234", "lockdep: none here"]
        self.assertEqual(lockdep_decode.decode_lines(lines, BIN, 0), lines)

    def test_missing_elf_is_one_line(self):
        with self.assertRaises(ValueError):
            lockdep_decode.decode_lines(["lockdep: x at 0x10"], "/nonexistent.elf", 0)
        r = subprocess.run([sys.executable, tool("lockdep_decode.py"),
                            "/nonexistent.elf", "/nonexistent.log"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_bad_offset_is_one_line(self):
        r = subprocess.run([sys.executable, tool("lockdep_decode.py"),
                            "--offset", "zz", BIN], capture_output=True, text=True, input="")
        self.assertEqual(r.returncode, 1)
        self.assertIn("--offset 'zz'", r.stderr)


if __name__ == "__main__":
    unittest.main()
