#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace.sh - make trace: boot with tracing on, then turn the serial log's
# "# TRACE" lines into build/trace/trace.json and timeline.png and judge them
# (docs/tracing.md).  CMDLINE gets trace=all unless it has a trace= word, and
# trace.events=$TRACE_EVENTS (per CPU) unless it has a trace.events= word;
# docs/tracing.md says why the default is the most the kernel allows.
# The serial log, tens of thousands of # TRACE lines, goes to
# build/trace/serial.log; the terminal gets every other line of the boot, the
# converter's and the judge's verdicts (each warning of the trace once), and
# where the files are.
# Exit status: non-zero if the boot, the conversion or the judge failed.
set -u
cd "$(dirname "$0")/../.."
words=${CMDLINE:-}
case " $words " in *" trace="*) ;; *) words="$words trace=all" ;; esac
case " $words " in *" trace.events="*) ;; *) words="$words trace.events=${TRACE_EVENTS:-65536}" ;; esac
mkdir -p build/trace
CMDLINE=${words# } tools/boot/run-qemu.sh build/trace/serial.log | grep -v '^ *# TRACE '
status=${PIPESTATUS[0]}
echo "trace: $(grep -c '^ *# TRACE ' build/trace/serial.log) # TRACE lines kept in build/trace/serial.log, not shown"
python3 tools/trace/trace_convert.py build/trace/serial.log build/trace &&
    python3 tools/trace/trace_check.py --warned build/trace/serial.log || exit
echo "trace: left the serial log in build/trace/serial.log, the trace in build/trace/trace.json" \
    "(Perfetto UI, chrome://tracing), the pictures in build/trace/timeline.png"
exit "$status"
