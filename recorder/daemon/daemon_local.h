/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the running daemon, shared by its files and nothing else:
 *   daemon_core.c   the loop: daemon_run(), the tick, the watchdog, signals;
 *   daemon_files.c  the output files: capture lifetime, rotation, the disk budget,
 *                   faults of the output directory and the disk;
 *   daemon_ctl.c    the control handlers (status, stop, snapshot, rotate, reload);
 *   daemon_trigger.c the flight recorder's triggers: a hit, its window, its file.
 *   daemon_salvage.c `recorderd salvage`: a dead daemon's capture finished, none run.
 * Everything runs in the loop's one thread. Functions here use the dmn_ prefix.
 */
#ifndef REC_DAEMON_LOCAL_H
#define REC_DAEMON_LOCAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "capture/capture.h"
#include "capture/capture_pump.h"
#include "capture/loop.h"
#include "config.h"
#include "ctl.h"
#include "rotate.h"
#include "sentinel.h"
#include "snapshot.h"
#include "trigger.h"
#include "trigger_watch.h"
#include "util/mono_clock.h"

#define HOUSEKEEP_MS		1000	/* directory, budget and rotation checks */
#define DISK_FULL_MARGIN	(4ULL << 20)

struct recd {
	struct rec_config		cfg;
	int				reloading;	/* new limits wait for housekeeping */
	int				take_over;	/* the next capture takes over a
							 * crashed predecessor's instance */
	int				salvage;	/* recorderd salvage: start, then
							 * stop at once (daemon_salvage.c) */
	const char			*cfg_path;
	const struct config_override	*ov;
	int				nov;
	struct loop			*loop;
	struct ctl_server		*ctl;
	struct sentinel			*sn;		/* watchdog, answers when held up */
	struct capture			*cap;
	struct flight			*fl;		/* flight mode on tracefs */
	struct capture_pump		*pump;		/* stream mode: moves the pages */
	int				tick_id;
	unsigned int			tick_ms;	/* its period now: longer when idle */
	uint64_t			tick_ms_acc;
	char				cur[PATH_MAX];	/* file being written */
	int				keep_fd;	/* O_RDONLY on it: notices removal */
	struct rotate_state		rs;
	enum ctl_state			state;
	char				last_err[256];
	char				lastboot[PATH_MAX + 160];	/* for status */
	uint64_t			done_raw;	/* finished files */
	uint64_t			done_file;
	unsigned int			files;
	unsigned int			snapshots;
	uint64_t			t0_ns;		/* start (CLOCK_MONOTONIC), for uptime */
	int				exit_code;
	char				*pidfile;	/* written by us, removed at exit */
	/* triggers (flight mode) */
	struct trigger_set		trig;
	struct trigger_set		trig_prev;	/* counters a reload carries over */
	struct trigger_watch		*tw;		/* kernel trigger events */
	struct marker_watch		*mw;		/* the module's marker watch */
	int				trig_timer;	/* end of the open window, -1 */
	int				watch_timer;	/* trigger fd resting, -1 */
	char				trig_path[PATH_MAX]; /* its file */
	uint64_t			trig_used;	/* bytes of trigger files */
};

/* daemon_core.c */
/* Logs "@what: strerror(-@err)" and keeps it for status. */
void dmn_set_error(struct recd *d, const char *what, int err);
void dmn_arm_stop_timeout(struct recd *d);
/* The tick timer's period (the pump slows it down when idle). */
void dmn_set_tick(struct recd *d, unsigned int ms);
/*
 * What the daemon records from: the flight recorder on tracefs (dmn_flight_open), else
 * the capture core (stream mode, or flight mode with the module) into the first file,
 * named in @path. 0 or -errno.
 */
int dmn_start_capture(struct recd *d, char *path, size_t len);

/* daemon_files.c */
/* Recovers a dead predecessor's file, sets d->take_over. -errno: not recoverable. */
int dmn_after_crash(struct recd *d);
void dmn_save_lastboot(struct recd *d);
int dmn_capture_open(struct recd *d, const char *path);
int dmn_capture_close(struct recd *d);
int dmn_new_file_path(struct recd *d, char *path, size_t len);
/* Finishes the current file, goes on in the next; @restart: with a new capture. */
int dmn_next_file(struct recd *d, const char *why, int restart);
int dmn_switch_file(struct recd *d, const char *why);
void dmn_drain_for_stop(struct recd *d);
void dmn_fail_and_quit(struct recd *d, const char *what, int err);
void dmn_housekeep(struct recd *d);
void dmn_check_rotation(struct recd *d);

/* daemon_ctl.c */
extern const struct ctl_command dmn_commands[];
extern const size_t dmn_nr_commands;
int dmn_reload(struct recd *d, char *msg, size_t len);
/* Tells the sentinel what is captured and to which file: after each change of them. */
void dmn_publish_what(struct recd *d);
/* The tracefs flight recorder (d->fl); -EOPNOTSUPP: the source is the module. */
int dmn_flight_open(struct recd *d);
void dmn_flight_close(struct recd *d);
/*
 * A snapshot of the flight recorder into @path; "" for the next name of the pattern,
 * written there. 0, or -errno with @why set.
 */
int dmn_snapshot(struct recd *d, char *path, size_t path_len, struct ctl_snapshot_reply *sr,
		 char *why, size_t len);

/* daemon_trigger.c */
/* Sets the triggers of d->cfg up (flight mode). 0 or -errno (logged, in last_err). */
int dmn_triggers_start(struct recd *d);
/* Writes an open window's file now, and stops watching. */
void dmn_triggers_stop(struct recd *d);
/* Status lines, one a trigger: "TEXT\tfired\tjoined\tsuppressed\tlast file\n". */
void dmn_triggers_status(struct recd *d, char *buf, size_t len);
void dmn_triggers_missed(struct recd *d, char *buf, size_t len);
void dmn_h_trigger(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		   struct ctl_reply *r);

/* daemon_salvage.c */
/* A restart: saves and removes the dead daemon's @instance, not ours. 0 or -errno. */
int dmn_salvage_other(struct recd *d, const char *instance);
/*
 * Recovers and takes over what a dead daemon left: 0 (also when nothing was left), or
 * -errno with the lock file naming what it left again.
 */
int dmn_salvage_start(struct recd *d, char *path, size_t len);
/* After the stop: says what was done, and where what was left tracing went. */
void dmn_salvage_done(struct recd *d);

#endif /* REC_DAEMON_LOCAL_H */
