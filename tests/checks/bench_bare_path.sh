#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_bare_path.sh - a boot's tests check, its benchmarks time the bare lock path.
#
#   tests/checks/bench_bare_path.sh LOG "CMDLINE"     e.g. "run=tests,bench quick"
#
# Why: the static keys switch off at run time before the bench suite
# (docs/static-keys.md), so one boot both checks (lockdep) and times what a
# lock costs.  This boots CMDLINE under TCG into LOG and requires: the run
# passed; the one "keys:" line saying the bench suite runs the bare path,
# after every checking suite; each BENCH line of the default lock and lockref
# rows says "path":"bare"; the lockdep summary ends "checking to the end";
# with the lockdep suite asked for, its planted reports came before the
# benchmarks; and the text the benchmarks ran has no switch load on the lock
# and lockref fast paths (tools/house/fastpath_check.py --patched).  One line per
# failure; exit status 1 on any.
set -u
log=$1
cmdline=$2
fail() { echo "bench_bare_path: $*"; status=1; }
status=0
make run ACCEL=tcg SMP=4 CMDLINE="$cmdline" TIMEOUT=900 >"$log" 2>&1 || fail "the boot of '$cmdline' failed (see $log)"
cp build/kernel.elf "$log.elf"
grep -q "^keys: suite 'bench' runs the bare lock path" "$log" ||
	fail "no line saying the bench suite runs the bare lock path"
bench_at=$(grep -n "^keys: suite 'bench'" "$log" | head -1 | cut -d: -f1)
last_check=$(grep -nE "^ok [0-9]+ (boot|spinlock|lockref|fs|lockdep)$" "$log" | tail -1 | cut -d: -f1)
[ -n "$bench_at" ] && [ -n "$last_check" ] && [ "$last_check" -lt "$bench_at" ] ||
	fail "the checking suites did not all pass before the benchmarks"
switched=$(grep '# BENCH ' "$log" | grep -E '"impl":"(spinlock|lockref|lockref16|lockref-locked|ticket-inline)"' |
	grep -E '"bench":"(uncontended|refcount|convoy)"' | grep -vc '"path":"bare"')
[ "$switched" = 0 ] || fail "$switched default lock or lockref BENCH lines do not say \"path\":\"bare\""
grep -qE '^# lockdep: .*; checking to the end$' "$log" || fail "the lockdep summary does not end 'checking to the end'"
case "$cmdline" in
*lockdep*)
	planted=$(sed -n "1,${bench_at:-0}p" "$log" | grep -c "# lockdep: possible deadlock")
	[ "$planted" -gt 0 ] || fail "the lockdep suite's planted reports are not before the benchmarks"
	;;
esac
python3 tools/house/fastpath_check.py --kernel "$log.elf" --patched "$log" >"$log.fastpath" ||
	fail "the patched text has a switch load on a fast path ($log.fastpath)"
exit $status
