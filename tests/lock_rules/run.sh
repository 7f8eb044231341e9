#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh - the lock rules can fail: each planted mistake in this folder must
# fail to compile under `clang -Wthread-safety -Werror` for its own reason
# (the diagnostic named below), while correct.c, the same calls used as
# their contracts say, compiles.  One line per file, "ok" or "not ok".
set -u
cd "$(dirname "$0")/../.."
flags=(-std=gnu11 -fsyntax-only -Wall -Wextra -Werror -Wthread-safety -iquote lib -I tests/host)
failed=0

# expect FILE DIAGNOSTIC: FILE must fail, and say DIAGNOSTIC.
expect() {
    local file=tests/lock_rules/$1 want=$2 out
    if out=$(clang "${flags[@]}" "$file" 2>&1); then
        echo "not ok $1: compiled, but a planted mistake must not"; failed=1
    elif ! grep -q -- "$want" <<<"$out"; then
        echo "not ok $1: failed, but not with '$want':"; sed 's/^/    /' <<<"$out"; failed=1
    else
        echo "ok $1: $(grep -m1 -o -- "error: .*" <<<"$out")"
    fi
}

if out=$(clang "${flags[@]}" tests/lock_rules/correct.c 2>&1); then
    echo "ok correct.c: compiles"
else
    echo "not ok correct.c: the control does not compile:"; sed 's/^/    /' <<<"$out"; failed=1
fi
expect missing_unlock.c "is not held on every path through here"
expect unlocked_call.c "requires holding"
expect double_lock.c "that is already held"
expect ignored_result.c "warn_unused_result"
exit $failed
