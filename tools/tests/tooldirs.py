# SPDX-License-Identifier: MIT
"""tooldirs.py - where the tools live, for their tests.

tools/ keeps one folder per concern (bench, boot, house, log, trace: the README's layout
table).  A test imports this first: every folder goes on sys.path, so `import kernel_log`
or `import bench_report` works whichever folder holds the module, and tool(NAME) gives the
path of a tool to run as a program.
"""

import os
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)
GROUPS = ("bench", "boot", "house", "log", "trace")
for _group in GROUPS:
    sys.path.insert(0, os.path.join(TOOLS, _group))


def tool(name):
    """The path of tools/GROUP/NAME, for whichever group holds NAME."""
    for group in GROUPS:
        path = os.path.join(TOOLS, group, name)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"no tool {name} in any of tools/{{{','.join(GROUPS)}}}")
