#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tsc_check.py - compare the TSC frequency two boots measured.

    tsc_check.py REFERENCE_LOG LOG [--percent P]

Reads the `# ENV {json}` line of each serial log.  Passes when LOG's
tsc_source is a real clock (not "guess") and its tsc_khz lies within P
percent (default 1) of REFERENCE_LOG's.  Under QEMU TCG the guest TSC runs
at the host's rate, so boots that calibrate against different clocks (PIT,
HPET, ACPI PM timer) must agree.  Prints one line either way.
"""
import argparse
import sys

import kernel_log


def env_of(path):
    """The JSON object of the first `# ENV ` line of @path, or exit with a one-line reason."""
    try:
        lines, _ = kernel_log.read(path)
        env = next((rec for _, kind, rec in kernel_log.records(lines, path) if kind == "ENV"),
                   None)
    except kernel_log.LogError as e:
        sys.exit(f"tsc_check: {e}")
    if env is None:
        sys.exit(f"tsc_check: {path}: no '# ENV {{...}}' line (the kernel never got that far)")
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reference")
    ap.add_argument("log")
    ap.add_argument("--percent", type=float, default=1.0)
    args = ap.parse_args()
    ref, env = env_of(args.reference), env_of(args.log)
    for path, e in ((args.reference, ref), (args.log, env)):
        if not isinstance(e.get("tsc_khz"), int) or e["tsc_khz"] <= 0:
            sys.exit(f"tsc_check: {path}: ENV tsc_khz missing or not a positive integer")
    if env.get("tsc_source") in (None, "guess"):
        sys.exit(f"tsc_check: {args.log}: tsc_source is {env.get('tsc_source')!r}: no clock "
                 "was found to calibrate against")
    off = (env["tsc_khz"] - ref["tsc_khz"]) * 100.0 / ref["tsc_khz"]
    verdict = "within" if abs(off) <= args.percent else "NOT within"
    print(f"tsc_check: {env['tsc_khz']} kHz from {env['tsc_source']} vs {ref['tsc_khz']} kHz "
          f"from {ref.get('tsc_source')}: {off:+.3f}%, {verdict} {args.percent}%")
    return 0 if abs(off) <= args.percent else 1


if __name__ == "__main__":
    sys.exit(main())
