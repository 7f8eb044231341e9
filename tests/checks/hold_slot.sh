#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hold_slot.sh NAME I - hold one make job slot for check NAME's I-th extra core.
#
# Why: make's job server counts jobs, not cores.  A check needing two cores has one holder
# target beside it (tests/checks/run.py); while the holder runs, make starts nothing else
# in its slot.  The check waits for NAME.heldI before it starts; the holder ends when the
# check's NAME.done appears.
set -u
cd "$(dirname "$0")/../.."
run=build/test/run
touch "$run/$1.held$2"
until [ -e "$run/$1.done" ]; do sleep 0.2; done
