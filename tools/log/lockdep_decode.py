#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lockdep_decode.py - the code addresses of lockdep, kcsan and panic reports as file:line.

Why: the kernel prints each acquisition in a report as "'class' at 0xADDR",
the return address of the lock call (docs/lockdep.md); what a reader wants
is the line that took the lock.  This reads a log (a file or stdin), and
after every address in a "lockdep:" or "kcsan:" line (the two sites of a
data race, docs/kcsan.md) writes "(function file:line)" from
the ELF's debug information, with binutils' addr2line, as Linux's
scripts/decode_stacktrace.sh does.  Each address is looked up less one byte:
a return address is the first byte after the call, which may belong to the
next line.  A kcsan line's data address ("on 0xADDR") gets the name of the
variable that holds it, from the ELF's symbols (nm): "(counter)", "(cpus+0x48)".

    tools/log/lockdep_decode.py build/kernel.elf LOG
    tools/log/lockdep_decode.py build/kcsan/kernel.elf LOG     (make kcsan's kernel)
    tools/log/lockdep_decode.py --offset 0x555555554000 build/host/plain/test_lockdep LOG
    tools/log/lockdep_decode.py --sites build/kernel.elf LOG    (only those lines: make run's ending)

A panic backtrace's frames ("  #1 0x107922") are decoded too.  Where the
kernel printed its own name for an address ("at 0x13a3fa (add_all+0x1a/0x80)",
from its symbol table), the file:line decoding replaces it.

--offset is subtracted from every address first: the load address of a
position-independent host program (the kernel runs where it is linked: 0).
Exit status: 0 with the log decoded, 1 with one line naming the input that
could not be read or decoded.
"""
import argparse
import re
import subprocess
import sys

# A code address, and the kernel's own name for it when it printed one
# ("at 0x13a3fa (add_all+0x1a/0x80)", lib/printf.h's %pB): the decoding replaces that name.
ADDR = re.compile(r"\bat (0x[0-9a-fA-F]+)(?: \([\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+\))?")
# The lines whose "at 0x..." addresses are code addresses.
DECODED = re.compile(r"\b(lockdep|kcsan):")
# A frame of a panic backtrace (kernel/panic.c): "  #1 0x107922 (ktest_run+0xe2/0x3e5)".
FRAME = re.compile(r"^  #(\d+) (0x[0-9a-fA-F]+)(?: \([\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+\))?")
# A panic's register dump: its backtrace's frame #0 is the faulting instruction itself.
FAULT = re.compile(r"^PANIC: rip ")
# A kcsan line's data address ("on 0x..."): named by the symbol that holds it.
DATA = re.compile(r"^kcsan: .*?\bon (0x[0-9a-fA-F]+)")


def data_symbols(elf):
    """[(start, size, name)] of the ELF's data objects, by address (binutils' nm)."""
    try:
        out = subprocess.run(["nm", "-S", "-n", "--defined-only", elf], check=True,
                             capture_output=True, text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError) as e:
        raise ValueError(f"nm on {elf}: {e}") from e
    syms = []
    for line in out:
        f = line.split()
        if len(f) == 4 and f[2] in "bBdDrRgGsS":
            syms.append((int(f[0], 16), int(f[1], 16), f[3]))
    return syms


def data_name(syms, addr):
    """ "name" or "name+off" of the object holding @addr, or None."""
    for start, size, name in syms:
        if start <= addr < start + size:
            return name if addr == start else f"{name}+{addr - start:#x}"
    return None


def decode(elf, addrs):
    """{address: "function file:line"} from addr2line, for the (already offset) return addresses.

    An address inside an inlined function (fs_node_lock in fs_impl.h) names
    the function it was inlined into first, at the line of the call, then
    "via" the inlined one: the caller's line is the one a reader wants.
    """
    if not addrs:
        return {}
    want = sorted(set(addrs))
    try:
        out = subprocess.run(["addr2line", "-a", "-f", "-i", "-s", "-e", elf] +
                             ["%#x" % (a - 1) for a in want],
                             check=True, capture_output=True, text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError) as e:
        raise ValueError(f"addr2line on {elf}: {e}") from e
    frames = []  # per address: [(function, file:line), ...], innermost first
    i = 0
    while i < len(out):
        if out[i].startswith("0x"):  # -a: each address's frames follow its own line
            frames.append([])
            i += 1
        elif frames and i + 1 < len(out):
            frames[-1].append((out[i], out[i + 1].split(" (")[0]))
            i += 2
        else:
            raise ValueError(f"addr2line on {elf}: unexpected output line '{out[i]}'")
    if len(frames) != len(want) or not all(frames):
        raise ValueError(f"addr2line on {elf}: no answer for some of {len(want)} addresses")

    def name(fr):
        outer = f"{fr[-1][0]} {fr[-1][1]}"
        return outer if len(fr) == 1 else f"{outer} via {fr[0][0]} {fr[0][1]}"
    return {a: name(fr) for a, fr in zip(want, frames)}


def frame_lookups(lines):
    """{line index: the address to look up} for each backtrace frame: a return address as
    it is, the faulting instruction of frame #0 after a register dump plus one (decode
    looks up one byte before every address)."""
    out, fault = {}, False
    for i, line in enumerate(lines):
        if FAULT.search(line):
            fault = True
        m = FRAME.search(line)
        if m:
            exact = fault and m.group(1) == "0"
            out[i] = int(m.group(2), 16) + (1 if exact else 0)
            if exact:
                fault = False
    return out


def decode_lines(lines, elf, offset, sites_only=False):
    """The lines with every address of a lockdep or kcsan line, and of each backtrace frame,
    followed by its decoding (the kernel's own name for it replaced).  @sites_only: only
    those lines."""
    frames = frame_lookups(lines)
    addrs = [int(m.group(1), 16) - offset for line in lines if DECODED.search(line)
             for m in ADDR.finditer(line)] + [a - offset for a in frames.values()]
    names = decode(elf, addrs)
    syms = data_symbols(elf) if any(DATA.search(line) for line in lines) else []

    def one(i, line):
        if i in frames:
            m = FRAME.search(line)
            return f"{line[:m.end(2)]} ({names[frames[i] - offset]}){line[m.end():]}"
        if not DECODED.search(line):
            return line
        line = ADDR.sub(lambda m: f"at {m.group(1)} ({names[int(m.group(1), 16) - offset]})",
                        line)
        m = DATA.search(line)
        var = data_name(syms, int(m.group(1), 16) - offset) if m else None
        return line[:m.end()] + f" ({var})" + line[m.end():] if var else line
    return [one(i, line) for i, line in enumerate(lines)
            if not sites_only or i in frames or (DECODED.search(line) and ADDR.search(line))]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("elf", help="the ELF with debug information (build/kernel.elf)")
    p.add_argument("log", nargs="?", help="the log (default: stdin)")
    p.add_argument("--offset", default="0", help="load address to subtract (host PIE programs)")
    p.add_argument("--sites", action="store_true",
                   help="print only the lines with code addresses, decoded (make run, make kcsan)")
    a = p.parse_args(argv)
    try:
        offset = int(a.offset, 0)
    except ValueError:
        print(f"lockdep_decode: --offset '{a.offset}': expected a number such as 0x5555", file=sys.stderr)
        return 1
    try:
        text = open(a.log, errors="replace").read() if a.log else sys.stdin.read()
    except OSError as e:
        print(f"lockdep_decode: {a.log}: {e.strerror}", file=sys.stderr)
        return 1
    try:
        out = decode_lines(text.splitlines(), a.elf, offset, a.sites)
    except ValueError as e:
        print(f"lockdep_decode: {e}", file=sys.stderr)
        return 1
    if out or not a.sites:
        print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
