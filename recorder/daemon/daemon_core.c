// SPDX-License-Identifier: GPL-2.0
/*
 * The running daemon: one epoll loop (loop.c) drives the capture core (capture.c)
 * through its fds and a periodic tick, and serves the control socket (ctl_server.c).
 * Everything happens in this one thread, so handlers see a consistent state. The
 * sentinel (sentinel.c) is the one other thread: it pings the watchdog and answers
 * PING and STATUS while this one is held up (a stalled disk), reading nothing of it.
 *
 * Files. Stream mode writes output_dir/<file_pattern> and starts the next file when
 * the size or age limit is reached, when the writer reports a full per-CPU region
 * (-ENOSPC with free disk space), on `recorderd rotate`, or when a reload changed what
 * is captured. A switch is capture_rotate(): the source keeps running and every page
 * goes to the old file or the new one, so the files together hold each event once;
 * only a reload that changes what is captured (events, buffer, clock, compression)
 * starts a new capture. Flight mode keeps the kernel buffer in overwrite mode and never
 * reads it; `snapshot` drains it into a file of its own while tracing keeps running
 * (snapshot.c), and stop saves it a last time. (With the module as source, flight mode
 * goes through the capture core: its work file, drained by a rotation, becomes the
 * snapshot.) The disk budget deletes the oldest files of the pattern, never the newest.
 *
 * Faults. Disk full: the file is finished up to its last synced chunk, and the daemon
 * exits with status 1 (unless the budget could free room: then it goes on in a new
 * file). Output directory removed: the directory is recreated and the data of the
 * removed file is copied back from the still-open inode, then a new file starts. Any
 * other capture error (source gone, ...): finish the file, exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
#include "daemon.h"
#include "daemon_local.h"

void dmn_set_error(struct recd *d, const char *what, int err)
{
	snprintf(d->last_err, sizeof(d->last_err), "%s: %s", what, strerror(-err));
	log_err("%s", d->last_err);
}

void dmn_set_tick(struct recd *d, unsigned int ms)
{
	if (ms != d->tick_ms && !loop_set_timer(d->loop, d->tick_id, ms))
		d->tick_ms = ms;
}

static void on_tick(struct loop *l, uint64_t n, void *arg)
{
	struct recd *d = arg;

	if ((!d->cap && !d->fl) || d->state != CTL_STATE_RUNNING)
		return;
	d->tick_ms_acc += n * d->tick_ms;
	if (d->cfg.mode == CONFIG_MODE_STREAM) {
		unsigned int next = d->cfg.period_ms;

		if (d->pump)
			next = capture_pump_tick(d->pump);
		if (d->cap && d->state == CTL_STATE_RUNNING)
			dmn_check_rotation(d);
		/* Idle, the pump asks for slower ticks (capture_pump.h). */
		dmn_set_tick(d, d->pump ? next : d->cfg.period_ms);
	}
	if (d->tick_ms_acc >= HOUSEKEEP_MS && d->state == CTL_STATE_RUNNING) {
		d->tick_ms_acc = 0;
		dmn_housekeep(d);
	}
}

static void on_watchdog(struct loop *l, uint64_t n, void *arg)
{
	struct recd *d = arg;

	/*
	 * Only a loop that still turns beats, and the sentinel pings for beats (or a
	 * loop blocked on the disk): a hung capture lets systemd restart us.
	 */
	if (d->state == CTL_STATE_RUNNING || d->state == CTL_STATE_STOPPING)
		sentinel_beat(d->sn);
}

/* A control connection the sentinel handed back: a command only the loop runs. */
static void on_handoff(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct recd *d = arg;
	int c;

	while (read(fd, &c, sizeof(c)) == (ssize_t)sizeof(c))
		ctl_server_adopt(d->ctl, c);
}

/*
 * Stopping never takes longer than stop_timeout: past it, SIGALRM (default action)
 * ends the process and the file keeps its state of the last sync, as after kill -9.
 */
void dmn_arm_stop_timeout(struct recd *d)
{
	signal(SIGALRM, SIG_DFL);
	alarm(d->cfg.stop_timeout_s);
}

