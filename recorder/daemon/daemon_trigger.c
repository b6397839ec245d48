// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's triggers (daemon_local.h). A hit that opens a window writes a
 * record naming it into the flight recorder's ring (so the file shows where it
 * happened), and post_ms later the ring - its whole history and the window after the
 * hit - goes to output_dir/trig-TIME-KIND[-TASK].dat. Hits inside the window are
 * recorded and counted in that file; hits in the cooldown after it are only counted.
 * The trigger files are kept to trigger_max_files and to what the disk budget leaves.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "ftring_abi.h"
#include "source/tracing.h"
#include "util/log.h"
#include "daemon_local.h"
#include "marker_watch.h"

#define WATCH_PAUSE_MS	20

/* The record naming the trigger, in the flight recorder's ring. */
static void mark(struct recd *d, const char *text)
{
	int fd, ret = 0;

	if (d->fl) {
		tracing_write(d->cfg.instance, "trace_marker", text);
		return;
	}
	/* The capture core's flight mode records the module: its marker device. */
	fd = open(FTRING_DEV_MARKER, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret)
		log_warn("cannot write the trigger record to %s: %s", FTRING_DEV_MARKER,
			 strerror(-ret));
}

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* The window is over: its file. 0, or -1 when it could not be written (logged). */
static int write_window(struct recd *d)
{
	struct ctl_snapshot_reply sr;
	char why[PATH_MAX * 2 + 64];
	unsigned int hits = d->trig.hits;
	int idx = trigger_close_window(&d->trig), ret;
	struct trigger_spec *t;

	if (d->trig_timer >= 0)
		loop_del_timer(d->loop, d->trig_timer);
	d->trig_timer = -1;
	if (idx < 0)
		return 0;
	t = &d->trig.spec[idx];
	ret = rotate_mkdir_p(d->cfg.output_dir, d->cfg.group_gid);
	if (!ret)
		ret = dmn_snapshot(d, d->trig_path, sizeof(d->trig_path), &sr, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "%s: %s", d->cfg.output_dir, strerror(-ret));
	if (ret) {
		log_err("trigger %s: %s", t->text, why);
		snprintf(d->last_err, sizeof(d->last_err), "trigger %.60s: %.160s", t->text,
			 why);
		return -1;
	}
	snprintf(t->last_file, sizeof(t->last_file), "%s", d->trig_path);
	rotate_enforce_trigger_files(&d->cfg, &d->rs, d->trig_path, &d->trig_used);
	log_info("trigger %s: %s; %u hit%s in %u ms, wrote %s (%llu bytes)", t->text,
		 d->trig.detail, hits, hits == 1 ? "" : "s", d->trig.post_ms, d->trig_path,
		 (unsigned long long)sr.file_bytes);
	return 0;
}

static void on_window_end(struct loop *l, uint64_t n, void *arg)
{
	write_window(arg);
}

/* A hit of trigger @idx. @msg (may be NULL) says what it did; returns a CTL_ST_*. */
static int hit(struct recd *d, int idx, const char *detail, const char *who, char *msg,
	       size_t len)
{
	struct trigger_spec *t = &d->trig.spec[idx];
	enum trigger_verdict v;
	char rec[TRIGGER_DETAIL_MAX + 128], name[NAME_MAX + 1];
	int n;

	if (d->state != CTL_STATE_RUNNING || (!d->fl && !d->cap)) {
		if (msg)
			snprintf(msg, len, "not recording (%s)", d->last_err);
		return CTL_ST_BUSY;
	}
	v = trigger_hit(&d->trig, idx, detail, mono_ns());
	if (v == TRIGGER_COOLDOWN) {
		log_debug("trigger %s: %s: within the cooldown, counted only", t->text, detail);
		if (msg)
			snprintf(msg, len, "trigger %s: within trigger_cooldown_ms of the last "
				 "file: counted, no file", t->text);
		return CTL_ST_OK;
	}
	snprintf(rec, sizeof(rec), TRIGGER_MARK_PREFIX "%s: %s (hit %u)", t->text, detail,
		 d->trig.hits);
	mark(d, rec);
	if (v == TRIGGER_JOINED) {
		log_info("trigger %s: %s: counted in %s", t->text, detail, d->trig_path);
		if (msg)
			snprintf(msg, len, "trigger %s: counted in %s (hit %u)", t->text,
				 d->trig_path, d->trig.hits);
		return CTL_ST_OK;
	}
	trigger_file_name(&d->trig, idx, who, wall_ms(), name, sizeof(name));
	n = snprintf(d->trig_path, sizeof(d->trig_path), "%s/%s", d->cfg.output_dir, name);
	for (int i = 2; n < (int)sizeof(d->trig_path) && !access(d->trig_path, F_OK) &&
	     i < 100; i++)
		n = snprintf(d->trig_path, sizeof(d->trig_path), "%s/%.*s-%d.dat",
			     d->cfg.output_dir, (int)strlen(name) - 4, name, i);
	if (n >= (int)sizeof(d->trig_path)) {
		trigger_close_window(&d->trig);
		log_err("trigger %s: %s/%s: path too long", t->text, d->cfg.output_dir, name);
		if (msg)
			snprintf(msg, len, "trigger %s: output path too long", t->text);
		return CTL_ST_FAILED;
	}
	log_info("trigger %s: %s: writing %s in %u ms", t->text, detail, d->trig_path,
		 d->trig.post_ms);
	if (msg)
		snprintf(msg, len, "trigger %s fired: writing %s in %u ms", t->text,
			 d->trig_path, d->trig.post_ms);
	d->trig_timer = d->trig.post_ms ?
			loop_add_timer(d->loop, d->trig.post_ms, on_window_end, d) : -1;
	if (d->trig_timer < 0 && write_window(d)) {
		if (msg)
			snprintf(msg, len, "trigger %s: %s", t->text, d->last_err);
		return CTL_ST_FAILED;
	}
	return CTL_ST_OK;
}

