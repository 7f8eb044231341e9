#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh - make run: boot under QEMU with the variables of docs/interface.md
# (tools/run-qemu.sh), keep the serial log in build/run.serial and read it into
# build/junit.xml for CI test views (docs/ci.md), and keep the ISO it booted in
# build/run.iso (CMDLINE in its GRUB entry: a USB stick runs the same).
# Exit status: the boot's.
set -u
cd "$(dirname "$0")/.."
KEEP_ISO=build/run.iso tools/run-qemu.sh build/run.serial
status=$?
python3 tools/ktap_junit.py --run build/run.serial --status "$status" -o build/junit.xml
exit "$status"
