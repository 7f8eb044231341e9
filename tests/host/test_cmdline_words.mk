# SPDX-License-Identifier: MIT
# The command line's portable half (lib/cmdline_words.c) alone: words, numbers,
# lists and the closest known name, with no option table behind them.
HOST_TESTS += test_cmdline_words
test_cmdline_words_SRCS := tests/host/test_cmdline_words.c lib/cmdline_words.c lib/string.c
test_cmdline_words_FLAVOURS := plain asan
