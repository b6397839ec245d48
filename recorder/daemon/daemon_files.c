// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's output files (daemon_local.h): a capture per file or across rotations,
 * the next file's name, rotation by size and age, the disk budget, a removed output
 * directory, a full disk or CPU region. The policy is described at the top of
 * daemon_core.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "recover/recover.h"
#include "util/fileio.h"
#include "util/log.h"
#include "daemon.h"
#include "daemon_local.h"
#include "lastboot/lastboot.h"
#include "rotate.h"
#include "sentinel.h"
#include "ftring_abi.h"

static void capture_failed(struct recd *d, long err);

static void pump_failed(void *arg, long err)
{
	capture_failed(arg, err);
}

/*
 * The trace the previous boot left in the module's persistent rings goes to the output
 * directory before anything else, as lastboot-BOOT_ID.dat, and the module's copy is
 * freed; the newest LASTBOOT_FILES_KEPT stay. A boot that ended cleanly (shutdown,
 * unload) is not a crash: its trace is freed unsaved (`recorderd lastboot` reads it
 * before the daemon starts, if wanted). Whatever happens is said in status.
 */
void dmn_save_lastboot(struct recd *d)
{
	struct lastboot_result r;
	char id[37], path[PATH_MAX];
	int sealed = 0, ret = lastboot_pending(id, &sealed);

	if (ret == -ENOENT) {
		snprintf(d->lastboot, sizeof(d->lastboot), "none");
		return;
	}
	if (!ret && sealed == FTRING_SEAL_CLEAN) {
		ret = lastboot_release();
		snprintf(d->lastboot, sizeof(d->lastboot), "boot %s %s: not saved%s%s", id,
			 lastboot_end_text(sealed), ret ? ", not released: " : "",
			 ret ? strerror(-ret) : "");
		return;
	}
	if (!ret && (size_t)snprintf(path, sizeof(path), "%s/lastboot-%s.dat", d->cfg.output_dir,
				     id) >= sizeof(path))
		ret = -ENAMETOOLONG;
	ret = ret ?: rotate_mkdir_p(d->cfg.output_dir, d->cfg.group_gid);
	if (ret) {
		snprintf(d->lastboot, sizeof(d->lastboot), "failed: %s", strerror(-ret));
		log_err("previous-boot trace: %s", strerror(-ret));
		return;
	}
	ret = lastboot_write(path, d->cfg.group_gid, 1, &r);
	if (ret == LASTBOOT_NONE) {
		snprintf(d->lastboot, sizeof(d->lastboot), "none");
	} else if (ret) {
		snprintf(d->lastboot, sizeof(d->lastboot), "failed: %s", r.why);
		log_err("previous-boot trace: %s", r.why);
	} else {
		snprintf(d->lastboot, sizeof(d->lastboot),
			 "%s: %llu events, %llu sub-buffers dropped, %s", path,
			 (unsigned long long)r.events, (unsigned long long)r.dropped,
			 lastboot_end_text(r.sealed));
		log_warn("the previous boot left a trace: %s", d->lastboot);
		rotate_enforce_lastboot_files(&d->cfg, path);
	}
}

/*
 * A predecessor killed (kill -9, OOM, a crash) left its file unfinished and, with an
 * instance of its own, tracing still on: the file is recovered in place (recover/), and
 * the first capture takes the instance over, so what the kernel still holds, and what
 * was traced while no daemon ran, goes to the new file (in flight mode: stays in the
 * ring for the next snapshot). Its losses are in the kernel's per-CPU counters, which
 * the new file's CPUSTAT carries.
 */
