// SPDX-License-Identifier: GPL-2.0
/*
 * `recorderd salvage` (daemon_local.h): a daemon died and none took over, because
 * systemd gave up restarting it (or an admin runs it by hand). Without
 * this, its instance would go on tracing, owned by nobody, and its file would stay cut.
 * Salvage is a daemon's start and stop with nothing in between (daemon_core.c run()):
 * the start recovers the dead one's file and takes over what it left tracing, as a
 * restarted daemon does; the stop drains it into a new file and removes it, as
 * `recorderd stop` does. What was traced while no daemon ran is in that file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "daemon.h"
#include "daemon_local.h"
#include "source/source.h"

/*
 * Whether the module holds rings a dead recorder left (FTRING_STATUS_ORPHAN): 1, 0
 * (not loaded, not recording, or recording for a live reader: not ours), or -errno.
 * Asked before any capture starts, so that nothing (the disk budget) is done for
 * nothing, and so that no capture error reads as one of these.
 */
static int module_left(struct recd *d)
{
	struct source_params sp = { .instance = d->cfg.instance };
	int st;

	/* a module not loaded (any more) holds nothing */
	if (!source_is_module(d->cfg.source, &sp) || !source_find_module("auto", &sp))
		return 0;
	st = source_kmod_state();
	if (st < 0) {
		dmn_set_error(d, "reading the ftring module's state", st);
		return st;
	}
	if (st == SOURCE_KMOD_LIVE)
		log_warn("the ftring module records for a live reader, not the dead daemon: left alone");
	else if (st == SOURCE_KMOD_IDLE)
		log_info("the ftring module is not recording: nothing left in it");
	return st == SOURCE_KMOD_ORPHAN;
}

/*
 * Taken over: a tracefs instance of the dead daemon's own (stream or flight mode), or
 * the module's rings when nothing maps them any more (FTRING_STATUS_ORPHAN, through
 * source_kmod.c's take-over); a module that a live reader maps is not ours and stays
 * as it is. The instance of the dead flight recorder's kernel triggers goes too.
 */
int dmn_salvage_start(struct recd *d, char *path, size_t len)
{
	const struct daemon_prev *p = daemon_lock_previous();
	int ret;

	if (dmn_after_crash(d) < 0)
		d->exit_code = 1;	/* the file stays as it was: `recorderd recover` */
	trigger_watch_remove_stale(d->cfg.instance);
	if (!d->take_over) {
		ret = module_left(d);
		if (ret <= 0)
			return ret;
	}
	ret = dmn_start_capture(d, path, len);
	if (ret) {
		dmn_set_error(d, "taking over what the dead daemon left", ret);
		/* nothing taken over: the next salvage or start finds it again */
		if (p)
			daemon_lock_note(p->file, p->instance);
	}
	return ret;
}

/*
 * A restart configured with another instance than the dead daemon's: what that one
 * holds goes to a file of its own and it is removed, as salvage does, before the
 * restart's own capture starts (else it would trace on, nobody's, for ever).
 */
int dmn_salvage_other(struct recd *d, const char *instance)
{
	char *own = d->cfg.instance, path[PATH_MAX];
	int ret;

	log_warn("tracefs instance %s, left tracing by the previous recorderd, is not the one configured: saving what it holds, then removing it",
		 instance);
	d->cfg.instance = (char *)instance;
	d->take_over = 1;
	ret = dmn_start_capture(d, path, sizeof(path));
	d->take_over = 0;
	if (ret)
		dmn_set_error(d, "taking it over", ret);
	dmn_drain_for_stop(d);
	if (d->cap && dmn_capture_close(d) && !ret)
		ret = -EIO;
	if (d->fl)
		dmn_flight_close(d);
	if (!ret)
		log_warn("what tracefs instance %s held is in %s", instance, d->cur);
	d->cfg.instance = own;
	return ret;
}

void dmn_salvage_done(struct recd *d)
{
	const struct daemon_prev *p = daemon_lock_previous();
	int pid = p ? (int)p->pid : 0;

	/* done: nothing is left for a later start or salvage (a capture's close said so) */
	if (!d->exit_code)
		daemon_lock_note(NULL, NULL);

	if (d->exit_code)
		fprintf(stderr, "recorderd: salvaged what pid %d left only in part (see the errors above)%s%s\n",
			pid, d->files ? "; what was left tracing is in " : "",
			d->files ? d->cur : "");
	else if (d->files)
		printf("recorderd: salvaged what pid %d left; what was left tracing is in %s, now stopped\n",
		       pid, d->cur);
	else
		printf("recorderd: salvaged what pid %d left; nothing of it was tracing\n", pid);
}
