#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace_judge.sh SERIAL [--expect-fail REGEX] [--says REGEX...] - the trace judge
# (tools/trace/trace_check.py) on a boot's rings, its verdict in SERIAL.judged.
#
# Without --expect-fail the judge must pass and its output say every --says REGEX.
# With it, the judge must fail and its output match REGEX: a second judge that trusts
# no counter catching a control on its own.  Exit status: 0 the judge passed as asked,
# 1 it failed as REGEX says (a control's "must fail"), 2 anything else.
set -u
cd "$(dirname "$0")/../.."
serial=$1; shift
expect= says=()
while [ $# -gt 0 ]; do
    case $1 in
        --expect-fail) expect=$2; shift 2 ;;
        --says) says+=("$2"); shift 2 ;;
        *) echo "trace_judge.sh: '$1': expected --expect-fail or --says"; exit 2 ;;
    esac
done
tools/trace/trace_check.py "$serial" >"$serial.judged"
status=$?
cat "$serial.judged"
if [ -n "$expect" ]; then
    [ $status != 0 ] && grep -Eq "$expect" "$serial.judged" && exit 1
    echo "the trace judge did not fail as /$expect/ (status $status)"
    exit 2
fi
[ $status = 0 ] || exit 2
for re in "${says[@]}"; do
    grep -Eq "$re" "$serial.judged" || { echo "the judge did not say /$re/"; exit 2; }
done
