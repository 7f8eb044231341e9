#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""static_key_park_check.py - a parked CPU runs no static-key site.

    tools/house/static_key_park_check.py [ELF]          default build/kernel.elf
    tools/house/static_key_park_check.py --self-test

Why: the kernel rewrites static-key sites while every other CPU waits in its
NMI handler (kernel/static_key.c, docs/static-keys.md).  The argument that
no CPU executes a half-written site rests on that handler's path holding no
site: the NMI entry (trap_dispatch and trap_handle, their own bytes), the
NMI's handler (trap_nmi: the fence's answer, the park itself) and every
function it calls, transitively.  A site there
(a trace hook, a lock taken on the way) would be executed while it is
written.  Nothing in the C says so; the ELF does.  So this reads the site
table (.static_keys, bracketed by static_keys_start and static_keys_end),
walks the direct calls and jumps from the roots below with objdump, and
fails naming each site inside a function on the path.  The path stops at
the panics: a CPU that panics while parked (its writer never released it)
is past caring about torn sites.

Exit status: 0 when no site is on the path, 1 otherwise.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "boot"))
import static_key_plant  # noqa: E402  (the site table's layout and reader)

# The NMI's own handler (kernel/trap.c), walked with all it calls.
ROOTS = ["trap_nmi"]
# The entry's functions, which call trap_nmi for an NMI and other handlers for other vectors:
# their own bytes only (the other vectors' handlers never run on a parked CPU: IF is clear).
BODY_ONLY = ["trap_dispatch", "trap_handle"]
# Failure paths: where the walk stops (their own callees run only once the run is lost).
STOPS = {"panic", "panic_exception"}
CALL = re.compile(r"^\s*[0-9a-f]+:\s+(call|jmp)\w*\s+([0-9a-f]+) <([\w.]+)(\+0x[0-9a-f]+)?>")
HEADER = re.compile(r"^([0-9a-f]+) <([\w.]+)>:$")


def symbols(elf):
    """{name: (address, size)} of the ELF's sized symbols."""
    out = subprocess.run(["nm", "-S", elf], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4:
            syms[p[3]] = (int(p[0], 16), int(p[1], 16))
        elif len(p) == 3:
            syms.setdefault(p[2], (int(p[0], 16), 0))
    return syms


def site_addresses(elf):
    """Every site's address, from the .static_keys table in the file (static_key_plant.py)."""
    table = static_key_plant.site_table(elf, open(elf, "rb").read(),
                                        static_key_plant.symbols(elf),
                                        static_key_plant.sections(elf))
    return [site for site, _, _ in table]


def callees(elf):
    """{function: set of functions it calls or jumps to directly}."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", elf], capture_output=True,
                         text=True, check=True).stdout
    graph, cur = {}, None
    for line in out.splitlines():
        m = HEADER.match(line)
        if m:
            cur = graph.setdefault(m.group(2), set())
            continue
        m = CALL.match(line)
        if m and cur is not None:
            cur.add(m.group(3))
    return graph


def path_problems(roots, graph, syms, sites, body_only=()):
    """Each site inside a function reachable from @roots, not through STOPS, or in @body_only."""
    seen, todo, problems = set(body_only), list(roots), []
    while todo:
        fn = todo.pop()
        if fn in seen or fn in STOPS:
            continue
        seen.add(fn)
        todo += sorted(graph.get(fn, ()))
    for fn in sorted(seen):
        if fn not in syms:
            problems.append(f"{fn}: on the park path but not in the symbol table")
            continue
        addr, size = syms[fn]
        for s in sites:
            if addr <= s < addr + size:
                problems.append(f"{fn}+{s - addr:#x}: a static-key site on the park path "
                                f"(site {s:#x})")
    return seen, problems


def self_test():
    """A site planted in a function the path calls must be found; one off the path must not."""
    graph = {"root": {"helper", "panic"}, "helper": set(), "panic": {"printk"}, "printk": set()}
    syms = {"root": (0x100, 0x20), "helper": (0x200, 0x20), "panic": (0x300, 0x20),
            "printk": (0x400, 0x20)}
    _, found = path_problems(["root"], graph, syms, [0x210])
    _, clean = path_problems(["root"], graph, syms, [0x410])
    if len(found) != 1 or "helper+0x10" not in found[0] or clean:
        print(f"self-test FAILED: planted {found}, off the path {clean}")
        return False
    print("ok self-test: a site in a callee of the path is found, one behind a panic is not")
    return True


def main(argv):
    if argv == ["--self-test"]:
        return 0 if self_test() else 1
    elf = argv[0] if argv else "build/kernel.elf"
    if not self_test():
        return 1
    syms = symbols(elf)
    sites = site_addresses(elf)
    seen, problems = path_problems(ROOTS, callees(elf), syms, sites, BODY_ONLY)
    for p in problems:
        print("FAIL " + p)
    print(f"{'not ok' if problems else 'ok'} {elf}: {len(seen)} functions on the park path, "
          f"{len(sites)} sites, {len(problems)} on the path")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
