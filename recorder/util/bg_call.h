/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One call run on a thread of its own, while the caller goes on with its work and
 * polls an fd to know when the call has returned: for the slow steps of a rotation
 * (reading the next file's metadata, writing its header), during which the page path
 * keeps moving pages (capture.c).
 */
#ifndef REC_UTIL_BG_CALL_H
#define REC_UTIL_BG_CALL_H

struct bg_call;

/* Starts @fn(@arg) on a thread named @name. NULL with *@err = -errno: no thread. */
struct bg_call *bg_call_start(void (*fn)(void *), void *arg, const char *name, int *err);

/* Readable (POLLIN) once @fn has returned; bg_call_done() then says 1. */
int bg_call_fd(const struct bg_call *b);
int bg_call_done(const struct bg_call *b);

/*
 * Waits for @fn to return and frees @b. The first error @fn logged becomes the
 * caller's log_first_error() if it has none yet (log_keep_error()).
 */
void bg_call_finish(struct bg_call *b);

#endif /* REC_UTIL_BG_CALL_H */
