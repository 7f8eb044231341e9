#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh - make -C tests/fuzz run: each harness for FUZZ_SECONDS, one after
# another; the first failure stops the run (tests/fuzz/Makefile says what fails).
#
#   tests/fuzz/run.sh BUILD SECONDS TIMEOUT HARNESS...   (run from tests/fuzz)
set -u
build=$1 seconds=$2 timeout=$3
shift 3
mkdir -p "$build/artifacts"
for h in "$@"; do
    mkdir -p "$build/corpus/$h"
    echo "fuzz $h: $seconds s"
    "$build/fuzz_$h" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$build/artifacts/$h-" \
        "$build/corpus/$h" "corpus/$h" >"$build/$h.log" 2>&1
    status=$?
    grep -E "^stat::number_of_executed_units|^#[0-9]+ +DONE" "$build/$h.log" | tail -n 2
    if [ $status -ne 0 ]; then
        echo "fuzz $h FAILED (exit $status), see $build/$h.log:"
        grep -E "ERROR|fuzz check failed|SUMMARY|artifact" "$build/$h.log" | head -n 8
        exit 1
    fi
done
echo "fuzz: all harnesses ran $seconds s each with no crash, hang or failed check"
