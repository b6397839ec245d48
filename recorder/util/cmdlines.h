/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line text: "PID COMM\n" lines, as saved_cmdlines and the CMDLINES section
 * have them. A pid must have one line: libtraceevent sorts the names it reads by pid
 * and then finds either of two (a reused pid's stale kernel name won over its live
 * one that way).
 */
#ifndef REC_CMDLINES_H
#define REC_CMDLINES_H

#include <stddef.h>

/*
 * A file's command lines are bounded (the writer takes at most half a tail slot,
 * v7_set_cmdlines()): past this the capture drops the oldest exited tasks first.
 */
#define CMDLINES_MAX	(256U << 10)

/*
 * @first (one line per pid) whole, a newline ending it, then the lines of @then whose
 * pid @first does not have, while the result stays within @max bytes. Malloc'd
 * (*@len bytes); NULL when out of memory.
 */
char *cmdlines_merge(const char *first, size_t flen, const char *then, size_t tlen,
		     size_t max, size_t *len);

#endif /* REC_CMDLINES_H */
