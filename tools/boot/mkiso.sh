#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mkiso.sh - a GRUB ISO of build/kernel.elf (or of $KERNEL_ELF, as tools/boot/run-qemu.sh passes it).
#
#   tools/boot/mkiso.sh DIR "CMDLINE" [GRUB-LINES]   -> DIR/boot.iso: one entry with
#                                                  CMDLINE, booted at once (timeout 0),
#                                                  for automated runs
#   tools/boot/mkiso.sh --menu ISO                   -> ISO with iso/'s GRUB menu (make)
#
# GRUB cannot take a command line from the emulator, so it is written into
# the ISO's grub.cfg.  The kernel goes in without debug sections: GRUB
# reads every byte through the firmware, which under nested KVM costs a VM
# exit per sector (addresses, and so backtraces, are unchanged).
# KERNEL_ELF: another kernel (make kcsan: build/kcsan/kernel.elf).
set -eu
KERNEL_ELF=${KERNEL_ELF:-build/kernel.elf}

# rescue TREE ISO: the kernel into TREE, then TREE into ISO; GRUB's log only on failure.
rescue() {
    strip --strip-debug -o "$1/boot/kernel.elf" "$KERNEL_ELF"
    grub-mkrescue -o "$2" "$1" >"$1.log" 2>&1 || { cat "$1.log" >&2; exit 1; }
}

if [ "$1" = --menu ]; then
    tree=$(dirname "$2")/isodir
    rm -rf "$tree"
    mkdir -p "$tree/boot/grub"
    cp iso/boot/grub/grub.cfg "$tree/boot/grub/grub.cfg"
    rescue "$tree" "$2"
    exit 0
fi
dir=$1 cmdline=$2 extra=${3:-}
mkdir -p "$dir/iso/boot/grub"
cat > "$dir/iso/boot/grub/grub.cfg" <<CFG
set timeout=0
$extra
menuentry "lockref" {
	multiboot2 /boot/kernel.elf $cmdline
	boot
}
CFG
rescue "$dir/iso" "$dir/boot.iso"
