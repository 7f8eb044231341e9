#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh - every check the project has, for `make test` and CI.
#
# Host unit and stress tests (plain, ASan/UBSan, TSan), the Spin models,
# then kernel boots under QEMU (TCG at several CPU counts and machines, KVM
# when usable, UEFI, no ACPI), negative controls that must fail, and Bochs.
# Each check's output goes to build/test/NAME.log; the last line is
# "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
LOGDIR=build/test
mkdir -p "$LOGDIR"
passed=0 failed=0 failures=()

# check NAME COMMAND...: run it, record pass/fail, keep its output.
check() {
    local name=$1; shift
    local log="$LOGDIR/$name.log" start=$SECONDS
    if "$@" >"$log" 2>&1; then
        passed=$((passed + 1)); echo "PASS $name ($((SECONDS - start))s)"
    else
        failed=$((failed + 1)); failures+=("$name")
        echo "FAIL $name ($((SECONDS - start))s): see $log; its last lines:"
        tail -n 8 "$log" | sed 's/^/    /'
    fi
}

# boot NAME [VAR=VALUE...] -- [ktap_check options]: one QEMU boot, judged from its log.
boot() {
    local name=$1; shift
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    check "$name" env TIMEOUT=${TIMEOUT:-300} "${envs[@]}" sh -c \
        'tools/run-qemu.sh "$0" >/dev/null 2>&1; tools/ktap_check.py "$0" "$@"' \
        "$LOGDIR/$name.serial" "$@"
}


echo "== host tests"
check host-build make -C tests/host -j2 all
# The lock rules: every source again under clang -Wthread-safety -Werror (kernel
# flags and host flags), and the planted mistakes that must not compile.
check lock-rules make -s lock-rules
check lock-rules-planted tests/lock_rules/run.sh
# Every command-line word documented once, in docs/interface.md, and parsed as documented.
check cmdline-documented-once tools/cmdline_doc_check.py
while read -r name expect cmd; do
    [ -n "$name" ] || continue
    if [ "$expect" = pass ]; then
        check "host-$name" $cmd
    else
        check "host-$name-must-fail" sh -c '! "$@"' sh $cmd
    fi
done < <(make -s -C tests/host list)
# Every fuzz harness briefly (make fuzz runs them longer): crashes, hangs, failed checks.
check fuzz-short make -s -C tests/fuzz run FUZZ_SECONDS=${FUZZ_TEST_SECONDS:-20}
# fs/ against the host's VFS (tests/diff): it chroots, so root only.
if [ "$(id -u)" -eq 0 ]; then
    check fs-vs-linux make -s -C tests/diff run
else
    echo "SKIP fs-vs-linux: needs root (it chroots into a temporary directory)"
fi
check bench-report-tool python3 tools/test_bench_report.py
# The trace judge and converter on made-up traces: each violation alone, damaged input.
check trace-tools python3 tools/test_trace_tools.py
# The benchmarks on the host's cores (make bench-native), short: they must build without
# kernel headers and pass their own checks; the figures are not judged here.
check bench-native sh -c 'make -s build/bench-native/bench_native && \
    build/bench-native/bench_native run=bench quick > "$0" && tools/ktap_check.py "$0"' \
    "$LOGDIR/bench-native.serial"
if [ -f tools/mkfont.py ]; then
    check font-up-to-date python3 tools/mkfont.py --check
fi

if [ -x tests/model/run.sh ]; then
    echo "== model checks (Spin)"
    check spin-models tests/model/run.sh
    grep -E "^(not )?ok " "$LOGDIR/spin-models.log" | sed 's/^/    /'
fi

echo "== kernel boots (QEMU)"
make -s build/kernel.elf || { echo "kernel build failed"; exit 1; }
boot tcg-smp1 ACCEL=tcg SMP=1 CMDLINE="run=tests"
boot tcg-smp2 ACCEL=tcg SMP=2 CMDLINE="run=tests spinlock.pv=off"
check pv-off-reported grep -q "spinlock: paravirtual .* off (spinlock.pv=off)" "$LOGDIR/tcg-smp2.serial"
boot tcg-smp4-default ACCEL=tcg SMP=4
boot tcg-smp3-pc-quick ACCEL=tcg SMP=3 MACHINE=pc CMDLINE="quick seed=7"
boot tcg-acpi-off ACCEL=tcg SMP=2 QEMU_EXTRA="-machine acpi=off" CMDLINE="run=boot"
# No PIT (clock-gated on some Intel platforms), then no HPET either: the TSC is
# calibrated against the HPET, then the ACPI PM timer, and must agree with the
# PIT-calibrated tcg-smp2 boot (TCG runs the guest TSC at the host's rate).
for machine in q35,pit=off q35,pit=off,hpet=off; do
    name=tcg-$(echo "$machine" | tr ',=' '--')
    boot "$name" ACCEL=tcg SMP=2 MACHINE="$machine" CMDLINE="run=boot"
    check "$name-tsc" tools/tsc_check.py "$LOGDIR/tcg-smp2.serial" "$LOGDIR/$name.serial"
