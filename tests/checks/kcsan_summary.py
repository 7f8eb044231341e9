#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kcsan_summary.py SERIAL - the race detector's summary of a boot, read back.

Accesses seen, rare lines of the platform watched, no race (tools/log/kernel_log.py
reads the summary line).  Exit status 0 when all three hold.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "log"))
import kernel_log  # noqa: E402


def main(argv):
    summary = kernel_log.kcsan(kernel_log.read(argv[0])[0])
    print(summary)
    good = summary and summary["accesses"] > 0 and summary["rare_site_watchpoints"] > 0 \
        and summary["races"] == 0
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
