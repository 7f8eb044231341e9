#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_native.sh - the benchmarks on the host's cores (make bench-native), short.
#
# They must build without kernel headers (bench-native-build) and pass their own checks;
# the figures are not judged here.  The report (tables and plot) is kept with the logs,
# build/test/bench-native/, for the CI summary and artifact; the record says how to
# replay the run.
set -u
cd "$(dirname "$0")/../.."
serial=build/test/bench-native.serial
{ echo "replay=build/bench-native/bench_native run=bench quick"; echo "serial=$serial"; } \
    >build/test/bench-native.check
build/bench-native/bench_native run=bench quick >"$serial" && tools/log/ktap_check.py "$serial" &&
    python3 tools/bench/bench_report.py "$serial" build/test/bench-native
