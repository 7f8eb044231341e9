// SPDX-License-Identifier: MIT
/*
 * check.h - the assertion of the host tests: report and count, keep going.
 *
 * CHECK(cond, fmt, ...) prints "not ok: file:line: cond: <message>" when
 * @cond is false and counts it in `failures`; a test's main() returns
 * non-zero when `failures` is.
 */
#ifndef TESTS_HOST_CHECK_H
#define TESTS_HOST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("not ok: %s:%d: %s: ", __FILE__, __LINE__, #cond);                  \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#endif /* TESTS_HOST_CHECK_H */
