/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recorderd as a long-running service.
 *   daemon.c       process plumbing: detach with a readiness pipe, sd_notify, watchdog
 *                  period, pidfile;
 *   daemon_core.c  the running daemon: one event loop driving the capture core, file
 *                  rotation, the disk budget, snapshots and the control socket.
 */
#ifndef REC_DAEMON_H
#define REC_DAEMON_H

#include <sys/types.h>

#include "config.h"

/* True when started by systemd with Type=notify (NOTIFY_SOCKET is set). */
int daemon_under_systemd(void);

/* True when stderr is the journal stream systemd connected (JOURNAL_STREAM). */
int daemon_stderr_is_journal(void);

/**
 * daemon_detach() - fork into the background, keeping the caller's stderr until ready
 *
 * The parent waits until the child calls daemon_ready() and exits with the child's
 * status (printing its message), so `recorderd start` returns once the capture is live
 * or with the reason it could not start.
 *
 * Return: in the child, the fd to pass to daemon_ready() (>= 0); -errno on failure.
 * The parent never returns.
 */
int daemon_detach(void);

/*
 * Reports readiness (@status 0) or failure to the waiting parent and closes @fd; once
 * ready, stdio leaves the terminal and the log goes to @log_file (if not NULL).
 */
void daemon_ready(int fd, int status, const char *msg, const char *log_file);

/* sd_notify(3) wrapper: "READY=1", "STOPPING=1", "WATCHDOG=1", "STATUS=..." */
void daemon_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Watchdog ping period (half of WatchdogSec), or 0 when systemd wants none. */
unsigned int daemon_watchdog_ms(void);

/**
 * daemon_lock() - be the only daemon on control socket @sock
 * @sock:	the control socket path; the lock is @sock + ".lock" beside it
 * @holder:	on -EWOULDBLOCK, the pid of the daemon that holds it (0 if unknown)
 * @salvage:	on -EWOULDBLOCK, 1 when the holder is `recorderd salvage`
 *
 * Takes flock(LOCK_EX) on the lock file before anything else is touched; the lock
 * lives as long as the process (and its detached child, which inherits it).
 * daemon_lock_owner() then writes the running daemon's pid into it, with what a dead
 * predecessor left (daemon_lock_previous) until the daemon's capture notes its own.
 *
 * Return: 0, -EWOULDBLOCK when another daemon holds it, or -errno.
 */
int daemon_lock(const char *sock, pid_t *holder, int *salvage);
/* @salvage: we are `recorderd salvage` (the pid line says so to a second one). */
void daemon_lock_owner(int salvage);

/*
 * What the lock file says while a daemon runs, besides its pid: the file it is writing
 * and the tracefs instance it made. A clean exit clears both, so after a crash the next
 * daemon finds them (daemon_lock_previous) and takes over.
 */
struct daemon_prev {
	pid_t	pid;
	char	file[4096];	/* "" = none */
	char	instance[256];	/* "" = none */
};

/* daemon_lock_note(NULL, NULL) at a clean exit. */
void daemon_lock_note(const char *file, const char *instance);
/* What a predecessor that did not exit cleanly left in the lock file, or NULL. */
const struct daemon_prev *daemon_lock_previous(void);

/* Writes our pid to @path (O_EXCL after removing a stale one). 0 or -errno. */
int daemon_pidfile_write(const char *path);
void daemon_pidfile_remove(const char *path);

/**
 * daemon_run() - run the daemon until stopped
 * @cfg:	the configuration (taken over: freed by daemon_run)
 * @cfg_path:	config file for reload, or NULL
 * @ov:		CLI overrides (@nov entries), kept for reload
 * @ready_fd:	from daemon_detach(), or -1 in the foreground
 *
 * Return: process exit status (0 = stopped cleanly).
 */
int daemon_run(struct rec_config *cfg, const char *cfg_path, const struct config_override *ov,
	       int nov, int ready_fd);

/**
 * daemon_salvage() - finish what a daemon that died left, with no daemon running
 * @cfg:	the configuration the dead daemon ran with (taken over: freed)
 *
 * Call with the lock held (daemon_lock) and a predecessor in it (daemon_lock_previous).
 * Does what a restarted daemon does first, recovering its file and taking over what it
 * left tracing, then stops at once as `recorderd stop` would: the last pages written,
 * the file finished, tracing off and its instance removed (daemon_salvage.c).
 *
 * Return: process exit status (0 = salvaged, or nothing was left tracing).
 */
int daemon_salvage(struct rec_config *cfg);

#endif /* REC_DAEMON_H */
