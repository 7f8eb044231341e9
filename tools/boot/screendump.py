#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""screendump.py - a picture of a running QEMU's screen, through its monitor.

    screendump.py SOCKET OUT.png [--quit] [--wait-log LOG --for TEXT] [--timeout S]
                  [--first S] [--again S] [--text]

SOCKET is the Unix socket of `-monitor unix:SOCKET,server,nowait`
(tools/boot/run-qemu.sh sets it from QEMU_MONITOR).  With --wait-log, first
waits until LOG contains TEXT (e.g. the kernel's "halted:" line), so the
picture shows the final screen; --first S then waits S seconds more (to
be well inside a test that TEXT announces).  The monitor's `screendump` writes a PPM
(P6); it is turned into a PNG with zlib alone, so no image package is
needed.  Prints one line: the picture, its size, and how many pixels are
not black (a blank screen is a failure, status 1).  --again S takes a
second picture S seconds later (OUT-2.png) and fails unless the bottom text
row (16 pixel rows: the status line of the 8x16 font and of VGA text) has
changed: the progress line moves.  --text also reads each picture back as
text (OUT.txt): a framebuffer console drawn with the kernel's own font
(kernel/font8x16.c, centred 8x16 cells as kernel/screen.h says) is read
cell by cell, lit pixels against each glyph; a cell matching no glyph is
'?'.  (VGA text mode is drawn by the VGA BIOS font: not readable here.)
--quit then ends QEMU.
"""
import argparse
import os
import re
import socket
import struct
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "log"))  # kernel_log
import kernel_log

STATUS_PIXEL_ROWS = 16  # one row of the 8x16 font, and of 720x400 VGA text
FONT_W, FONT_H = 8, 16
MAX_COLS, MAX_ROWS = 480, 135  # kernel/screen.h SCREEN_MAX_*
FONT_C = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernel", "font8x16.c")


def font():
    """Glyph rows (16 bytes, MSB leftmost) -> character, from kernel/font8x16.c."""
    with open(FONT_C) as f:
        src = f.read()
    glyphs = {}
    for m in re.finditer(r"/\* 0x([0-9a-f]{2}) .*?\*/\s*\{(.*?)\}", src, re.S):
        rows = bytes(int(v, 16) for v in re.findall(r"0x([0-9a-f]{2}),", m.group(2)))
        if len(rows) == FONT_H:
            glyphs.setdefault(rows, chr(int(m.group(1), 16)))
    return glyphs


def read_text(w, h, rgb):
    """The text a framebuffer console shows, row by row, trailing blanks dropped."""
    glyphs = font()
    cols, rows = min(w // FONT_W, MAX_COLS), min(h // FONT_H, MAX_ROWS)
    x0, y0 = (w - cols * FONT_W) // 2, (h - rows * FONT_H) // 2
    lines = []
    for r in range(rows):
        line = []
        for c in range(cols):
            cell = bytearray()
            for y in range(FONT_H):
                at = ((y0 + r * FONT_H + y) * w + x0 + c * FONT_W) * 3
                bits = 0
                for x in range(FONT_W):
                    if rgb[at + 3 * x] or rgb[at + 3 * x + 1] or rgb[at + 3 * x + 2]:
                        bits |= 0x80 >> x
                cell.append(bits)
            line.append(glyphs.get(bytes(cell), "?"))
        lines.append("".join(line).rstrip())
    return "\n".join(lines) + "\n"


def monitor(path, commands, timeout):
    """Send each command to the QEMU monitor at @path; return what it answered."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    out = b""
    for cmd in commands:
        s.sendall(cmd.encode() + b"\n")
        time.sleep(1)  # the monitor answers asynchronously; screendump takes a moment
    s.settimeout(0.5)
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except socket.timeout:
        pass
    s.close()
    return out.decode(errors="replace")


def read_ppm(path):
    """(width, height, RGB bytes) of a binary PPM (P6, maxval 255)."""
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError(f"{path}: not a P6 PPM with maxval 255")
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[pos + 1:pos + 1 + w * h * 3]


def write_png(path, w, h, rgb):
    """A PNG (colour type 2, 8 bits) of @rgb, filter 0 on every row (PNG spec 11.2)."""
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))

    rows = b"".join(b"\0" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(rows, 9)))
        f.write(chunk(b"IEND", b""))


def wait_for(log, text, deadline):
    while time.time() < deadline:
        if any(text in line for _, line in kernel_log.read_lines(log)[0]):
            return True
        time.sleep(1)
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("socket")
    ap.add_argument("out")
    ap.add_argument("--quit", action="store_true")
    ap.add_argument("--wait-log")
    ap.add_argument("--for", dest="text")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--first", type=float, default=0)
    ap.add_argument("--again", type=float, default=0)
    ap.add_argument("--text", dest="as_text", action="store_true")
    args = ap.parse_args()
    deadline = time.time() + args.timeout
    if args.wait_log and not wait_for(args.wait_log, args.text, deadline):
        print(f"screendump: '{args.text}' did not appear in {args.wait_log} "
              f"within {args.timeout:.0f} s")
        return 1
    while not os.path.exists(args.socket):
        if time.time() > deadline:
            print(f"screendump: no monitor socket {args.socket} within {args.timeout:.0f} s")
            return 1
        time.sleep(0.5)
    time.sleep(args.first)
    pictures = [args.out]
    if args.again:
        root, ext = os.path.splitext(args.out)
        pictures.append(f"{root}-2{ext}")
    shots = []
    for i, out in enumerate(pictures):
        if i:
            time.sleep(args.again)
        last = i + 1 == len(pictures)
        shot = take(args.socket, out, args.quit and last)
        if shot is None:
            return 1
        shots.append(shot)
        if args.as_text:
            with open(os.path.splitext(out)[0] + ".txt", "w") as f:
                f.write(read_text(*shot))
    if args.again:
        (w1, h1, a), (w2, h2, b) = shots
        row = w1 * 3 * STATUS_PIXEL_ROWS
        if (w1, h1) != (w2, h2) or a[-row:] == b[-row:]:
            print(f"screendump: the bottom text row did not change in {args.again:.0f} s")
            return 1
        print(f"screendump: the bottom text row changed in {args.again:.0f} s")
    return 0 if all(count_lit(rgb) for _, _, rgb in shots) else 1


def count_lit(rgb):
    return sum(1 for i in range(0, len(rgb), 3) if rgb[i] or rgb[i + 1] or rgb[i + 2])


def take(sock, out, quit_after):
    """One picture into @out (PNG): (width, height, rgb), or None after saying why."""
    fd, ppm = tempfile.mkstemp(suffix=".ppm")
    os.close(fd)
    try:
        monitor(sock, [f"screendump {ppm}"] + (["quit"] if quit_after else []), 10)
        w, h, rgb = read_ppm(ppm)
    except (OSError, ValueError) as e:
        print(f"screendump: no picture from the monitor at {sock}: {e}")
        return None
    finally:
        if os.path.exists(ppm):
            os.unlink(ppm)
    write_png(out, w, h, rgb)
    print(f"screendump: {out}: {w} x {h}, {count_lit(rgb)} pixels not black")
    return w, h, rgb

if __name__ == "__main__":
    sys.exit(main())
