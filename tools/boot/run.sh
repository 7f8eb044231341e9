#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh - make run: boot under QEMU with the variables of docs/interface.md
# (tools/boot/run-qemu.sh), keep the serial log in build/run.serial and read it into
# build/junit.xml for CI test views (docs/ci.md), and keep the ISO it booted in
# build/run.iso (CMDLINE in its GRUB entry: a USB stick runs the same); then
# the sites of every race, lockdep and panic report of the log as function
# file:line, from the ELF (tools/log/lockdep_decode.py --sites), and last, in
# words, what the race detector found (make kcsan) and where those files are
# (tools/log/run_ending.py).
# Exit status: the boot's.
# KERNEL_ELF (make kcsan): that kernel, its log, junit.xml and ISO beside it.
set -u
cd "$(dirname "$0")/../.."
elf=${KERNEL_ELF:-build/kernel.elf}
out=$(dirname "$elf")
KEEP_ISO=$out/run.iso tools/boot/run-qemu.sh "$out/run.serial"
status=$?
python3 tools/log/ktap_junit.py --run "$out/run.serial" --status "$status" -o "$out/junit.xml"
sites=$(python3 tools/log/lockdep_decode.py --sites "$elf" "$out/run.serial")
[ -n "$sites" ] && printf 'run: the reports'"'"' sites in %s, decoded from %s:\n%s\n' \
    "$out/run.serial" "$elf" "$sites"
# The last words: what the race detector found (make kcsan), and where the files are.
python3 tools/log/run_ending.py "$out/run.serial" ${KERNEL_ELF:+--kcsan} \
    --left "the serial log=$out/run.serial" --left "JUnit=$out/junit.xml" \
    --left "the ISO=$out/run.iso"
exit "$status"