int dmn_after_crash(struct recd *d)
{
	const struct daemon_prev *p = daemon_lock_previous();
	int r = 0;

	if (!p)
		return 0;
	if (p->file[0] && !access(p->file, F_OK)) {
		/* a rewrite only to compress would hold up the capture: left to recover */
		r = recover_file(p->file, NULL, RECOVER_KEEP_STORED);
		if (r < 0)
			log_err("the previous recorderd (pid %d) died writing %s, which cannot be recovered: %s",
				(int)p->pid, p->file, strerror(-r));
		else
			log_warn("the previous recorderd (pid %d) died writing %s: %s", (int)p->pid,
				 p->file, r ? "recovered" : "valid as it was");
	}
	if (!p->instance[0] || !tracefs_instance_exists(p->instance))
		return r < 0 ? r : 0;
	if (d->cfg.instance && !strcmp(p->instance, d->cfg.instance)) {
		d->take_over = 1;
		log_warn("taking over tracefs instance %s, left tracing by the previous recorderd: what it holds is kept",
			 p->instance);
	} else if (d->salvage) {
		/* salvage records nothing of its own: the dead daemon's instance is its */
		log_warn("taking over tracefs instance %s, left tracing by the previous recorderd under another name than the configured one: what it holds is kept",
			 p->instance);
		free(d->cfg.instance);
		d->cfg.instance = strdup(p->instance);
		d->take_over = !!d->cfg.instance;
		if (!d->take_over)
			return -ENOMEM;
	} else if (dmn_salvage_other(d, p->instance)) {
		/* still named in the lock file until our own capture starts */
		log_err("tracefs instance %s, left tracing by the previous recorderd, could not be saved: %s",
			p->instance, d->last_err);
	}
	return r < 0 ? r : 0;
}

/* capture_params.waiting: a rotation's wait for its file thread (capture.h) */
static void capture_waiting(void *arg, uint64_t waited_ms)
{
	struct recd *d = arg;

	sentinel_busy(d->sn, waited_ms);
}

int dmn_capture_open(struct recd *d, const char *path)
{
	const struct rec_config *c = &d->cfg;
	struct capture_params p = {
		.source = c->source,
		.instance = c->instance,
		.create_instance = c->instance != NULL,
		.events = (const char *const *)c->events,
		.nr_events = c->nr_events,
		.output = path,
		.excl = 1,
		.comp = c->comp,
		.zstd_level = c->zstd_level,
		.chunk_pages = c->chunk_pages,
		.region_bytes = c->region_bytes,
		.buffer_kb = c->buffer_kb,
		.overwrite = c->mode == CONFIG_MODE_FLIGHT,
		.clock = c->clock,
		.period_ms = c->period_ms,
		.sync_ms = c->sync_ms,
		.durable = c->durable,
		.take_over = d->take_over,
		.orphan_only = d->salvage,
		.gid = c->group_gid,
		.waiting = capture_waiting,
		.waiting_arg = d,
	};
	int err = 0;

	d->cap = capture_start(&p, &err);
	d->take_over = 0;
	if (!d->cap)
		return err ? err : -EIO;
	snprintf(d->cur, sizeof(d->cur), "%s", path);
	daemon_lock_note(path, c->instance);
	d->keep_fd = open(path, O_RDONLY | O_CLOEXEC);
	d->rs.started = mono_s();
	/* Flight mode never reads: the kernel keeps the newest data until a snapshot. */
	if (c->mode == CONFIG_MODE_STREAM) {
		d->pump = capture_pump_start(d->loop, d->cap, pump_failed, d);
		if (!d->pump) {
			capture_free(d->cap);
			d->cap = NULL;
			return -ENOMEM;
		}
	}
	dmn_publish_what(d);
	if (d->state == CTL_STATE_RUNNING)
		log_info("capturing to %s", path);
	return 0;
}

/*
 * Whether the file being written lost its name (its directory deleted, ...). Asked
 * before finishing: finishing writes the compact file beside the name and renames it
 * there, so with its directory made again the file comes back by itself.
 */
static bool removed_before_finish(struct recd *d)
{
	struct stat st;

	if (d->keep_fd < 0 || fstat(d->keep_fd, &st) || st.st_nlink)
		return false;
	rotate_mkdir_p(d->cfg.output_dir, d->cfg.group_gid);
	return true;
}

/*
 * After finishing a file that had been removed: it is back under its name, or, when
 * finishing could not write it there, what our own fd still holds is copied back.
 */
