/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's sentinel: a second thread that keeps the daemon answering while its
 * one working thread (the event loop) is held up, by a stalled disk above all.
 *  - Watchdog: it sends WATCHDOG=1 while the loop turns (sentinel_beat()), and also
 *    while the loop's thread sleeps in the kernel on I/O (state D): a slow or frozen
 *    disk is not a hung daemon, and a restart would only cut the file short (for
 *    SENTINEL_IO_MAX_MS at most: longer is a hang). A loop stuck anywhere else gets
 *    no ping, and systemd restarts it.
 *  - Control socket: a request the loop leaves waiting while it does not turn is
 *    taken here, after SENTINEL_GRACE_MS if the loop sleeps on I/O, else after
 *    SENTINEL_STALL_MS. PING and STATUS are answered (STATUS with state "stalled",
 *    what the loop is blocked in and for how long, and what it captures to which
 *    file as it last said, sentinel_set_what()); any other command is handed
 *    back to the loop untouched (sentinel_handoff_fd()), which runs it when it can.
 * Idle, it sleeps in poll(): no wake-up but the watchdog's own period.
 */
#ifndef REC_SENTINEL_H
#define REC_SENTINEL_H

#include <stdint.h>

#define SENTINEL_GRACE_MS	50	/* a request waits this long for a loop on I/O, */
#define SENTINEL_STALL_MS	1000	/* and this long for one held up otherwise */
#define SENTINEL_IO_MAX_MS	300000	/* on I/O for longer: a hang, no more pings */
#define SENTINEL_WHAT_MAX	24576	/* sentinel_set_what(): bytes kept */

struct loop;
struct sentinel;

/*
 * Starts the thread, to be called from the loop's thread (the one it watches).
 * @l: the loop (only loop_turns() is read); @listen_fd: the control socket; @gid:
 * its group (ctl_server_open()); @mode: enum ctl_mode for STATUS; @watchdog_ms: ping
 * period, 0 = no watchdog; @t0_ms: CLOCK_MONOTONIC ms of the start, for uptime.
 * Returns NULL with errno set.
 */
struct sentinel *sentinel_start(struct loop *l, int listen_fd, int gid, unsigned int mode,
				unsigned int watchdog_ms, uint64_t t0_ms);

/* The loop's state for STATUS answered here (CTL_STATE_STOPPING once it stops). */
void sentinel_set_state(struct sentinel *s, unsigned int state);

/*
 * What the daemon captures, for STATUS answered here: @len bytes of NUL-terminated
 * strings, ctl_proto.h's first five (source, events, output file, output directory,
 * configuration file), copied (SENTINEL_WHAT_MAX bytes at most). The loop sets them
 * at each change: a status asked while the loop is on the disk still names the file
 * it writes.
 */
void sentinel_set_what(struct sentinel *s, const char *strs, size_t len);

/* The loop turned and is capturing (its watchdog timer, in RUNNING or STOPPING). */
void sentinel_beat(struct sentinel *s);

/*
 * The loop's thread, in one step of its work for @busy_ms (a rotation waiting for the
 * thread that writes the files), is alive: a beat, as for a loop on I/O, for
 * SENTINEL_IO_MAX_MS at most.
 */
void sentinel_busy(struct sentinel *s, uint64_t busy_ms);

/* Read end of the pipe of connections handed back (an int fd each), or -1. */
int sentinel_handoff_fd(const struct sentinel *s);

/* Stops and joins the thread. Accepts NULL. */
void sentinel_stop(struct sentinel *s);

#endif /* REC_SENTINEL_H */
