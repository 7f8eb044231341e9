#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make_seeds.py - write the seed corpora of the fuzz harnesses (corpus/<name>/seed-*).

Seeds are small valid inputs in each harness's input format (see the top of
each fuzz_*.c), so the fuzzer starts from inputs that get deep into the
parsers instead of spending its time finding a checksum or a magic number.
Run it again after changing a format.  Inputs that once found a bug are kept
as regress-*: the memory-map entry below 2^64 that put the heap at 0 (written
here), and inputs saved from libFuzzer's artifacts (kept by hand).
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MiB, GiB = 1 << 20, 1 << 30


def write(harness, name, data, prefix="seed-"):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, prefix + name), "wb") as f:
        f.write(data)


def entries(*es):
    return b"".join(struct.pack("<QQII", base, length, typ, 0) for base, length, typ in es)


QEMU_MAP = [(0, 0x9FC00, 1), (0x9FC00, 0x400, 2), (0xF0000, 0x10000, 2),
            (MiB, 511 * MiB, 1), (0xFFFC0000, 0x40000, 2)]
BOGUS = (0xFFFFFFFFFFFFFF00, 0x17, 1)  # the entry that once put the heap at 0

# memmap: floor, ceiling, two reserved ranges, then entries.
head = struct.pack("<6Q", MiB, 4 * GiB, MiB, 3 * MiB, 96 * MiB, 96 * MiB + 4096)
write("memmap", "qemu", head + entries(*QEMU_MAP))
write("memmap", "heap-at-0", head + entries(BOGUS, *QEMU_MAP), "regress-")
write("memmap", "split", head + entries((MiB + 123, 200 * MiB, 1), (4 * GiB, GiB, 1)))


def checksummed(data, at):
    """@data with byte @at set so that all bytes sum to 0 mod 256."""
    data = bytearray(data)
    data[at] = 0
    data[at] = -sum(data) & 0xFF
    return bytes(data)


def mp_table(cpus, others=(1, 2, 3, 4)):
    """An Intel MP configuration table (MP spec 1.4, 4.2): processor entries, then 8-byte ones."""
    body = b"".join(struct.pack("<BBBBII8x", 0, apic_id, 0x14, flags, 0x663, 0)
                    for apic_id, flags in cpus)
    body += b"".join(struct.pack("<B7x", t) for t in others)
    header = struct.pack("<4sHBB8s12sIHHIHBB", b"PCMP", 44 + len(body), 4, 0, b"QEMUCPU ",
                         b"0.1         ", 0, 0, len(cpus) + len(others), 0xFEE00000, 0, 0, 0)
    return checksummed(header + body, 7)


def mp_fps(phys):
    return checksummed(struct.pack("<4sIBBBB4x", b"_MP_", phys, 1, 4, 0, 0), 10)


# mptable: flags (bit 0: fix the table checksum), room for CPUs, floating pointer, table.
write("mptable", "seabios", bytes([0, 8]) + mp_fps(0xF5BA0) +
      mp_table([(0, 3), (1, 1), (2, 1), (3, 1)]))
write("mptable", "disabled-repeat", bytes([1, 2]) + mp_fps(0xF5BA0) +
      mp_table([(0, 3), (1, 0), (0, 1), (0xFF, 1), (5, 1), (6, 1)]))


# multiboot2: total_size, reserved, tags (type, size, body) padded to 8, end tag.
def tag(typ, body):
    t = struct.pack("<II", typ, 8 + len(body)) + body
    return t + b"\0" * (-len(t) % 8)


def mb2(*tags):
    body = b"".join(tags) + tag(0, b"")
    return struct.pack("<II", 8 + len(body), 0) + body


def mmap_tag(es):
    return tag(6, struct.pack("<II", 24, 0) + entries(*es))


fb = struct.pack("<QIIIBBH", 0xFD000000, 4096, 1024, 768, 32, 1, 0) + bytes([16, 8, 8, 8, 0, 8])
rsdp2 = b"RSD PTR " + bytes(28)
write("multiboot2", "qemu", mb2(tag(1, b"run=tests quick\0"), tag(2, b"GRUB 2.06\0"),
                                mmap_tag(QEMU_MAP), tag(8, fb), tag(15, rsdp2), tag(12, bytes(8))))
write("multiboot2", "heap-at-0", mb2(tag(1, b"\0"), mmap_tag([BOGUS] + QEMU_MAP)), "regress-")


