// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's control handlers (daemon_local.h), dispatched by ctl_server.c through
 * dmn_commands: ping, status, stop, snapshot, rotate, reload (trigger: daemon_trigger.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/log.h"
#include "daemon.h"
#include "daemon_local.h"

/* ---- control handlers ---------------------------------------------------------- */

/* Appends NUL-terminated @str to @buf (@size) at *@off; cut if it would not fit. */
static void put_str(char *buf, size_t size, size_t *off, const char *str)
{
	size_t len = strlen(str ? str : "");

	if (*off + len + 1 > size)
		len = *off < size ? size - *off - 1 : 0;
	if (*off < size) {
		memcpy(buf + *off, str ? str : "", len);
		buf[*off + len] = 0;
		*off += len + 1;
	}
}

/*
 * The first five strings of STATUS (ctl_proto.h): what is captured, from where and to
 * which file, as the loop last set them up. Returns the bytes used of @buf.
 */
static size_t what_strings(struct recd *d, char *buf, size_t size)
{
	struct capture_status st = { 0 };
	char events[4096];
	size_t off = 0, n = 0;

	if (d->fl)
		st.source = flight_source_name(d->fl);
	else if (d->cap)
		capture_status(d->cap, &st);
	events[0] = 0;
	for (int i = 0; i < d->cfg.nr_events && n < sizeof(events); i++)
		n += snprintf(events + n, sizeof(events) - n, "%s%s", i ? "," : "",
			      d->cfg.events[i]);
	put_str(buf, size, &off, st.source ? st.source : d->cfg.source);
	put_str(buf, size, &off, events);
	put_str(buf, size, &off, d->cap ? d->cur : "");
	put_str(buf, size, &off, d->cfg.output_dir);
	put_str(buf, size, &off, d->cfg_path);
	return off;
}

void dmn_publish_what(struct recd *d)
{
	char buf[SENTINEL_WHAT_MAX];

	if (d->sn)
		sentinel_set_what(d->sn, buf, what_strings(d, buf, sizeof(buf)));
}

/*
 * STATUS: the header, the CPUs asked for (struct ctl_status_req, optional) that fit
 * beside the strings, then the strings. On a machine with more CPUs than fit, the
 * client asks again from where the answer stopped (CTL_STATUS_F_CPU_PAGES).
 */
static void h_status(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		     struct ctl_reply *r)
{
	static char strs[CTL_MAX_PAYLOAD];
	struct recd *d = ctx;
	struct ctl_status_reply s = {
		.state = d->state,
		.mode = d->cfg.mode == CONFIG_MODE_FLIGHT ? CTL_MODE_FLIGHT : CTL_MODE_STREAM,
		.pid = getpid(),
		.uptime_ns = mono_ns() - d->t0_ns,
		.raw_bytes = d->done_raw,
		.file_bytes = d->done_file,
		.disk_used = d->rs.disk_used,
		.disk_budget = d->cfg.disk_budget,
		.files = d->files,
		.deleted = d->rs.deleted,
		.snapshots = d->snapshots,
		.buffer_kb = d->cfg.buffer_kb,
		.flags = CTL_STATUS_F_SEAMLESS_ROTATE | CTL_STATUS_F_CPU_PAGES,
	};
	struct ctl_status_req req = { 0 };
	struct capture_status st = { 0 };
	char trig[16384];
	char missed[48];
	size_t off, n, room;
	uint32_t total = 0;

	if (len && len != sizeof(req)) {
		ctl_reply_error(r, CTL_ST_BAD_PAYLOAD, "status request: %u bytes", len);
		return;
	}
	if (len)
		memcpy(&req, pl, sizeof(req));
	if (d->fl) {
		total = flight_ncpus(d->fl);
	} else if (d->cap) {
		capture_refresh_stats(d->cap);
		capture_status(d->cap, &st);
		total = st.cpu ? st.ncpus : 0;
		s.raw_bytes += st.raw_bytes;
		s.file_bytes += st.file_bytes;
		s.cur_raw_bytes = st.raw_bytes;
		s.cur_file_bytes = st.file_bytes;
		if (st.workers) {
			s.flags |= CTL_STATUS_F_SPOOL;
			s.spooled = st.spooled;
			s.spool_peak = st.spool_peak;
			s.flags |= CTL_STATUS_F_STORED;
			s.stored = st.stored > UINT32_MAX ? UINT32_MAX : (__u32)st.stored;
		}
	}
	dmn_triggers_status(d, trig, sizeof(trig));
	dmn_triggers_missed(d, missed, sizeof(missed));
	off = what_strings(d, strs, sizeof(strs));
	put_str(strs, sizeof(strs), &off, d->last_err);
	put_str(strs, sizeof(strs), &off, trig);
	put_str(strs, sizeof(strs), &off, d->lastboot);
	put_str(strs, sizeof(strs), &off, missed);
	/* the strings take at most ~37 KiB of the 64: the CPUs share the rest */
	room = (CTL_MAX_PAYLOAD - sizeof(s) - off) / sizeof(struct ctl_status_cpu);
	s.cpus_total = total;
	s.first_cpu = req.first_cpu < total ? req.first_cpu : total;
	n = total - s.first_cpu;
	if (n > room)
		n = room;
	if (req.max_cpus && n > req.max_cpus)
		n = req.max_cpus;
	s.ncpus = (uint32_t)n;
	s.strings_len = (uint32_t)off;
	ctl_reply_add(r, &s, sizeof(s));
	for (uint32_t i = s.first_cpu; i < s.first_cpu + s.ncpus; i++) {
		struct ctl_status_cpu c = { .cpu = i };
		struct source_cpu_stats fs = { 0 };

		if (d->fl) {
			flight_cpu_stats(d->fl, (int)i, &fs);
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
	ctl_reply_add(r, strs, off);
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
	dmn_triggers_stop(d);
	d->state = CTL_STATE_STOPPING;
	/* finishing the files below may keep the loop on the disk: "stopping", not "stalled" */
	sentinel_set_state(d->sn, CTL_STATE_STOPPING);
	daemon_notify("STOPPING=1");
	dmn_arm_stop_timeout(d);
	/* Finish here so the answer means "the files are final". */
	dmn_drain_for_stop(d);
	if (dmn_capture_close(d))
		d->exit_code = 1;
	dmn_flight_close(d);
	ctl_reply_error(r, CTL_ST_OK, "stopped; last file %s", d->cur);
	loop_quit(d->loop, d->exit_code);
}

/* A snapshot of the tracefs flight recorder: tracing keeps running throughout. */
static int flight_take(struct recd *d, const char *path, struct ctl_snapshot_reply *sr)
{
	uint64_t raw = 0, file = 0;
	int ret = rotate_mkdir_p(d->cfg.output_dir, d->cfg.group_gid);

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

/*
 * The tracefs flight recorder. Its instance is named in the lock file while it runs:
 * a daemon killed leaves it tracing, and the next start (or `recorderd salvage`)
 * takes it over with what its ring holds (d->take_over, dmn_after_crash).
 */
int dmn_flight_open(struct recd *d)
{
	int ret = 0;

	d->fl = flight_start(&d->cfg, d->take_over, &ret);
	if (!d->fl)
		return ret ? ret : -EIO;
	d->take_over = 0;
	daemon_lock_note(NULL, d->cfg.instance);
	return 0;
}

/* The flight recorder's ring to a new file; tracing keeps running. */
static int flight_save(struct recd *d)
{
	char path[PATH_MAX];
	int ret = dmn_new_file_path(d, path, sizeof(path));

	/*
	 * The ring is read only with room for all of it: what a failed snapshot read would
	 * go with the daemon, where unread it stays in the instance.
	 */
	if (!ret && d->cfg.instance)
		ret = flight_room(d->fl, d->cfg.output_dir);
	if (!ret)
		ret = flight_take(d, path, NULL);
	if (!ret) {
		snprintf(d->cur, sizeof(d->cur), "%s", path);
		log_info("flight recorder saved to %s", path);
	}
	return ret;
}

/* At stop: the flight recorder's last contents go to a file too (nothing is lost). */
void dmn_flight_close(struct recd *d)
{
	int ret;

	if (!d->fl)
		return;
	ret = flight_save(d);
	if (ret) {
		dmn_set_error(d, "final snapshot at stop", ret);
		d->exit_code = 1;
	}
	/* Unsaved, the ring stays for the next start or salvage to take over. */
	if (ret && d->cfg.instance) {
		log_err("what the flight recorder's ring holds is kept in tracefs instance %s (tracing %s), named in the lock file for the next start or salvage",
			d->cfg.instance, flight_keep(d->fl) ? "still on" : "off");
		daemon_lock_note(NULL, d->cfg.instance);
	} else {
		daemon_lock_note(NULL, NULL);	/* its instance is removed */
	}
	flight_stop(d->fl);
	d->fl = NULL;
	dmn_publish_what(d);
}

int dmn_snapshot(struct recd *d, char *path, size_t path_len, struct ctl_snapshot_reply *sr,
		 char *why, size_t len)
{
	char work[PATH_MAX];
	uint64_t t0 = mono_ns(), raw0 = d->done_raw, file0 = d->done_file;
	int ret;

	memset(sr, 0, sizeof(*sr));
	if (d->fl) {
		if (!path[0] && dmn_new_file_path(d, path, path_len)) {
			snprintf(why, len, "%s", d->last_err);
			return -EIO;
		}
		ret = flight_take(d, path, sr);
		if (ret) {
			snprintf(why, len, "snapshot to %s failed: %s", path, strerror(-ret));
			return ret;
		}
		goto done;
	}
	/*
	 * The capture core's flight mode (the module): the work file holds the kernel
	 * buffer once drained into it; finishing it makes it the snapshot, and the
	 * capture goes on in the next work file.
	 */
	snprintf(work, sizeof(work), "%s", d->cur);
	if (dmn_switch_file(d, "snapshot")) {
		dmn_fail_and_quit(d, "cannot restart the flight recorder after a snapshot", -EIO);
		snprintf(why, len, "snapshot left in %s; the capture could not restart: %s", work,
			 d->last_err);
		return -EIO;
	}
	d->snapshots++;
	sr->raw_bytes = d->done_raw - raw0;
	sr->file_bytes = d->done_file - file0;
	/* A name of the pattern only now: without %#, the next work file's could be it. */
	if (!path[0] && dmn_new_file_path(d, path, path_len)) {
		snprintf(why, len, "snapshot kept in %s: %s", work, d->last_err);
		return -EIO;
	}
	ret = fio_move(work, path);
	if (ret) {
		snprintf(why, len, "snapshot kept in %s: move to %s: %s", work, path,
			 strerror(-ret));
		return ret;
	}
done:
	sr->duration_ns = mono_ns() - t0;
	log_info("snapshot %s: %llu bytes of pages, %llu ms", path,
		 (unsigned long long)sr->raw_bytes, (unsigned long long)(sr->duration_ns / 1000000));
	return 0;
}

static void h_snapshot(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		       struct ctl_reply *r)
{
	struct recd *d = ctx;
	struct ctl_snapshot_reply sr = { 0 };
	char path[PATH_MAX], why[PATH_MAX * 2 + 64];

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
	} else {
		path[0] = 0;	/* the next name of the pattern */
	}
	if (dmn_snapshot(d, path, sizeof(path), &sr, why, sizeof(why))) {
		ctl_reply_error(r, CTL_ST_FAILED, "%s", why);
		return;
	}
	r->status = CTL_ST_OK;
	r->len = 0;
	ctl_reply_add(r, &sr, sizeof(sr));
	ctl_reply_add(r, path, strlen(path) + 1);
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
	if (dmn_switch_file(d, "rotate requested")) {
		dmn_fail_and_quit(d, "rotation failed", -EIO);
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
	    a->durable != b->durable ||
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
	if (strcmp(a->log_file ? a->log_file : "", b->log_file ? b->log_file : ""))
		return "log_file";
	/* the socket's group is set when it is made, and files must follow it */
	if (a->group_gid != b->group_gid)
		return "group";
	return NULL;
}

static void swap_str(char **a, char **b)
{
	char *t = *a;

	*a = *b;
	*b = t;
}

static void swap_uint(unsigned int *a, unsigned int *b)
{
	unsigned int t = *a;

	*a = *b;
	*b = t;
}

static void swap_triggers(struct rec_config *a, struct rec_config *b)
{
	int n = a->nr_triggers;

	for (int i = 0; i < TRIGGER_MAX; i++)
		swap_str(&a->triggers[i], &b->triggers[i]);
	a->nr_triggers = b->nr_triggers;
	b->nr_triggers = n;
	swap_uint(&a->trigger_post_ms, &b->trigger_post_ms);
	swap_uint(&a->trigger_cooldown_ms, &b->trigger_cooldown_ms);
	swap_uint(&a->trigger_max_files, &b->trigger_max_files);
}

static void keep_restart_keys(struct rec_config *nc, struct rec_config *old)
{
	swap_str(&nc->source, &old->source);
	swap_str(&nc->instance, &old->instance);
	swap_str(&nc->socket, &old->socket);
	swap_str(&nc->pidfile, &old->pidfile);
	swap_str(&nc->log_file, &old->log_file);
	swap_str(&nc->group, &old->group);
	nc->group_gid = old->group_gid;
	nc->mode = old->mode;
}

/* @d runs with @c again: the configuration its capture was started with. */
static void use_config(struct recd *d, const struct rec_config *c)
{
	config_free(&d->cfg);
	config_copy(&d->cfg, c);
	log_max_level = d->cfg.log_level;
	dmn_set_tick(d, d->cfg.period_ms);
}

/*
 * Restarts what is captured with @d->cfg (@flight: the tracefs flight recorder, whose
 * ring is saved and stopped already); when that fails, with @old again, so that
 * capturing goes on whatever the new configuration holds. Return: 0; -EINVAL when the
 * new settings failed (@why says why) and the old ones run again; -EIO when neither
 * runs (the daemon has to stop).
 */
static int restart_or_fall_back(struct recd *d, const struct rec_config *old, int restart,
				bool flight, char *why, size_t len)
{
	char cur[sizeof(d->cur)];
	int ret = 0;

	log_mark_errors();
	snprintf(cur, sizeof(cur), "%s", d->cur);
	if (flight)
		ret = dmn_flight_open(d);
	else if (dmn_next_file(d, "configuration reloaded", restart == 2))
		ret = -EIO;
	snprintf(why, len, "%s", log_first_error()[0] ? log_first_error() :
		 ret ? strerror(-ret) : "the capture did not start");
	if (d->fl || (d->cap && (!ret || strcmp(cur, d->cur))))
		return 0;
	if (d->cap) {
		/* No next file (its directory or name failed): the old capture runs on. */
		use_config(d, old);
		return -EINVAL;
	}
	log_err("the new configuration does not capture (%s): going on with the old one",
		why);
	use_config(d, old);
	if (flight) {
		if (!dmn_flight_open(d))
			return -EINVAL;
	}
	return dmn_next_file(d, "old configuration restored", 1) ? -EIO : -EINVAL;
}

/* The old settings again after a reload that cannot apply: its triggers too. */
static int reload_refused(struct recd *d, struct rec_config *nc, const char *why,
			  char *msg, size_t len)
{
	config_free(nc);
	if (dmn_triggers_start(d))
		log_err("the triggers do not start again: no triggers armed");
	snprintf(msg, len, "reload failed, old configuration kept: %s", why);
	log_err("%s", msg);
	return -EINVAL;
}

/*
 * The tracefs flight recorder before a reload that changes what it captures (@nc) or
 * where: a directory it cannot make would show only at a snapshot, so it is made now;
 * a new directory or name alone needs no restart (*@restart = 0); else its ring goes
 * to a file under the old settings, and it stops. Return: 0, else -errno (@why says
 * why) and the recorder records on, untouched: a restart would clear its ring.
 */
static int flight_stop_for_reload(struct recd *d, const struct rec_config *nc, int *restart,
				  char *why, size_t len)
{
	int ret = rotate_mkdir_p(nc->output_dir, d->cfg.group_gid);	/* group: a restart */

	if (ret) {
		snprintf(why, len, "cannot make %s (%s)", nc->output_dir, strerror(-ret));
		return ret;
	}
	if (*restart == 1) {
		*restart = 0;
		return 0;
	}
	ret = flight_save(d);
	if (ret) {
		snprintf(why, len, "the flight recorder's ring cannot be saved (%s)",
			 strerror(-ret));
		return ret;
	}
	daemon_lock_note(NULL, NULL);
	flight_stop(d->fl);
	d->fl = NULL;
	return 0;
}

static int reload(struct recd *d, char *msg, size_t len)
{
	struct rec_config nc, old;
	char err[CONFIG_ERR_LEN], why[256] = "";
	const char *key;
	bool flight = false;
	int ret, restart;

	if (config_build(&nc, d->cfg_path, d->ov, d->nov, err)) {
		snprintf(msg, len, "reload rejected, old configuration kept: %s", err);
		log_err("%s", msg);
		return -EINVAL;
	}
	key = restart_key_changed(&d->cfg, &nc);
	restart = capture_changed(&d->cfg, &nc);
	if (!d->fl && !d->cap)
		restart = 0;
	/* An open window gets its file first, under the old settings; then anew. */
	dmn_triggers_stop(d);
	if (restart && d->fl) {
		ret = flight_stop_for_reload(d, &nc, &restart, why, sizeof(why));
		if (ret)
			return reload_refused(d, &nc, why, msg, len);
		flight = !d->fl;
	}
	config_copy(&old, &d->cfg);
	/* Keys that need a restart keep their old value; the rest apply now. */
	if (key)
		keep_restart_keys(&nc, &d->cfg);	/* d->cfg is replaced just below */
	config_free(&d->cfg);
	d->cfg = nc;
	log_max_level = d->cfg.log_level;
	dmn_set_tick(d, d->cfg.period_ms);
	ret = 0;
	d->reloading = 1;
	if (restart)
		ret = restart_or_fall_back(d, &old, restart, flight, why, sizeof(why));
	d->reloading = 0;
	if (ret == -EINVAL && dmn_triggers_start(d))
		log_err("the old triggers do not start again: no triggers armed");
	if (!ret && dmn_triggers_start(d)) {
		/* Everything else applies; the triggers stay as they were. */
		snprintf(why, sizeof(why), "%s", d->last_err);
		swap_triggers(&d->cfg, &old);
		if (dmn_triggers_start(d))
			log_err("the old triggers do not start either: no triggers armed");
		config_free(&old);
		snprintf(msg, len, "reload applied but its triggers failed, old triggers kept: %s",
			 why);
		log_err("%s", msg);
		return -EINVAL;
	}
	config_free(&old);
	if (ret) {
		snprintf(msg, len, "reload failed, old configuration kept%s: %s",
			 ret == -EIO ? " but it does not capture either" : "", why);
		return ret;
	}
	snprintf(msg, len, "configuration reloaded%s%s%s", restart == 1 ?
		 "; continuing in a new file" : restart == 2 && d->fl ?
		 "; flight recorder saved to a file and restarted" : restart == 2 ?
		 "; capture restarted in a new file" : "",
		 key ? "; changing '" : "", key ? key : "");
	if (key)
		snprintf(msg + strlen(msg), len - strlen(msg), "' needs a restart (kept old)");
	log_info("%s", msg);
	return 0;
}

int dmn_reload(struct recd *d, char *msg, size_t len)
{
	int ret = reload(d, msg, len);

	dmn_publish_what(d);
	return ret;
}

static void h_reload(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		     struct ctl_reply *r)
{
	struct recd *d = ctx;
	char msg[512];
	int ret = dmn_reload(d, msg, sizeof(msg));

	if (ret == -EIO)
		dmn_fail_and_quit(d, "restart after reload failed", ret);
	ctl_reply_error(r, ret ? CTL_ST_FAILED : CTL_ST_OK, "%s", msg);
}

const struct ctl_command dmn_commands[] = {
	{ CTL_CMD_PING,	    0, 0,	     1, ctl_h_ping },
	{ CTL_CMD_STATUS,   0, sizeof(struct ctl_status_req), 1, h_status },
	{ CTL_CMD_STOP,	    0, 0,	     0, h_stop },
	{ CTL_CMD_SNAPSHOT, 0, PATH_MAX - 1, 0, h_snapshot },
	{ CTL_CMD_RELOAD,   0, 0,	     0, h_reload },
	{ CTL_CMD_ROTATE,   0, 0,	     0, h_rotate },
	{ CTL_CMD_TRIGGER,  1, TRIGGER_NAME_MAX - 1, 0, dmn_h_trigger },
};
const size_t dmn_nr_commands = sizeof(dmn_commands) / sizeof(dmn_commands[0]);
