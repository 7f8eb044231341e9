#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_model_logs.py - the scaling model over every committed log, held to its docs.

    python3 tools/tests/test_model_logs.py    (exit status 0 when every log agrees)

Why: a model fitted on one log and wrong on the next teaches the wrong lesson,
and a docs page that says "within 25%" goes stale the day a log or the model
changes.  docs/scaling-model.md carries one table row per log of docs/runs/:
how many judged points fall within the model's 25%, which points miss (by
name), and how many lie outside the model's domain; and, after a marker line
naming its log, each log's whole error table, cell by cell.  This check runs
tools/bench/scaling_model.py on each log and fails when a row or a table and
the model disagree, when a log has no row or no table, or when a row names no
log; on a mismatch it prints what the model gives, to paste after checking why
it changed.  And it holds issue 52's bar: no refcount point of any committed
log is a miss; each is within 25% or outside the domain with its reason.
"""

import os
import re
import sys
import unittest

from tooldirs import ROOT  # noqa: E402
import bench_log  # noqa: E402
import scaling_model  # noqa: E402

DOC = os.path.join(ROOT, "docs", "scaling-model.md")
RUNS = os.path.join(ROOT, "docs", "runs")
MARK = "<!-- test_model_logs.py: every committed log -->"
TABLE_MARK = re.compile(r"<!-- test_model_logs.py: the error table of ([\w.-]+\.log) -->")
ROW = re.compile(r"^\| \[([\w.-]+\.log)\]\([^)]*\) \| ([^|]*) \| (\d+) of (\d+) \| ([^|]*) \| (\d+) \|$")


def doc_rows():
    """{log name: (within, judged, missed text, outside)} from the table after MARK."""
    with open(DOC) as f:
        text = f.read()
    if MARK not in text:
        raise AssertionError(f"{DOC}: no line {MARK}")
    rows = {}
    for line in text.split(MARK, 1)[1].lstrip("\n").splitlines():
        if not line.startswith("|"):
            break
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = (int(m.group(3)), int(m.group(4)), m.group(5).strip(),
                                int(m.group(6)))
    return rows


def model_row(path):
    """(within, judged, missed text, outside) of the model on the log at @path."""
    _, _, results, _ = bench_log.parse_log(path)
    model = scaling_model.predict(results)
    t = scaling_model.tally(model)
    missed = ", ".join(f"{p['bench']} {p['impl']} {p['op']} at {p['cpus']} "
                       f"({100 * p['error']:+.0f}%)" for p in scaling_model.misses(model))
    return t["within"], t["judged"], missed or "none", t["outside"]


def error_table(path):
    """The Markdown table of every point of the log at @path past 1 CPU: one row per curve,
    one column per count, "measured / predicted (error)", a miss in bold, a point outside
    the domain in italics and marked out (docs/scaling-model.md's form)."""
    _, _, results, _ = bench_log.parse_log(path)
    model = scaling_model.predict(results)
    counts = sorted({p["cpus"] for p in model["points"] if p["cpus"] > 1})
    rows = {}
    for p in model["points"]:
        if p["cpus"] == 1:
            continue
        mark = scaling_model.verdict(p)
        cell = (f"{bench_log.fmt_rate(p['measured'])} / {bench_log.fmt_rate(p['predicted'])} "
                f"({100 * p['error']:+.0f}%)")
        cell = (f"_{cell} out_" if mark == "out of domain"
                else cell + " **miss**" if mark == "MISS" else cell)
        key = (p["bench"], p["impl"], p["op"])
        rows.setdefault(key, {})[p["cpus"]] = cell
    lines = ["| curve (model) | " + " | ".join(map(str, counts)) + " |",
             "|---|" + "---|" * len(counts)]
    for key, cells in rows.items():
        name = " ".join(key[:2]) + ("" if key[0] == "refcount" else " " + key[2])
        lines.append(f"| {name} ({model['curves'][key]['model']}) | "
                     + " | ".join(cells.get(n, "-") for n in counts) + " |")
    return "\n".join(lines)


def doc_tables():
    """{log name: the table text after its TABLE_MARK line} of docs/scaling-model.md."""
    with open(DOC) as f:
        text = f.read()
    out = {}
    for m in TABLE_MARK.finditer(text):
        rest = text[m.end():].lstrip("\n").splitlines()
        out[m.group(1)] = "\n".join(line for line in
                                     rest[:next((i for i, line in enumerate(rest)
                                                 if not line.startswith("|")), len(rest))])
    return out


def row_text(name, row, conditions="?"):
    within, judged, missed, outside = row
    return (f"| [{name}](runs/{name}) | {conditions} | {within} of {judged} | {missed} | "
            f"{outside} |")


class TestEveryLog(unittest.TestCase):
    def test_each_log_as_documented(self):
        rows = doc_rows()
        logs = sorted(n for n in os.listdir(RUNS) if n.endswith(".log"))
        self.assertTrue(logs, "no committed logs in docs/runs")
        for name in logs:
            with self.subTest(log=name):
                got = model_row(os.path.join(RUNS, name))
                self.assertIn(name, rows, f"docs/scaling-model.md has no row for {name}; "
                              f"the model gives:\n{row_text(name, got)}")
                self.assertEqual(rows[name], got, f"docs/scaling-model.md's row for {name} "
                                 f"is not what the model gives:\n{row_text(name, got)}")
        self.assertEqual(sorted(set(rows) - set(logs)), [], "rows for logs that do not exist")

    def test_error_tables_as_documented(self):
        tables = doc_tables()
        logs = sorted(n for n in os.listdir(RUNS) if n.endswith(".log"))
        for name in logs:
            self.assertTrue(name in tables, f"docs/scaling-model.md shows no error table of "
                          f"{name}; the model gives:\n{error_table(os.path.join(RUNS, name))}")
        for name, text in tables.items():
            with self.subTest(log=name):
                got = error_table(os.path.join(RUNS, name))
                self.assertEqual(text, got, f"docs/scaling-model.md's error table of {name} "
                                 f"is not what the model gives:\n{got}")

    def test_no_refcount_point_misses(self):
        for name in sorted(n for n in os.listdir(RUNS) if n.endswith(".log")):
            _, _, results, _ = bench_log.parse_log(os.path.join(RUNS, name))
            missed = [f"{p['impl']} at {p['cpus']} ({100 * p['error']:+.0f}%)"
                      for p in scaling_model.misses(scaling_model.predict(results))
                      if p["bench"] == "refcount"]
            self.assertEqual(missed, [], f"{name}: refcount points over "
                             f"{100 * scaling_model.MISS:.0f}% and not outside the domain")


if __name__ == "__main__":
    unittest.main(verbosity=1)
