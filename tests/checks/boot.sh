#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# boot.sh NAME [--target run|kcsan|bochs] [VAR=VALUE...] [--expect-fail REGEX]
#
# One boot of the kernel, judged from its serial log (tools/log/ktap_check.py): the check
# behind most boot and control lines of tests/checks/checks.tab.  First it writes the
# boot's replay record to build/test/NAME.check (serial=, target=, env.VAR=VALUE,
# expect_fail=: what tools/log/ktap_junit.py and tools/log/ci_summary.py turn into
# `make TARGET VAR=VALUE...`); the serial log is build/test/NAME.serial.
# --target kcsan boots build/kcsan/kernel.elf (make kcsan), bochs boots under Bochs
# (make bochs); VAR=VALUE are the variables of docs/interface.md for that boot.
# ACCEL=kvm where /dev/kvm is missing or PVM: exit 77, the check is skipped and said so.
# Exit status: 0 the run passed; with --expect-fail, 1 when it failed as REGEX says (a
# control's "must fail") and 2 when it passed or failed for another reason.
set -u
cd "$(dirname "$0")/../.."
name=$1; shift
target=run envs=() expect=
while [ $# -gt 0 ]; do
    case $1 in
        --target) target=$2; shift 2 ;;
        --expect-fail) expect=$2; shift 2 ;;
        *=*) envs+=("$1"); shift ;;
        *) echo "boot.sh: '$1': expected --target, --expect-fail or VAR=VALUE"; exit 2 ;;
    esac
done
serial=build/test/$name.serial
for e in "${envs[@]}"; do
    [ "$e" = ACCEL=kvm ] || continue
    # PVM emulates what VMX would run: a boot takes minutes and shows nothing TCG does not.
    [ -d /sys/module/kvm_pvm ] && { echo "/dev/kvm is PVM, not hardware virtualization"; exit 77; }
    [ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo "/dev/kvm is not usable here"; exit 77; }
done
{ echo "serial=$serial"; echo "target=$target"; printf 'env.%s\n' "${envs[@]}"
  [ -n "$expect" ] && echo "expect_fail=$expect"; } >"build/test/$name.check"
rm -f "$serial"
case $target in
    run) env "${envs[@]}" tools/boot/run-qemu.sh "$serial" >/dev/null 2>&1 ;;
    kcsan) env "${envs[@]}" KERNEL_ELF=build/kcsan/kernel.elf tools/boot/run-qemu.sh "$serial" >/dev/null 2>&1 ;;
    bochs) env "${envs[@]}" tools/boot/run-bochs.sh "$serial" >/dev/null 2>&1 ;;
    *) echo "boot.sh: --target $target: expected run, kcsan or bochs"; exit 2 ;;
esac
if [ -z "$expect" ]; then
    exec tools/log/ktap_check.py "$serial"
fi
tools/log/ktap_check.py "$serial" --expect-fail "$expect" && exit 1
exit 2
