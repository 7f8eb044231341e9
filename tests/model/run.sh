#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/model/run.sh - run every Spin verification of the lock models.
#
# Why it exists: the models only prove something if they are checked, and
# the mutants only prove the checks can fail if they are seen to fail for
# the right reason.  Each line of verifications.txt, beside this script, is
# one verification (its head comment says what each column means).
#
# Prints "ok <name> (<states> states, <secs> s)" or "not ok <name> <why>"
# per line (JOBS verifications at a time, default 2; secs: generating, compiling
# and searching), exits 1 if any
# failed.  Pan verifiers are built under build/model/<name>/, never in the
# source tree.  Usage: tests/model/run.sh [--short | --long] [name...]   (default: all;
# --short: the lines of cost short, make test's; --long: those of cost long, make test-long's)

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD="$ROOT/build/model"

# Bounds for one verification: a search that needs more has outgrown the
# model sizes in README.md and must fail loudly, not swap or run for hours.
# Both limits may be raised from the environment on a slow machine; the time
# is for two searches sharing two cores (JOBS=2).
MEMLIM_MB=${MEMLIM_MB:-2048}
TIMEOUT_S=${TIMEOUT_S:-180}
DEPTH=4000000

TABLE="$HERE/verifications.txt"
PAN_CACHE=${PAN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lockref/pan}

for tool in spin gcc timeout; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "not ok model-checking: '$tool' is not installed (make deps installs spin and gcc)"
        exit 1
    fi
done

now() {
    date +%s.%N
}

