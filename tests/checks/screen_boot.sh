#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# screen_boot.sh NAME FIRMWARE CMDLINE [screen_check options] - a boot ending as on a PC.
#
# No debug-exit device: exit=auto must leave the machine on, halted, with the results
# page.  The page is read back twice: from the serial dump (screen.dump=1) and from QEMU's
# screendump (build/test/NAME.png, kept; read as text with the kernel's font: the pixels
# must say what the dump says); then QEMU is told to quit.
set -u
cd "$(dirname "$0")/../.."
name=$1 firmware=$2 cmdline=$3; shift 3
base=build/test/$name
export ACCEL=tcg SMP=2 FIRMWARE=$firmware DEBUG_EXIT=0 TIMEOUT=${TIMEOUT:-300} \
    QEMU_MONITOR=$base.monitor CMDLINE="$cmdline screen.dump=1"
rm -f "$base.monitor" "$base.serial"
tools/boot/run-qemu.sh "$base.serial" >/dev/null 2>&1 &
qemu=$!
tools/boot/screendump.py "$base.monitor" "$base.png" --quit --wait-log "$base.serial" \
    --for "halted: result" --timeout "$TIMEOUT" --text
shot=$?
wait $qemu
tools/log/screen_check.py "$base.serial" --halted --picture-text "$base.txt" "$@" && [ $shot = 0 ]
