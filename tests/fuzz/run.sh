#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh - make -C tests/fuzz run: each harness for FUZZ_SECONDS, JOBS (2) of
# them at a time, as each fuzzer is one process on one core; any failure
# fails the run (tests/fuzz/Makefile says what fails), each harness's lines
# printed in the order given.
#
#   tests/fuzz/run.sh BUILD SECONDS TIMEOUT HARNESS...   (run from tests/fuzz)
set -u
build=$1 seconds=$2 timeout=$3
shift 3
JOBS=${JOBS:-2}
mkdir -p "$build/artifacts"

# fuzz_one HARNESS: run it, print its summary lines; exit status 1 on any failure.
fuzz_one() {
    local h=$1 status
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
        return 1
    fi
}

failed=0
while [ $# -gt 0 ]; do
    batch=()
    while [ $# -gt 0 ] && [ ${#batch[@]} -lt "$JOBS" ]; do batch+=("$1"); shift; done
    pids=()
    for h in "${batch[@]}"; do
        fuzz_one "$h" >"$build/$h.summary" &
        pids+=($!)
    done
    for i in "${!batch[@]}"; do
        wait "${pids[$i]}" || failed=1
        cat "$build/${batch[$i]}.summary"
    done
done
[ $failed -eq 0 ] || exit 1
echo "fuzz: all harnesses ran $seconds s each with no crash, hang or failed check"
