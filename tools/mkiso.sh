#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mkiso.sh - a one-entry GRUB ISO that boots build/kernel.elf with a given
# command line at once (timeout 0), for automated runs.
#
#   tools/mkiso.sh DIR "CMDLINE" [GRUB-LINES]   -> DIR/boot.iso
#
# GRUB cannot take a command line from the emulator, so it is written into
# this ISO's grub.cfg.  The kernel goes in without debug sections: GRUB
# reads every byte through the firmware, which under nested KVM costs a VM
# exit per sector (addresses, and so backtraces, are unchanged).
set -eu
dir=$1 cmdline=$2 extra=${3:-}
mkdir -p "$dir/iso/boot/grub"
strip --strip-debug -o "$dir/iso/boot/kernel.elf" build/kernel.elf
cat > "$dir/iso/boot/grub/grub.cfg" <<CFG
set timeout=0
$extra
menuentry "lockref" {
	multiboot2 /boot/kernel.elf $cmdline
	boot
}
CFG
grub-mkrescue -o "$dir/boot.iso" "$dir/iso" >"$dir/mkrescue.log" 2>&1 ||
    { cat "$dir/mkrescue.log" >&2; exit 1; }
