/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's sentinel: a second thread that keeps the daemon answering while its
 * one working thread (the event loop) is held up, by a stalled disk above all.
 *  - Watchdog: it sends WATCHDOG=1 while the loop turns (sentinel_beat()), and also
 *    while the loop's thread sleeps in the kernel on I/O (state D): a slow or frozen
 *    disk is not a hung daemon, and a restart would only cut the file short. A loop
 *    stuck anywhere else gets no ping, and systemd restarts it.
 *  - Control socket: a request the loop has not taken within SENTINEL_GRACE_MS is
 *    taken here. PING and STATUS are answered (STATUS with state "stalled", what
 *    the loop is blocked in and for how long); any other command is handed back to
 *    the loop untouched (sentinel_handoff_fd()), which runs it when it can.
 * Idle, it sleeps in poll(): no wake-up but the watchdog's own period.
 */
#ifndef REC_SENTINEL_H
#define REC_SENTINEL_H

#define SENTINEL_GRACE_MS	30

struct sentinel;

/*
 * Starts the thread, to be called from the loop's thread (the one it watches).
 * @listen_fd: the control socket; @gid: its group (ctl_server_open()); @mode:
 * enum ctl_mode for STATUS; @watchdog_ms: ping period, 0 = no watchdog.
 * Returns NULL with errno set.
 */
struct sentinel *sentinel_start(int listen_fd, int gid, unsigned int mode,
				unsigned int watchdog_ms);

/* The loop turned (called from it, at least once per watchdog period). */
void sentinel_beat(struct sentinel *s);

/* Read end of the pipe of connections handed back (an int fd each), or -1. */
int sentinel_handoff_fd(const struct sentinel *s);

/* Stops and joins the thread. Accepts NULL. */
void sentinel_stop(struct sentinel *s);

#endif /* REC_SENTINEL_H */
