// SPDX-License-Identifier: GPL-2.0
/* Beginning and end of an output trace.dat (trace_output.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "source/tracing.h"
#include "trace_output.h"
#include "util/log.h"

#ifndef RECORDERD_VERSION
#define RECORDERD_VERSION	"0.1"
#endif

/* The options of every file, in the order trace-cmd writes them. */
static int add_options(struct v7_writer *w, const struct trace_meta *m)
{
	struct utsname u;
	uint64_t id = 0;
	char buf[4 * sizeof(u.release)];
	int ret = 0;

	if (m->trace_clock)
		ret = v7_add_option(w, V7_OPT_TRACECLOCK, m->trace_clock,
				    (uint32_t)strlen(m->trace_clock) + 1);
	if (!ret && !uname(&u)) {
		snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.nodename, u.release,
			 u.machine);
		ret = v7_add_option(w, V7_OPT_UNAME, buf, (uint32_t)strlen(buf) + 1);
	}
	if (!ret) {
		snprintf(buf, sizeof(buf), "recorderd %s", RECORDERD_VERSION);
		ret = v7_add_option(w, V7_OPT_VERSION, buf, (uint32_t)strlen(buf) + 1);
	}
	if (!ret && getrandom(&id, sizeof(id), GRND_NONBLOCK) == sizeof(id))
		ret = v7_add_option(w, V7_OPT_TRACEID, &id, sizeof(id));
	return ret;
}

int trace_output_open(struct trace_output *o, const char *path, int excl)
{
	int ret;

	o->w = NULL;
	o->fd = -1;
	o->path = strdup(path);
	if (!o->path)
		return -ENOMEM;
	o->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | (excl ? O_EXCL : O_TRUNC), 0644);
	if (o->fd < 0) {
		ret = -errno;
		log_err("cannot create output file %s: %s", path, strerror(errno));
		free(o->path);
		o->path = NULL;
		return ret;
	}
	return 0;
}

int trace_output_begin(struct trace_output *o, struct v7_params *wp,
		       const struct trace_meta *m)
{
	int ret;

	wp->fd = o->fd;
	wp->path = o->path;
	o->w = v7_create(wp, m);
	if (!o->w) {
		ret = errno ? -errno : -EIO;
		log_err("cannot write the trace.dat header to %s: %s", o->path, strerror(-ret));
		goto fail;
	}
	ret = add_options(o->w, m);
	if (ret) {
		log_err("cannot add options to %s: %s", o->path, strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	trace_output_discard(o, 1);
	return ret;
}

int trace_output_create(struct trace_output *o, const char *path, int excl,
			struct v7_params *wp, const struct trace_meta *m)
{
	int ret = trace_output_open(o, path, excl);

	return ret ?: trace_output_begin(o, wp, m);
}

int trace_output_finish(struct trace_output *o, struct source *src, uint64_t *raw,
			uint64_t *file)
{
	int ncpus = src ? src->ncpus : 0;
	char **cpustat = NULL, *cmdlines;
	size_t cmdlines_len = 0;
	int ret;

	cmdlines = tracing_cmdlines(&cmdlines_len);
	if (src && src->ops->cpustat_text)
		cpustat = calloc((size_t)ncpus, sizeof(*cpustat));
	for (int i = 0; cpustat && i < ncpus; i++)
		cpustat[i] = src->ops->cpustat_text(src, i);
	/* The writer syncs what it finishes (v7_finish.c). */
	ret = v7_finish(o->w, cmdlines, cmdlines_len, cpustat);
	if (ret)
		log_err("finishing %s: %s; it keeps every chunk up to its last sync", o->path,
			strerror(-ret));
	v7_counters(o->w, raw, file);
	for (int i = 0; cpustat && i < ncpus; i++)
		free(cpustat[i]);
	free(cpustat);
	free(cmdlines);
	trace_output_discard(o, 0);
	return ret;
}

void trace_output_discard(struct trace_output *o, int remove)
{
	v7_free(o->w);
	o->w = NULL;
	if (o->fd >= 0) {
		close(o->fd);
		if (remove)
			unlink(o->path);
	}
	o->fd = -1;
	free(o->path);
	o->path = NULL;
}
