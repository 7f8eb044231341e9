#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""readme_check.py - README.md's layout tables name every folder and every lib/ file.

    tools/readme_check.py

Why: the "Where things are" section is the first map a newcomer reads, and a
file added without its row makes the map wrong without anyone noticing.  Every
top-level folder the repository tracks must appear as `NAME/` in a row of
that section, and every file in lib/ as `NAME`, or as `STEM.[ch]` for a .c
and .h pair.  Prints one line per missing name; exit status 1 if any.
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Where things are"


def tracked():
    """The paths git tracks, or every file when this is not a git checkout."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True,
                             text=True).stdout
        return out.split()
    except (OSError, subprocess.CalledProcessError):
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]


def named(section):
    """Every `code` word of the section's table rows."""
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return {w for line in rows for w in re.findall(r"`([^`]+)`", line)}


def main():
    text = (ROOT / "README.md").read_text()
    start = text.find(SECTION)
    if start < 0:
        print(f"readme_check: README.md has no '{SECTION}' section")
        return 1
    end = text.find("\n## ", start + len(SECTION))
    words = named(text[start:end if end >= 0 else None])
    files = tracked()
    folders = sorted({p.split("/")[0] for p in files if "/" in p})
    lib = sorted(p[len("lib/"):] for p in files if p.startswith("lib/") and p.count("/") == 1)
    missing = [f"folder {d}/" for d in folders if f"{d}/" not in words]
    for name in lib:
        stem, dot, ext = name.rpartition(".")
        if name not in words and not (ext in ("c", "h") and f"{stem}.[ch]" in words):
            missing.append(f"lib/{name}")
    said = [f"README.md's '{SECTION}' has no row naming {m}" for m in missing]
    print("\n".join(f"readme_check: {line}" for line in said or
                    [f"{len(folders)} folders and {len(lib)} lib/ files, each named"]))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
