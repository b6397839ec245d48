// SPDX-License-Identifier: GPL-2.0
/*
 * The running daemon: one epoll loop (loop.c) drives the capture core (capture.c)
 * through its fds and a periodic tick, and serves the control socket (ctl_server.c).
 * Everything happens in this one thread, so handlers see a consistent state.
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
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/capture_pump.h"
#include "ctl.h"
#include "daemon.h"
#include "util/log.h"
#include "capture/loop.h"
#include "rotate.h"
#include "snapshot.h"

#define HOUSEKEEP_MS		1000	/* directory, budget and rotation checks */
#define DISK_FULL_MARGIN	(4ULL << 20)

struct recd {
	struct rec_config		cfg;
	const char			*cfg_path;
	const struct config_override	*ov;
	int				nov;
	struct loop			*loop;
	struct ctl_server		*ctl;
	struct capture			*cap;
	struct flight			*fl;		/* flight mode on tracefs */
	struct capture_pump		*pump;		/* stream mode: moves the pages */
	int				tick_id;
	uint64_t			tick_ms_acc;
	char				cur[PATH_MAX];	/* file being written */
	int				keep_fd;	/* O_RDONLY on it: notices removal */
	struct rotate_state		rs;
	enum ctl_state			state;
	char				last_err[256];
	uint64_t			done_raw;	/* finished files */
	uint64_t			done_file;
	unsigned int			files;
	unsigned int			snapshots;
	struct timespec			t0;
	int				exit_code;
	char				*pidfile;	/* written by us, removed at exit */
};

static time_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void set_error(struct recd *d, const char *what, int err)
{
	snprintf(d->last_err, sizeof(d->last_err), "%s: %s", what, strerror(-err));
	log_err("%s", d->last_err);
}

/* ---- capture lifetime ---------------------------------------------------------- */

static void capture_failed(struct recd *d, long err);
static void flight_close(struct recd *d);

static void pump_failed(void *arg, long err)
{
	capture_failed(arg, err);
}

static int capture_open(struct recd *d, const char *path)
{
	const struct rec_config *c = &d->cfg;
	struct capture_params p = {
		.source = c->source,
		.instance = c->instance,
		.create_instance = c->instance != NULL,
		.events = (const char *const *)c->events,
		.nr_events = c->nr_events,
		.output = path,
		.comp = c->comp,
		.zstd_level = c->zstd_level,
		.chunk_pages = c->chunk_pages,
		.region_bytes = c->region_bytes,
		.buffer_kb = c->buffer_kb,
		.overwrite = c->mode == CONFIG_MODE_FLIGHT,
		.clock = c->clock,
		.period_ms = c->period_ms,
		.sync_ms = c->sync_ms,
	};
	int err = 0;

	d->cap = capture_start(&p, &err);
	if (!d->cap)
		return err ? err : -EIO;
	snprintf(d->cur, sizeof(d->cur), "%s", path);
	d->keep_fd = open(path, O_RDONLY | O_CLOEXEC);
	d->rs.started = mono_now();
	/* Flight mode never reads: the kernel keeps the newest data until a snapshot. */
	if (c->mode == CONFIG_MODE_STREAM) {
		d->pump = capture_pump_start(d->loop, d->cap, pump_failed, d);
		if (!d->pump) {
			capture_free(d->cap);
			d->cap = NULL;
			return -ENOMEM;
		}
	}
	if (d->state == CTL_STATE_RUNNING)
		log_info("capturing to %s", path);
	return 0;
}