static void on_signal(struct loop *l, int sig, void *arg)
{
	struct recd *d = arg;
	char msg[512];

	if (sig == SIGHUP) {
		if (dmn_reload(d, msg, sizeof(msg)) == -EIO)
			dmn_fail_and_quit(d, "restart after reload failed", -EIO);
		return;
	}
	log_info("%s: stopping", strsignal(sig));
	d->state = CTL_STATE_STOPPING;
	loop_quit(l, 0);
}

int dmn_start_capture(struct recd *d, char *path, size_t len)
{
	int ret = -EOPNOTSUPP;

	if (d->cfg.mode == CONFIG_MODE_FLIGHT) {
		ret = dmn_flight_open(d);
		if (!ret)
			snprintf(path, len, "%s (flight recorder, files on snapshot)",
				 d->cfg.output_dir);
	}
	if (ret == -EOPNOTSUPP) {
		ret = dmn_new_file_path(d, path, len);
		if (!ret) {
			rotate_enforce_budget(&d->cfg, &d->rs, NULL, d->cfg.rotate_size);
			ret = dmn_capture_open(d, path);
		}
	}
	return ret;
}

/*
 * The daemon's life, or in salvage mode (d->salvage) only its start and its stop: what
 * a dead predecessor left is recovered and taken over, then finished at once, with no
 * control socket, timer, trigger, sentinel or readiness in between.
 */
static int run(struct recd *d, int ready_fd)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, 0 };
	char path[PATH_MAX], msg[PATH_MAX + 128];
	unsigned int wd;
	int ret;

	d->keep_fd = -1;
	d->trig.open = -1;
	d->trig_timer = -1;
	d->watch_timer = -1;
	d->state = CTL_STATE_STARTING;
	d->t0_ns = mono_ns();
	log_max_level = d->cfg.log_level;
	signal(SIGPIPE, SIG_IGN);

	/* Salvage keeps the default SIGTERM: what it leaves, the next one finishes. */
	d->loop = loop_new();
	if (!d->loop || (!d->salvage && loop_add_signals(d->loop, sigs, on_signal, d))) {
		snprintf(msg, sizeof(msg), "recorderd: cannot set up the event loop");
		goto fail;
	}
	daemon_lock_owner(d->salvage);
	if (d->salvage) {
		ret = dmn_salvage_start(d, path, sizeof(path));
		if (ret) {
			snprintf(msg, sizeof(msg), "recorderd: cannot salvage: %s",
				 d->last_err[0] ? d->last_err : strerror(-ret));
			goto fail;
		}
		goto finish;
	}
	d->ctl = ctl_server_open(d->cfg.socket, d->cfg.group_gid, d->loop, dmn_commands,
				 dmn_nr_commands, d);
	if (!d->ctl) {
		snprintf(msg, sizeof(msg), errno == EADDRINUSE ?
			 "recorderd: already running (control socket %s answers)" :
			 "recorderd: cannot open the control socket %s", d->cfg.socket);
		goto fail;
	}
	if (d->cfg.pidfile) {
		if (daemon_pidfile_write(d->cfg.pidfile)) {
			snprintf(msg, sizeof(msg), "recorderd: cannot write pidfile %s",
				 d->cfg.pidfile);
			goto fail;
		}
		d->pidfile = strdup(d->cfg.pidfile);
	}
	dmn_save_lastboot(d);
	dmn_after_crash(d);
	ret = dmn_start_capture(d, path, sizeof(path));
	if (ret) {
		snprintf(msg, sizeof(msg), "recorderd: cannot start capturing to %s: %s",
			 d->cfg.output_dir, strerror(-ret));
		goto fail;
	}
	d->tick_id = loop_add_timer(d->loop, d->cfg.period_ms, on_tick, d);
	d->tick_ms = d->cfg.period_ms;
	wd = d->cfg.watchdog_ms ? d->cfg.watchdog_ms : daemon_watchdog_ms();
	if (d->tick_id < 0 || (wd && loop_add_timer(d->loop, wd, on_watchdog, d) < 0)) {
		snprintf(msg, sizeof(msg), "recorderd: cannot create timers");
		goto fail;
	}
	if (dmn_triggers_start(d)) {
		snprintf(msg, sizeof(msg), "recorderd: %s", d->last_err);
		goto fail;
	}
	d->sn = sentinel_start(d->loop, ctl_server_fd(d->ctl), d->cfg.group_gid,
			       d->cfg.mode == CONFIG_MODE_FLIGHT ? CTL_MODE_FLIGHT : CTL_MODE_STREAM,
			       wd, d->t0_ns / 1000000);
	if (!d->sn || loop_add_fd(d->loop, sentinel_handoff_fd(d->sn), EPOLLIN, on_handoff, d)) {
		snprintf(msg, sizeof(msg), "recorderd: cannot start the sentinel thread: %s",
			 strerror(errno));
		goto fail;
	}
	dmn_publish_what(d);
	d->state = CTL_STATE_RUNNING;
	snprintf(msg, sizeof(msg), "recorderd: capturing (pid %d, %s mode) to %s",
		 (int)getpid(), d->cfg.mode == CONFIG_MODE_FLIGHT ? "flight" : "stream",
		 d->cap ? d->cur : path);
	if (ready_fd < 0)
		log_info("%s", msg + 11);	/* else the parent prints it */
	daemon_ready(ready_fd, 0, msg, d->cfg.log_file);
	daemon_notify("READY=1\nSTATUS=capturing to %s\nMAINPID=%d", d->cur, (int)getpid());

	ret = loop_run(d->loop);

	dmn_triggers_stop(d);
