#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench.sh - make bench and make bench-native: the benchmarks, then their report.
#
#   tools/bench/bench.sh guest    boot under QEMU (docs/interface.md's variables):
#                           build/bench/serial.log, report.md, scaling.png
#   tools/bench/bench.sh native   the same benchmarks as threads on this machine's cores
#                           (build/bench-native/bench_native; CPUS=N limits them,
#                           TRACE=1 records the trace into build/bench-native/trace/);
#                           a `make bench` log, if there is one, is set beside the
#                           native figures; with TRACE_COST=1, a run that passed is
#                           followed by the trace hooks' cost (tools/trace/trace_cost.py,
#                           as long as bench.ms= and bench.trials= say) into trace-cost.md
#                           (off by default: it takes longer than the benchmarks)
#
# CMDLINE takes the kernel's words; run=bench comes first unless it names the suites.
# Exit status: the run's, or the report's when the report could not be written.
set -u
cd "$(dirname "$0")/../.."
case " ${CMDLINE:-} " in
*" run="*) words=${CMDLINE:-} ;;
*) words="run=bench ${CMDLINE:-}" ;;
esac

guest() {
    mkdir -p build/bench
    CMDLINE=$words tools/boot/run-qemu.sh build/bench/serial.log
    local status=$?
    python3 tools/bench/bench_report.py build/bench/serial.log build/bench || exit
    left build/bench
    exit "$status"
}

native() {
    local out=build/bench-native against=() status
    # shellcheck disable=SC2086 # the words are the kernel's, one argument each
    { build/bench-native/bench_native ${CPUS:+--cpus=$CPUS} $words ${TRACE:+trace=all}
      echo $? >"$out/status"; } | tee "$out/serial.log"
    status=$(cat "$out/status")
    [ -f build/bench/serial.log ] && against=(--against build/bench/serial.log)
    python3 tools/bench/bench_report.py "$out/serial.log" "$out" "${against[@]}" || exit
    if [ -n "${TRACE:-}" ]; then
        python3 tools/trace/trace_convert.py "$out/serial.log" "$out/trace" || exit
    fi
    if [ "${TRACE_COST:-0}" = 1 ] && [ "$status" -eq 0 ]; then
        # shellcheck disable=SC2086
        python3 tools/trace/trace_cost.py ${CPUS:+--cpus=$CPUS} "$out" $words || exit
    fi
    left "$out"
    exit "$status"
}

# The last line: where the run left its files.
left() {
    local pictures="" png cost=""
    for png in "$1"/*.png; do
        [ -e "$png" ] && pictures="${pictures:+$pictures, }$png"
    done
    [ -f "$1/trace-cost.md" ] && cost=", the trace hooks' cost in $1/trace-cost.md"
    echo "bench: left the serial log in $1/serial.log, the report in $1/report.md" \
        "(model.json beside it), the pictures in ${pictures:-(none)}$cost"
}

case ${1:-} in
guest) guest ;;
native) native ;;
*) echo "usage: tools/bench/bench.sh guest|native" >&2; exit 2 ;;
esac
