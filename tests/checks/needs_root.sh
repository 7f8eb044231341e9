#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# needs_root.sh COMMAND... - COMMAND as root, or skipped (exit 77) with one line saying why.
# (tests/diff chroots into a temporary directory: root only.)
[ "$(id -u)" -eq 0 ] || { echo "needs root (it chroots into a temporary directory)"; exit 77; }
exec "$@"
