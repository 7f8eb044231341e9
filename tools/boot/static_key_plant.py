#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""static_key_plant.py - a kernel image with one static-key site spoiled.

    tools/boot/static_key_plant.py ELF KEY OUT

Why: kernel/static_key.c validates every patch site before it writes one
(the site inside the text, holding the 5-byte NOP static_key_on() emits or
its JMP); a site that fails must be named in one line, its key must stay
off and the boot must go on.  No build produces such a site, so this makes
one: it copies ELF to OUT with the first site of the key named KEY (a
symbol, e.g. trace_key) in the .static_keys table overwritten by five
1-byte NOPs, valid code that is not the expected instruction.  A boot of
OUT that turns KEY on is the negative control (static-key-bad-site in tests/checks/checks.tab).
Prints the site's address; exit status 1 if KEY has no site.
"""
import struct
import subprocess
import sys

SITE = struct.Struct("<QQQ")  # site, target, key: lib/static_key.h, struct static_key_site
NOP5 = bytes([0x0F, 0x1F, 0x44, 0x00, 0x00])
SPOIL = b"\x90" * len(NOP5)


def symbols(elf):
    out = subprocess.run(["nm", elf], capture_output=True, text=True, check=True).stdout
    return {p[2]: int(p[0], 16) for p in (line.split() for line in out.splitlines()) if len(p) == 3}


def sections(elf):
    """[(address, file offset, size)] of the sections with file contents."""
    out = subprocess.run(["readelf", "-SW", elf], capture_output=True, text=True,
                         check=True).stdout
    found = []
    for line in out.splitlines():
        p = line.replace("[ ", "[").split()
        if len(p) > 6 and p[0].startswith("[") and p[1].startswith(".") and p[2] != "NOBITS":
            found.append((int(p[3], 16), int(p[4], 16), int(p[5], 16)))
    return found


def offset(secs, addr):
    for start, off, size in secs:
        if start and start <= addr < start + size:
            return off + addr - start
    raise ValueError(f"address {addr:#x} is in no section with contents")


def site_table(elf, data, syms, secs):
    """[(site, target, key)] of the ELF's .static_keys table (static_keys_start..end)."""
    start, end = syms["static_keys_start"], syms["static_keys_end"]
    table = offset(secs, start)
    return [SITE.unpack_from(data, table + i * SITE.size) for i in range((end - start) // SITE.size)]


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    elf, key, out = argv
    syms, secs = symbols(elf), sections(elf)
    data = bytearray(open(elf, "rb").read())
    for site, _, owner in site_table(elf, data, syms, secs):
        if owner != syms.get(key):
            continue
        at = offset(secs, site)
        if bytes(data[at:at + len(NOP5)]) != NOP5:
            print(f"static_key_plant: {key} site {site:#x} is not the expected NOP",
                  file=sys.stderr)
            return 1
        data[at:at + len(NOP5)] = SPOIL
        with open(out, "wb") as f:
            f.write(data)
        print(f"static_key_plant: {key} site {site:#x} spoiled in {out}")
        return 0
    print(f"static_key_plant: {key}: no site in {elf}'s .static_keys", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
