# SPDX-License-Identifier: MIT
# kernel.gdb - attach gdb to `make debug` (QEMU stopped, stub on localhost:1234).
#
#   gdb -x tools/boot/kernel.gdb
#
# Loads the symbols of build/kernel.elf (the ISO holds the same code without
# debug sections, so the addresses match), connects, and stops at
# kernel_main.  The breakpoint is a hardware one: GRUB loads the kernel
# after gdb attaches, and would overwrite a software breakpoint's int3.
# Each CPU is a gdb thread: `info threads`, `thread N`, `bt`.
set pagination off
set confirm off
file build/kernel.elf
target remote localhost:1234
hbreak kernel_main
echo Stopped before the firmware ran. `continue` runs to kernel_main.\n
