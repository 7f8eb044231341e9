#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# image_span.sh - GRUB must find the loaded image's span free at 1 MiB: under 4 MiB
# (no big pools in .bss), read from build/kernel.elf's kernel_start and kernel_end.
set -u
cd "$(dirname "$0")/../.."
s=$(nm build/kernel.elf | awk '$3 == "kernel_start" { print $1 }')
e=$(nm build/kernel.elf | awk '$3 == "kernel_end" { print $1 }')
[ -n "$s" ] && [ -n "$e" ] || { echo "no kernel_start/kernel_end in build/kernel.elf"; exit 1; }
echo "kernel image loaded: $(( (0x$e - 0x$s) / 1024 )) KiB from 0x$s (limit 4096 KiB)"
[ $(( 0x$e - 0x$s )) -lt $(( 4 << 20 )) ]
