#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_native_words.sh - the native benchmark program fails a run given a word
# that selects what is tested and that it does not act on (kcsan=on, lockdep=on,
# run=tests), with one line naming it and the word repeated beside the verdict;
# a harmless one (lockdep.classes=64) is said but passes, and run=bench passes.
#   tests/checks/bench_native_words.sh OUTDIR
set -u
cd "$(dirname "$0")/../.."
out=${1:?usage: bench_native_words.sh OUTDIR}
mkdir -p "$out"
bin=build/bench-native/bench_native
[ -x "$bin" ] || { echo "bench_native_words: $bin is missing: run 'make $bin' first"; exit 1; }
run() { "$bin" --only=uncontended bench.ms=2 bench.trials=1 "$1" >"$out/$2.log" 2>&1; }
for word in kcsan=on lockdep=on run=tests; do
    name=${word%%=*}
    run "$word" "$name"
    status=$?
    if [ $status != 1 ] || ! grep -q "^cmdline: '$word': " "$out/$name.log" ||
        ! grep -q "^# FAIL: command line: '$word': " "$out/$name.log" ||
        ! grep -q "^# cmdline: '$word': .*it selects what is tested, so the run fails" "$out/$name.log" ||
        ! grep -q "^# RESULT fail" "$out/$name.log"; then
        echo "bench_native_words: '$word': status $status; expected 1 with its cmdline:, FAIL and verdict lines ($out/$name.log)"
        exit 1
    fi
done
run lockdep.classes=64 harmless
if [ $? != 0 ] || ! grep -q "^# cmdline: 'lockdep.classes=64': not acted on by bench_native (harmless" "$out/harmless.log"; then
    echo "bench_native_words: 'lockdep.classes=64': expected a pass with the word said beside the verdict ($out/harmless.log)"
    exit 1
fi
run run=bench bench || { echo "bench_native_words: 'run=bench' failed ($out/bench.log)"; exit 1; }
echo "bench_native_words: kcsan=on, lockdep=on and run=tests fail the run, lockdep.classes=64 is said, run=bench passes"
