#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""layering.py - fail on an include or call cycle among kernel/*.c, or a raw atomic.

    layering.py [--obj DIR] [--src DIR] [--seam FILE]

The platform is layered: kernel_main hands each part what it needs (the
local APIC address, the clocks for TSC calibration), and portable code in
lib/ and fs/ reaches the kernel only through lib/platform.h, whose kernel
side is kernel/platform.c.  A cycle among kernel/*.c files that does not
pass through that seam means two parts know each other, and neither can be
read or tested alone.

Two graphs over kernel/*.c (top level; the suites under kernel/test and
the benchmarks in bench/ are not the platform):
  include: A -> B when A includes B's header (kernel/B.h), directly or
           through other kernel headers;
  call:    A -> B when A's object (build/obj/kernel/A.o) references a
           symbol, function or data, that B's object defines (from nm).
The seam file is removed from both graphs, then any strongly connected
component of more than one file is reported as one line naming the cycle
and its edges.

The atomics have one home too: lib/atomic.h names every atomic operation
the code uses, in a form the kernel runs and one ThreadSanitizer follows.
So no file of ATOMIC_DIRS may use a compiler's __atomic builtin itself; each
use is reported as FILE:LINE.  Exit status 1 on a cycle or a raw atomic, 2 on
unusable input.
"""
import argparse
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Where the atomics go through lib/atomic.h: every folder of C the kernel links.
ATOMIC_DIRS = ["lib", "kernel", "kernel/test", "bench", "fs", "fs/test"]
# The other home: the race detector's runtime (make kcsan, docs/kcsan.md) is what
# lib/atomic.h's builtins become in the instrumented kernel (__tsan_atomic*), so it
# must perform each operation with a builtin itself.
ATOMIC_HOMES = (os.path.join("lib", "atomic.h"), os.path.join("kernel", "kcsan.c"))
RAW_ATOMIC = re.compile(r"\b__atomic_\w+")


def sources(src):
    """The top-level kernel/*.c files, by stem."""
    return sorted(f[:-2] for f in os.listdir(src) if f.endswith(".c"))


def include_graph(src, stems):
    """stem -> set of stems whose header it includes, following kernel headers."""
    def direct(path):
        try:
            with open(path, errors="replace") as f:
                return INCLUDE.findall(f.read())
        except OSError:
            return []

    graph = {}
    for stem in stems:
        seen, todo = set(), direct(os.path.join(src, stem + ".c"))
        while todo:
            h = todo.pop()
            if h in seen or not os.path.exists(os.path.join(src, h)):
                continue  # lib/ and fs/ headers are not the kernel's
            seen.add(h)
            todo.extend(direct(os.path.join(src, h)))
        graph[stem] = {h[:-2] for h in seen if h.endswith(".h") and h[:-2] in stems} - {stem}
    return graph


def nm(path):
    """(defined global symbols, undefined symbols) of one object file."""
    try:
        out = subprocess.run(["nm", path], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"layering: cannot read symbols of {path}: {e}")
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCVW":
            defined.add(parts[2])
    return defined, undefined


def call_graph(obj, stems):
    """stem -> set of stems defining a symbol it references."""
    syms = {}
    for stem in stems:
        path = os.path.join(obj, stem + ".o")
        if not os.path.exists(path):
            sys.exit(f"layering: {path} is missing: build the kernel first (make)")
        syms[stem] = nm(path)
    owner = {s: stem for stem, (defined, _) in syms.items() for s in defined}
    return {stem: {owner[s] for s in undefined if s in owner} - {stem}
            for stem, (_, undefined) in syms.items()}


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def raw_atomics(root="."):
    """FILE:LINE: what, for each __atomic builtin in ATOMIC_DIRS outside ATOMIC_HOMES."""
    out = []
    for d in ATOMIC_DIRS:
        for name in sorted(os.listdir(os.path.join(root, d))):
            path = os.path.join(d, name)
            if not name.endswith((".c", ".h")) or path in ATOMIC_HOMES:
                continue
            with open(os.path.join(root, path), errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = RAW_ATOMIC.search(line)
                    if m:
                        out.append(f"{path}:{number}: {m.group(0)}: use lib/atomic.h's form")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default="kernel")
    ap.add_argument("--obj", default="build/obj/kernel")
    ap.add_argument("--seam", default="platform", help="the file cycles may pass through")
    args = ap.parse_args()
    stems = sources(args.src)
    if args.seam not in stems:
        sys.exit(f"layering: {args.src}/{args.seam}.c is missing: expected the seam there")
    bad = 0
    for kind, graph in (("include", include_graph(args.src, stems)),
                        ("call", call_graph(args.obj, stems))):
        graph = {v: es - {args.seam} for v, es in graph.items() if v != args.seam}
        edges = sum(len(es) for es in graph.values())
        found = cycles(graph)
        for comp in found:
            inside = ", ".join(f"{a}->{b}" for a in comp for b in sorted(graph[a]) if b in comp)
            print(f"layering: {kind} cycle among kernel/{{{','.join(comp)}}}.c: {inside}")
        bad += len(found)
        print(f"layering: {kind} graph: {len(graph)} files, {edges} edges, "
              f"{len(found)} cycle(s) outside kernel/{args.seam}.c")
    raw = raw_atomics()
    for line in raw:
        print(f"layering: raw atomic: {line}")
    print(f"layering: {len(raw)} raw __atomic builtin(s) in {', '.join(ATOMIC_DIRS)} "
          f"outside {' and '.join(ATOMIC_HOMES)}")
    return 1 if bad or raw else 0


if __name__ == "__main__":
    sys.exit(main())
