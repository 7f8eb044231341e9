#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""readme_check.py - README.md's layout tables name every folder and every lib/ file.

    tools/house/readme_check.py [ROOT]

Why: the "Where things are" section is the first map a newcomer reads, and a
file added without its row makes the map wrong without anyone noticing.  Every
top-level folder the repository tracks must appear as `NAME/` in a row of
that section, and every file in lib/ as `NAME`, or as `STEM.[ch]` for a .c
and .h pair.  A lock kind's header (one that lib/spinlock_kinds.h, the
table of kinds, includes) needs no row of its own while the table has one
(as `spinlock_kinds.h` or `spinlock_kinds.[ch]`):
adding a kind touches its header and the table only (docs/howto.md).
Prints one line per missing name; exit status 1 if any.

The tracked paths come from `git ls-files`.  Where git is missing or the tree
is no checkout (a tarball, a CI container whose checkout step had no git), the
tree is walked instead, leaving out what git leaves out: the `.git/` folder and
every path the root `.gitignore` names (the build output among them; `build/`
is left out even without a `.gitignore`), so the verdict is the same with and
without git.  The first line says which source of truth was used.
"""
import fnmatch
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Where things are"
# The table of lock kinds: the kind headers it includes are named through its row.
KIND_TABLE = "spinlock_kinds.h"


# Left out of the walk even when no .gitignore says so: git's own folder, and the
# build output (the Makefile's BUILD), which exists once anything has been built.
ALWAYS_IGNORED = (".git/", "build/")


def ignore_patterns(root):
    """The root .gitignore's patterns and the always-ignored ones, and where they came from.

    Supported: blank lines and # comments, a trailing / for folders only, a leading or
    inner / anchoring to the root, and glob characters.  A ! negation is not, and is
    named rather than silently misread."""
    path = root / ".gitignore"
    lines = path.read_text().splitlines() if path.is_file() else []
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    for pattern in patterns:
        if pattern.startswith("!"):
            raise SystemExit(f"readme_check: .gitignore pattern '{pattern}': negation is "
                             f"not supported by the walk without git")
    source = ".gitignore" if path.is_file() else "no .gitignore"
    return patterns + list(ALWAYS_IGNORED), source


def ignored(rel, is_dir, patterns):
    """Whether the path REL (relative, / separated) matches one of git's ignore patterns."""
    for pattern in patterns:
        dir_only = pattern.endswith("/")
        pattern = pattern.rstrip("/")
        if dir_only and not is_dir:
            continue
        if "/" in pattern:
            if fnmatch.fnmatchcase(rel, pattern.lstrip("/")):
                return True
        elif fnmatch.fnmatchcase(rel.rpartition("/")[2], pattern):
            return True
    return False


def walked(root):
    """Every file under ROOT that git would not ignore, the way `git status` finds them."""
    patterns, source = ignore_patterns(root)
    files = []
    for folder, dirs, names in os.walk(root):
        base = Path(folder).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        dirs[:] = sorted(d for d in dirs if not ignored(prefix + d, True, patterns))
        files += [prefix + n for n in sorted(names) if not ignored(prefix + n, False, patterns)]
    return files, f"the tree without git, less .git/, build/ and {source}"


def tracked(root=ROOT):
    """The paths git tracks, and which source said so: git, or the walk above."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=root, check=True, capture_output=True,
                             text=True).stdout
        return out.split(), "git ls-files"
    except (OSError, subprocess.CalledProcessError):
        return walked(root)


def named(section):
    """Every `code` word of the section's table rows."""
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return {w for line in rows for w in re.findall(r"`([^`]+)`", line)}


def kind_headers(root):
    """The lib/ headers the table of lock kinds includes (none without the table)."""
    table = root / "lib" / KIND_TABLE
    text = table.read_text() if table.is_file() else ""
    return set(re.findall(r'^\s*#\s*include\s+"(\w+\.h)"', text, re.M))


def main(root=ROOT):
    readme = root / "README.md"
    if not readme.is_file():
        print(f"readme_check: {readme}: no such file (expected the project's README.md)")
        return 1
    text = readme.read_text()
    start = text.find(SECTION)
    if start < 0:
        print(f"readme_check: README.md has no '{SECTION}' section")
        return 1
    end = text.find("\n## ", start + len(SECTION))
    words = named(text[start:end if end >= 0 else None])
    files, source = tracked(root)
    print(f"readme_check: the project's files from {source}")
    folders = sorted({p.split("/")[0] for p in files if "/" in p})
    lib = sorted(p[len("lib/"):] for p in files if p.startswith("lib/") and p.count("/") == 1)
    missing = [f"folder {d}/" for d in folders if f"{d}/" not in words]
    table_named = KIND_TABLE in words or KIND_TABLE.replace(".h", ".[ch]") in words
    kinds = kind_headers(root) if table_named else set()
    for name in lib:
        if name in kinds:
            continue
        stem, dot, ext = name.rpartition(".")
        if name not in words and not (ext in ("c", "h") and f"{stem}.[ch]" in words):
            missing.append(f"lib/{name}")
    said = [f"README.md's '{SECTION}' has no row naming {m}" for m in missing]
    print("\n".join(f"readme_check: {line}" for line in said or
                    [f"{len(folders)} folders and {len(lib)} lib/ files, each named"]))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT))
