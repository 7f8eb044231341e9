#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# smp_limit.sh - SMP above what the kernel and this QEMU can boot is refused by
# tools/boot/run-qemu.sh with one line naming both limits, before QEMU starts
# (status 3, and no QEMU line at all).  Exit status: 0 when every count is refused so.
set -u
cd "$(dirname "$0")/../.."
[ -f build/kernel.elf ] || { echo "smp_limit: build/kernel.elf is missing: run 'make' first"; exit 1; }
for smp in 300 260 256; do
    out=$(SMP=$smp ACCEL=tcg TIMEOUT=5 tools/boot/run-qemu.sh 2>&1)
    status=$?
    lines=$(printf '%s\n' "$out" | wc -l)
    if [ "$status" != 3 ] || [ "$lines" != 1 ] ||
        ! printf '%s\n' "$out" | grep -q "^run-qemu: SMP=$smp: expected at most 255 CPUs: the kernel supports 256 (MAX_CPUS, lib/limits.h), QEMU as started here 255"; then
        echo "smp_limit: SMP=$smp: status $status, $lines line(s), expected status 3 and one line naming both limits: $out"
        exit 1
    fi
done
echo "smp_limit: SMP=300, 260 and 256 each refused with one line naming both limits"