static void on_line(const char *line, void *arg)
{
	struct recd *d = arg;
	char detail[TRIGGER_DETAIL_MAX], who[TRIGGER_NAME_MAX];
	int idx = trigger_match_line(&d->trig, line, detail, who);

	if (idx >= 0)
		hit(d, idx, detail, who, NULL, 0);
}

/* A marker the module's watch handed over: it holds the literal; does it match? */
static void on_marker(const char *text, void *arg)
{
	struct recd *d = arg;
	char detail[TRIGGER_DETAIL_MAX];
	int idx = trigger_match_marker(&d->trig, text, detail);

	if (idx >= 0)
		hit(d, idx, detail, "", NULL, 0);
}

static void on_marker_watch(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct recd *d = arg;
	int ret = marker_watch_read(d->mw, on_marker, d);

	if (ret < 0)
		dmn_set_error(d, "cannot read the module's marker watch", ret);
}

static void on_watch(struct loop *l, int fd, uint32_t events, void *arg);

/* The pause is over: read what came meanwhile, and sleep on the fd again. */
static void on_watch_pause(struct loop *l, uint64_t n, void *arg)
{
	struct recd *d = arg;
	int ret;

	loop_del_timer(d->loop, d->watch_timer);
	d->watch_timer = -1;
	ret = trigger_watch_read(d->tw, on_line, d);
	if (ret < 0)
		dmn_set_error(d, "reading the trigger events", ret);
	else if (loop_add_fd(d->loop, trigger_watch_fd(d->tw), EPOLLIN, on_watch, d))
		dmn_set_error(d, "cannot watch the trigger events", -EIO);
}

/*
 * The kernel wakes us at each trigger event; markers can come by the hundred thousand
 * a second, so after a read the fd rests WATCH_PAUSE_MS and what came meanwhile is
 * read in one go: at most 1000 / WATCH_PAUSE_MS wake-ups a second, and a trigger is
 * seen at most that much later.
 */
static void on_watch(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct recd *d = arg;
	int ret = trigger_watch_read(d->tw, on_line, d);

	loop_del_fd(d->loop, fd);
	if (ret < 0) {
		dmn_set_error(d, "reading the trigger events", ret);
		return;
	}
	d->watch_timer = loop_add_timer(d->loop, WATCH_PAUSE_MS, on_watch_pause, d);
	if (d->watch_timer < 0)
		dmn_set_error(d, "cannot watch the trigger events", d->watch_timer);
}

int dmn_triggers_start(struct recd *d)
{
	char err[CONFIG_ERR_LEN];
	int ret;

	d->trig_timer = -1;
	d->watch_timer = -1;
	/* A reload cannot change the mode: a flight config over a stream daemon. */
	if (d->cfg.nr_triggers && d->cfg.mode != CONFIG_MODE_FLIGHT) {
		log_warn("triggers need mode = flight, and this daemon streams (the mode "
			 "changes at a restart): none armed");
		trigger_set_init(&d->trig, NULL, 0, 0, 0, err, sizeof(err));
		return 0;
	}
	ret = trigger_set_init(&d->trig, d->cfg.triggers, d->cfg.nr_triggers,
			       d->cfg.trigger_post_ms, d->cfg.trigger_cooldown_ms, err,
			       sizeof(err));
	if (ret) {
		snprintf(d->last_err, sizeof(d->last_err), "%s", err);
		log_err("%s", err);
		return ret;
	}
	trigger_set_carry(&d->trig, &d->trig_prev);
	/* Flight mode on the module (no tracefs flight recorder): its marker watch. */
	d->tw = trigger_watch_open(&d->trig, d->cfg.instance, !!d->fl, &ret);
	if (!d->tw && ret) {
		dmn_set_error(d, "cannot set the trigger events up", ret);
		trigger_set_free(&d->trig);
		return ret;
	}
	if (d->tw) {
		ret = loop_add_fd(d->loop, trigger_watch_fd(d->tw), EPOLLIN, on_watch, d);
		if (ret) {
			dmn_set_error(d, "cannot watch the trigger events", ret);
			dmn_triggers_stop(d);
			return ret;
		}
	}
	if (!d->fl) {
		d->mw = marker_watch_open(&d->trig, &ret);
		if (!d->mw && ret) {
			dmn_set_error(d, "cannot set the module's marker watch up", ret);
			dmn_triggers_stop(d);
			return ret;
		}
		if (d->mw) {
			ret = loop_add_fd(d->loop, marker_watch_fd(d->mw), EPOLLIN,
					  on_marker_watch, d);
			if (ret) {
				dmn_set_error(d, "cannot watch the markers", ret);
				dmn_triggers_stop(d);
				return ret;
			}
		}
	}
	if (d->trig.n)
		log_info("%d trigger%s armed (post %u ms, cooldown %u ms, at most %u files)",
			 d->trig.n, d->trig.n == 1 ? "" : "s", d->trig.post_ms,
			 d->trig.cooldown_ms, d->cfg.trigger_max_files);
	return 0;
}