done
boot uefi-smp2-quick ACCEL=tcg SMP=2 FIRMWARE=uefi CMDLINE="quick"
boot bad-cmdline ACCEL=tcg SMP=2 CMDLINE="run=boot bogus=1 smp.max=lots spinlock.pv=maybe trace=sometimes trace.events=5"
check bad-cmdline-reported grep -q "cmdline: unknown option 'bogus=1'" "$LOGDIR/bad-cmdline.serial"
check bad-pv-reported grep -q "cmdline: 'spinlock.pv=maybe': expected auto, on or off; keeping the default" "$LOGDIR/bad-cmdline.serial"
check bad-trace-reported sh -c 'grep -q "cmdline: .trace=sometimes.: expected off, all, or a comma list" "$0" && grep -q "cmdline: .trace.events=5.: expected events per CPU from 16 to 65536" "$0" && ! grep -q "# TRACE" "$0"' "$LOGDIR/bad-cmdline.serial"
# Oversubscribed: many more vCPUs than host cores (the paravirtual lock and
# progress-based barrier timeouts are what let these finish).
boot tcg-smp16-boot ACCEL=tcg SMP=16 CMDLINE="run=boot"
boot tcg-smp64-tests-quick ACCEL=tcg SMP=64 MEM=2G CMDLINE="run=tests quick"
boot tcg-smp255-boot ACCEL=tcg SMP=255 MEM=4G CMDLINE="run=boot"
boot tcg-no-cx16 ACCEL=tcg SMP=2 CPU=max,-cx16 CMDLINE="run=lockref quick"
check no-cx16-reported grep -q "16-byte form on its lock (no CX16)" "$LOGDIR/tcg-no-cx16.serial"
# Negative controls: a broken lock must make the run fail, naming the invariant.
boot busted-lockref ACCEL=tcg SMP=4 CMDLINE="run=lockref torture.busted=lockref quick trace=all trace.test=torture_mainline_8 trace.events=16384" -- \
    --expect-fail "invariant (hold-verify|conservation|count-range|lost-update)[a-z-]* broken"
boot busted-spinlock ACCEL=tcg SMP=2 CMDLINE="run=spinlock torture.busted=spinlock quick trace=all trace.test=ticket_lock_torture trace.events=16384" -- \
    --expect-fail "invariant (held-on-entry|lost-update|exclusive-hold) broken"
# The trace, a second judge that trusts no counter, must catch both on its own (docs/tracing.md):
# the busted lock's overlapping holds, or (when TCG ran the two vCPUs in turns over the span
# both rings still hold) the one ticket it grants again and again.
check busted-lockref-trace sh -c '! tools/trace_check.py "$0" > "$0.check" && cat "$0.check" && grep -q "FAIL lockless inside a hold: lock .*: cpu [0-9] updated without the lock in TSC .*inside cpu [0-9].s hold TSC" "$0.check"' "$LOGDIR/busted-lockref.serial"
check busted-spinlock-trace sh -c '! tools/trace_check.py "$0" > "$0.check" && cat "$0.check" && grep -Eq "FAIL (overlap: lock torture:spinlock held by cpu [0-9] .* and cpu [0-9] .*both in TSC|ticket order: lock torture:spinlock: ticket 0 to cpu [0-9] after ticket 0 to cpu [0-9]: granted again)" "$0.check"' "$LOGDIR/busted-spinlock.serial"
# Traced good runs: the trace judge passes them, and the converter's JSON is well formed.
boot traced-lockref-pv ACCEL=tcg SMP=4 CMDLINE="run=lockref quick trace=all spinlock.pv=on"
check traced-lockref-judged tools/trace_check.py "$LOGDIR/traced-lockref-pv.serial"
check traced-lockref-converted sh -c 'tools/trace_convert.py "$0" "$1" && tools/trace_convert.py --check-json "$1/trace.json" && test -s "$1/timeline.png"' "$LOGDIR/traced-lockref-pv.serial" "$LOGDIR/trace-lockref"
boot traced-spinlock-pv ACCEL=tcg SMP=2 CMDLINE="run=spinlock quick trace=all spinlock.pv=on"
check traced-spinlock-judged tools/trace_check.py "$LOGDIR/traced-spinlock-pv.serial"
for fault in ud gp pf; do
    boot "selftest-fault-$fault" ACCEL=tcg SMP=2 CMDLINE="run=boot selftest.fault=$fault" -- \
        --expect-fail "^PANIC: CPU 0 .*#$(echo $fault | tr a-z A-Z)"
done
if [ -d /sys/module/kvm_pvm ]; then
    # PVM emulates what VMX would run: a boot takes minutes and shows nothing TCG does not.
    echo "SKIP kvm-smp2: /dev/kvm is PVM, not hardware virtualization"
elif [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    boot kvm-smp2 ACCEL=kvm SMP=2 TIMEOUT=600 CMDLINE="run=tests"
else
    echo "SKIP kvm-smp2: /dev/kvm is not usable here"
fi

if [ -x tools/run-bochs.sh ] && command -v bochs >/dev/null; then
    echo "== Bochs"
    check bochs-smp2-quick sh -c 'SMP=2 CMDLINE="run=tests quick" TIMEOUT=600 tools/run-bochs.sh "$0" >/dev/null 2>&1; tools/ktap_check.py "$0"' "$LOGDIR/bochs.serial"
fi

echo
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
