#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# every_kind.sh - every lock kind of lib/spinlock_kinds.h's table, booted twice:
# its tortures must pass (run=spinlock,lockref,fs quick spinlock.kind=KIND) and its
# broken twin must fail naming a mutual-exclusion invariant (torture.busted= with the
# twin's word from kernel/busted_list.h: the kind's name, `spinlock` for the default kind).
# The kinds come from the table, so a kind added by docs/howto.md is booted with
# no line of its own.  Logs: LOGDIR (default build/test/every-kind), one pair per kind.
#   tests/checks/every_kind.sh        exit 0 only if every kind behaved so
#   KINDS="tas" tests/checks/every_kind.sh     those kinds only
set -u
cd "$(dirname "$0")/../.."
LOGDIR=${LOGDIR:-build/test/every-kind}
mkdir -p "$LOGDIR"
run_qemu=tools/boot/run-qemu.sh ktap_check=tools/log/ktap_check.py
kinds=${KINDS:-}
[ -n "$kinds" ] || kinds=$(python3 -c 'import sys; sys.path.insert(0, "tools/bench"); import bench_log; print(" ".join(bench_log.spin_kinds()))') ||
    { echo "every_kind: cannot read the kinds from lib/spinlock_kinds.h"; exit 2; }
[ -n "$kinds" ] || { echo "every_kind: lib/spinlock_kinds.h lists no kind"; exit 2; }
failed=0
for kind in $kinds; do
    log=$LOGDIR/$kind.serial
    ACCEL=tcg SMP=4 TIMEOUT=${TIMEOUT:-600} CMDLINE="run=spinlock,lockref,fs quick spinlock.kind=$kind" \
        "$run_qemu" "$log" >/dev/null 2>&1
    if "$ktap_check" "$log" >/dev/null && grep -q "\"spinlock_kind\":\"$kind\"" "$log"; then
        echo "every_kind: $kind: tortures pass ($log)"
    else
        echo "every_kind: $kind: the tortures on spinlock.kind=$kind did not pass ($log)"; failed=1
    fi
    log=$LOGDIR/busted-$kind.serial
    word=$(python3 tools/house/cmdline_doc_check.py --busted-twin "$kind") ||
        { echo "every_kind: $word"; failed=1; continue; }
    ACCEL=tcg SMP=2 TIMEOUT=${TIMEOUT:-600} CMDLINE="run=spinlock torture.busted=$word quick" \
        "$run_qemu" "$log" >/dev/null 2>&1
    if "$ktap_check" "$log" --expect-fail "invariant (held-on-entry|lost-update|exclusive-hold) broken" >/dev/null; then
        echo "every_kind: $kind: its broken twin fails as it must ($log)"
    else
        echo "every_kind: $kind: torture.busted=$word did not fail naming a broken invariant ($log)"; failed=1
    fi
done
exit $failed
