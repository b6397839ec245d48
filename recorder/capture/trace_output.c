// SPDX-License-Identifier: GPL-2.0
/* Beginning and end of an output trace.dat (trace_output.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "source/tracing.h"
#include "util/cmdlines.h"
#include "trace_output.h"
#include "util/log.h"

#ifndef RECORDERD_VERSION
#define RECORDERD_VERSION	"0.1"
#endif

/*
 * TRACECLOCK as the trace_clock file reads, with the clock the pages were stamped with
 * in brackets: tracefs's list marks its own selection, which a source with a clock of
 * its own (the module) does not use. Malloc'd, or NULL.
 */
static char *clock_option(const char *list, const char *clock)
{
	size_t cl = strlen(clock), n = 0;
	const char *p = list ? list : "";
	char *out = malloc(strlen(p) + cl + 5);
	int marked = 0;

	if (!out)
		return NULL;
	while (*p) {
		size_t wl;

		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (*p == '[')
			p++;
		wl = strcspn(p, " ]\n");
		if (n)
			out[n++] = ' ';
		if (wl == cl && !strncmp(p, clock, cl) && !marked) {
			n += (size_t)sprintf(out + n, "[%s]", clock);
			marked = 1;
		} else {
			memcpy(out + n, p, wl);
			n += wl;
		}
		p += wl;
		if (*p == ']')
			p++;
	}
	if (!marked)
		n += (size_t)sprintf(out + n, "%s[%s]", n ? " " : "", clock);
	out[n++] = '\n';
	out[n] = '\0';
	return out;
}

