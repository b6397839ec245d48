/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the kernel's trigger events without reading the flight recorder's buffer: a
 * small tracefs instance of our own holds only the trigger events (filtered in the
 * kernel to the signals asked for), and its trace_pipe wakes the
 * daemon at the first event (buffer_percent 0). Nothing fires, nothing runs: the cost
 * is a tracepoint that was already there and a filter when a signal is sent. Marker
 * triggers get copies of the top-level trace_marker's writes (options/copy_trace_marker,
 * Linux 6.17); older kernels refuse them with a clear error.
 */
#ifndef REC_TRIGGER_WATCH_H
#define REC_TRIGGER_WATCH_H

#include "trigger.h"

struct trigger_watch;

/**
 * trigger_watch_open() - create the trigger instance for the kernel triggers of @s
 * @s:		triggers (command triggers need no instance)
 * @tag:	the flight recorder's instance name, or NULL: names ours
 *		("recorderd_trig[_TAG]"); one left by a killed daemon is replaced
 * @markers:	watch trace_marker for the marker triggers (0 when the flight
 *		recorder is the module's, whose own marker watch hears them:
 *		marker_watch.h)
 * @err:	-errno on failure (message logged)
 *
 * Return: the watch, or NULL (with @err 0 when @s has no kernel trigger to watch).
 */
struct trigger_watch *trigger_watch_open(const struct trigger_set *s, const char *tag,
					 int markers, int *err);

/* The fd to poll for EPOLLIN. */
int trigger_watch_fd(const struct trigger_watch *w);

/*
 * Reads what is pending and calls @fn for each whole line (no newline). Returns the
 * number of lines, or -errno.
 */
int trigger_watch_read(struct trigger_watch *w, void (*fn)(const char *line, void *arg),
		       void *arg);

/* Trigger events overwritten before the daemon read them: triggers missed. */
unsigned long long trigger_watch_lost(const struct trigger_watch *w);

/* Removes the instance a killed daemon left for flight recorder @tag, if any. */
void trigger_watch_remove_stale(const char *tag);

/* Removes the instance. Accepts NULL. */
void trigger_watch_close(struct trigger_watch *w);

#endif /* REC_TRIGGER_WATCH_H */
