// SPDX-License-Identifier: MIT
/*
 * child_panics.h - run a function that must panic, in a child process.
 *
 * The host platform's panic ends the process, so a test that wants to see
 * a panic (a lock taken twice, a queue node too many) runs the offending
 * code in a fork()ed child with its output captured, and checks that the
 * child died saying what the panic should say.
 */
#ifndef TESTS_HOST_CHILD_PANICS_H
#define TESTS_HOST_CHILD_PANICS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Run @fn in a child process with its output captured; true if the child
 * died and said @expect.
 */
static inline bool child_panics(void (*fn)(void), const char *expect)
{
	char out[1024];
	size_t len = 0;
	ssize_t n;
	int status, fds[2];
	pid_t pid;

	fflush(stdout);
	if (pipe(fds) != 0)
		return false;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while (len < sizeof(out) - 1 && (n = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return false;
	if (!strstr(out, expect)) {
		printf("# child died saying \"%s\", expected \"%s\"\n", out, expect);
		return false;
	}
	return true;
}

#endif /* TESTS_HOST_CHILD_PANICS_H */
