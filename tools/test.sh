#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh - every check the project has, for `make test` and CI.
#
# Host unit and stress tests (plain, ASan/UBSan, TSan), the Spin models,
# then kernel boots under QEMU (TCG at several CPU counts and machines, KVM
# when usable, UEFI, no ACPI), negative controls that must fail, and Bochs.
# Each check's output goes to build/test/NAME.log, its record to NAME.check
# (verdict, time, and for a boot its serial log and variables: what
# tools/log/ktap_junit.py and tools/log/ci_summary.py read; docs/ci.md), its name to
# checks.list in run order.  The checks end with build/test/junit.xml and
# the last line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
# Every tool the checks need, before anything runs: a missing one is named here, with
# `make deps`, not found as one failed check deep in the run.
tools/deps.sh check || exit 2
make -s -j2 all || { echo "the build failed: no checks run"; exit 1; }
LOGDIR=build/test
mkdir -p "$LOGDIR"
rm -f "$LOGDIR"/*.check "$LOGDIR/checks.list" "$LOGDIR/junit.xml"
passed=0 failed=0 failures=()
# Debian's Python packages (python3-junitparser, python3-yaml) import only under
# the system interpreter; `python3` on PATH may be another build.
SYSTEM_PYTHON=/usr/bin/python3

# check NAME COMMAND...: run it, record pass/fail, keep its output.  Between
# batch_begin and batch_end it runs in the background, two at a time.
check() {
    if [ "$in_batch" = yes ]; then
        while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
        run_check "$@" &
        batch+=("$1")
    else
        run_check "$@"
        tally "$1"
    fi
}

# run_check NAME COMMAND...: run it; its output to NAME.log, its verdict, status and
# time to NAME.check.
run_check() {
    local name=$1; shift
    local start=$SECONDS status=0
    "$@" >"$LOGDIR/$name.log" 2>&1 || status=$?
    printf 'verdict=%s\nstatus=%s\nseconds=%s\nlog=%s\n' "$([ "$status" -eq 0 ] && echo pass || echo fail)" \
        "$status" "$((SECONDS - start))" "$LOGDIR/$name.log" >>"$LOGDIR/$name.check"
}

# tally NAME: count a finished check from NAME.check and say its verdict.
tally() {
    local name=$1 verdict secs
    verdict=$(sed -n 's/^verdict=//p' "$LOGDIR/$name.check" | tail -n 1)
    secs=$(sed -n 's/^seconds=//p' "$LOGDIR/$name.check" | tail -n 1)
    if [ "$verdict" = pass ]; then
        passed=$((passed + 1)); echo "PASS $name (${secs}s)"
    else
        failed=$((failed + 1)); failures+=("$name")
        echo "FAIL $name (${secs}s): see $LOGDIR/$name.log; its last lines:"
        tail -n 8 "$LOGDIR/$name.log" | sed 's/^/    /'
    fi
    echo "$name" >>"$LOGDIR/checks.list"
}

# Checks that use one core each (parsers, tools, most host tests) run two at a
# time between these: make test's wall time is what CI waits for.  Their
# verdicts are said, counted and listed in the order they were started.
in_batch=no batch=()
batch_begin() { in_batch=yes; batch=(); }
batch_end() {
    local name
    wait
    in_batch=no
    for name in "${batch[@]}"; do tally "$name"; done
}

# note_boot NAME SERIAL TARGET [VAR=VALUE...]: before its check, what replays a boot
# (make TARGET VAR=VALUE...) and where its serial log is.
note_boot() {
    local name=$1 serial=$2 target=$3; shift 3
    { echo "serial=$serial"; echo "target=$target"; printf 'env.%s\n' "$@"; } >"$LOGDIR/$name.check"
}

# boot NAME [VAR=VALUE...] -- [ktap_check options]: one QEMU boot, judged from its log.
# BOOT_TARGET=kcsan KERNEL_ELF=build/kcsan/kernel.elf boot ...: the race-detecting kernel.
boot() {
    local name=$1; shift
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    note_boot "$name" "$LOGDIR/$name.serial" "${BOOT_TARGET:-run}" "${envs[@]}"
    [ "${1:-}" = --expect-fail ] && echo "expect_fail=$2" >>"$LOGDIR/$name.check"
    check "$name" env TIMEOUT=${TIMEOUT:-300} "${envs[@]}" sh -c \
        'tools/boot/run-qemu.sh "$0" >/dev/null 2>&1; tools/log/ktap_check.py "$0" "$@"' \
        "$LOGDIR/$name.serial" "$@"
}

# screen_boot NAME FIRMWARE CMDLINE [screen_check options]: a boot without the
# debug-exit device, as on a PC.  exit=auto must leave the machine on, halted,
# with the results page: read back from the serial dump (screen.dump=1) and
# from QEMU's screendump (NAME.png, kept; read as text with the kernel's
# font: the pixels must say what the dump says), then QEMU is told to quit.
screen_boot() {
    local name=$1 firmware=$2 cmdline=$3; shift 3
    check "$name" env ACCEL=tcg SMP=2 FIRMWARE="$firmware" DEBUG_EXIT=0 \
        TIMEOUT=${TIMEOUT:-300} QEMU_MONITOR="$LOGDIR/$name.monitor" \
        CMDLINE="$cmdline screen.dump=1" bash -c '
        base=$0; rm -f "$base.monitor" "$base.serial"
        tools/boot/run-qemu.sh "$base.serial" >/dev/null 2>&1 & qemu=$!
        tools/boot/screendump.py "$base.monitor" "$base.png" --quit --wait-log "$base.serial" \
            --for "halted: result" --timeout "$TIMEOUT" --text; shot=$?
        wait $qemu
        tools/log/screen_check.py "$base.serial" --halted --picture-text "$base.txt" "$@" &&
            [ $shot = 0 ]' \
        "$LOGDIR/$name" "$@"
}

echo "== host tests"
check host-build make -C tests/host -j2 all
# The lock rules: every source again under clang -Wthread-safety -Werror (kernel
# flags and host flags), and the planted mistakes that must not compile.
check lock-rules make -s -j2 lock-rules
# Every fuzz harness briefly, two at a time (make fuzz runs them longer): crashes, hangs, failed checks.
check fuzz-short make -s -C tests/fuzz run FUZZ_SECONDS=${FUZZ_TEST_SECONDS:-5}
# The host tests one at a time: the stress tests' threads want both cores (a
# busted lock's negative control can pass when its threads are starved).
while read -r name expect cmd; do
    [ -n "$name" ] || continue
    if [ "$expect" = pass ]; then
        check "host-$name" $cmd
    else
        check "host-$name-must-fail" sh -c '! "$@"' sh $cmd
    fi
done < <(make -s -C tests/host list)
# From here to batch_end, two checks at a time (each uses one core).
batch_begin
check lock-rules-planted tests/lock_rules/run.sh
# Every command-line word documented once, in docs/interface.md, and parsed as documented.
check cmdline-documented-once tools/house/cmdline_doc_check.py
# Every Makefile recipe at most 3 lines (pipelines are scripts in tools/), every target in make help.
check makefile-short tools/house/makefile_check.py
# README's layout tables name every top-level folder and every lib/ file.
check readme-layout tools/house/readme_check.py
# ...with the same verdict where git is missing and .git/ and build/ are in the tree.
check readme-check-without-git python3 tools/tests/test_readme_check.py
# Every benchmark figure of README.md comes from a committed log in docs/runs/ (0.3 s CPU each), and
# the check catches a wrong figure, a prose figure no log gave and a missing column planted in it.
check readme-figures python3 tools/house/readme_figures.py
check readme-figures-self-test python3 tools/house/readme_figures.py --self-test
# fs/ against the host's VFS (tests/diff): it chroots, so root only.
if [ "$(id -u)" -eq 0 ]; then
    check fs-vs-linux make -s -C tests/diff run
else
    echo "SKIP fs-vs-linux: needs root (it chroots into a temporary directory)"
fi
# The one serial-log reader on damaged logs, and every tool that reads a log on them.
check kernel-log-tool python3 tools/tests/test_kernel_log.py
check bench-report-tool python3 tools/tests/test_bench_report.py
check bench-c2c-tool python3 tools/tests/test_bench_c2c.py
# The scaling model: its ticket chain against the paper's closed form, logs without its inputs.
check scaling-model-tool python3 tools/tests/test_scaling_model.py
# The trace judge and converter on made-up traces: each violation alone, damaged input.
check trace-tools python3 tools/tests/test_trace_tools.py
# The trace-cost tool's reading and statistics on made-up runs, damaged ones included.
check trace-cost-tool python3 tools/tests/test_trace_cost.py
# The by-turns tool on two fake bench_native programs: its ratios, its order, its refusals.
check bench-turns-tool python3 tools/tests/test_bench_turns.py
# The lockdep report decoder on a planted ABBA of the host checker, against its debug info.
check lockdep-decode-tool python3 tools/tests/test_lockdep_decode.py
batch_end
# The benchmarks on the host's cores (make bench-native), short: they must build without
# kernel headers and pass their own checks; the figures are not judged here.
# Its report (tables and plot) is kept with the logs, for the CI summary and artifact.
echo "replay=build/bench-native/bench_native run=bench quick" >"$LOGDIR/bench-native.check"
echo "serial=$LOGDIR/bench-native.serial" >>"$LOGDIR/bench-native.check"
check bench-native sh -c 'make -s build/bench-native/bench_native && \
    build/bench-native/bench_native run=bench quick > "$0" && tools/log/ktap_check.py "$0" && \
    python3 tools/bench/bench_report.py "$0" "$1"' \
    "$LOGDIR/bench-native.serial" "$LOGDIR/bench-native"
# bench_native's options: --help exits 0, an unknown one 2 before running anything, and
# --plan on the written 256-CPU fixture tree plans at most 24 counts and an estimate.
check bench-native-plan sh -c 'make -s build/bench-native/bench_native && \
    make -s -C tests/host ../../build/host/plain/test_topology && \
    build/bench-native/bench_native --help | grep -q "^usage: bench_native" && \
    { build/bench-native/bench_native --bogus run=bench; [ $? = 2 ]; } && \
    d=$(mktemp -d) && trap "rm -rf $d" EXIT && build/host/plain/test_topology --write big-256 "$d" && \
    build/bench-native/bench_native --plan --sysfs="$d" --cpus=256 > "$0" && \
    grep -Eq "^# plan: ([1-9]|1[0-9]|2[0-4]) points per sweeping benchmark:" "$0" && \
    grep -Eq "^# plan: [0-9]+ benchmarks, estimated [0-9]+ s" "$0" && ! grep -q "# BENCH" "$0"' \
    "$LOGDIR/bench-native-plan.out"
# The trace hooks' cost step of make bench-native, quick (about a second): three builds by
# turns, its table and goal line present and its ratios numbers; the figures are not judged.
check trace-cost sh -c 'make -s build/bench-native/bench_native \
    build/bench-native/bench_native_untraced && \
    tools/trace/trace_cost.py --traced build/bench-native/bench_native \
    --untraced build/bench-native/bench_native_untraced "$0" run=bench quick && \
    grep -Eq "^\| lockref \| get\+put \| yes( \| [0-9]+\.[0-9]+){5} \|$" "$0/trace-cost.md" && \
    grep -Eq "^goal \(informative, decides nothing: .*\): tracing off within 2% of the untraced build: (met|not met) \(worst row .*: [0-9]\.[0-9]{3}\)" \
    "$0/trace-cost.md"' "$LOGDIR/bench-native"
# The lockref's successful lockless calls make no call and set up no frame, in the
# kernel and in the native build: read from their disassembly.
check fastpath sh -c 'make -s build/kernel.elf build/bench-native/bench_native && \
    tools/house/fastpath_check.py'
if [ -f tools/house/mkfont.py ]; then
    check font-up-to-date python3 tools/house/mkfont.py --check
fi

if [ -x tests/model/run.sh ]; then
    echo "== model checks (Spin)"
    check spin-models tests/model/run.sh
    grep -E "^(not )?ok " "$LOGDIR/spin-models.log" | sed 's/^/    /'
fi

echo "== kernel boots (QEMU)"
make -s build/kernel.elf || { echo "kernel build failed"; exit 1; }
# No include or call cycle among kernel/*.c except through the platform seam.
check layering python3 tools/house/layering.py
# GRUB must find the loaded image's span free at 1 MiB: under 4 MiB (no big pools in .bss).
image_span() {
    local s e
    s=$(nm build/kernel.elf | awk '$3 == "kernel_start" { print $1 }')
    e=$(nm build/kernel.elf | awk '$3 == "kernel_end" { print $1 }')
    [ -n "$s" ] && [ -n "$e" ] || { echo "no kernel_start/kernel_end in build/kernel.elf"; return 1; }
    echo "kernel image loaded: $(( (0x$e - 0x$s) / 1024 )) KiB from 0x$s (limit 4096 KiB)"
    [ $(( 0x$e - 0x$s )) -lt $(( 4 << 20 )) ]
}
check image-under-4mib image_span
# One CPU: nothing contends, so the quick durations show as much as the full ones.
boot tcg-smp1 ACCEL=tcg SMP=1 CMDLINE="run=tests quick"
boot tcg-smp2 ACCEL=tcg SMP=2 CMDLINE="run=tests spinlock.pv=off"
check pv-off-reported grep -q "spinlock: paravirtual .* off (spinlock.pv=off)" "$LOGDIR/tcg-smp2.serial"
boot tcg-smp4-default ACCEL=tcg SMP=4
boot tcg-smp3-pc-quick ACCEL=tcg SMP=3 MACHINE=pc CMDLINE="quick seed=7"
# README's boot sample against the boot of the command it names (about 4 s): its # ENV keys,
# test plan, tally and kinds of line; planted drifts must be caught (tools/house/readme_sample_check.py).
boot readme-boot ACCEL=tcg SMP=4 CMDLINE="run=boot"
check readme-boot-sample tools/house/readme_sample_check.py --self-test README.md "$LOGDIR/readme-boot.serial"
boot tcg-acpi-off ACCEL=tcg SMP=2 QEMU_EXTRA="-machine acpi=off" CMDLINE="run=boot"
# No ACPI on an i440FX board: SeaBIOS's Intel MP table lists the CPUs (one per package,
# the rest from CPUID), and all 4 come online, the source named.
boot tcg-pc-acpi-off-mptable ACCEL=tcg SMP=4 MACHINE=pc QEMU_EXTRA="-machine acpi=off" CMDLINE="run=boot"
check mptable-cpus-online sh -c 'grep -q "^smp: 4 CPUs listed by the Intel MP table" "$0" &&
    grep -q "\"cpus_online\":4," "$0"' "$LOGDIR/tcg-pc-acpi-off-mptable.serial"
# No PIT (clock-gated on some Intel platforms), then no HPET either: the TSC is
# calibrated against the HPET, then the ACPI PM timer, and must agree with the
# PIT-calibrated tcg-smp2 boot (TCG runs the guest TSC at the host's rate).
for machine in q35,pit=off q35,pit=off,hpet=off; do
    name=tcg-$(echo "$machine" | tr ',=' '--')
    boot "$name" ACCEL=tcg SMP=2 MACHINE="$machine" CMDLINE="run=boot"
    check "$name-tsc" tools/log/tsc_check.py "$LOGDIR/tcg-smp2.serial" "$LOGDIR/$name.serial"
done
boot uefi-smp2-quick ACCEL=tcg SMP=2 FIRMWARE=uefi CMDLINE="quick"
# Words not understood: each keeps its default with one cmdline: line, the tests still run
# and pass, and each word is said again beside the verdict; those that select what is tested
# (all here but trace=, trace.events= and lockdep.classes=) fail the run, the first one named in its FAIL line.
boot bad-cmdline ACCEL=tcg SMP=2 CMDLINE="run=boot bogus=1 smp.max=lots spinlock.pv=maybe spinlock.kind=mcs trace=sometimes trace.events=5 lockdep=maybe lockdep.classes=2 fs.walk=fast selftest.stall=1:3000:nowhere selftest.stall=1:60001 selftest.stall=5:100 bench.cpus=0,4 bench.place=far" -- \
    --expect-fail "^# FAIL: command line: 'bogus=1': unknown key; ignored; it selects what is tested"
check bad-cmdline-beside-verdict sh -c 'grep -q "^  ok 1 cpus_online" "$0" && \
    grep -q "^# cmdline: .selftest.stall=5:100:start.: a CPU this run lacks; no stall; it selects" "$0" && \
    grep -q "^# cmdline: .trace=sometimes.: not understood; the default used (harmless" "$0" && \
    tail -n 2 "$0" | head -n 1 | grep -Eq "^# tally: 1 suite, [0-9]+ tests: [0-9]+ passed, 0 failed, 0 skipped in [0-9]+\.[0-9] s; 14 command-line words ignored or not understood, 11 of them failing the run$"' \
    "$LOGDIR/bad-cmdline.serial"
# Only harmless words not understood, and a word given twice: said beside the verdict, and
# the run passes (about 3 s). The host's copy of the log has LF line ends, no CR at all.
boot bad-cmdline-harmless ACCEL=tcg SMP=2 CMDLINE="run=boot console=tv trace=sometimes seed=3 seed=3"
check bad-cmdline-harmless-beside-verdict sh -c 'grep -q "^# cmdline: .seed=3.: given twice; the same either way (harmless" "$0" && \
    grep -Eq "^# tally: .*; 3 command-line words ignored or not understood, 0 of them failing the run$" "$0" && \
    ! grep -q "$(printf "\r")" "$0"' "$LOGDIR/bad-cmdline-harmless.serial"
check bad-cmdline-reported grep -q "cmdline: unknown option 'bogus=1'" "$LOGDIR/bad-cmdline.serial"
# A spoiled static-key site (tools/boot/static_key_plant.py: the first trace hook's NOP replaced):
# one line names it, the trace key stays off (no event recorded), the boot goes on and passes.
# The unspoiled kernel's traced boots (tcg-smp4-qspinlock below) print no such line and record.
check static-key-plant python3 tools/boot/static_key_plant.py build/kernel.elf trace_key \
    "$LOGDIR/static-key-planted.elf"
boot static-key-bad-site ACCEL=tcg SMP=2 KERNEL_ELF="$LOGDIR/static-key-planted.elf" \
    CMDLINE="run=boot quick trace=all"
check static-key-bad-site-named sh -c 'grep -Eq "^static_key: .trace. site 0x[0-9a-f]+ \(target 0x[0-9a-f]+\): the site holds neither the expected 5-byte NOP nor its JMP; the key stays off" "$0" && ! grep -Eq "^# TRACE cpu [0-9]+ events=[1-9]" "$0"' "$LOGDIR/static-key-bad-site.serial"
check bad-pv-reported grep -q "cmdline: 'spinlock.pv=maybe': expected auto, on or off; keeping the default" "$LOGDIR/bad-cmdline.serial"
check bad-lockdep-reported sh -c 'grep -q "cmdline: .lockdep=maybe.: expected on or off; keeping the default" "$0" && grep -q "lock-order checking on (lockdep=on)" "$0" &&
    grep -q "cmdline: .lockdep.classes=2.: expected a class count from 4 to 511; keeping the default" "$0" && grep -q "511 classes at most (lockdep.classes=)" "$0"' "$LOGDIR/bad-cmdline.serial"
check bad-fs-walk-reported sh -c 'grep -q "cmdline: .fs.walk=fast.: expected rcu or ref; keeping the default" "$0" && grep -q "\"fs_walk\":\"rcu\"" "$0"' "$LOGDIR/bad-cmdline.serial"
check bad-bench-words-reported sh -c 'grep -q "^cmdline: .bench.cpus=0,4.: expected geo, all, or a comma list" "$0" &&
    grep -q "^cmdline: .bench.place=far.: expected cores, compact or spread" "$0"' "$LOGDIR/bad-cmdline.serial"
# Every spinlock (the lockrefs', the fs's, the kernel's own) as the queued spinlock, short.
boot tcg-smp2-qspinlock ACCEL=tcg SMP=2 CMDLINE="run=tests quick spinlock.kind=qspinlock spinlock.pv=on"
check qspinlock-reported grep -q "spinlock: kind qspinlock (spinlock.kind=qspinlock)" "$LOGDIR/tcg-smp2-qspinlock.serial"
check bad-kind-reported grep -Eq "cmdline: 'spinlock.kind=mcs': expected [a-z0-9_]+(, [a-z0-9_]+)* or [a-z0-9_]+; keeping the default" "$LOGDIR/bad-cmdline.serial"
check pv-on-qspinlock-reported grep -q "spinlock: paravirtual (spin, then halt until kicked) on (spinlock.pv=on)" "$LOGDIR/tcg-smp2-qspinlock.serial"
# ... and the fs suite with the ref-walk (fs.walk=ref; every other boot walks RCU-walk); its
# The test-and-set kind (spinlock.kind=tas, lib/spinlock_tas.h) under every lock of the spinlock,
# lockref and fs suites, its torture traced: # ENV names the kind, and the trace judge passes its
# holds, which carry no ticket and so no order to judge (about 6 s).
boot tcg-smp4-tas ACCEL=tcg SMP=4 CMDLINE="run=spinlock,lockref,fs quick spinlock.kind=tas trace=all trace.test=ticket_lock_torture"
check tcg-smp4-tas-judged sh -c 'grep -q "\"spinlock_kind\":\"tas\"" "$0" || exit 1; tools/trace/trace_check.py "$0" > "$0.check"; status=$?; cat "$0.check"; [ $status = 0 ] && grep -Eq "\([1-9][0-9]* without tickets" "$0.check"' "$LOGDIR/tcg-smp4-tas.serial"
# qspinlock torture traced: the queue order judged on 3 CPUs queueing, and the paravirtual
# queue's halts (pv auto: on under TCG) each ended by a kick or the time bound.
boot tcg-smp4-qspinlock ACCEL=tcg SMP=4 CMDLINE="run=spinlock,lockref,fs quick spinlock.kind=qspinlock fs.walk=ref trace=all trace.test=qspinlock_torture"
check fs-walk-ref-reported sh -c 'grep -q "^fs: path walk ref (fs.walk=ref)" "$0" && grep -q "\"fs_walk\":\"ref\"" "$0"' "$LOGDIR/tcg-smp4-qspinlock.serial"
check tcg-smp4-qspinlock-queue-judged sh -c 'tools/trace/trace_check.py "$0" > "$0.check"; status=$?; cat "$0.check"; [ $status = 0 ] && grep -Eq " [1-9][0-9]* queued acquisitions judged" "$0.check" && grep -Eq "; [1-9][0-9]* on a qspinlock\)" "$0.check" && grep -Eq "qspinlock: deepest queue: [3-9]" "$0"' "$LOGDIR/tcg-smp4-qspinlock.serial"
# 16 vCPUs on 2 cores, the pv ticket lock (the default kind) and the pv queue's torture:
# no lost wake-up, no bad input (the tortures' lost-wakeup and pv-bad-input), about 11 s.
boot tcg-smp16-pv ACCEL=tcg SMP=16 CMDLINE="run=spinlock,lockref,fs quick"
# 16 vCPUs on the host's cores: the queued lock with paravirtual waiting (auto: on under
# TCG) must stay fair (the torture's starvation bound, judged in runs of 2 s or more).
boot tcg-smp16-qspinlock ACCEL=tcg SMP=16 CMDLINE="run=spinlock,fs quick torture.secs=2 spinlock.kind=qspinlock"
check bad-trace-reported sh -c 'grep -q "cmdline: .trace=sometimes.: expected off, all, or a comma list" "$0" && grep -q "cmdline: .trace.events=5.: expected events per CPU from 16 to 65536" "$0" && ! grep -q "# TRACE" "$0"' "$LOGDIR/bad-cmdline.serial"
# Oversubscribed: many more vCPUs than host cores (the paravirtual lock and
# progress-based barrier timeouts are what let these finish).
boot tcg-smp16-boot ACCEL=tcg SMP=16 CMDLINE="run=boot"
# The CPU topology QEMU was told, read back from CPUID on every CPU (lib/topology_cpuid.c):
# leaf 0xB without a cache leaf (TCG's max CPU is AuthenticAMD), then leaf 0xB with leaf 4's L3.
boot topo-smp8-2s2c2t ACCEL=tcg SMP=8,sockets=2,cores=2,threads=2 CMDLINE="run=boot quick"
check topo-smp8-2s2c2t-env sh -c 'grep -q "\"packages\":2,\"cores_per_package\":2,\"threads_per_core\":2,\"llc_groups\":2,\"topology_source\":\"cpuid 0xb\"" "$0" &&
    grep -q "\"llc_cpus\":\[\"0-3\",\"4-7\"\]}" "$0"' "$LOGDIR/topo-smp8-2s2c2t.serial"
boot topo-smp12-3s4c ACCEL=tcg SMP=12,sockets=3,cores=4 CPU=max,vendor=GenuineIntel CMDLINE="run=boot quick"
check topo-smp12-3s4c-env sh -c 'grep -q "^topology: cpuid 0xb: smt shift 0, package shift 2; cache leaf 4: L3 shared by 4 ids" "$0" &&
    grep -q "\"packages\":3,\"cores_per_package\":4,\"threads_per_core\":1,\"llc_groups\":3,\"topology_source\":\"cpuid 0xb\"" "$0" &&
    grep -q "\"llc_cpus\":\[\"0-3\",\"4-7\",\"8-11\"\]}" "$0"' "$LOGDIR/topo-smp12-3s4c.serial"
boot tcg-smp64-tests-quick ACCEL=tcg SMP=64 MEM=2G CMDLINE="run=tests quick"
boot tcg-smp255-boot ACCEL=tcg SMP=255 MEM=4G CMDLINE="run=boot"
# CPUID's hypervisor bit hidden: the debug-exit device is probed, not inferred, so
# run-qemu.sh still sees the verdict (status 33), and the hypervisor is "none".
# Also the lockdep suite: planted lock-order mistakes, each reported (docs/lockdep.md); the
# ABBA's four acquisitions must decode to test_lockdep.c lines, and no address to nothing.
boot tcg-no-hv-bit ACCEL=tcg SMP=2 CPU=max,-hypervisor CMDLINE="run=boot,lockdep"
check no-hv-bit-named grep -q '"hypervisor":"none"' "$LOGDIR/tcg-no-hv-bit.serial"
check lockdep-planted-decoded sh -c 'tools/log/lockdep_decode.py build/kernel.elf "$0" > "$0.decoded" &&
    [ "$(grep -c "at 0x[0-9a-f]* (abba_two_cpus test_lockdep.c:[0-9]*).* at 0x[0-9a-f]* (abba_two_cpus test_lockdep.c:[0-9]*)" "$0.decoded")" = 2 ] &&
    ! grep "lockdep:.*??" "$0.decoded"' "$LOGDIR/tcg-no-hv-bit.serial"
# A CPU without long mode: boot/entry.asm says so and ends QEMU through debug-exit
# with the failure value (run-qemu.sh status 1, QEMU's 35), not by a timeout.
check no-long-mode env ACCEL=tcg SMP=1 CPU=max,-lm TIMEOUT=120 sh -c \
    'tools/boot/run-qemu.sh "$0" >/dev/null 2>&1; s=$?; grep -q "this CPU has no long mode" "$0" && [ $s = 1 ]' \
    "$LOGDIR/no-long-mode.serial"
# A PC's ending: no debug-exit device, so the results page stays up (BIOS and UEFI).
screen_boot results-screen-bios bios "run=boot"
screen_boot results-screen-uefi uefi "run=boot"
# The status line moves during a long silent test: two screendumps 7 s apart, both
# inside the 15 s ticket lock torture (4 s and 11 s in; CPU 0 sleeps in pv waits many
# times a second there), differ in the bottom text row, and each shows the torture's
# time in step (at least 2 s and 10 s: a line stale by 2 s or more fails); the run ends by
# debug-exit with a pass.  The first picture, read as text, shows the boot lines but
# not the JSON # ENV line.
check progress-moves env ACCEL=tcg SMP=4 TIMEOUT=${TIMEOUT:-300} \
    QEMU_MONITOR="$LOGDIR/progress-moves.monitor" CMDLINE="run=spinlock torture.secs=15" bash -c '
    base=$0; rm -f "$base.monitor" "$base.serial"
    tools/boot/run-qemu.sh "$base.serial" >/dev/null 2>&1 & qemu=$!
    tools/boot/screendump.py "$base.monitor" "$base.png" --wait-log "$base.serial" \
        --for "# Subtest: spinlock" --timeout "$TIMEOUT" --first 4 --again 7 --text; shot=$?
    wait $qemu; status=$?
    secs() { sed -n "s/.* 1\/2 ticket_lock_torture \([0-9]*\) s of ~15 s\$/\1/p" "$1" | tail -1; }
    s1=$(secs "$base.txt"); s2=$(secs "$base-2.txt"); echo "status line: ${s1:-?} s, then ${s2:-?} s"
    grep -q "^lockref: policy" "$base.txt" && grep -q "^KTAP version 1" "$base.txt" &&
        ! grep -q "# ENV" "$base.txt" && tools/log/ktap_check.py "$base.serial" &&
        [ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" -ge 2 ] && [ "$s2" -ge 10 ] &&
        [ $status = 0 ] && [ $shot = 0 ]' "$LOGDIR/progress-moves"
boot tcg-no-cx16 ACCEL=tcg SMP=2 CPU=max,-cx16 CMDLINE="run=lockref quick"
check no-cx16-reported grep -q "16-byte form on its lock (no CX16)" "$LOGDIR/tcg-no-cx16.serial"
# The race detector (make kcsan, docs/kcsan.md): its kernel built (15 s of CPU at -j2),
# then its quick run at SMP=4 finds no data race and prints its summary (about 15 s under TCG,
# 4x the plain run's tests); torture.busted=race's plain counter and flag must be reported
# and fail the run (8 s), each report's two sites decoded to test_race.c lines (3 s).
check kcsan-build make -s -j2 build/kcsan/lockref.iso
BOOT_TARGET=kcsan KERNEL_ELF=build/kcsan/kernel.elf boot kcsan-quick ACCEL=tcg SMP=4 CMDLINE="run=tests quick"
# Its summary read back (tools/log/kernel_log.py): accesses seen, rare lines of the platform watched, no race.
check kcsan-quick-summary python3 -c 'import sys; sys.path.insert(0, "tools"); import kernel_log
s = kernel_log.kcsan(kernel_log.read(sys.argv[1])[0]); print(s)
sys.exit(not (s and s["accesses"] > 0 and s["rare_site_watchpoints"] > 0 and s["races"] == 0))' \
    "$LOGDIR/kcsan-quick.serial"
BOOT_TARGET=kcsan KERNEL_ELF=build/kcsan/kernel.elf boot kcsan-busted-race ACCEL=tcg SMP=4 \
    CMDLINE="run=boot torture.busted=race quick" -- --expect-fail "FAIL: kcsan found [0-9]+ data race"
check kcsan-busted-race-decoded sh -c 'tools/log/lockdep_decode.py build/kcsan/kernel.elf "$0" > "$0.decoded" &&
    grep "^kcsan: data race in .shared_counter_and_flag." "$0.decoded" &&
    grep -q "^kcsan: data race in .shared_counter_and_flag. on 0x[0-9a-f]* ([a-z_]*): cpu [0-9] [a-z]* [0-9] bytes at 0x[0-9a-f]* ([a-z_]* test_race.c:[0-9]*.*), cpu [0-9] [a-z]* [0-9] bytes at 0x[0-9a-f]* ([a-z_]* test_race.c:[0-9]*" "$0.decoded" &&
    ! grep "^kcsan:.*??" "$0.decoded"' "$LOGDIR/kcsan-busted-race.serial"
# Negative controls: a broken lock must make the run fail, naming the invariant.
boot busted-lockref ACCEL=tcg SMP=4 CMDLINE="run=lockref torture.busted=lockref quick trace=all trace.test=torture_mainline_8 trace.events=16384" -- \
    --expect-fail "invariant (hold-verify|conservation|count-range|lost-update)[a-z-]* broken"
boot busted-spinlock ACCEL=tcg SMP=2 CMDLINE="run=spinlock torture.busted=spinlock quick trace=all trace.test=ticket_lock_torture trace.events=16384" -- \
    --expect-fail "invariant (held-on-entry|lost-update|exclusive-hold) broken"
boot busted-qspinlock ACCEL=tcg SMP=2 CMDLINE="run=spinlock torture.busted=qspinlock quick" -- \
    --expect-fail "invariant (held-on-entry|lost-update|exclusive-hold) broken"
# torture.busted=<kind>: the test-and-set kind's broken variant (a test, then a plain store;
# lib/spinlock.h's busted columns), which the spinlock torture must catch, naming the invariant,
# and the trace judge must catch on its own as overlapping holds (about 4 s).
boot busted-tas ACCEL=tcg SMP=2 CMDLINE="run=spinlock torture.busted=tas quick trace=all trace.test=ticket_lock_torture trace.events=16384" -- \
    --expect-fail "invariant (held-on-entry|lost-update|exclusive-hold) broken"
check busted-tas-trace sh -c '! tools/trace/trace_check.py "$0" > "$0.check" && cat "$0.check" && grep -q "FAIL overlap: lock torture:spinlock held by cpu [0-9] " "$0.check"' "$LOGDIR/busted-tas.serial"
# A lock that excludes but starves (odd CPUs stand back after each miss): only the
# torture's starvation check, judged in runs of 2 s or more, can fail it.
boot busted-unfair ACCEL=tcg SMP=4 CMDLINE="run=spinlock quick torture.secs=2 torture.busted=unfair" -- \
    --expect-fail "invariant starvation broken"
# A lost wake-up fails the run, by its judgement, not by a timeout: the real paravirtual
# locks with one kick in 4 not sent (pv_kick_drop); the halt it should have ended lasts
# to its 100 ms bound with no kick received, which the torture's lost-wakeup invariant
# fails (lib/pv_stats.h), and the trace judge on its own (about 6 s each).
boot busted-qspinlock-lost-kick ACCEL=tcg SMP=4 CMDLINE="run=spinlock quick torture.busted=qspinlock-lost-kick trace=all trace.test=qspinlock_torture trace.events=65536" -- \
    --expect-fail "invariant lost-wakeup broken"
check busted-qspinlock-lost-kick-trace sh -c '! tools/trace/trace_check.py "$0" > "$0.check" && cat "$0.check" && grep -q "FAIL lost wake-up: cpu [0-9]* slept on torture:spinlock" "$0.check"' "$LOGDIR/busted-qspinlock-lost-kick.serial"
boot busted-spinlock-lost-kick ACCEL=tcg SMP=4 CMDLINE="run=spinlock quick torture.busted=spinlock-lost-kick" -- \
    --expect-fail "invariant lost-wakeup broken"
# The queue's three broken steps (kernel/test/qspinlock_busted.h) at SMP=4, where 3 CPUs queue:
# the torture must catch each (two holders, or a waiter wiped off the word), and the trace
# judge the skipped wait for the head on its own.  The plain tail needs a CPU to arrive
# while the window is open, which a CPU-starved host makes rare: it runs 3 s, not 1.
# Only skip-head's run is traced (its trace is judged below): writing out a full
# ring costs a boot about 15 s of serial output.
for bug in skip-head early-handoff plain-tail; do
    secs=1 traced=
    [ "$bug" = plain-tail ] && secs=3
    [ "$bug" = skip-head ] && traced="trace=all trace.test=qspinlock_torture trace.events=65536"
    boot "busted-qspinlock-$bug" ACCEL=tcg SMP=4 CMDLINE="run=spinlock torture.busted=qspinlock-$bug quick torture.secs=$secs $traced" -- \
        --expect-fail "invariant (held-on-entry|lost-update|exclusive-hold|lost-waiter) broken"
done
check busted-qspinlock-skip-head-trace sh -c '! tools/trace/trace_check.py "$0" > "$0.check" && cat "$0.check" && grep -Eq "FAIL (queue order|overlap): lock torture:spinlock" "$0.check"' "$LOGDIR/busted-qspinlock-skip-head.serial"
# A planted ABBA that can really deadlock: the lock-order checker must report it (and panic,
# lockdep.panic=on) before the spinlock's 20-second "deadlock?" panic could come.
boot busted-abba ACCEL=tcg SMP=2 CMDLINE="run=spinlock torture.busted=abba lockdep.panic=on quick" -- \
    --expect-fail "PANIC: .*lockdep: possible deadlock"
check busted-abba-before-timeout sh -c '! grep -q "deadlock?" "$0"' "$LOGDIR/busted-abba.serial"
# A checker that stops is a failure: lockdep.classes=4 is full before the fs suite's
# first test has its classes, and that test fails with one line naming the table (~7 s).
boot lockdep-table-full ACCEL=tcg SMP=2 CMDLINE="run=fs quick lockdep.classes=4" -- \
    --expect-fail "^  # FAIL: lockdep made 1 report\(s\) during this test, the last: checking stopped: the class table is full \(4 entries"
check lockdep-table-full-summary grep -q "^# lockdep: .*checking STOPPED: the class table is full (4 entries)" "$LOGDIR/lockdep-table-full.serial"
# The trace, a second judge that trusts no counter, must catch both on its own (docs/tracing.md):
# the busted lock's overlapping holds, or (when TCG ran the two vCPUs in turns over the span
# both rings still hold) the one ticket it grants again and again.
check busted-lockref-trace sh -c '! tools/trace/trace_check.py "$0" > "$0.check" && cat "$0.check" && grep -q "FAIL lockless inside a hold: lock .*: cpu [0-9] updated without the lock in [0-9.]* us to .*inside cpu [0-9].s hold [0-9.]* us to " "$0.check"' "$LOGDIR/busted-lockref.serial"
check busted-spinlock-trace sh -c '! tools/trace/trace_check.py "$0" > "$0.check" && cat "$0.check" && grep -Eq "FAIL (overlap: lock torture:spinlock held by cpu [0-9] .* and cpu [0-9] .*both in [0-9.]* us to |ticket order: lock torture:spinlock: ticket 0 to cpu [0-9] after ticket 0 to cpu [0-9]: granted again)" "$0.check"' "$LOGDIR/busted-spinlock.serial"
# Traced good runs: the trace judge passes them, and the converter's JSON is well formed.
# The ring of make trace (the most, 65536 events): less often holds no pv sleep ended by its kick.
boot traced-lockref-pv ACCEL=tcg SMP=4 CMDLINE="run=lockref quick trace=all trace.events=65536 spinlock.pv=on"
check traced-lockref-judged tools/trace/trace_check.py "$LOGDIR/traced-lockref-pv.serial"
check traced-lockref-converted sh -c 'tools/trace/trace_convert.py "$0" "$1" && tools/trace/trace_convert.py --check-json "$1/trace.json" && test -s "$1/timeline.png"' "$LOGDIR/traced-lockref-pv.serial" "$LOGDIR/trace-lockref"
# The timeline's window shows what the trace is for: a fallback to the lock, a pv sleep and its kick.
check traced-lockref-window grep -Eq "trace_convert: window .* shows: fallbacks=[1-9][0-9]* sleeps=[1-9][0-9]* kicked_sleeps=[1-9]" "$LOGDIR/traced-lockref-converted.log"
# The queued spinlock traced under every lock: overlap, lockless-in-hold and queue order judged.
boot traced-qspinlock ACCEL=tcg SMP=4 CMDLINE="run=lockref quick spinlock.kind=qspinlock trace=all trace.events=65536"
check traced-qspinlock-judged sh -c 'tools/trace/trace_check.py "$0" > "$0.check"; status=$?; cat "$0.check"; [ $status = 0 ] && grep -Eq "without tickets.* [1-9][0-9]* queued acquisitions judged" "$0.check"' "$LOGDIR/traced-qspinlock.serial"
boot traced-spinlock-pv ACCEL=tcg SMP=2 CMDLINE="run=spinlock quick trace=all spinlock.pv=on"
check traced-spinlock-judged tools/trace/trace_check.py "$LOGDIR/traced-spinlock-pv.serial"
for fault in ud gp pf; do
    boot "selftest-fault-$fault" ACCEL=tcg SMP=2 CMDLINE="run=boot selftest.fault=$fault trace=all" -- \
        --expect-fail "^PANIC: CPU 0 .*#$(echo $fault | tr a-z A-Z)"
done
# A panic prints the rings too (the last events before the crash), after its report, whole.
check panic-leaves-trace sh -c 'sed -n "/^PANIC: CPU 0/,\$p" "$0" | grep -q "^# TRACE end cpus=2" && \
    tools/trace/trace_check.py "$0"' "$LOGDIR/selftest-fault-gp.serial"
# The fault comes after the KTAP header and plan: a KTAP reader sees a crashed test, not a
# log without KTAP.
check selftest-fault-is-crashed-test sh -c 'python3 tools/log/ktap_junit.py --run "$0" --status 1 \
    -o "$1" && grep -q "type=\"crashed\"" "$1"' "$LOGDIR/selftest-fault-gp.serial" \
    "$LOGDIR/selftest-fault-gp.junit.xml"
# The runner's failure paths, on purpose (selftest.stall=): a CPU held past the fs torture's
# start barrier is named in its own report (not CPU 0's) and the fs still audits and tears
# down clean, the trace judged too; a CPU held past a test's deadline fails that test with
# one "late" line, comes back, and every later test passes.
boot stall-fs-start ACCEL=tcg SMP=2 CMDLINE="run=fs quick selftest.stall=1:12000:fs-start trace=all trace.test=torture" -- \
    --expect-fail "^  # FAIL cpu 1: cpu 1: not every CPU came to the start"
check stall-fs-start-clean sh -c '[ "$(grep -c "^  # FAIL" "$0")" = 2 ] && \
    grep -q "^  # FAIL cpu 0: cpu 0: not every CPU came to the start" "$0" && \
    grep -q "^  # audit with 0 held: 1 nodes" "$0" && \
    ! sed -n "/^  ok 1 rules/,/^  not ok 2 torture/p" "$0" | grep -q "fs audit\|not destroyed\|PANIC" && \
    tools/trace/trace_check.py "$0"' "$LOGDIR/stall-fs-start.serial"
boot stall-deadline ACCEL=tcg SMP=2 CMDLINE="run=boot quick selftest.stall=1:3000:deadline lockref.retries=5000 lockref.policy=v7" -- \
    --expect-fail "^  # late: cpu 1, [0-9]+ ms after test 'cpus_online_long_mode_own_stack_gs' ended"
check stall-deadline-next-untouched sh -c 'grep -q "^  not ok 1 cpus_online" "$0" && \
    n=$(sed -n "s/^  1\.\.//p" "$0") && [ "$(grep -c "^  ok [0-9]* " "$0")" = $((n - 1)) ]' \
    "$LOGDIR/stall-deadline.serial"
# On the same boot: lockref.retries= past the library's limit is refused by the parser alone
# (one cmdline: line), and lockref.policy=v7 beside it still applies: the log and # ENV say v7.
check retries-limit-one-line sh -c '[ "$(grep -c "^cmdline:" "$0")" = 1 ] && \
    grep -q "^cmdline: .lockref.retries=5000.: expected a count from 1 to 1000" "$0" && \
    grep -q "^lockref: policy v7, 4 lockless attempts" "$0" && \
    grep -q "^# ENV .*\"lockref_policy\":\"v7\"" "$0"' "$LOGDIR/stall-deadline.serial"
check bad-stall-reported sh -c 'for w in "1:3000:nowhere.: expected CPU:MS" "1:60001.: expected CPU:MS" \
    "5:100:start.: expected a CPU from 1 to 1"; do grep -q "^cmdline: .selftest.stall=$w" "$0" || exit 1; done' \
    "$LOGDIR/bad-cmdline.serial"
if [ -d /sys/module/kvm_pvm ]; then
    # PVM emulates what VMX would run: a boot takes minutes and shows nothing TCG does not.
    echo "SKIP kvm-smp2: /dev/kvm is PVM, not hardware virtualization"
elif [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    boot kvm-smp2 ACCEL=kvm SMP=2 TIMEOUT=600 CMDLINE="run=tests"
else
    echo "SKIP kvm-smp2: /dev/kvm is not usable here"
fi

if [ -x tools/boot/run-bochs.sh ] && command -v bochs >/dev/null; then
    echo "== Bochs"
    # The boot tests and the lockref suite (both forms, CMPXCHG8B and CMPXCHG16B as Bochs
    # emulates them), quick: about 35 s, most of it Bochs's BIOS and GRUB.
    note_boot bochs-smp2-quick "$LOGDIR/bochs.serial" bochs SMP=2 CMDLINE="run=boot,lockref quick" TIMEOUT=600
    check bochs-smp2-quick sh -c 'SMP=2 CMDLINE="run=boot,lockref quick" TIMEOUT=600 tools/boot/run-bochs.sh "$0" >/dev/null 2>&1; tools/log/ktap_check.py "$0"' "$LOGDIR/bochs.serial"
fi

echo "== CI files and reports"
check ktap-junit-tool python3 tools/tests/test_ktap_junit.py
# The workflow against GitHub's schema (make deps installs the validator), and the
# validator against a workflow broken on purpose, so a validator that accepts
# anything cannot pass.
check github-workflow action-validator .github/workflows/ci.yml
check github-workflow-broken-rejected sh -c 'sed "s/runs-on:/runs-onn:/" .github/workflows/ci.yml \
    > "$0" && ! action-validator "$0"' "$LOGDIR/broken-ci.yml"
check gitlab-ci "$SYSTEM_PYTHON" tools/house/check_gitlab_ci.py .gitlab-ci.yml
check gitlab-ci-broken-rejected sh -c 'sed "s/^  script:/  scripts:/" .gitlab-ci.yml > "$0" && \
    ! "$1" tools/house/check_gitlab_ci.py "$0"' "$LOGDIR/broken-gitlab-ci.yml" "$SYSTEM_PYTHON"
# JUnit for every check so far, read back by a JUnit reader not written here: its
# verdict counts must be this script's, and a negative control must show as a
# failure with its invariant.  Written again at the end to include this check.
check junit-counts sh -c 'python3 tools/log/ktap_junit.py --checks "$0" -o "$0/junit.xml" && \
    "$1" tools/log/junit_counts.py "$0/junit.xml" --passed "$2" --failed "$3" \
    --failure-in "busted-lockref=invariant [a-z-]+ broken"' \
    "$LOGDIR" "$SYSTEM_PYTHON" "$passed" "$failed"
python3 tools/log/ktap_junit.py --checks "$LOGDIR" -o "$LOGDIR/junit.xml" ||
    echo "ktap_junit: could not write $LOGDIR/junit.xml"

echo
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