# acpi: flags (bit 0: fix checksums), room for CPUs, then chunks (u64 address, u16 length, bytes).
def sdt(sig, body, rev=1):
    return sig + struct.pack("<IBB6s8sI4sI", 36 + len(body), rev, 0, b"BOCHS ", b"BXPC    ",
                             1, b"BXPC", 1) + body


def chunk(addr, data):
    return struct.pack("<QH", addr, len(data)) + data


RSDP, XSDT, RSDT, FADT, MADT, DSDT = 0xF5A40, 0x7FE2000, 0x7FE1000, 0x7FE3000, 0x7FE4000, 0x7FE5000
rsdp = b"RSD PTR " + struct.pack("<B6sBIIQB3s", 0, b"BOCHS ", 2, RSDT, 36, XSDT, 0, bytes(3))
fadt = bytearray(276 - 36)
struct.pack_into("<I", fadt, 40 - 36, DSDT)
struct.pack_into("<HIBB", fadt, 46 - 36, 9, 0xB2, 0xF1, 0xF0)
struct.pack_into("<I", fadt, 64 - 36, 0x604)
struct.pack_into("<H", fadt, 109 - 36, 0)
struct.pack_into("<I", fadt, 112 - 36, 1 << 10)
struct.pack_into("<BBBBQB", fadt, 116 - 36, 1, 8, 0, 1, 0xCF9, 6)
struct.pack_into("<Q", fadt, 140 - 36, DSDT)
madt = struct.pack("<II", 0xFEE00000, 1)
for cpu in range(4):
    madt += struct.pack("<BBBBI", 0, 8, cpu, cpu, 1)
madt += struct.pack("<BBBBII", 1, 12, 0, 0, 0xFEC00000, 0)
madt += struct.pack("<BBBBIH", 2, 10, 0, 0, 2, 0)
madt += struct.pack("<BBBBIH", 2, 10, 0, 9, 9, 0xD)
madt += struct.pack("<BBHIII", 9, 16, 0, 0x100, 1, 7)
s5 = b"\x08_S5_\x12\x08\x04\x0a\x05\x0a\x05\x00\x00"
tables = [chunk(RSDP, rsdp), chunk(XSDT, sdt(b"XSDT", struct.pack("<QQ", FADT, MADT))),
          chunk(RSDT, sdt(b"RSDT", struct.pack("<II", FADT, MADT))),
          chunk(FADT, sdt(b"FACP", bytes(fadt), 6)), chunk(MADT, sdt(b"APIC", madt, 5)),
          chunk(DSDT, sdt(b"DSDT", s5, 2))]
write("acpi", "qemu", bytes([1, 8]) + b"".join(tables))
write("acpi", "qemu-2-cpus", bytes([1, 2]) + b"".join(tables))
rsdp1 = b"RSD PTR " + struct.pack("<B6sBI", 0, b"BOCHS ", 0, RSDT)
write("acpi", "rsdt-only", bytes([1, 4]) + chunk(RSDP, rsdp1) + b"".join(tables[2:]))

# cmdline: one or two lines.
write("cmdline", "tests", b"run=tests quick seed=7")
write("cmdline", "bad", b"run=boot bogus=1 smp.max=lots\nrun=fs")
write("cmdline", "all", b"lockref.policy=v7 lockref.retries=10 lockref.wait=1 console=serial "
                        b"exit=halt torture.secs=2 bench.ms=5 bench.trials=3 "
                        b"torture.busted=lockref selftest.fault=ud smp.max=0x4")

# fs_paths: opcode (create mkdir unlink rmdir rename stat hold), NUL-terminated path(s).
def ops(*items):
    codes = {"create": 0, "mkdir": 1, "unlink": 2, "rmdir": 3, "rename": 4, "stat": 5, "hold": 6}
    out = b""
    for op, *paths in items:
        out += bytes([codes[op]]) + b"".join(p.encode() + b"\0" for p in paths)
    return out


write("fs_paths", "ancestor", ops(("mkdir", "/a"), ("create", "/a/a"), ("rename", "/a/a", "/a"),
                                  ("rename", "/a", "/a/b"), ("stat", "a/./a/")))
write("fs_paths", "held", ops(("mkdir", "/d"), ("mkdir", "/d/e"), ("hold", "/d/e"),
                              ("rmdir", "/d/e"), ("rename", "/d", "/x"), ("unlink", "/x/..")))
write("fs_paths", "dots", ops(("mkdir", "a//b/"), ("rmdir", "/a/.."), ("rename", "/a/.", "/c"),
                              ("create", "/a/" + "n" * 256 + "/"), ("unlink", "/")))
