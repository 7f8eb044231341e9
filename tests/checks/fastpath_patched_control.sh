#!/bin/sh
# SPDX-License-Identifier: MIT
# fastpath_patched_control.sh - the negative control of fastpath_check.py --patched.
#
#   tests/checks/fastpath_patched_control.sh LOG      must FAIL
#
# A boot with spinlock.pv=on keeps the lock layer's static key on through
# the bench suite (its BENCH lines say "switched"): the text it ran jumps
# from every lock call to the switch byte's load, which the check must find.
# Only the bench suite's text dump is needed, so the boot is cut after 60 s.
set -u
log=$1
make run ACCEL=tcg SMP=2 CMDLINE="run=bench quick spinlock.pv=on" TIMEOUT=60 >"$log" 2>&1
cp build/kernel.elf "$log.elf"
grep -q '^# KEYS {' "$log" || { echo "fastpath_patched_control: no text dump in $log"; exit 0; }
python3 tools/house/fastpath_check.py --kernel "$log.elf" --patched "$log"
