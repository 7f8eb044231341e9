#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# host_listed.sh - the host test lines of tests/checks/checks.tab and `make -C tests/host
# list` name the same programs with the same arguments and expectations.
#
# Why: tests/host's Makefile declares what it builds, the table what is run; a test added
# there without its line here (or a line left behind) would silently not run.  Each
# difference is one line.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
make -s -C tests/host list | python3 -c '
import re, sys
root = sys.argv[1]
want = {}
for line in sys.stdin:
    name, expect, program, *args = line.split()
    check = "host-" + name + ("" if expect == "pass" else "-must-fail")
    want[check] = ("must " + expect, " ".join([program.replace(root + "/", "")] + args))
have = {}
for line in open("tests/checks/checks.tab"):
    f = [x.strip() for x in line.split("|", 5)]
    if len(f) == 6 and f[0].startswith("host-test_"):
        have[f[0]] = (f[2], f[5].replace("tests/checks/after.sh build/test/host-build.check ", "", 1))
bad = 0
for n in sorted(set(want) | set(have)):
    if want.get(n) != have.get(n):
        bad += 1
        print(f"{n}: tests/host lists {want.get(n)}, checks.tab has {have.get(n)}")
print(f"{len(want)} host tests listed, {bad} differences")
sys.exit(1 if bad else 0)' "$root"
