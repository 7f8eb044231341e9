#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh - make run: boot under QEMU with the variables of docs/interface.md
# (tools/boot/run-qemu.sh), keep the serial log in build/run.serial and read it into
# build/junit.xml for CI test views (docs/ci.md), and keep the ISO it booted in
# build/run.iso (CMDLINE in its GRUB entry: a USB stick runs the same); then
# say in words what the race detector found (make kcsan) and where those
# files are (tools/log/run_ending.py).
# Exit status: the boot's.
# KERNEL_ELF (make kcsan): that kernel, its log, junit.xml and ISO beside it.
set -u
cd "$(dirname "$0")/../.."
out=$(dirname "${KERNEL_ELF:-build/kernel.elf}")
KEEP_ISO=$out/run.iso tools/boot/run-qemu.sh "$out/run.serial"
status=$?
python3 tools/log/ktap_junit.py --run "$out/run.serial" --status "$status" -o "$out/junit.xml"
# The last words: what the race detector found (make kcsan), and where the files are.
python3 tools/log/run_ending.py "$out/run.serial" ${KERNEL_ELF:+--kcsan} \
    --left "the serial log=$out/run.serial" --left "JUnit=$out/junit.xml" \
    --left "the ISO=$out/run.iso"
exit "$status"
