#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""readme_figures.py - every benchmark figure in the README comes from a log in docs/runs/.

    tools/house/readme_figures.py              check README.md against the logs (make test)
    tools/house/readme_figures.py --write      rewrite README.md's figures table from the logs
    tools/house/readme_figures.py --self-test  prove the check fails on planted wrong figures

Why: a figure measured on one machine reads, in a README, as the reader's
own; a newcomer who gets 1.5x where the page says 12x thinks something is
broken.  So the README's benchmark figures are one table, generated here
from the committed logs in docs/runs/ (one column per log, named by the CPU,
cores and date its first line gives), between the markers BEGIN and END;
and the prose of the section around it ("## What it shows") may quote only
figures that table holds.  Each log's first line says where and when it was
measured:

    # docs/runs: DATE; MACHINE; COMMAND; CONDITIONS

The check prints one line per problem (a cell that differs from its log, a
prose figure no log gave, a log without its first line) and exits 1 if there
is any, 2 when a log cannot be read.  Python 3 standard library only.
"""
import argparse
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from bench_log import InputError, parse_log, scaling_grid  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")
RUNS = "docs/runs"
BEGIN = "<!-- readme_figures.py: generated from docs/runs/*.log; edit the logs, then --write -->"
END = "<!-- readme_figures.py: end -->"
SECTION = "## What it shows"
PROVENANCE = re.compile(r"^# docs/runs: ([^;]+); ([^;]+); ([^;]+); (.+)$")
# A benchmark figure in prose: a ratio, a rate in millions, a time in ns.
FIGURE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:x\b| M\b| ns\b)")

# The refcount implementations of the table, in its order, with the words a reader needs.
IMPLS = [("xadd", "xadd (a bare atomic counter: the hardware limit)"),
         ("spinlock", "ticket lock + count (before the lockref)"),
         ("lockref", "lockref (over the ticket lock)"),
         ("qspinlock", "qspinlock (Linux's lock since 4.2) + count"),
         ("lockref-qspinlock", "lockref over the qspinlock")]
# Ratios at the most threads: (label, impl, base).
RATIOS = [("lockref / ticket lock, all threads", "lockref", "spinlock"),
          ("lockref / xadd, all threads", "lockref", "xadd"),
          ("lockref-qspinlock / qspinlock, all threads", "lockref-qspinlock", "qspinlock")]


def rate(v):
    """Operations per second, in millions, to three figures."""
    m = v / 1e6
    return f"{m:.0f} M" if m >= 100 else f"{m:.1f} M" if m >= 10 else f"{m:.2f} M"


class Run:
    """One log of docs/runs/: where it was measured and its figures."""

    def __init__(self, path):
        self.path = os.path.relpath(path, ROOT)
        with open(path, errors="replace") as f:
            first = f.readline().strip()
        m = PROVENANCE.match(first)
        self.problem = None if m else (f"{self.path}:1: no '# docs/runs: DATE; MACHINE; "
                                       f"COMMAND; CONDITIONS' line first")
        self.date, self.machine, self.command, self.conditions = (
            [g.strip() for g in m.groups()] if m else ["?"] * 4)
        self.env, _, self.results, _ = parse_log(path)
        self.grid, cpus = scaling_grid(self.results, "refcount")
        self.most = max(cpus) if cpus else None

    def refcount(self, impl, n):
        r = self.grid.get(impl, {}).get(n)
        return r["ops_per_sec"] if r else None

    def column(self):
        """The table cells of this run, in row order."""
        cells = [f"[{self.machine}, {self.date}]({self.path})", self.conditions,
                 f"`{self.command}`", str(self.most or "-")]
        for impl, _ in IMPLS:
            one, most = self.refcount(impl, 1), self.refcount(impl, self.most)
            cells.append(f"{rate(one) if one else '-'} / {rate(most) if most else '-'}")
        for _, impl, base in RATIOS:
            a, b = self.refcount(impl, self.most), self.refcount(base, self.most)
            cells.append(f"{a / b:.2f}x" if a and b else "-")
        lr = self.results.get(("uncontended", "lockref", "get+put", 1))
        tk = self.results.get(("uncontended", "spinlock", "get+put", 1))
        cells.append(f"{lr['ns_per_op']:.1f} ns / {tk['ns_per_op']:.1f} ns"
                     if lr and tk else "-")
        return cells


ROW_LABELS = (["measured on (the log)", "conditions", "command",
               "threads at the most (one per core)"]
              + [f"refcount, {words}: 1 thread / the most" for _, words in IMPLS]
              + [label for label, _, _ in RATIOS]
              + ["uncontended get+put, one thread: lockref / ticket lock"])


def load_runs(root=ROOT):
    """Every log of docs/runs/, fewest cores first."""
    runs = [Run(p) for p in sorted(glob.glob(os.path.join(root, RUNS, "*.log")))]
    return sorted(runs, key=lambda r: (r.most or 0, r.path))


def table(runs):
    """The generated Markdown table: one row per figure, one column per run."""
    columns = [r.column() for r in runs]
    lines = ["| | " + " | ".join(c[0] for c in columns) + " |",
             "|---|" + "---|" * len(columns)]
    for i, label in enumerate(ROW_LABELS[1:], 1):
        lines.append(f"| {label} | " + " | ".join(c[i] for c in columns) + " |")
    return "\n".join(lines)


def section(text):
    """The README's section that holds the figures (its heading to the next), or ""."""
    start = text.find("\n" + SECTION + "\n")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def problems(text, runs):
    """Every way @text (the README) differs from the logs, one line each."""
    out = [r.problem for r in runs if r.problem]
    want = table(runs)
    if BEGIN not in text or END not in text:
        return out + [f"README.md: no figures table between '{BEGIN}' and '{END}'"]
    got = text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip()
    got_rows, want_rows = got.splitlines(), want.splitlines()
    if len(got_rows) != len(want_rows):
        out.append(f"README.md: the figures table has {len(got_rows)} lines, the logs give "
                   f"{len(want_rows)} (run tools/house/readme_figures.py --write)")
    for g, w in zip(got_rows, want_rows):
        gc, wc = g.split(" | "), w.split(" | ")
        for col, (a, b) in enumerate(zip(gc, wc)):
            if a.strip(" |") != b.strip(" |"):
                out.append(f"README.md: figures table, row '{wc[0].strip(' |')}', column "
                           f"{col}: '{a.strip(' |')}' where the log gives '{b.strip(' |')}'")
        if len(gc) != len(wc):
            out.append(f"README.md: figures table row '{wc[0].strip(' |')}' has {len(gc)} cells, "
                       f"the logs give {len(wc)}")
    prose = section(text).replace(text[text.index(BEGIN):text.index(END)], "")
    held = set(FIGURE.findall(want))
    for n, line in enumerate(prose.splitlines(), 1):
        for fig in FIGURE.findall(line):
            if fig not in held:
                out.append(f"README.md: '{SECTION}' quotes {fig!r}, which no log in {RUNS}/ "
                           f"gives (the table holds every figure the prose may quote): "
                           f"{line.strip()[:80]!r}")
    return out


