#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# after.sh build/test/NAME.check COMMAND... - run COMMAND only if check NAME passed.
#
# Why: a check that uses what another check built (host-build's test programs,
# kcsan-build's kernel) names that check's record; tests/checks/run.py reads the name
# and runs NAME first.  When NAME failed, this says so in one line instead of running a
# stale or missing program, and fails (status 2: not the failure a control waits for).
set -u
cd "$(dirname "$0")/../.."
record=$1; shift
verdict=$(sed -n 's/^verdict=//p' "$record" 2>/dev/null | tail -n 1)
if [ "$verdict" != pass ]; then
    echo "not run: $(basename "$record" .check) did not pass (verdict '${verdict:-none}'; see ${record%.check}.log)"
    exit 2
fi
exec "$@"
