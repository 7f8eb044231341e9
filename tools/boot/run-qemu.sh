#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-qemu.sh - boot build/kernel.elf from a GRUB ISO under QEMU, serial on
# stdout, and turn the guest's verdict into an exit status.
#
#   tools/boot/run-qemu.sh [LOG]     (LOG: also write the serial output there)
#
# Environment (docs/interface.md): SMP ACCEL MACHINE FIRMWARE MEM CPU CMDLINE TIMEOUT.
# DEBUG=1 (make debug): QEMU starts stopped with a gdb stub on localhost:1234
# and no time limit; tools/boot/kernel.gdb attaches.  KERNEL_ELF: boot another
# kernel than build/kernel.elf (make kcsan: build/kcsan/kernel.elf; make test's
# planted static-key site, tools/boot/static_key_plant.py).
# QEMU_MONITOR=PATH: the QEMU monitor on that Unix socket (for screendump;
# tools/boot/screendump.py).  DEBUG_EXIT=0: no isa-debug-exit device, as on a
# real PC: the kernel then stays on (exit=auto) until TIMEOUT.
# KEEP_ISO=PATH: leave a copy of the ISO booted there (make run: build/run.iso), CMDLINE in its
# one GRUB entry, to write to a USB stick.
# Exit status: 0 = the kernel reported pass (QEMU status 33), 1 = fail (35),
# 2 = the run hit TIMEOUT and was killed, 3 = any other QEMU ending
# (triple fault with -no-reboot, crash, bad arguments).
set -u
cd "$(dirname "$0")/../.."

SMP=${SMP:-4} ACCEL=${ACCEL:-auto} MACHINE=${MACHINE:-q35} FIRMWARE=${FIRMWARE:-bios}
MEM=${MEM:-512M} CPU=${CPU:-auto} CMDLINE=${CMDLINE:-} TIMEOUT=${TIMEOUT:-300}
LOG=${1:-}
KERNEL=${KERNEL_ELF:-build/kernel.elf}
export KERNEL_ELF=$KERNEL # tools/boot/mkiso.sh
OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd

die() { echo "run-qemu: $*" >&2; exit 3; }

[ -f "$KERNEL" ] || die "$KERNEL is missing: run 'make' first"
# MACHINE may carry QEMU machine options after the type: q35,pit=off,hpet=off.
case "${MACHINE%%,*}" in q35|pc) ;; *) die "MACHINE=$MACHINE: expected q35 or pc, optionally with ,OPTION=VALUE..." ;; esac
case "$FIRMWARE" in bios|uefi) ;; *) die "FIRMWARE=$FIRMWARE: expected bios or uefi" ;; esac
# SMP may carry QEMU's topology after the count: 8,sockets=2,cores=2,threads=2.
[[ "$SMP" =~ ^[0-9]+(,(sockets|dies|cores|threads)=[0-9]+)*$ ]] && [ "${SMP%%,*}" -ge 1 ] ||
    die "SMP=$SMP: expected a CPU count >= 1, optionally followed by ,sockets=N ,dies=N ,cores=N ,threads=N"
[[ "$TIMEOUT" =~ ^[0-9]+$ ]] || die "TIMEOUT=$TIMEOUT: expected seconds"
# The most CPUs a boot can have, refused here rather than in QEMU's own words: the kernel's
# MAX_CPUS (lib/limits.h), and 255 for QEMU as started here: xAPIC ids 0-254, since QEMU 7.2's
# TCG has no x2APIC, and more than 255 also needs an interrupt-remapping IOMMU, not added here.
kernel_cpus=$(sed -n 's/^#define MAX_CPUS[[:space:]]*\([0-9]*\).*/\1/p' lib/limits.h)
qemu_cpus=255
[ -n "$kernel_cpus" ] || die "lib/limits.h: no MAX_CPUS line, expected '#define MAX_CPUS N'"
smp_cpus=${SMP%%,*}
[ "$smp_cpus" -le "$kernel_cpus" ] && [ "$smp_cpus" -le "$qemu_cpus" ] ||
    die "SMP=$smp_cpus: expected at most $(( kernel_cpus < qemu_cpus ? kernel_cpus : qemu_cpus )) CPUs: the kernel supports $kernel_cpus (MAX_CPUS, lib/limits.h), QEMU as started here $qemu_cpus (xAPIC ids 0-254: no x2APIC under TCG, no interrupt-remapping IOMMU)"

kvm_usable() {
    [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
    # Opening /dev/kvm is not enough (nested setups can refuse VM creation): ask QEMU.
    timeout 20 qemu-system-x86_64 -accel kvm -machine none -display none -S \
        -monitor none -serial none -nodefaults </dev/null >/dev/null 2>&1 &
    local pid=$!; sleep 1
    if kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; return 0; fi
    wait "$pid"; return 1
}
# A /dev/kvm served by PVM (kvm_pvm: shadow paging, no VMX/SVM) runs guest
# code about 1000x slower than hardware virtualization and cannot emulate
# LOCK CMPXCHG16B: TCG is the better machine there.  ACCEL=kvm still uses it.
kvm_is_pvm() { [ -d /sys/module/kvm_pvm ]; }
case "$ACCEL" in
    auto)
        if kvm_is_pvm; then
            ACCEL=tcg
            echo "run-qemu: ACCEL=tcg: /dev/kvm is PVM (no hardware virtualization), slower than TCG here; ACCEL=kvm forces it" >&2
        elif kvm_usable; then ACCEL=kvm; else ACCEL=tcg; fi ;;
    kvm|tcg) ;;
    *) die "ACCEL=$ACCEL: expected kvm, tcg or auto" ;;
