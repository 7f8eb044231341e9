#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""screen_check.py - judge the final screen a kernel run left, from its serial log.

    screen_check.py LOG [--bench] [--halted] [--picture-text TXT]

With screen.dump=1 the kernel sends what the screen shows at the end over
serial: a line "# SCREEN R x C", then one line "# SCREEN NN |text" per row
(text without trailing blanks).  The screen must hold the results page:
the verdict that matches the log's verdict line, the machine (CPU model,
CPUs online, APIC mode, TSC rate and source), one row per suite the KTAP
log ran with its verdict and counts, the first failure or "no failures";
with --bench, the refcount and pathwalk tables with xadd, spinlock, lockref
and the lockref/spinlock ratio; no JSON line; at most 25 rows of text and
80 columns when the screen is 80 x 25.  With --halted the log must also
end in the kernel's "halted:" line for exit=auto (no debug-exit device).
With --picture-text, TXT (what tools/boot/screendump.py --text read off QEMU's
picture of the screen) must show exactly the dumped rows: the pixels say
what the kernel's shadow of the screen says.
Prints one line per problem, or one line saying the screen is right.
"""
import argparse
import re
import sys

import kernel_log

HEAD = re.compile(r"^# SCREEN (\d+) x (\d+)$")
ROW = re.compile(r"^# SCREEN (\d\d) \|(.*)$")
SUITE = re.compile(r"^(ok|not ok) \d+ (\S+)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--halted", action="store_true")
    ap.add_argument("--picture-text")
    args = ap.parse_args()
    try:
        numbered, _ = kernel_log.read(args.log)
    except kernel_log.LogError as e:
        sys.exit(f"screen_check: {e}")
    lines = [text for _, text in numbered]
    size, rows, suites, result = None, {}, {}, kernel_log.verdict(numbered)
    for l in lines:
        if m := HEAD.match(l):
            size = (int(m.group(1)), int(m.group(2)))
        elif m := ROW.match(l):
            rows[int(m.group(1))] = m.group(2)
        elif m := SUITE.match(l):
            suites[m.group(2)] = m.group(1)
    if size is None:
        print(f"screen_check: {args.log}: no '# SCREEN R x C' line (boot with screen.dump=1 "
              "and the screen console)")
        return 1
    text = [rows.get(i, "") for i in range(size[0])]
    screen = "\n".join(text)
    problems = []

    def need(pattern, what):
        if not re.search(pattern, screen, re.M):
            problems.append(f"the screen lacks {what} (/{pattern}/)")

    if len(rows) != size[0]:
        problems.append(f"{len(rows)} rows dumped for a screen of {size[0]}")
    if result not in ("pass", "fail"):
        problems.append("no verdict line (pass or fail) in the log")
    else:
        need(rf"RESULT {result.upper()}\b", f"the verdict RESULT {result.upper()}")
    need(r"^ CPU   \S", "the CPU model line")
    need(r"\d+ of \d+ CPUs? online, x2?apic, TSC \d+\.\d{3} MHz from \w+", "the machine line")
    for name, verdict in suites.items():
        word = "ok" if verdict == "ok" else "FAILED"
        need(rf"^ {re.escape(name)} +{word} +\d+ +\d+ +\d+ +\d+", f"suite {name}'s row ({word})")
    if not suites:
        problems.append("the log has no top-level KTAP suite results")
    need(r"first failure: |no failures", "the first failure (or 'no failures')")
    if args.bench:
        for bench in ("refcount", "pathwalk"):
            need(rf"^ {bench} +CPUs +xadd/s +spinlock/s +lockref/s +lockref/spinlock",
                 f"the {bench} table header")
        need(r"^ +\d+ +\S+ +\S+ +\S+ +\d+\.\d\d$", "a table row with a lockref/spinlock ratio")
    if re.search(r"# (ENV|BENCH|TRACE) \{", screen):
        problems.append("a JSON line is on the screen")
    if size == (25, 80) and any(len(t) > 80 for t in text):
        problems.append("a row wider than 80 columns")
    if args.halted and not any(l.startswith("halted: result ") and "exit=auto" in l
                               for l in lines[-3:]):
        problems.append("the log does not end in 'halted: ... (exit=auto)'")
    if args.picture_text:
        try:
            with open(args.picture_text) as f:
                seen = f.read().split("\n")[:size[0]]
        except OSError as e:
            seen = []
            problems.append(f"no picture text: {e}")
        for i, (want, got) in enumerate(zip(text, seen)):
            if want != got:
                problems.append(f"row {i} of the picture reads '{got}', the dump says '{want}'")
                break
        if seen and len(seen) != size[0]:
            problems.append(f"the picture has {len(seen)} rows of text, the dump {size[0]}")
    verdict = problems or [f"the {size[0]} x {size[1]} screen shows the results page "
                           f"({len(suites)} suite{'' if len(suites) == 1 else 's'}{', benchmarks' if args.bench else ''})"]
    print("\n".join(f"screen_check: {args.log}: {line}" for line in verdict))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