# One verification; prints its result line and returns non-zero on failure.
verify() {
    name=$1 model=$2 defines=$3 mode=$4 expect=$5
    dir="$BUILD/$name"
    if [ "$defines" = - ]; then
        defines=
    else
        defines=$(echo "$defines" | tr , ' ')
    fi
    start=$(now)

    # A fresh directory with copies of the models: spin names the trail after
    # the file it was given, and it must land here, not in tests/model.
    rm -rf "$dir"
    if ! mkdir -p "$dir"; then
        echo "not ok $name cannot create $dir"
        return 1
    fi
    cp "$HERE"/*.pml "$dir"/
    cd "$dir" || return 1

    # shellcheck disable=SC2086 # $defines is a word list on purpose
    if ! spin -a $defines "$model" >spin.log 2>&1; then
        echo "not ok $name spin -a failed: $(tail -n 1 spin.log)"
        return 1
    fi
    case $mode in
    safety)
        cflags="-DSAFETY -DNOCLAIM"
        runflags=""
        ;;
    liveness)
        # Weak fairness over up to 3 x 2 processes (qspinlock.pml: 3 CPUs, 3 store-buffer drainers).
        cflags="-DNFAIR=3"
        runflags="-a -f"
        ;;
    *)
        echo "not ok $name unknown mode '$mode'"
        return 1
        ;;
    esac
    # -O1: half -O2's compile time (1.6 s, not 3.2 s, for qspinlock.pml's
    # verifier) and the same search speed within 3% (pv_progress, 11 million
    # states: 36.3 s, not 35.6 s).  A mutant's search stops at its first
    # error, mostly within a few thousand states, so there the compile is
    # all the cost and -O0 halves it again (0.8 s, not 1.6 s).
    opt=-O1
    [ "$expect" = pass ] || opt=-O0
    # A verifier is a function of spin's generated sources and gcc's flags and version:
    # one compiled before from the same ones is taken from the cache (PAN_CACHE, outside
    # build/ so that `rm -rf build` keeps it), not compiled again.
    ccflags="$opt -w -DMEMLIM=$MEMLIM_MB -DCOLLAPSE $cflags"
    key=$( (cat pan.?; echo "$ccflags"; gcc -dumpfullversion) | sha256sum | cut -c1-32)
    if [ -x "$PAN_CACHE/$key" ]; then
        cp "$PAN_CACHE/$key" pan
    # shellcheck disable=SC2086
    elif gcc $ccflags -o pan pan.c >cc.log 2>&1; then
        mkdir -p "$PAN_CACHE" && tmp=$(mktemp "$PAN_CACHE/.pan.XXXXXX") && cp pan "$tmp" &&
            mv "$tmp" "$PAN_CACHE/$key"
    else
        echo "not ok $name pan does not compile: $(head -n 1 cc.log)"
        return 1
    fi
    # shellcheck disable=SC2086
    timeout "$TIMEOUT_S" ./pan $runflags -m$DEPTH -w22 >pan.log 2>&1
    status=$?
    secs=$(echo "$(now) $start" | awk '{ printf "%.1f", $1 - $2 }')
    if [ $status -eq 124 ]; then
        echo "not ok $name pan ran over ${TIMEOUT_S} s"
        return 1
    fi
    errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.log | head -n 1)
    states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.log | head -n 1)
    if [ -z "$errors" ] || [ -z "$states" ]; then
        echo "not ok $name pan gave no verdict (exit $status): $(tail -n 1 pan.log)"
        return 1
    fi

    case $expect in
    pass)
        if [ "$errors" -ne 0 ]; then
            why=$(grep -m 1 -E '^pan:[0-9]+:' pan.log)
            echo "not ok $name $errors error(s): $why (trail: $dir)"
            return 1
        fi
        # A truncated search proves nothing: depth or memory ran out.
        if grep -q -E 'max search depth too small|Search not completed|MEMLIM' pan.log; then
            echo "not ok $name search incomplete: $(grep -m 1 -E 'depth too small|not completed|MEMLIM' pan.log)"
            return 1
        fi
        ;;
    assert:* | ltl:*)
        want=${expect#*:}
        if [ "$errors" -eq 0 ]; then
            echo "not ok $name mutant survived: 0 errors, expected ${expect}"
            return 1
        fi
        # shellcheck disable=SC2086
        spin -t -p $defines "$model" >trail.log 2>&1
        # The replayed trail names what broke: the text of the first
        # failed assertion starts with its name, and a never claim runs
        # as a process named after its ltl.
        case $expect in
        assert:*) found=$(grep -m 1 "text of failed assertion" trail.log |
            grep -c "assert(($want&&") ;;
        ltl:*) found=$(grep -c "acceptance cycle" pan.log) &&
            found=$(grep -c "($want:1)" trail.log) ;;
        esac
        if [ "$found" -eq 0 ]; then
            echo "not ok $name failed, but not as ${expect}: $(grep -m 1 -E '^pan:[0-9]+:' pan.log)"
            return 1
        fi
        ;;
    deadlock)
        if ! grep -q "invalid end state" pan.log; then
            echo "not ok $name expected a deadlock: $(grep -m 1 -E '^pan:[0-9]+:' pan.log || echo "$errors errors")"
            return 1
        fi
        ;;
    *)
        echo "not ok $name unknown expectation '$expect'"
        return 1
        ;;
    esac
    echo "ok $name ($states states, $secs s)"
    return 0
}

# The verifications run JOBS at a time (default 2, the cores make test has):
# JOBS workers go down the one queue in table order, each claiming the next
# line no other worker has claimed (mkdir is atomic), so a long search on one
# core does not leave a fixed share of lines waiting behind it while the other
# core idles; the result lines are printed in table order once all are done.
JOBS=${JOBS:-2}
mkdir -p "$BUILD" || exit 1
ran=0
rm -rf "$BUILD"/queue "$BUILD"/claim.* "$BUILD"/order
if [ ! -r "$TABLE" ]; then
    echo "not ok model-checking: cannot read the table $TABLE"
    exit 1
fi
cost_wanted=
case ${1:-} in
--short | --long) cost_wanted=${1#--}; shift ;;
esac
line=0
while read -r name model defines mode expect cost extra; do
    line=$((line + 1))
    case $name in
    '' | '#'*) continue ;;
    esac
    if [ -n "$extra" ] || { [ "$cost" != short ] && [ "$cost" != long ]; }; then
        echo "not ok model-checking: $TABLE line $line: expected 6 columns (name model defines mode expect cost), cost short or long"
        exit 1
    fi
    [ -z "$cost_wanted" ] || [ "$cost" = "$cost_wanted" ] || continue
    if [ $# -gt 0 ]; then
        case " $* " in
        *" $name "*) ;;
        *) continue ;;
        esac
    fi
    echo "$name $model $defines $mode $expect" >>"$BUILD/queue"
    echo "$name" >>"$BUILD/order"
    ran=$((ran + 1))
done <"$TABLE"

if [ $ran -eq 0 ]; then
    echo "not ok model-checking: no verification is named $*"
    exit 1
fi
pids=
worker=0
while [ $worker -lt "$JOBS" ]; do
    (
        k=0
        while read -r name model defines mode expect; do
            k=$((k + 1))
            mkdir "$BUILD/claim.$k" 2>/dev/null || continue # another worker has it
            # A subshell per verification: verify changes directory.  No stdin:
            # the queue's lines are this loop's.
            (verify "$name" "$model" "$defines" "$mode" "$expect") >"$BUILD/$name.result" </dev/null
        done <"$BUILD/queue"
    ) &
    pids="$pids $!"
    worker=$((worker + 1))
done
for pid in $pids; do
    wait "$pid"
done
failed=0
while read -r name; do
    if [ -s "$BUILD/$name.result" ]; then
        cat "$BUILD/$name.result"
    else
        echo "not ok $name gave no result line"
    fi
    grep -q "^ok " "$BUILD/$name.result" 2>/dev/null || failed=$((failed + 1))
done <"$BUILD/order"
[ $failed -eq 0 ]