/* Copies the data of a file whose name was removed back to @path, from our own fd. */
static void restore_removed(struct recd *d)
{
	struct stat st;
	off_t off = 0;
	int out, err;

	if (fstat(d->keep_fd, &st) || st.st_nlink)
		return;
	err = rotate_mkdir_p(d->cfg.output_dir);
	out = err ? -1 : open(d->cur, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (out < 0) {
		log_err("%s was removed and cannot be restored: %s", d->cur,
			strerror(err ? -err : errno));
		return;
	}
	while (off < st.st_size)
		if (sendfile(out, d->keep_fd, &off, st.st_size - off) <= 0)
			break;
	if (off < st.st_size || fsync(out))
		log_err("restoring removed %s: %s", d->cur, strerror(errno));
	else
		log_warn("%s had been removed; its %lld bytes were restored", d->cur,
			 (long long)st.st_size);
	close(out);
}

/*
 * Finishes the current file: drains every page written so far (tracing is turned off
 * first by capture_stop), finishes the v7 tail, restores a removed file.
 */
static int capture_close(struct recd *d)
{
	struct capture_status st;
	int ret;

	if (!d->cap)
		return 0;
	capture_pump_stop(d->pump);
	d->pump = NULL;
	ret = capture_stop(d->cap);
	capture_status(d->cap, &st);
	d->done_raw += st.raw_bytes;
	d->done_file += st.file_bytes;
	d->files++;
	capture_free(d->cap);
	d->cap = NULL;
	if (ret)
		log_warn("%s finished after an error (%s): valid up to its last synced chunk",
			 d->cur, strerror(-ret));
	if (d->keep_fd >= 0) {
		restore_removed(d);
		close(d->keep_fd);
		d->keep_fd = -1;
	}
	return ret;
}

static int new_file_path(struct recd *d, char *path, size_t len)
{
	int ret = rotate_mkdir_p(d->cfg.output_dir);

	if (!ret)
		ret = rotate_next_path(&d->cfg, &d->rs, time(NULL), path, len);
	if (ret)
		set_error(d, "cannot create the next output file name", ret);
	return ret;
}

/*
 * A new capture in @next: needed when what is captured changes (events, buffer size,
 * clock, compression). Tracing pauses for the time capture_start() takes (metadata
 * collection, ~0.5 s), and what is written between the restore of the old capture and
 * the buffer reset of the new one is lost.
 */
static int restart_capture(struct recd *d, const char *next)
{
	capture_close(d);
	return capture_open(d, next);
}

/* The capture core switches files under the running source: no event is lost. */
static int switch_capture(struct recd *d, const char *next)
{
	struct capture_status st;
	uint64_t raw, file;
	int ret;

	capture_status(d->cap, &st);
	raw = st.done_raw_bytes;
	file = st.done_file_bytes;
	ret = capture_rotate(d->cap, next);
	if (ret)
		return ret;
	/* The old file's final size is known once it is finished. */
	capture_status(d->cap, &st);
	d->done_raw += st.done_raw_bytes - raw;
	d->done_file += st.done_file_bytes - file;
	d->files++;
	if (d->keep_fd >= 0) {
		restore_removed(d);
		close(d->keep_fd);
	}
	snprintf(d->cur, sizeof(d->cur), "%s", next);
	d->keep_fd = open(next, O_RDONLY | O_CLOEXEC);
	d->rs.started = mono_now();
	log_info("capturing to %s", next);
	return 0;
}

/*
 * Finishes the current file and continues in the next one; @restart: with a new
 * capture (the settings of what is captured changed).
 */
static int next_file(struct recd *d, const char *why, int restart)
{
	char next[PATH_MAX];
	int ret;

	log_info("closing %s (%s)", d->cur, why);
	ret = new_file_path(d, next, sizeof(next));
	if (ret)
		return ret;
	rotate_enforce_budget(&d->cfg, &d->rs, d->cur, d->cfg.rotate_size);
	ret = restart ? restart_capture(d, next) : switch_capture(d, next);
	if (ret)
		set_error(d, "cannot start the next file", ret);
	return ret;
}

static int switch_file(struct recd *d, const char *why)
{
	return next_file(d, why, 0);
}

/*
 * At stop: tracing off, then everything still in the buffers goes to files, in a next
 * one when a region fills up, so that capture_stop() has nothing left to lose.
 */
static void drain_for_stop(struct recd *d)
{
	for (int i = 0; d->cap && i < 64; i++)
		if (capture_drain(d->cap) != -ENOSPC ||
		    switch_file(d, "a CPU region of the file is full"))
			break;
}

static void fail_and_quit(struct recd *d, const char *what, int err)
{
	set_error(d, what, err);
	d->state = CTL_STATE_FAILED;
	daemon_notify("STATUS=failed: %s", d->last_err);
	d->exit_code = 1;
	loop_quit(d->loop, 1);
}

static uint64_t disk_free(const char *dir)
{
	struct statvfs sv;

	if (statvfs(dir, &sv))
		return 0;
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

/* A capture error: rotate when the writer's region is full, else finish and exit. */
static void capture_failed(struct recd *d, long err)
{
	if (err == -ENOSPC) {
		if (disk_free(d->cfg.output_dir) > DISK_FULL_MARGIN) {
			if (!switch_file(d, "a CPU region of the file is full"))
				return;
			fail_and_quit(d, "cannot continue after a full region", -ENOSPC);
			return;
		}
		if (d->cfg.disk_budget &&
		    rotate_enforce_budget(&d->cfg, &d->rs, d->cur, 2 * DISK_FULL_MARGIN) > 0 &&
		    disk_free(d->cfg.output_dir) > DISK_FULL_MARGIN && !switch_file(d, "disk full"))
			return;
		fail_and_quit(d, "disk full; the file keeps every synced chunk", -ENOSPC);
		return;
	}
	fail_and_quit(d, "capture stopped", (int)err);
}

static void housekeep(struct recd *d)
{
	struct stat sb;

	/* The output directory (or the file) was removed under us. */
	if (d->cap && d->keep_fd >= 0 && !fstat(d->keep_fd, &sb) && !sb.st_nlink) {
		log_err("%s was removed (output directory %s deleted?)", d->cur,
			d->cfg.output_dir);
		if (switch_file(d, "file removed"))
			fail_and_quit(d, "cannot recreate the output directory", -ENOENT);
		return;
	}
	rotate_enforce_budget(&d->cfg, &d->rs, d->cur, 0);
}

/* Size and age limits, checked at every tick: a file overshoots by one period at most. */
static void check_rotation(struct recd *d)
{
	struct capture_status st;
	const char *why;

	capture_status(d->cap, &st);
	why = rotate_due(&d->cfg, &d->rs, st.file_bytes, mono_now());
	if (why && switch_file(d, why))
		fail_and_quit(d, "rotation failed", -EIO);
}

static void on_tick(struct loop *l, uint64_t n, void *arg)
{
	struct recd *d = arg;

	if ((!d->cap && !d->fl) || d->state != CTL_STATE_RUNNING)
		return;
	if (d->cfg.mode == CONFIG_MODE_STREAM) {
		if (d->pump)
			capture_pump_tick(d->pump);
		if (d->cap && d->state == CTL_STATE_RUNNING)
			check_rotation(d);
	}
	d->tick_ms_acc += n * d->cfg.period_ms;
	if (d->tick_ms_acc >= HOUSEKEEP_MS && d->state == CTL_STATE_RUNNING) {
		d->tick_ms_acc = 0;
		housekeep(d);
	}
}

static void on_watchdog(struct loop *l, uint64_t n, void *arg)
{
	struct recd *d = arg;

	/* Only a loop that still turns pings: a hung capture lets systemd restart us. */
	if (d->state == CTL_STATE_RUNNING || d->state == CTL_STATE_STOPPING)
		daemon_notify("WATCHDOG=1");
}

/*
 * Stopping never takes longer than stop_timeout: past it, SIGALRM (default action)
 * ends the process and the file keeps its state of the last sync, as after kill -9.
 */
static void arm_stop_timeout(struct recd *d)
{
	signal(SIGALRM, SIG_DFL);
	alarm(d->cfg.stop_timeout_s);
}

/* ---- control handlers ---------------------------------------------------------- */

static void h_ping(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		   struct ctl_reply *r)
{
	struct ctl_ping p = { .version = CTL_PROTO_VERSION, .pid = getpid() };

	ctl_reply_add(r, &p, sizeof(p));
}

static void add_str(struct ctl_reply *r, const char *s, uint32_t *n)
{
	size_t len = strlen(s ? s : "") + 1;

	if (!ctl_reply_add(r, s ? s : "", len))
		*n += len;
}

static void h_status(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		     struct ctl_reply *r)
{
	struct recd *d = ctx;
	struct ctl_status_reply s = {
		.state = d->state,
		.mode = d->cfg.mode == CONFIG_MODE_FLIGHT ? CTL_MODE_FLIGHT : CTL_MODE_STREAM,
		.pid = getpid(),
		.uptime_ns = mono_ns() - (d->t0.tv_sec * 1000000000ULL + d->t0.tv_nsec),
		.raw_bytes = d->done_raw,
		.file_bytes = d->done_file,
		.disk_used = d->rs.disk_used,
		.disk_budget = d->cfg.disk_budget,
		.files = d->files,
		.deleted = d->rs.deleted,
		.snapshots = d->snapshots,
		.buffer_kb = d->cfg.buffer_kb,
		.flags = CTL_STATUS_F_SEAMLESS_ROTATE,
	};
	struct capture_status st = { 0 };
	char events[4096];
	size_t off = 0;
	uint32_t n = 0;

	if (d->fl) {
		s.ncpus = flight_ncpus(d->fl);
		st.source = flight_source_name(d->fl);
	} else if (d->cap) {
		capture_status(d->cap, &st);
		s.ncpus = st.ncpus;
		s.raw_bytes += st.raw_bytes;
		s.file_bytes += st.file_bytes;
		s.cur_raw_bytes = st.raw_bytes;
		s.cur_file_bytes = st.file_bytes;
	}
	ctl_reply_add(r, &s, sizeof(s));
	for (int i = 0; i < (int)s.ncpus && (st.cpu || d->fl); i++) {
		struct ctl_status_cpu c = { .cpu = i };
		struct source_cpu_stats fs = { 0 };

		if (d->fl) {
			flight_cpu_stats(d->fl, i, &fs);
			c.entries = fs.entries;
			c.overrun = fs.overrun;
			c.lost = fs.lost;
		} else {
			c.entries = st.cpu[i].entries;
			c.overrun = st.cpu[i].overrun;
			c.lost = st.cpu[i].lost;
			c.pages = st.cpu[i].pages;
			c.bytes = st.cpu[i].bytes;
		}
		ctl_reply_add(r, &c, sizeof(c));
	}
	events[0] = 0;
	for (int i = 0; i < d->cfg.nr_events && off < sizeof(events); i++)
		off += snprintf(events + off, sizeof(events) - off, "%s%s", i ? "," : "",
				d->cfg.events[i]);
	add_str(r, st.source ? st.source : d->cfg.source, &n);
	add_str(r, events, &n);
	add_str(r, d->cap ? d->cur : "", &n);
	add_str(r, d->cfg.output_dir, &n);
	add_str(r, d->cfg_path, &n);
	add_str(r, d->last_err, &n);
	((struct ctl_status_reply *)r->buf)->strings_len = n;
}

static void h_stop(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		   struct ctl_reply *r)
{
	struct recd *d = ctx;

	if (d->state == CTL_STATE_STOPPING) {
		ctl_reply_error(r, CTL_ST_BUSY, "already stopping");
		return;
	}
	log_info("stop requested by pid %d (uid %u)", peer->pid, peer->uid);
	d->state = CTL_STATE_STOPPING;
	daemon_notify("STOPPING=1");
	arm_stop_timeout(d);
	/* Finish here so the answer means "the files are final". */
	drain_for_stop(d);
	if (capture_close(d))
		d->exit_code = 1;
	flight_close(d);
	ctl_reply_error(r, CTL_ST_OK, "stopped; last file %s", d->cur);
	loop_quit(d->loop, d->exit_code);
}

/* A snapshot of the tracefs flight recorder: tracing keeps running throughout. */
static int flight_take(struct recd *d, const char *path, struct ctl_snapshot_reply *sr)
{
	uint64_t raw = 0, file = 0;
	int ret = rotate_mkdir_p(d->cfg.output_dir);

	if (!ret)
		ret = flight_snapshot(d->fl, path, &d->cfg, &raw, &file);
	if (ret)
		return ret;
	d->done_raw += raw;
	d->done_file += file;
	d->snapshots++;
	d->files++;
	if (sr) {
		sr->raw_bytes = raw;
		sr->file_bytes = file;
	}
	return 0;
}

/* At stop: the flight recorder's last contents go to a file too (nothing is lost). */
static void flight_close(struct recd *d)
{
	char path[PATH_MAX];
	int ret;

	if (!d->fl)
		return;
	ret = new_file_path(d, path, sizeof(path));
	if (!ret)
		ret = flight_take(d, path, NULL);
	if (ret) {
		set_error(d, "final snapshot at stop", ret);
		d->exit_code = 1;
	} else {
		snprintf(d->cur, sizeof(d->cur), "%s", path);
		log_info("flight recorder saved to %s", path);
	}
	flight_stop(d->fl);
	d->fl = NULL;
}

static void h_snapshot(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		       struct ctl_reply *r)
{
	struct recd *d = ctx;
	struct ctl_snapshot_reply sr = { 0 };
	char path[PATH_MAX], work[PATH_MAX];
	uint64_t t0 = mono_ns(), raw0 = d->done_raw, file0 = d->done_file;

	if (d->cfg.mode != CONFIG_MODE_FLIGHT) {
		ctl_reply_error(r, CTL_ST_NOT_SUPPORTED,
				"snapshot needs mode = flight (in stream mode use 'rotate')");
		return;
	}
	if ((!d->cap && !d->fl) || d->state != CTL_STATE_RUNNING) {
		ctl_reply_error(r, CTL_ST_BUSY, "no capture running");
		return;
	}
	if (len) {
		if (len >= sizeof(path) || memchr(pl, 0, len) || ((const char *)pl)[0] != '/') {
			ctl_reply_error(r, CTL_ST_BAD_PAYLOAD, "snapshot path must be absolute");
			return;
		}
		memcpy(path, pl, len);
		path[len] = 0;
		if (!access(path, F_OK)) {
			ctl_reply_error(r, CTL_ST_FAILED, "%s exists; not overwriting it", path);
			return;
		}
	} else if (new_file_path(d, path, sizeof(path))) {
		ctl_reply_error(r, CTL_ST_FAILED, "%s", d->last_err);
		return;
	}
	if (d->fl) {
		int ret = flight_take(d, path, &sr);

		if (ret) {
			ctl_reply_error(r, CTL_ST_FAILED, "snapshot to %s failed: %s", path,
					strerror(-ret));
			return;
		}
		goto done;
	}
	/*
	 * The capture core's flight mode (the module): the work file holds the kernel
	 * buffer once drained into it; finishing it makes it the snapshot, and the
	 * capture goes on in the next work file.
	 */
	snprintf(work, sizeof(work), "%s", d->cur);
	if (switch_file(d, "snapshot")) {
		fail_and_quit(d, "cannot restart the flight recorder after a snapshot", -EIO);
		ctl_reply_error(r, CTL_ST_FAILED, "snapshot left in %s; the capture could not "
				"restart: %s", work, d->last_err);
		return;
	}
	d->snapshots++;
	sr.raw_bytes = d->done_raw - raw0;
	sr.file_bytes = d->done_file - file0;
	if (rename(work, path)) {
		ctl_reply_error(r, CTL_ST_FAILED, "snapshot kept in %s: rename to %s: %s", work,
				path, strerror(errno));
		return;
	}
done:
	sr.duration_ns = mono_ns() - t0;
	r->status = CTL_ST_OK;
	r->len = 0;
	ctl_reply_add(r, &sr, sizeof(sr));
	ctl_reply_add(r, path, strlen(path) + 1);
	log_info("snapshot %s: %llu bytes of pages, %llu ms", path,
		 (unsigned long long)sr.raw_bytes, (unsigned long long)(sr.duration_ns / 1000000));
}

static void h_rotate(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		     struct ctl_reply *r)
{
	struct recd *d = ctx;
	char old[PATH_MAX];

	if (d->cfg.mode != CONFIG_MODE_STREAM || !d->cap) {
		ctl_reply_error(r, CTL_ST_NOT_SUPPORTED, "rotate needs a running stream capture");
		return;
	}
	snprintf(old, sizeof(old), "%s", d->cur);
	if (switch_file(d, "rotate requested")) {
		fail_and_quit(d, "rotation failed", -EIO);
		ctl_reply_error(r, CTL_ST_FAILED, "%s", d->last_err);
		return;
	}
	ctl_reply_error(r, CTL_ST_OK, "%s finished; now writing %s", old, d->cur);
}

/*
 * Keys applied by starting the next file now: 2 when what is captured changed (a new
 * capture), 1 when only where files go changed (a rotation, nothing lost), else 0.
 */
static int capture_changed(const struct rec_config *a, const struct rec_config *b)
{
	if (a->nr_events != b->nr_events)
		return 2;
	for (int i = 0; i < a->nr_events; i++)
		if (strcmp(a->events[i], b->events[i]))
			return 2;
	if (a->buffer_kb != b->buffer_kb || a->comp != b->comp ||
	    a->zstd_level != b->zstd_level || a->chunk_pages != b->chunk_pages ||
	    a->region_bytes != b->region_bytes || a->sync_ms != b->sync_ms ||
	    strcmp(a->clock ? a->clock : "", b->clock ? b->clock : ""))
		return 2;
	return strcmp(a->output_dir, b->output_dir) || strcmp(a->file_pattern, b->file_pattern);
}

static const char *restart_key_changed(const struct rec_config *a, const struct rec_config *b)
{
	if (strcmp(a->source, b->source))
		return "source";
	if (strcmp(a->instance ? a->instance : "", b->instance ? b->instance : ""))
		return "instance";
	if (a->mode != b->mode)
		return "mode";
	if (strcmp(a->socket, b->socket))
		return "socket";
	if (strcmp(a->pidfile ? a->pidfile : "", b->pidfile ? b->pidfile : ""))
		return "pidfile";
	return NULL;
}

static void swap_str(char **a, char **b)
{
	char *t = *a;

	*a = *b;
	*b = t;
}

static void keep_restart_keys(struct rec_config *nc, struct rec_config *old)
{
	swap_str(&nc->source, &old->source);
	swap_str(&nc->instance, &old->instance);
	swap_str(&nc->socket, &old->socket);
	swap_str(&nc->pidfile, &old->pidfile);
	swap_str(&nc->log_file, &old->log_file);
	nc->mode = old->mode;
}

static int do_reload(struct recd *d, char *msg, size_t len)
{
	struct rec_config nc;
	char err[CONFIG_ERR_LEN];
	const char *key;
	int ret, restart;

	if (config_build(&nc, d->cfg_path, d->ov, d->nov, err)) {
		snprintf(msg, len, "reload rejected, old configuration kept: %s", err);
		log_err("%s", msg);
		return -EINVAL;
	}
	key = restart_key_changed(&d->cfg, &nc);
	restart = capture_changed(&d->cfg, &nc);
	/* Keys that need a restart keep their old value; the rest apply now. */
	if (key)
		keep_restart_keys(&nc, &d->cfg);
	config_free(&d->cfg);
	d->cfg = nc;
	log_max_level = d->cfg.log_level;
	loop_set_timer(d->loop, d->tick_id, d->cfg.period_ms);
	ret = 0;
	if (restart && d->fl) {
		/* Save what the buffer holds, then restart it with the new settings. */
		flight_close(d);
		d->fl = flight_start(&d->cfg, &ret);
		restart = d->fl ? 3 : 0;
		ret = d->fl ? 0 : -EIO;
	} else if (restart && d->cap) {
		if (next_file(d, "configuration reloaded", restart == 2))
			ret = -EIO;
	} else {
		restart = 0;
	}
	snprintf(msg, len, "configuration reloaded%s%s%s", ret ? "" : restart == 1 ?
		 "; continuing in a new file" : restart == 2 ?
		 "; capture restarted in a new file" : restart == 3 ?
		 "; flight recorder saved to a file and restarted" : "",
		 key ? "; changing '" : "", key ? key : "");
	if (key)
		snprintf(msg + strlen(msg), len - strlen(msg), "' needs a restart (kept old)");
	log_info("%s", msg);
	return ret;
}

static void h_reload(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		     struct ctl_reply *r)
{
	struct recd *d = ctx;
	char msg[512];
	int ret = do_reload(d, msg, sizeof(msg));

	if (ret == -EIO)
		fail_and_quit(d, "restart after reload failed", ret);
	ctl_reply_error(r, ret ? CTL_ST_FAILED : CTL_ST_OK, "%s", msg);
}

static const struct ctl_command commands[] = {
	{ CTL_CMD_PING,	    0, 0,	     1, h_ping },
	{ CTL_CMD_STATUS,   0, 0,	     1, h_status },
	{ CTL_CMD_STOP,	    0, 0,	     0, h_stop },
	{ CTL_CMD_SNAPSHOT, 0, PATH_MAX - 1, 0, h_snapshot },
	{ CTL_CMD_RELOAD,   0, 0,	     0, h_reload },
	{ CTL_CMD_ROTATE,   0, 0,	     0, h_rotate },
};

static void on_signal(struct loop *l, int sig, void *arg)
{
	struct recd *d = arg;
	char msg[512];

	if (sig == SIGHUP) {
		if (do_reload(d, msg, sizeof(msg)) == -EIO)
			fail_and_quit(d, "restart after reload failed", -EIO);
		return;
	}
	log_info("%s: stopping", strsignal(sig));
	d->state = CTL_STATE_STOPPING;
	loop_quit(l, 0);
}

int daemon_run(struct rec_config *cfg, const char *cfg_path, const struct config_override *ov,
	       int nov, int ready_fd)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, 0 };
	struct recd *d = calloc(1, sizeof(*d));
	char path[PATH_MAX], msg[PATH_MAX + 128];
	unsigned int wd;
	int ret;

	if (!d) {
		daemon_ready(ready_fd, 1, "recorderd: out of memory", NULL);
		config_free(cfg);
		return 1;
	}
	d->cfg = *cfg;
	d->cfg_path = cfg_path;
	d->ov = ov;
	d->nov = nov;
	d->keep_fd = -1;
	d->state = CTL_STATE_STARTING;
	clock_gettime(CLOCK_MONOTONIC, &d->t0);
	log_max_level = d->cfg.log_level;
	signal(SIGPIPE, SIG_IGN);

	d->loop = loop_new();
	if (!d->loop || loop_add_signals(d->loop, sigs, on_signal, d)) {
		snprintf(msg, sizeof(msg), "recorderd: cannot set up the event loop");
		goto fail;
	}
	d->ctl = ctl_server_open(d->cfg.socket, d->loop, commands,
				 sizeof(commands) / sizeof(commands[0]), d);
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
	ret = -EOPNOTSUPP;
	if (d->cfg.mode == CONFIG_MODE_FLIGHT) {
		d->fl = flight_start(&d->cfg, &ret);
		if (d->fl) {
			snprintf(path, sizeof(path), "%s (flight recorder, files on snapshot)",
				 d->cfg.output_dir);
			ret = 0;
		}
	}
	if (ret == -EOPNOTSUPP) {
		ret = new_file_path(d, path, sizeof(path));
		if (!ret) {
			rotate_enforce_budget(&d->cfg, &d->rs, NULL, d->cfg.rotate_size);
			ret = capture_open(d, path);
		}
	}
	if (ret) {
		snprintf(msg, sizeof(msg), "recorderd: cannot start capturing to %s: %s",
			 d->cfg.output_dir, strerror(-ret));
		goto fail;
	}
	d->tick_id = loop_add_timer(d->loop, d->cfg.period_ms, on_tick, d);
	wd = d->cfg.watchdog_ms ? d->cfg.watchdog_ms : daemon_watchdog_ms();
	if (d->tick_id < 0 || (wd && loop_add_timer(d->loop, wd, on_watchdog, d) < 0)) {
		snprintf(msg, sizeof(msg), "recorderd: cannot create timers");
		goto fail;
	}
	d->state = CTL_STATE_RUNNING;
	snprintf(msg, sizeof(msg), "recorderd: capturing (pid %d, %s mode) to %s",
		 (int)getpid(), d->cfg.mode == CONFIG_MODE_FLIGHT ? "flight" : "stream",
		 d->cap ? d->cur : path);
	if (ready_fd < 0)
		log_info("%s", msg + 11);	/* else the parent prints it */
	daemon_ready(ready_fd, 0, msg, d->cfg.log_file);
	daemon_notify("READY=1\nSTATUS=capturing to %s\nMAINPID=%d", d->cur, (int)getpid());

	ret = loop_run(d->loop);

	d->state = CTL_STATE_STOPPING;
	daemon_notify("STOPPING=1");
	arm_stop_timeout(d);
	drain_for_stop(d);
	if (d->cap && capture_close(d))
		d->exit_code = 1;
	flight_close(d);
	/* The file just finished is the newest: the budget never takes it. */
	rotate_enforce_budget(&d->cfg, &d->rs, d->cur[0] ? d->cur : NULL, 0);
	log_info("stopped; %u file(s), %llu bytes written", d->files,
		 (unsigned long long)d->done_file);
	ret = d->exit_code ? d->exit_code : ret ? 1 : 0;
	goto out;
fail:
	log_err("%s", msg + 11);
	daemon_ready(ready_fd, 1, msg, NULL);
	ret = 1;
out:
	if (d->cap)
		capture_close(d);
	flight_stop(d->fl);
	ctl_server_close(d->ctl);
	daemon_pidfile_remove(d->pidfile);
	free(d->pidfile);
	loop_free(d->loop);
	config_free(&d->cfg);
	free(d);
	return ret;
}
