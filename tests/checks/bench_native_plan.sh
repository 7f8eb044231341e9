#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_native_plan.sh - bench_native's options: --help exits 0, an unknown option 2
# before running anything, and --plan on the written 256-CPU fixture tree plans at most
# 24 counts and an estimate, and runs no benchmark.
set -u
cd "$(dirname "$0")/../.."
bin=build/bench-native/bench_native out=build/test/bench-native-plan.out
$bin --help | grep -q "^usage: bench_native" || { echo "--help: no usage line"; exit 1; }
$bin --bogus run=bench
[ $? = 2 ] || { echo "--bogus: expected exit status 2"; exit 1; }
tree=$(mktemp -d) && trap 'rm -rf "$tree"' EXIT
build/host/plain/test_topology --write big-256 "$tree" &&
    $bin --plan --sysfs="$tree" --cpus=256 >"$out" &&
    tests/checks/log_has.py "$out" --has '^# plan: ([1-9]|1[0-9]|2[0-4]) points per sweeping benchmark:' \
        --has '^# plan: [0-9]+ benchmarks, estimated [0-9]+ s' --lacks '# BENCH'
