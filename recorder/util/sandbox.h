/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs code that reads untrusted input through a library we cannot fix (libtracecmd
 * 1.3.1 dereferences NULL and leaks on damaged files) in a child process with
 * resource limits, so that a crash, a leak or a loop costs the child, never the tool.
 */
#ifndef REC_SANDBOX_H
#define REC_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

struct sandbox_limits {
	uint64_t	as_bytes;	/* address space (RLIMIT_AS), 0 = unlimited */
	uint64_t	cpu_seconds;	/* CPU time (RLIMIT_CPU), 0 = unlimited */
};

/**
 * sandbox_run() - call @fn(@arg, @result) in a child process
 * @fn:		the work; returns 0 or -errno (the child's exit status carries it)
 * @result:	@result_len bytes @fn fills in, copied back to the caller on success
 * @why:	on failure, what happened to the child ("killed by signal 11 (...)")
 *
 * No core file is written. Return: @fn's value, or -ECHILD when the child did not
 * return (a signal, a limit): @why says which.
 */
int sandbox_run(int (*fn)(void *arg, void *result), void *arg, void *result,
		size_t result_len, const struct sandbox_limits *lim, char *why, size_t why_len);

#endif /* REC_SANDBOX_H */
