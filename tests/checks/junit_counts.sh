#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# junit_counts.sh - JUnit for every check of this run, read back by a JUnit reader not
# written here (python3-junitparser, under the system interpreter: Debian's Python
# packages import only there).  Its verdict counts must be the checks' records', and a
# negative control must show as a failure with its invariant.  Its table line names
# build/test, so tests/checks/run.py runs it after every other check.
set -u
cd "$(dirname "$0")/../.."
records=$(grep -lE "^verdict=(pass|fail)" build/test/*.check | grep -v '/junit-counts\.check$')
passed=$(grep -h "^verdict=pass" $records | wc -l)
failed=$(grep -h "^verdict=fail" $records | wc -l)
ls $records | sed 's|build/test/||; s|\.check$||' >build/test/run/junit-counts.list
mkdir -p build/test/run/junit-counts
# ktap_junit.py --checks reads DIR/checks.list: this run's names so far, in a folder of their own.
for f in $records; do ln -sf "$PWD/$f" build/test/run/junit-counts/; done
cp build/test/run/junit-counts.list build/test/run/junit-counts/checks.list
python3 tools/log/ktap_junit.py --checks build/test/run/junit-counts -o build/test/run/junit-counts.xml &&
    /usr/bin/python3 tools/log/junit_counts.py build/test/run/junit-counts.xml --passed "$passed" \
        --failed "$failed" --failure-in "busted-lockref=invariant [a-z-]+ broken"
