#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_ksyms.py - the kernel's symbol table (tools/boot/ksyms.py, kernel/ksyms.h) against nm.

Why: a table that names the wrong function is worse than raw addresses.
The built kernel's table must be the one its own functions give (the two
links agree, so the build is reproducible from the ELF alone), list every
sized function of nm at its address and size, sorted and not overlapping,
and --check must refuse a table whose functions moved.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

from tooldirs import ROOT, tool  # noqa: E402
import ksyms  # noqa: E402

ELF = os.path.join(ROOT, "build/kernel.elf")
TABLE = os.path.join(ROOT, "build/ksyms_table.c")
ROW = re.compile(r"^\t\{(0x[0-9a-f]+), (0x[0-9a-f]+), (\d+)\}, /\* ([\w.]+) \*/$", re.M)


class Table(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        subprocess.run(["make", "-s", "-C", ROOT, "build/kernel.elf"], check=True)
        cls.text = open(TABLE).read()

    def test_final_link_gives_the_same_table(self):
        self.assertEqual(ksyms.render(ksyms.functions(ELF)), self.text)
        self.assertIsNone(ksyms.check(TABLE, ELF))

    def test_every_sized_function_listed_sorted(self):
        rows = [(int(a, 16), int(s, 16), n) for a, s, _, n in ROW.findall(self.text)]
        self.assertGreater(len(rows), 500)
        self.assertIn(f"const uint32_t ksyms_count = {len(rows)};", self.text)
        for (a, s, _), (b, _, _) in zip(rows, rows[1:]):
            self.assertLessEqual(a + s, b)
        nm = subprocess.run(["nm", "-S", "--defined-only", ELF], check=True,
                            capture_output=True, text=True).stdout
        listed = {n: (a, s) for a, s, n in rows}
        for m in re.finditer(r"^([0-9a-f]+) ([0-9a-f]+) [tT] (\w+)$", nm, re.M):
            if m.group(3) in ("kernel_main", "panic", "platform_symbol", "ktest_run"):
                self.assertEqual(listed[m.group(3)], (int(m.group(1), 16), int(m.group(2), 16)))
        # Linker bounds are no functions.
        self.assertNotIn("text_start", listed)
        self.assertNotIn("platform_text_start", listed)

    def test_moved_function_refused(self):
        moved = ROW.sub(lambda m: m.group(0).replace(m.group(1), hex(int(m.group(1), 16) + 16))
                        if m.group(4) == "kernel_main" else m.group(0), self.text)
        self.assertNotEqual(moved, self.text)
        with tempfile.NamedTemporaryFile("w", suffix=".c") as f:
            f.write(moved)
            f.flush()
            problem = ksyms.check(f.name, ELF)
            self.assertIn("kernel_main", problem)
            r = subprocess.run([sys.executable, tool("ksyms.py"), "--check",
                                f.name, ELF], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_empty_table_compiles_to_no_entries(self):
        text = ksyms.render([])
        self.assertIn("ksyms_count = 0;", text)
        self.assertIn("{0, 0, 0},", text)

    def test_missing_elf_is_one_line(self):
        r = subprocess.run([sys.executable, tool("ksyms.py"), "/nonexistent.elf",
                            "-o", os.devnull], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


if __name__ == "__main__":
    unittest.main()
