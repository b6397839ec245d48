/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Marker triggers on the module: its marker watch (/dev/ftring/watch, ftring_abi.h)
 * hands over, as they are written to /dev/ftring/marker, the markers that hold a
 * literal every match of a trigger's expression contains (trigger_required_literal);
 * the daemon runs the expression on those only. The flight recorder's ring is never
 * read to find them, and markers that hold no literal cost one strnstr() each.
 */
#ifndef REC_MARKER_WATCH_H
#define REC_MARKER_WATCH_H

#include "trigger.h"

struct marker_watch;

/**
 * marker_watch_open() - set the module's marker watch for the marker triggers of @s
 * @s:		triggers
 * @err:	-errno on failure (message logged)
 *
 * Return: the watch, or NULL (with @err 0 when @s has no marker trigger).
 */
struct marker_watch *marker_watch_open(const struct trigger_set *s, int *err);

/* The fd to poll for EPOLLIN. */
int marker_watch_fd(const struct marker_watch *w);

/*
 * Reads the hits pending (at most a bounded number a call) and calls @fn with each
 * marker's text. Returns the number of hits, or -errno.
 */
int marker_watch_read(struct marker_watch *w, void (*fn)(const char *text, void *arg),
		      void *arg);

/* Hits the module dropped, its queue full: markers not looked at. */
unsigned long long marker_watch_missed(const struct marker_watch *w);

/* Clears the watch. Accepts NULL. */
void marker_watch_close(struct marker_watch *w);

#endif /* REC_MARKER_WATCH_H */