/* The options of every file, in the order trace-cmd writes them. */
int trace_output_add_options(struct v7_writer *w, const struct trace_meta *m, const char *clock)
{
	char *tc = clock_option(m->trace_clock, clock ? clock : "local");
	struct utsname u;
	uint64_t id = 0;
	char buf[4 * sizeof(u.release)];
	int ret = tc ? 0 : -ENOMEM;

	if (!ret)
		ret = v7_add_option(w, V7_OPT_TRACECLOCK, tc, (uint32_t)strlen(tc) + 1);
	free(tc);
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

int trace_output_open(struct trace_output *o, const char *path, int excl, int gid)
{
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = strdup(path);
	if (!o->path)
		return -ENOMEM;
	/*
	 * 0640 whatever the umask: a trace holds kallsyms with real addresses, command
	 * lines and marker text.
	 */
	o->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | (excl ? O_EXCL : O_TRUNC), 0640);
	if (o->fd >= 0 && (fchmod(o->fd, 0640) || (gid > 0 && fchown(o->fd, -1, (gid_t)gid)))) {
		close(o->fd);
		o->fd = -1;
	}
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
	ret = trace_output_add_options(o->w, m, wp->clock);
	if (ret) {
		log_err("cannot add options to %s: %s", o->path, strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	trace_output_discard(o, 1);
	return ret;
}

int trace_output_create(struct trace_output *o, const char *path, int excl, int gid,
			struct v7_params *wp, const struct trace_meta *m)
{
	int ret = trace_output_open(o, path, excl, gid);

	return ret ?: trace_output_begin(o, wp, m);
}

/*
 * The names of the tasks alive (see trace_output_refresh), the first *@live_len bytes
 * of the kernel's saved ones after (tracing_cmdlines()); @final: walked from now on.
 */
static char *names_now(struct trace_output *o, struct source *src, int final, size_t *len,
		       size_t *live_len)
{
	char *text;

	if (!o->names)
		return tracing_cmdlines(!src || source_fills_saved_cmdlines(src), len,
					live_len);
	text = task_names_take(o->names, final, len, live_len);
	/*
	 * The capture asks for the next walk when pages first move after a sync; after a
	 * final one, here: the next file of a rotation names its tasks at its first sync.
	 */
	if (final)
		task_names_want(o->names);
	return text;
}

/*
 * The file's names: the tasks alive now, then the ones it named before and the kernel's
 * saved ones, each for the pids not named yet. A walk the same as the last one changes
 * nothing: no merge then (a steady machine's every walk; 3-6 ms each for the kernel's
 * 6 552 saved command lines in a TCG guest).
 */
static int merge_names(struct trace_output *o, char *walk, size_t len, size_t live_len)
{
	size_t l1 = 0, l2 = 0;
	char *m1, *m2;

	if (len == o->walk_len && o->walk && !memcmp(walk, o->walk, len)) {
		free(walk);
		return 0;
	}
	m1 = cmdlines_merge(walk, live_len, o->cmdlines, o->cmdlines_len, CMDLINES_MAX, &l1);
	m2 = m1 ? cmdlines_merge(m1, l1, walk + live_len, len - live_len, CMDLINES_MAX,
				 &l2) : NULL;
	free(m1);
	if (!m2) {
		free(walk);
		return -ENOMEM;
	}
	free(o->cmdlines);
	o->cmdlines = m2;
	o->cmdlines_len = l2;
	free(o->walk);
	o->walk = walk;
	o->walk_len = len;
	return 0;
}

static int refresh(struct trace_output *o, struct source *src, int final)
{
	size_t len = 0, live_len = 0;
	char *walk = names_now(o, src, final, &len, &live_len), *text;
	int ret = 0;

	if (walk)
		merge_names(o, walk, len, live_len);	/* else the names it had */
	if (o->cmdlines)
		ret = v7_set_cmdlines(o->w, o->cmdlines, o->cmdlines_len);
	for (int i = 0; !ret && src && src->ops->cpustat_text && i < src->ncpus; i++) {
		text = src->ops->cpustat_text(src, i);
		if (text)
			ret = v7_set_cpustat(o->w, i, text);
		free(text);
	}
	return ret;
}

int trace_output_refresh(struct trace_output *o, struct source *src)
{
	return refresh(o, src, 0);
}

/* A step of finishing @o failed with @ret (when nonzero): said once, as it stands. */
static int finish_failed(const struct trace_output *o, int ret)
{
	if (ret)
		log_err("finishing %s: %s; it keeps every chunk up to its last sync", o->path,
			strerror(-ret));
	return ret;
}

int trace_output_seal(struct trace_output *o, struct source *src)
{
	refresh(o, src, 1);
	return finish_failed(o, v7_flush(o->w));
}

int trace_output_complete(struct trace_output *o, uint64_t *raw, uint64_t *file)
{
	/* The writer syncs what it completes (v7_finish.c). */
	int ret = finish_failed(o, v7_complete(o->w, NULL, 0, NULL));

	v7_counters(o->w, raw, file);
	if (ret)
		trace_output_discard(o, 0);
	return ret;
}

int trace_output_compact(struct trace_output *o, uint64_t *file)
{
	int ret = o->w ? v7_compact(o->w) : 0;

	/* the compact file's size, where it was made */
	if (o->w)
		v7_counters(o->w, NULL, file);
	trace_output_discard(o, 0);
	return ret;
}

int trace_output_finish(struct trace_output *o, struct source *src, uint64_t *raw,
			uint64_t *file)
{
	int ret = trace_output_seal(o, src);

	if (ret) {
		v7_counters(o->w, raw, file);
		trace_output_discard(o, 0);
		return ret;
	}
	ret = trace_output_complete(o, raw, file);
	/* A compact copy that could not be made leaves the file complete (said): no error. */
	if (!ret)
		trace_output_compact(o, file);
	return ret;
}

void trace_output_discard(struct trace_output *o, int remove)
{
	uint64_t lost = o->w ? v7_unkept_pages(o->w) : 0;

	if (lost)
		log_warn("%s: %llu pages taken from the rings since its last sync are lost (`recorderd recover` may find those written before the error)",
			 o->path ? o->path : "the file", (unsigned long long)lost);
	o->lost_pages += lost;
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
	free(o->cmdlines);
	o->cmdlines = NULL;
	o->cmdlines_len = 0;
	free(o->walk);
	o->walk = NULL;
	o->walk_len = 0;
}
