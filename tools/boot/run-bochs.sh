#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-bochs.sh - boot the ISO under Bochs with no window, serial on stdout.
#
#   tools/boot/run-bochs.sh [LOG]
#
# Environment: SMP, BOCHS_MEM (MiB, default 256), CMDLINE (default
# "run=tests quick"), TIMEOUT (s, default 600).
# Debian's Bochs has its internal debugger built in, which waits at the
# first instruction: a command file answers "c" (continue).  There is no
# display-less library, so the "term" one runs inside a pseudo-terminal
# made by script(1) (docs/tools.md).  Bochs has no debug-exit device, so the
# kernel would stay on with its results screen: exit=poweroff (ACPI S5; an
# exit= in CMDLINE, later on the line, overrides it) ends the run.  The
# verdict is read from the serial log ("# RESULT pass" -> exit 0).
set -u
cd "$(dirname "$0")/../.."
# Without a CMDLINE, the test suites in quick mode: Bochs emulates every
# instruction, and benchmark figures from it would mean nothing.
SMP=${SMP:-2} MEM=${BOCHS_MEM:-256} CMDLINE=${CMDLINE:-run=tests quick} TIMEOUT=${TIMEOUT:-600}
LOG=${1:-}
KERNEL=build/kernel.elf
[ -f "$KERNEL" ] || { echo "run-bochs: $KERNEL is missing: run 'make' first" >&2; exit 3; }

work=$(mktemp -d build/bochs.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# Text mode: Bochs's "term" display cannot show a graphics mode (it stops
# with "32 bpp graphics mode not supported"); this also exercises the
# kernel's VGA text console.
tools/boot/mkiso.sh "$work" "exit=poweroff $CMDLINE" "set gfxpayload=text" || exit 3

cat > "$work/bochsrc" <<RC
megs: $MEM
cpu: count=$SMP, ips=200000000, reset_on_triple_fault=0
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path=$work/boot.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$work/serial.log
display_library: term
vga: extension=none
log: $work/bochs.log
panic: action=fatal
error: action=report
RC
echo c > "$work/cmds"
touch "$work/serial.log"
echo "run-bochs: SMP=$SMP MEM=${MEM}M TIMEOUT=${TIMEOUT}s CMDLINE='$CMDLINE'" >&2
tail -f "$work/serial.log" & tailer=$!
TERM=${TERM:-xterm} timeout -k 5 "$TIMEOUT" script -qfc \
    "bochs -q -f $work/bochsrc -rc $work/cmds" /dev/null >"$work/screen.log" 2>&1 </dev/null
status=$?
sleep 1; kill $tailer 2>/dev/null
# LF line ends in the host's copy, as tools/boot/run-qemu.sh writes its log (the UART sends CR LF).
if [ -n "$LOG" ]; then
    LC_ALL=C sed 's/\r$//' "$work/serial.log" >"$LOG" && echo "run-bochs: left the serial log in $LOG"
fi
if [ $status -eq 124 ] || [ $status -eq 137 ]; then
    echo "run-bochs: TIMEOUT: Bochs still running after ${TIMEOUT}s; killed" >&2; exit 2
fi
if grep -q "^# RESULT pass" "$work/serial.log"; then exit 0; fi
if grep -q "^# RESULT fail" "$work/serial.log"; then exit 1; fi
echo "run-bochs: Bochs ended (status $status) without a verdict; its log ends:" >&2
tail -n 5 "$work/bochs.log" >&2
exit 3
