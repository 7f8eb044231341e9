# SPDX-License-Identifier: MIT
# The screen console (kernel/screen.c) on heap buffers: every pixel format, EGA text.
HOST_TESTS += test_screen
test_screen_SRCS := tests/host/test_screen.c kernel/screen.c kernel/font8x16.c
