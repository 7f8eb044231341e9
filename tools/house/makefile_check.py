#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""makefile_check.py - every Makefile stays short, and `make help` names every target.

    tools/house/makefile_check.py [MAKEFILE...]     (default: every Makefile and .mk of the repo)

Why: a pipeline written as a recipe grows into a shell program nobody reads
in make's quoting; in tools/ it is a script with comments and a usage line.
So no recipe may be longer than MAX_RECIPE physical lines (continuation lines
count), and every .PHONY target of the root Makefile must appear as
"make TARGET" in its head comment, which `make help` prints.  Prints one line
per problem, naming the file and line; exit status 1 if there is any.
"""
import re
import sys
from pathlib import Path

MAX_RECIPE = 3
ROOT = Path(__file__).resolve().parents[2]
RULE = re.compile(r"^(?!(?:ifn?eq|ifn?def|else|endif|define|endef|include|-include|export)\b)"
                  r"[^\s#=][^=]*?:(?![=:])")


def recipes(lines):
    """(line number of the rule, physical lines of its recipe) of every rule with a recipe."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("\t") or not line.strip() or line.startswith("#"):
            i += 1
            continue
        rule = RULE.match(line)
        start = i
        while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):  # the logical line
            i += 1
        i += 1
        if not rule:
            continue
        n = 0
        while i < len(lines) and lines[i].startswith("\t"):
            n, i = n + 1, i + 1
        if n:
            out.append((start + 1, n))
    return out


def help_problems(path, text):
    """.PHONY targets of @text that its head comment does not name as `make TARGET`."""
    head = []
    for line in text.splitlines()[1:]:
        if not line.startswith("#"):
            break
        head.append(line)
    named = set(re.findall(r"\bmake ([a-z][\w-]*)", "\n".join(head)))
    phony = re.search(r"^\.PHONY:((?:.*\\\n)*.*)$", text, re.M)
    targets = phony.group(1).replace("\\\n", " ").split() if phony else []
    return [f"{path}: target '{t}' is not in the head comment that `make help` prints"
            for t in targets if t != "all" and t not in named]


def main(argv):
    paths = [Path(p) for p in argv] or sorted(
        [ROOT / "Makefile"] + list(ROOT.glob("tests/**/Makefile")) + list(ROOT.glob("tests/**/*.mk"))
        + list(ROOT.glob("tools/*.mk")))
    problems = []
    for path in paths:
        try:
            text = path.read_text()
        except OSError as e:
            problems.append(f"{path}: cannot read: {e.strerror}")
            continue
        for number, n in recipes(text.splitlines()):
            if n > MAX_RECIPE:
                problems.append(f"{path}:{number}: a recipe of {n} lines (at most {MAX_RECIPE}: "
                                "a longer one is a script in tools/)")
        if path.resolve() == ROOT / "Makefile":
            problems += help_problems(path, text)
    for p in problems:
        print(f"makefile_check: {p}")
    if not problems:
        print(f"makefile_check: {len(paths)} Makefiles, no recipe over {MAX_RECIPE} lines, "
              "every target in make help")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
