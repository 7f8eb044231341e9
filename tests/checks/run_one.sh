#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_one.sh NAME MUST HOLDERS - one check of tests/checks/checks.tab, as a target of the
# plan tests/checks/run.py writes (build/test/checks.mk).
#
# Waits until HOLDERS holder targets (tests/checks/hold_slot.sh) hold their job slots, so a
# check needing two cores starts with both; then runs the command (build/test/run/NAME.cmd)
# with its output in build/test/NAME.log, and appends its verdict, exit status, seconds
# log, start time (epoch seconds) and job slots to build/test/NAME.check (a boot's script
# wrote its replay record there first).
# MUST is "must pass" (exit status 0) or "must fail" (exit status 1 exactly: 2 and up mean
# it failed some other way, a timeout, a crash, a wrong reason).  Status 77: cannot run
# here (no root, no /dev/kvm): verdict skip, said with the log's last line.
# NAME.done, written last, tells make and run.py the check is over.
set -u
cd "$(dirname "$0")/../.."
name=$1 must=$2 holders=$3
run=build/test/run log=build/test/$name.log
# Bounded: should make ever leave a holder unstarted (it never has: run.py's plan puts a
# check's holders right behind it), the check runs short of a core rather than never,
# and its log says so.
waited=0 short=
for i in $(seq 1 "$holders"); do
    until [ -e "$run/$name.held$i" ] || [ $waited -ge 6000 ]; do sleep 0.1; waited=$((waited + 1)); done
    [ -e "$run/$name.held$i" ] || short="started without its core $((i + 1)): no job slot came free in 600 s"
done
echo "$name" >>"$run/started.list"
rm -f "build/test/$name.check"
start=$(date +%s.%N)
{ [ -z "$short" ] || echo "run_one: $short"; bash "$run/$name.cmd"; } >"$log" 2>&1 </dev/null
status=$?
case "$must,$status" in
    *,77) verdict=skip ;;
    "must pass,0" | "must fail,1") verdict=pass ;;
    *) verdict=fail ;;
esac
seconds=$(echo "$(date +%s.%N) $start" | awk '{ printf "%.1f", $1 - $2 }')
printf 'verdict=%s\nstatus=%s\nseconds=%s\nlog=%s\nstarted=%s\nslots=%s\n' "$verdict" "$status" \
    "$seconds" "$log" "${start%.*}" "$((holders + 1))" >>"build/test/$name.check"
touch "$run/$name.done"
