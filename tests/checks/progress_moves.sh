#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# progress_moves.sh - the status line moves during a long silent test.
#
# Two screendumps 7 s apart, both inside the 15 s ticket lock torture (4 s and 11 s in;
# CPU 0 sleeps in pv waits many times a second there), differ in the bottom text row,
# and each shows the torture's time in step (at least 2 s and 10 s: a line stale by 2 s
# or more fails); the run ends by debug-exit with a pass.  The first picture, read as
# text, shows the boot lines but not the JSON # ENV line.
set -u
cd "$(dirname "$0")/../.."
base=build/test/progress-moves
export ACCEL=tcg SMP=4 TIMEOUT=${TIMEOUT:-300} QEMU_MONITOR=$base.monitor CMDLINE="run=spinlock torture.secs=15"
rm -f "$base.monitor" "$base.serial"
tools/boot/run-qemu.sh "$base.serial" >/dev/null 2>&1 &
qemu=$!
tools/boot/screendump.py "$base.monitor" "$base.png" --wait-log "$base.serial" \
    --for "# Subtest: spinlock" --timeout "$TIMEOUT" --first 4 --again 7 --text
shot=$?
wait $qemu
status=$?
secs() { sed -n 's/.* 1\/2 ticket_lock_torture \([0-9]*\) s of ~15 s$/\1/p' "$1" | tail -1; }
s1=$(secs "$base.txt") s2=$(secs "$base-2.txt")
echo "status line: ${s1:-?} s, then ${s2:-?} s"
tests/checks/log_has.py "$base.txt" --has '^lockref: policy' --has '^KTAP version 1' --lacks '# ENV' &&
    tools/log/ktap_check.py "$base.serial" &&
    [ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" -ge 2 ] && [ "$s2" -ge 10 ] && [ $status = 0 ] && [ $shot = 0 ]
