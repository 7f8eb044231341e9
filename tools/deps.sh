#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deps.sh - what the project needs, installed (make deps) or checked (make test).
#
#   tools/deps.sh install   every build and test dependency, on Debian 12, as root
#   tools/deps.sh check     exit 2, naming each missing tool and its package, when
#                           make test could not run to the end on this machine
#
# Why a check up front: without it a missing tool shows as one failed check deep in
# a 13-minute run ("action-validator: command not found", exit 127), or stops the
# build before the first check.  NEEDS is the list both modes share.
set -u
cd "$(dirname "$0")/.."

# What make test runs, and the Debian package (or registry package) that brings it.
NEEDS=(
    "gcc:gcc" "nasm:nasm" "python3:python3" "objdump:binutils"
    "grub-mkrescue:grub-common grub-pc-bin grub-efi-amd64-bin" "xorriso:xorriso" "mformat:mtools"
    "qemu-system-x86_64:qemu-system-x86" "/usr/share/OVMF/OVMF_CODE_4M.fd:ovmf"
    "bochs:bochs bochsbios vgabios bochs-term" "spin:spin" "clang:clang libclang-rt-14-dev"
    "gnuplot:gnuplot-nox" "action-validator:npm's @action-validator/cli"
    "python3-junitparser:python3-junitparser" "python3-yaml:python3-yaml" "git:git"
)

# has TOOL: a command on PATH, a file, or a module of Debian's own Python.
has() {
    case $1 in
    /*) [ -e "$1" ] ;;
    python3-*) /usr/bin/python3 -c "import ${1#python3-}" 2>/dev/null ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
    esac
}

check() {
    local missing=() need
    for need in "${NEEDS[@]}"; do
        has "${need%%:*}" || missing+=("${need%%:*} (${need#*:})")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "make test needs tools this machine lacks; \`make deps\` installs them (Debian 12, as root):"
    printf '    %s\n' "${missing[@]}"
    return 2
}

# Debian's nodejs comes without npm, NodeSource's includes one and conflicts with Debian's:
# npm is installed only when missing.  The GitHub workflow validator (docs/ci.md) is a
# registry package, not in Debian.
install() {
    apt-get update &&
        apt-get install -y --no-install-recommends make gcc libc6-dev nasm python3 \
            grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools \
            qemu-system-x86 ovmf bochs bochsbios vgabios bochs-term \
            spin gnuplot-nox util-linux perl clang-format clang libclang-rt-14-dev \
            python3-junitparser python3-yaml nodejs git &&
        { command -v npm >/dev/null || apt-get install -y --no-install-recommends npm; } &&
        npm install -g @action-validator/cli@0.6.0
}

case ${1:-} in
install) install ;;
check) check ;;
*) echo "usage: tools/deps.sh install|check" >&2; exit 2 ;;
esac