static void restore_removed(struct recd *d, bool removed)
{
	struct stat st;
	int out, err;

	if (!removed)
		return;
	if (!stat(d->cur, &st)) {
		log_warn("%s had been removed; its %lld bytes were restored", d->cur,
			 (long long)st.st_size);
		return;
	}
	if (fstat(d->keep_fd, &st))
		return;
	err = rotate_mkdir_p(d->cfg.output_dir, d->cfg.group_gid);
	out = err ? -1 : open(d->cur, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (out >= 0 && fchmod(out, 0640))
		log_warn("%s: %s", d->cur, strerror(errno));
	if (out < 0) {
		log_err("%s was removed and cannot be restored: %s", d->cur,
			strerror(err ? -err : errno));
		return;
	}
	err = fio_copy_fd(d->keep_fd, out);
	if (!err && fsync(out))
		err = -errno;
	if (err)
		log_err("restoring removed %s: %s", d->cur, strerror(-err));
	else
		log_warn("%s had been removed; its %lld bytes were restored", d->cur,
			 (long long)st.st_size);
	close(out);
}

/*
 * Finishes the current file: drains every page written so far (tracing is turned off
 * first by capture_stop), finishes the v7 tail, restores a removed file.
 */
int dmn_capture_close(struct recd *d)
{
	struct capture_status st;
	bool removed;
	int ret;

	if (!d->cap)
		return 0;
	capture_pump_stop(d->pump);
	d->pump = NULL;
	removed = removed_before_finish(d);
	ret = capture_stop(d->cap);
	capture_status(d->cap, &st);
	d->done_raw += st.raw_bytes;
	d->done_file += st.file_bytes;
	d->files++;
	capture_free(d->cap);
	d->cap = NULL;
	daemon_lock_note(NULL, NULL);	/* finished, instance removed: nothing to take over */
	if (ret)
		log_warn("%s finished after an error (%s): valid up to its last synced chunk",
			 d->cur, strerror(-ret));
	if (d->keep_fd >= 0) {
		restore_removed(d, removed);
		close(d->keep_fd);
		d->keep_fd = -1;
	}
	dmn_publish_what(d);
	return ret;
}

int dmn_new_file_path(struct recd *d, char *path, size_t len)
{
	int ret = rotate_mkdir_p(d->cfg.output_dir, d->cfg.group_gid);

	if (!ret)
		ret = rotate_next_path(&d->cfg, &d->rs, time(NULL), path, len);
	if (ret)
		dmn_set_error(d, "cannot create the next output file name", ret);
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
	dmn_capture_close(d);
	return dmn_capture_open(d, next);
}

/* The capture core switches files under the running source: no event is lost. */
static int switch_capture(struct recd *d, const char *next)
{
	struct capture_status st;
	uint64_t raw, file;
	unsigned int rotations;
	bool removed;
	int ret;

	capture_status(d->cap, &st);
	raw = st.done_raw_bytes;
	file = st.done_file_bytes;
	rotations = st.rotations;
	removed = removed_before_finish(d);
	ret = capture_rotate(d->cap, next);
	/* The old file's final size is known once it is finished. */
	capture_status(d->cap, &st);
	/* an error after the switch: @next is the file written (and finished) all the same */
	if (st.rotations == rotations)
		return ret;
	d->done_raw += st.done_raw_bytes - raw;
	d->done_file += st.done_file_bytes - file;
	d->files++;
	if (d->keep_fd >= 0) {
		restore_removed(d, removed);
		close(d->keep_fd);
	}
	snprintf(d->cur, sizeof(d->cur), "%s", next);
	daemon_lock_note(next, d->cfg.instance);
	d->keep_fd = open(next, O_RDONLY | O_CLOEXEC);
	d->rs.started = mono_s();
	dmn_publish_what(d);
	if (!ret)
		log_info("capturing to %s", next);
	return ret;
}

/*
 * Finishes the current file and continues in the next one; @restart: with a new
 * capture (the settings of what is captured changed).
 */
int dmn_next_file(struct recd *d, const char *why, int restart)
{
	char next[PATH_MAX];
	int ret;

	log_info("closing %s (%s)", d->cur, why);
	ret = dmn_new_file_path(d, next, sizeof(next));
	if (ret)
		return ret;
	/*
	 * Room for the next file. Not in a reload: its new limits must not delete files
	 * when its capture does not start; housekeeping applies them once it did.
	 */
	if (!d->reloading)
		rotate_enforce_budget(&d->cfg, &d->rs, d->cur, d->cfg.rotate_size);
	ret = restart ? restart_capture(d, next) : switch_capture(d, next);
	if (ret)
		dmn_set_error(d, "cannot start the next file", ret);
	return ret;
}

int dmn_switch_file(struct recd *d, const char *why)
{
	return dmn_next_file(d, why, 0);
}

/*
 * At stop: tracing off, then everything still in the buffers goes to files, in a next
 * one when a region fills up, so that capture_stop() has nothing left to lose.
 */
void dmn_drain_for_stop(struct recd *d)
{
	for (int i = 0; d->cap && i < 64; i++)
		if (capture_drain(d->cap) != -ENOSPC ||
		    dmn_switch_file(d, "a CPU region of the file is full"))
			break;
}

void dmn_fail_and_quit(struct recd *d, const char *what, int err)
{
	dmn_set_error(d, what, err);
	d->state = CTL_STATE_FAILED;
	daemon_notify("STATUS=failed: %s", d->last_err);
	d->exit_code = 1;
	loop_quit(d->loop, 1);
}

static uint64_t disk_free(const char *dir)
{
	uint64_t bytes;

	return fio_free_bytes(dir, &bytes) ? 0 : bytes;
}

/* Went on in a new file after a write error: what it cost, in status (last error). */
static void write_loss_said(struct recd *d, const char *what)
{
	struct capture_status st;

	capture_status(d->cap, &st);
	snprintf(d->last_err, sizeof(d->last_err),
		 "%s: went on in a new file; %llu pages taken from the rings after a file's last sync lost in this capture (recover may find some)",
		 what, (unsigned long long)st.lost_pages);
	log_warn("%s", d->last_err);
}

/*
 * A capture error. A full CPU region of the file (-ENOSPC that is not the capture's
 * sticky error) is no fault: a new file, nothing lost. A full disk (ENOSPC) or quota
 * (EDQUOT) or a file too large for the file system (EFBIG): the file keeps every
 * synced chunk; the budget may free room for a new file, else finish and exit 1.
 * Anything else: finish and exit 1.
 */
static void capture_failed(struct recd *d, long err)
{
	int werr = d->cap ? capture_error(d->cap) : (int)err;

	if (err == -ENOSPC && !werr) {
		int r = dmn_switch_file(d, "a CPU region of the file is full");

		if (!r)
			return;
		dmn_fail_and_quit(d, r == -ENOSPC || r == -EDQUOT ?
				  "disk full: no room for the next file (a CPU region of this one is full)" :
				  "cannot continue after a full region", r);
		return;
	}
	if (werr == -ENOSPC || werr == -EDQUOT || werr == -EFBIG) {
		const char *what = werr == -EDQUOT ? "disk quota exceeded" :
				   werr == -EFBIG ? "file too large for its file system" :
				   "disk full";

		/* a new file fits: a file-size limit, or the budget made room on the disk */
		if ((werr == -EFBIG ||
		     (d->cfg.disk_budget &&
		      rotate_enforce_budget(&d->cfg, &d->rs, d->cur, 2 * DISK_FULL_MARGIN) > 0 &&
		      disk_free(d->cfg.output_dir) > DISK_FULL_MARGIN)) &&
		    !dmn_switch_file(d, what)) {
			write_loss_said(d, what);
			return;
		}
		dmn_fail_and_quit(d, werr == -EDQUOT ?
				  "disk quota exceeded; the file keeps every synced chunk" :
				  werr == -EFBIG ?
				  "file too large for its file system; the file keeps every synced chunk" :
				  "disk full; the file keeps every synced chunk", werr);
		return;
	}
	dmn_fail_and_quit(d, "capture stopped", (int)err);
}

void dmn_housekeep(struct recd *d)
{
	struct stat sb;

	/* The output directory (or the file) was removed under us. */
	if (d->cap && d->keep_fd >= 0 && !fstat(d->keep_fd, &sb) && !sb.st_nlink) {
		log_err("%s was removed (output directory %s deleted?)", d->cur,
			d->cfg.output_dir);
		if (dmn_switch_file(d, "file removed"))
			dmn_fail_and_quit(d, "cannot recreate the output directory", -ENOENT);
		return;
	}
	rotate_enforce_budget(&d->cfg, &d->rs, d->cur, 0);
	/* The trigger files share the budget: what is left after those of the pattern. */
	if (d->cfg.nr_triggers)
		rotate_enforce_trigger_files(&d->cfg, &d->rs, d->trig_path[0] ? d->trig_path :
					     NULL, &d->trig_used);
}

/* Size and age limits, checked at every tick: a file overshoots by one period at most. */
void dmn_check_rotation(struct recd *d)
{
	struct capture_status st;
	const char *why;

	capture_status(d->cap, &st);
	why = rotate_due(&d->cfg, &d->rs, st.file_bytes, mono_s());
	if (why && dmn_switch_file(d, why))
		dmn_fail_and_quit(d, "rotation failed", -EIO);
}
