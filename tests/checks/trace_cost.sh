#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace_cost.sh - the trace hooks' cost step of make bench-native, quick (about a second).
#
# Three builds by turns; its table and goal line present and its ratios numbers; the
# figures are not judged.  Writes build/test/bench-native/trace-cost.md.
set -u
cd "$(dirname "$0")/../.."
out=build/test/bench-native
tools/trace/trace_cost.py --traced build/bench-native/bench_native \
    --untraced build/bench-native/bench_native_untraced "$out" run=bench quick &&
    tests/checks/log_has.py "$out/trace-cost.md" \
        --has '^\| lockref \| get\+put \| yes( \| [0-9]+\.[0-9]+){5} \|$' \
        --has '^goal \(informative, decides nothing: .*\): tracing off within 2% of the untraced build: (met|not met) \(worst row .*: [0-9]\.[0-9]{3}\)'
