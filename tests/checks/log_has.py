#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""log_has.py FILE EXPECTATION... - what a log must and must not say, as one command.

    --has RE          some line matches RE (Python regex, searched in each line)
    --lacks RE        no line matches RE
    --count N RE      exactly N lines match RE
    --line K RE       line K matches RE (1 the first line, -1 the last)
    --within START END  the expectations after it look only at the lines from the first
                      one matching START to the next one matching END ('' for the end)

Why: the checks of tests/checks/checks.tab that read another check's serial log were
chains of grep, sed and tail written out as shell blocks; here each is one line of the
table.  Every unmet expectation is said in one line; exit status 0 when all hold.
"""
import re
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n")[0])
        return 2
    path, args = argv[0], argv[1:]
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        every = [l.rstrip("\n") for l in f.read().split("\n")]
    if every and every[-1] == "":
        every.pop()
    lines, unmet, i = every, [], 0
    arity = {"--has": 1, "--lacks": 1, "--count": 2, "--line": 2, "--within": 2}
    while i < len(args):
        opt = args[i]
        if opt not in arity or len(args) - i - 1 < arity[opt]:
            print(f"log_has: '{opt}': expected one of {', '.join(arity)} with its arguments")
            return 2
        vals = args[i + 1:i + 1 + arity[opt]]
        i += 1 + arity[opt]
        if opt == "--within":
            start = next((k for k, l in enumerate(every) if re.search(vals[0], l)), None)
            if start is None:
                unmet.append(f"no line matches /{vals[0]}/ (the start of a section)")
                lines = []
                continue
            end = next((k for k in range(start + 1, len(every)) if vals[1] and re.search(vals[1], every[k])),
                       len(every) - 1)
            lines = every[start:end + 1]
        elif opt == "--has" and not any(re.search(vals[0], l) for l in lines):
            unmet.append(f"no line matches /{vals[0]}/")
        elif opt == "--lacks":
            hit = next((l for l in lines if re.search(vals[0], l)), None)
            if hit is not None:
                unmet.append(f"a line matches /{vals[0]}/: {hit[:120]}")
        elif opt == "--count":
            n = sum(1 for l in lines if re.search(vals[1], l))
            if str(n) != vals[0]:
                unmet.append(f"{n} lines match /{vals[1]}/, not {vals[0]}")
        elif opt == "--line":
            k = int(vals[0])
            line = lines[k - 1 if k > 0 else k] if -len(lines) <= k <= len(lines) and k else None
            if line is None or not re.search(vals[1], line):
                unmet.append(f"line {k} does not match /{vals[1]}/: {line!r}")
    for u in unmet:
        print(f"{path}: {u}")
    return 1 if unmet else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
