// SPDX-License-Identifier: GPL-2.0
/*
 * The trigger instance (trigger_watch.h). Its settings go with it: it is ours, created
 * at start and removed at stop, so nothing of the system's tracing is changed besides.
 */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "source/tracing.h"
#include "util/log.h"
#include "trigger_watch.h"

/*
 * Per CPU. Trigger events are rare and small; markers are not: every trace_marker
 * write is copied here, and the daemon reads every 20 ms (daemon_trigger.c), so with
 * marker triggers the buffer holds ~16000 markers of 64 bytes: a flood of 800000 a
 * second loses none between two reads.
 */
#define WATCH_BUFFER_KB		64
#define WATCH_MARKER_BUFFER_KB	1024
#define WATCH_LINE_MAX	4096
/* At most this much a call: a marker flood must not hold the daemon's loop. */
#define WATCH_READ_MAX	(1 << 20)

/*
 * Overwrite mode: a full buffer must never refuse an event, because with
 * copy_trace_marker the kernel fails the writer's trace_marker write (EBADF) when one
 * of the copies cannot be reserved. Falling behind costs the oldest trigger events
 * (counted as overrun), never the application's write.
 */
struct trigger_watch {
	char		name[96];
	struct tracing	*tr;
	int		fd;
	bool		copying;	/* options/copy_trace_marker set by us */
	size_t		fill;
	char		buf[WATCH_LINE_MAX * 2];
};

/* "(sig==11||sig==6)&&result==0": only signals that reached the task. */
static void signal_filter(uint64_t mask, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "(");

	for (int sig = 1; sig <= 64 && n < len; sig++)
		if (mask & (1ULL << (sig - 1)))
			n += snprintf(buf + n, len - n, "%ssig==%d", n > 1 ? "||" : "", sig);
	if (n < len)
		snprintf(buf + n, len - n, ")&&result==0");
}

static void remove_instance(const char *name)
{
	struct tracefs_instance *old;

	if (!tracefs_instance_exists(name))
		return;
	old = tracefs_instance_alloc(NULL, name);
	if (old) {
		tracefs_instance_destroy(old);
		tracefs_instance_free(old);
	}
}

/* "recorderd_trig[_TAG]"; tracefs instance names here are [A-Za-z0-9_] (tracing.c). */
static void watch_name(char *name, size_t len, const char *tag)
{
	snprintf(name, len, "recorderd_trig%s%.64s", tag ? "_" : "", tag ? tag : "");
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
}

void trigger_watch_remove_stale(const char *tag)
{
	char name[96];

	watch_name(name, sizeof(name), tag);
	remove_instance(name);
}