void dmn_triggers_stop(struct recd *d)
{
	/* A window still open: its file now, with what there is. */
	if (d->trig.open >= 0 && (d->fl || d->cap))
		write_window(d);
	if (d->trig_timer >= 0)
		loop_del_timer(d->loop, d->trig_timer);
	d->trig_timer = -1;
	if (d->tw) {
		unsigned long long missed = trigger_watch_lost(d->tw);

		if (missed)
			log_warn("%llu trigger event%s overwritten before they were read "
				 "(triggers missed)", missed, missed == 1 ? " was" : "s were");
		loop_del_fd(d->loop, trigger_watch_fd(d->tw));
		if (d->watch_timer >= 0)
			loop_del_timer(d->loop, d->watch_timer);
		d->watch_timer = -1;
		trigger_watch_close(d->tw);
		d->tw = NULL;
	}
	if (d->mw) {
		unsigned long long missed = marker_watch_missed(d->mw);

		if (missed)
			log_warn("%llu marker%s not looked at by the marker triggers (the "
				 "module's watch queue was full)", missed, missed == 1 ? " was" :
				 "s were");
		loop_del_fd(d->loop, marker_watch_fd(d->mw));
		marker_watch_close(d->mw);
		d->mw = NULL;
	}
	/* what a reload carries over (the expressions are freed: not to be used) */
	d->trig_prev = d->trig;
	trigger_set_free(&d->trig);
	d->trig.open = -1;
}

void dmn_triggers_status(struct recd *d, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < d->trig.n; i++) {
		const struct trigger_spec *t = &d->trig.spec[i];
		int n = snprintf(buf + off, len - off, "%s\t%llu\t%llu\t%llu\t%s\n", t->text,
				 (unsigned long long)t->fired, (unsigned long long)t->joined,
				 (unsigned long long)t->suppressed, t->last_file);

		/* Whole lines only: a cut one would be misread. */
		if (n < 0 || (size_t)n >= len - off) {
			buf[off] = 0;
			break;
		}
		off += n;
	}
}

/*
 * What the armed triggers could not look at since they were armed, as status says it
 * (ctl_proto.h): "MARKERS EVENTS", markers the module's watch had no room for and
 * trigger events overwritten in the trigger instance before they were read, "-" for
 * a watch not open; "" when neither is.
 */
void dmn_triggers_missed(struct recd *d, char *buf, size_t len)
{
	char m[24] = "-", e[24] = "-";

	buf[0] = 0;
	if (!d->mw && !d->tw)
		return;
	if (d->mw)
		snprintf(m, sizeof(m), "%llu", marker_watch_missed(d->mw));
	if (d->tw)
		snprintf(e, sizeof(e), "%llu", trigger_watch_lost(d->tw));
	snprintf(buf, len, "%s %s", m, e);
}

void dmn_h_trigger(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		   struct ctl_reply *r)
{
	struct recd *d = ctx;
	char name[TRIGGER_NAME_MAX], msg[PATH_MAX + 256], detail[TRIGGER_DETAIL_MAX];
	int idx, ret;

	if (memchr(pl, 0, len)) {
		ctl_reply_error(r, CTL_ST_BAD_PAYLOAD, "trigger name contains a NUL byte");
		return;
	}
	memcpy(name, pl, len);
	name[len] = 0;
	idx = trigger_match_command(&d->trig, name);
	if (idx < 0) {
		ctl_reply_error(r, CTL_ST_FAILED, "no trigger command:%s is configured%s", name,
				d->cfg.mode == CONFIG_MODE_FLIGHT ? "" :
				" (triggers need mode = flight)");
		return;
	}
	snprintf(detail, sizeof(detail), "command %s from pid %d", name, (int)peer->pid);
	ret = hit(d, idx, detail, name, msg, sizeof(msg));
	ctl_reply_error(r, ret, "%s", msg);
}
