// SPDX-License-Identifier: GPL-2.0
/*
 * A child process per call: fork, limits, @fn, its result written back through a
 * pipe, exit with -ret as the status. The parent reads the result before it reaps the
 * child (a pipe holds 64 KiB; results are small).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"

static void set_limit(int res, uint64_t v)
{
	struct rlimit rl = { .rlim_cur = v, .rlim_max = v };

	if (v)
		setrlimit(res, &rl);
}

static void child(int (*fn)(void *arg, void *result), void *arg, void *result,
		  size_t result_len, const struct sandbox_limits *lim, int wfd)
{
	size_t done = 0;
	int ret;

	set_limit(RLIMIT_CORE, 0);
	set_limit(RLIMIT_AS, lim->as_bytes);
	/* SIGXCPU at the soft limit; the hard one a second later is SIGKILL. */
	if (lim->cpu_seconds) {
		struct rlimit rl = { lim->cpu_seconds, lim->cpu_seconds + 1 };

		setrlimit(RLIMIT_CPU, &rl);
	}
	ret = fn(arg, result);
	while (!ret && done < result_len) {
		ssize_t n = write(wfd, (const char *)result + done, result_len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ret = -EIO;
		else
			done += (size_t)n;
	}
	/* Buffered output of @fn's messages, then no atexit handlers of the parent. */
	fflush(NULL);
	_exit(ret < 0 && ret > -126 ? -ret : (ret ? 125 : 0));
}

int sandbox_run(int (*fn)(void *arg, void *result), void *arg, void *result,
		size_t result_len, const struct sandbox_limits *lim, char *why, size_t why_len)
{
	int p[2], status, ret;
	size_t got = 0;
	pid_t pid;

	snprintf(why, why_len, "no child process");
	fflush(NULL);
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(p[0]);
		close(p[1]);
		return ret;
	}
	if (!pid) {
		close(p[0]);
		child(fn, arg, result, result_len, lim, p[1]);
	}
	close(p[1]);
	while (got < result_len) {
		ssize_t n = read(p[0], (char *)result + got, result_len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		snprintf(why, why_len, "killed by signal %d (%s)%s", sig, strsignal(sig),
			 sig == SIGXCPU || sig == SIGKILL ? ": CPU time limit" : "");
		return -ECHILD;
	}
	ret = WEXITSTATUS(status) ? -WEXITSTATUS(status) : 0;
	if (!ret && got != result_len) {
		snprintf(why, why_len, "returned no result");
		return -ECHILD;
	}
	snprintf(why, why_len, "%s", ret ? strerror(-ret) : "done");
	return ret;
}