esac
if [ "$CPU" = auto ]; then
    # Nested KVM here refuses QEMU's write of IA32_ARCH_CAPABILITIES (MSR 0x10a)
    # at reset, so the model drops that MSR's feature bits.  +invtsc exposes
    # the invariant TSC and the hypervisor's TSC-frequency leaf (docs/tools.md).
    if [ "$ACCEL" = kvm ]; then
        CPU=host,+invtsc,-arch-capabilities,-rdctl-no,-skip-l1dfl-vmentry,-mds-no,-pschange-mc-no
        # A /dev/kvm served by PVM (kvm_pvm: shadow paging, no VMX) emulates some
        # guest writes, and its emulator stops the guest on LOCK CMPXCHG16B
        # ("kvm-pvm: INTERNAL_ERROR in batch emul" in dmesg).  Hide CX16: the
        # kernel then runs the 16-byte lockref on its lock and says so.
        # PVM also traps every write to the emulated framebuffer: scrolling one
        # screen costs minutes there, and nobody sees it under -display none.
        if kvm_is_pvm; then
            CPU=$CPU,-cx16
            CMDLINE="$CMDLINE console=serial"
            echo "run-qemu: /dev/kvm is PVM, which cannot emulate CMPXCHG16B and traps framebuffer writes: guest CPU without CX16, console=serial" >&2
        fi
    else
        CPU=max
    fi
fi

work=$(mktemp -d build/run.XXXXXX)
trap 'rm -rf "$work"' EXIT
tools/boot/mkiso.sh "$work" "$CMDLINE" "insmod all_video" || die "could not build the boot ISO"
if [ -n "${KEEP_ISO:-}" ]; then cp "$work/boot.iso" "$KEEP_ISO" || die "cannot write $KEEP_ISO"; fi

monitor=none
[ -n "${QEMU_MONITOR:-}" ] && monitor=unix:$QEMU_MONITOR,server,nowait
args=(-machine "$MACHINE" -accel "$ACCEL" -cpu "$CPU" -smp "$SMP" -m "$MEM"
      -display none -serial stdio -monitor "$monitor" -no-reboot
      -drive "file=$work/boot.iso,media=cdrom,format=raw,if=ide" -boot d)
[ "${DEBUG_EXIT:-1}" = 0 ] || args+=(-device isa-debug-exit,iobase=0xf4,iosize=0x04)
if [ "$FIRMWARE" = uefi ]; then
    [ -f "$OVMF_CODE" ] || die "$OVMF_CODE missing: install the ovmf package (make deps)"
    cp "$OVMF_VARS" "$work/vars.fd"
    args+=(-drive "if=pflash,format=raw,readonly=on,file=$OVMF_CODE"
           -drive "if=pflash,format=raw,file=$work/vars.fd")
fi
[ -n "${QEMU_EXTRA:-}" ] && read -r -a extra <<<"$QEMU_EXTRA" && args+=("${extra[@]}")

if [ "${DEBUG:-0}" = 1 ]; then
    # -S: stop before the first instruction; -s: gdb stub on tcp::1234.
    args+=(-S -s)
    TIMEOUT=0
    echo "run-qemu: stopped for gdb on localhost:1234; attach with: gdb -x tools/boot/kernel.gdb" >&2
    echo "run-qemu: the serial console follows here; quit QEMU with gdb's 'kill' or Ctrl-C here" >&2
fi
echo "run-qemu: SMP=$SMP ACCEL=$ACCEL CPU=$CPU MACHINE=$MACHINE FIRMWARE=$FIRMWARE MEM=$MEM TIMEOUT=${TIMEOUT}s CMDLINE='$CMDLINE'" >&2
# The UART ends each line with CR LF, as a serial terminal needs (kernel/serial.c); the host's
# copy ends them with LF alone, so grep's $, diff and editors read the log as text.  Only a
# CR at a line's end goes: a stray one inside a line stays for tools/log/kernel_log.py to report.
lf_lines() { LC_ALL=C sed -u 's/\r$//'; }
if [ -n "$LOG" ]; then
    timeout -k 5 "$TIMEOUT" qemu-system-x86_64 "${args[@]}" </dev/null | lf_lines | tee "$LOG"
else
    timeout -k 5 "$TIMEOUT" qemu-system-x86_64 "${args[@]}" </dev/null | lf_lines
fi
status=${PIPESTATUS[0]}
case $status in
    33) exit 0 ;;
    35) echo "run-qemu: the kernel reported failure" >&2; exit 1 ;;
    124|137) echo "run-qemu: TIMEOUT: no exit within ${TIMEOUT}s; killed the machine (last output above)" >&2; exit 2 ;;
    *) echo "run-qemu: QEMU ended with status $status without a verdict (reset, triple fault or QEMU error)" >&2; exit 3 ;;
esac