static int setup(struct trigger_watch *w, const struct trigger_set *s, int markers)
{
	const char *events[3];
	struct tracing_params p = {
		.instance = w->name, .create = 1, .events = events, .buffer_kb = WATCH_BUFFER_KB,
		.overwrite = 1, .buffer_percent = 0, .take_over = 0,
	};
	char filter[1024];	/* 64 x "||sig==NN" fits */
	int ret;

	if (markers)
		p.buffer_kb = WATCH_MARKER_BUFFER_KB;
	if (trigger_set_has(s, TRIGGER_SIGNAL))
		events[p.nr_events++] = "signal:signal_generate";
	if (trigger_set_has(s, TRIGGER_OOM))
		events[p.nr_events++] = "oom:mark_victim";
	if (trigger_set_has(s, TRIGGER_HUNG_TASK))
		events[p.nr_events++] = "sched:sched_process_hang";
	/* A killed daemon's instance: its settings are not ours to keep. */
	remove_instance(w->name);
	w->tr = tracing_setup(&p, &ret);
	if (!w->tr)
		return ret;
	if (trigger_set_has(s, TRIGGER_SIGNAL)) {
		signal_filter(trigger_set_sigmask(s), filter, sizeof(filter));
		ret = tracing_write(w->name, "events/signal/signal_generate/filter", filter);
		if (ret)
			return ret;
	}
	if (markers) {
		char *path = tracing_path(w->name, "options/copy_trace_marker");

		ret = path && access(path, F_OK) ? -EOPNOTSUPP : 0;
		free(path);
		if (ret) {
			log_err("marker triggers need options/copy_trace_marker (Linux 6.17 and "
				"later) to see trace_marker writes; this kernel has none "
				"(with source = kmod they watch /dev/ftring/marker; or fire "
				"a command: trigger with 'recorderd trigger')");
			return ret;
		}
	}
	/* Lines are "EVENT: FIELDS": nothing a task name could be mistaken for. */
	ret = tracing_write(w->name, "options/context-info", "0");
	if (ret)
		return ret;
	char *path = tracing_path(w->name, "trace_pipe");

	w->fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	ret = w->fd < 0 ? -errno : 0;
	if (ret)
		log_err("cannot open %s: %s", path ? path : "trace_pipe", strerror(-ret));
	free(path);
	ret = ret ?: tracing_set_on(w->tr, 1);
	/*
	 * The copy last, once the instance traces, and off first at close: with the copy
	 * on and tracing off, every trace_marker write on the system fails (EBADF).
	 */
	if (!ret && markers) {
		ret = tracing_write(w->name, "options/copy_trace_marker", "1");
		w->copying = !ret;
	}
	return ret;
}

struct trigger_watch *trigger_watch_open(const struct trigger_set *s, const char *tag,
					 int markers, int *err)
{
	struct trigger_watch *w;
	int ret;

	*err = 0;
	markers = markers && trigger_set_has(s, TRIGGER_MARKER);
	if (!markers && !trigger_set_has(s, TRIGGER_SIGNAL) &&
	    !trigger_set_has(s, TRIGGER_OOM) && !trigger_set_has(s, TRIGGER_HUNG_TASK))
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		*err = -ENOMEM;
		return NULL;
	}
	w->fd = -1;
	watch_name(w->name, sizeof(w->name), tag);
	ret = setup(w, s, markers);
	if (ret) {
		trigger_watch_close(w);
		*err = ret;
		return NULL;
	}
	return w;
}

int trigger_watch_fd(const struct trigger_watch *w)
{
	return w->fd;
}

int trigger_watch_read(struct trigger_watch *w, void (*fn)(const char *line, void *arg),
		       void *arg)
{
	size_t total = 0;
	int lines = 0;

	while (total < WATCH_READ_MAX) {
		ssize_t n = read(w->fd, w->buf + w->fill, sizeof(w->buf) - w->fill - 1);
		char *p, *nl;

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? lines : -errno;
		if (!n)
			return lines;
		total += n;
		w->fill += n;
		w->buf[w->fill] = 0;
		for (p = w->buf; (nl = memchr(p, '\n', w->buf + w->fill - p)); p = nl + 1) {
			*nl = 0;
			fn(p, arg);
			lines++;
		}
		w->fill -= p - w->buf;
		memmove(w->buf, p, w->fill);
		/* A line longer than the buffer: what we have is a line. */
		if (w->fill >= sizeof(w->buf) - 1) {
			w->buf[w->fill] = 0;
			fn(w->buf, arg);
			lines++;
			w->fill = 0;
		}
	}
	return lines;
}

unsigned long long trigger_watch_lost(const struct trigger_watch *w)
{
	unsigned long long lost = 0;

	for (int cpu = 0; cpu < tracing_ncpus(); cpu++) {
		struct source_cpu_stats st = { 0 };

		if (!tracing_cpu_stats(w->name, cpu, &st))
			lost += st.lost + st.overrun;
	}
	return lost;
}

void trigger_watch_close(struct trigger_watch *w)
{
	if (!w)
		return;
	if (w->copying)
		tracing_write(w->name, "options/copy_trace_marker", "0");
	if (w->fd >= 0)
		close(w->fd);
	tracing_free(w->tr);
	free(w);
}