finish:
	d->state = CTL_STATE_STOPPING;
	sentinel_set_state(d->sn, CTL_STATE_STOPPING);
	daemon_notify("STOPPING=1");
	dmn_arm_stop_timeout(d);
	dmn_drain_for_stop(d);
	if (d->cap && dmn_capture_close(d))
		d->exit_code = 1;
	dmn_flight_close(d);
	/*
	 * The file just finished is the newest: the budget never takes it. A salvage
	 * that wrote nothing deletes nothing.
	 */
	if (!d->salvage || d->files)
		rotate_enforce_budget(&d->cfg, &d->rs, d->cur[0] ? d->cur : NULL, 0);
	if (d->salvage)
		dmn_salvage_done(d);
	else
		log_info("stopped; %u file(s), %llu bytes written", d->files,
			 (unsigned long long)d->done_file);
	ret = d->exit_code ? d->exit_code : ret ? 1 : 0;
	goto out;
fail:
	log_err("%s", msg + 11);
	daemon_ready(ready_fd, 1, msg, NULL);
	/* a flight ring taken over at start: saved, or kept, as at stop */
	dmn_flight_close(d);
	ret = 1;
out:
	dmn_triggers_stop(d);
	if (d->cap)
		dmn_capture_close(d);
	flight_stop(d->fl);
	if (d->sn)
		loop_del_fd(d->loop, sentinel_handoff_fd(d->sn));
	sentinel_stop(d->sn);
	ctl_server_close(d->ctl);
	daemon_pidfile_remove(d->pidfile);
	free(d->pidfile);
	loop_free(d->loop);
	config_free(&d->cfg);
	free(d);
	return ret;
}

/* A recd for @cfg (taken over: freed with it), or NULL (and @cfg freed). */
static struct recd *recd_new(struct rec_config *cfg)
{
	struct recd *d = calloc(1, sizeof(*d));

	if (!d) {
		config_free(cfg);
		return NULL;
	}
	d->cfg = *cfg;
	return d;
}

int daemon_run(struct rec_config *cfg, const char *cfg_path, const struct config_override *ov,
	       int nov, int ready_fd)
{
	struct recd *d = recd_new(cfg);

	if (!d) {
		daemon_ready(ready_fd, 1, "recorderd: out of memory", NULL);
		return 1;
	}
	d->cfg_path = cfg_path;
	d->ov = ov;
	d->nov = nov;
	return run(d, ready_fd);
}

int daemon_salvage(struct rec_config *cfg)
{
	struct recd *d = recd_new(cfg);

	if (!d) {
		fprintf(stderr, "recorderd: out of memory\n");
		return 1;
	}
	d->salvage = 1;
	return run(d, -1);
}