def write(text, runs):
    """@text with its figures table generated again."""
    head, rest = text.split(BEGIN, 1)
    return head + BEGIN + "\n" + table(runs) + "\n" + END + rest.split(END, 1)[1]


def self_test(runs):
    """The check on the README as it is (must pass), then on planted mistakes (each must fail)."""
    with open(README) as f:
        text = f.read()
    if problems(text, runs):
        print("readme_figures: self-test: the README itself does not pass; run the check")
        return 1
    want = table(runs)
    row = next(l for l in want.splitlines() if FIGURE.search(l))  # the first row of figures
    cell = FIGURE.search(row).group(0)
    wrong = cell.replace(cell[0], "9" if cell[0] != "9" else "8", 1)
    planted = {
        "a wrong figure in the table": text.replace(row, row.replace(cell, wrong, 1)),
        "a prose figure no log gave": text.replace(BEGIN, "The lockref is 123.45x faster.\n\n"
                                                   + BEGIN),
        "a column missing": text.replace(want, "\n".join(l.rsplit(" | ", 1)[0] + " |"
                                                         for l in want.splitlines())),
    }
    failed = 0
    for what, bad in planted.items():
        found = problems(bad, runs)
        print(f"readme_figures: self-test: {what}: "
              f"{'caught: ' + found[0] if found else 'NOT caught'}")
        failed += not found
    return 1 if failed else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="regenerate README.md's table")
    mode.add_argument("--self-test", action="store_true", help="plant mistakes, must catch each")
    args = ap.parse_args(argv)
    try:
        runs = load_runs()
    except (InputError, OSError) as e:
        print(f"readme_figures: {e}")
        return 2
    if not runs:
        print(f"readme_figures: no logs in {RUNS}/")
        return 2
    if args.self_test:
        return self_test(runs)
    with open(README) as f:
        text = f.read()
    if args.write:
        if BEGIN not in text or END not in text:
            print(f"readme_figures: README.md has no '{BEGIN}' ... '{END}' markers")
            return 2
        with open(README, "w") as f:
            f.write(write(text, runs))
        text = write(text, runs)
    found = problems(text, runs)
    for p in found:
        print(p)
    print(f"readme_figures: {len(runs)} logs, {len(FIGURE.findall(table(runs)))} figures, "
          f"{len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
