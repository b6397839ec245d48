// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs state of one recording: save, set, restore (see tracing.h). Every setting is
 * saved before it is first written, and restore writes back only what was changed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "util/fileio.h"
#include "util/log.h"
#include "tracing.h"

/* an instance a task holds open: 200 ms at most (a daemon reload waits as long) */
#define DESTROY_TRIES		20
#define DESTROY_WAIT_US		10000

struct saved_event {
	char	*system;
	char	*event;
};

struct tracing {
	struct tracefs_instance	*inst;		/* NULL = top buffer */
	char			*name;
	int			created;	/* we made the instance: remove it at the end */
	int			taking;		/* taking over a dead recorder's instance: left
						 * as it was (tracing) unless tracing_adopt() */
	int			restored;
	int			on_saved;	/* tracing_on before us, -1 = untouched */
	long			kb_saved;	/* buffer_size_kb before us, -1 = untouched */
	int			ow_saved;	/* options/overwrite before us, -1 = untouched */
	int			bp_saved;	/* buffer_percent before us, -1 = untouched */
	char			*clock_saved;	/* trace_clock before us, NULL = untouched */
	char			*clock;		/* clock in use */
	struct saved_event	*enabled;	/* events we switched from 0 to 1 */
	int			nr_enabled;
};

static const char *inst_label(const struct tracing *t)
{
	return t->name ? t->name : "top buffer";
}

int tracing_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

char *tracing_path(const char *instance, const char *file)
{
	const char *dir = tracefs_tracing_dir();
	char *p;

	if (!dir)
		return NULL;
	if (instance ? asprintf(&p, "%s/instances/%s/%s", dir, instance, file) < 0 :
		       asprintf(&p, "%s/%s", dir, file) < 0)
		return NULL;
	return p;
}

int tracing_open_pipe_raw(const char *instance, int cpu)
{
	char file[64], *path;
	int fd;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	path = tracing_path(instance, file);
	if (!path) {
		errno = ENOENT;
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	free(path);
	return fd;
}

char *tracing_read(const char *instance, const char *file, size_t *len)
{
	char *path = tracing_path(instance, file), *text;

	if (!path) {
		errno = ENOENT;
		return NULL;
	}
	text = fio_read_whole(path, len);
	free(path);
	return text;
}

int tracing_write(const char *instance, const char *file, const char *val)
{
	char *path = tracing_path(instance, file);
	size_t len = strlen(val);
	ssize_t w;
	int fd, e = 0;

	if (!path)
		return -ENOENT;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		log_err("cannot open %s: %s", path, strerror(errno));
		free(path);
		return e;
	}
	w = write(fd, val, len);
	if (w != (ssize_t)len) {
		e = w < 0 ? -errno : -EIO;
		log_err("cannot write '%s' to %s: %s", val, path, strerror(-e));
	}
	close(fd);
	free(path);
	return e;
}

static int write_file(struct tracing *t, const char *file, const char *val)
{
	return tracing_write(t->name, file, val);
}

static long read_number(struct tracing *t, const char *file)
{
	char *s = tracing_read(t->name, file, NULL), *x;
	long v;

	if (!s)
		return -1;
	/* top-level buffer_size_kb may read "7 (expanded: 1408)": the real size counts */
	x = strstr(s, "expanded:");
	v = strtol(x ? x + 9 : s, NULL, 10);
	free(s);
	return v;
}

int tracing_set_on(struct tracing *t, int on)
{
	return write_file(t, "tracing_on", on ? "1" : "0");
}

const char *tracing_clock(const struct tracing *t)
{
	return t->clock;
}

/* Event and system names go into anchored regexes: keep them to identifier chars. */
static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return 0;
	return 1;
}

static int save_event(struct tracing *t, const char *sys, const char *ev)
{
	struct saved_event *n;
	char *val;
	int on;

	val = tracefs_event_file_read(t->inst, sys, ev, "enable", NULL);
	if (!val)
		return -ENOENT;
	on = val[0] == '1';
	free(val);
	if (on)
		return 0;
	n = realloc(t->enabled, (t->nr_enabled + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	t->enabled = n;
	n[t->nr_enabled].system = strdup(sys);
	n[t->nr_enabled].event = strdup(ev);
	if (!n[t->nr_enabled].system || !n[t->nr_enabled].event) {
		free(n[t->nr_enabled].system);
		free(n[t->nr_enabled].event);
		return -ENOMEM;
	}
	t->nr_enabled++;
	return 0;
}

static int enable_event(struct tracing *t, const char *spec)
{
	char *sys = strdup(spec), *ev, rs[256], re[256];
	char **list = NULL;
	int ret = 0;

	if (!sys)
		return -ENOMEM;
	ev = strchr(sys, ':');
	if (ev)
		*ev++ = '\0';
	if (!valid_name(sys) || (ev && !valid_name(ev)) || strlen(spec) > 200) {
		log_err("bad event '%s': expected SYSTEM or SYSTEM:EVENT", spec);
		ret = -EINVAL;
		goto out;
	}
	if (ev) {
		ret = save_event(t, sys, ev);
	} else {
		list = tracefs_system_events(NULL, sys);
		if (!list)
			ret = -ENOENT;
		for (int i = 0; list && list[i] && !ret; i++)
			ret = save_event(t, sys, list[i]);
	}
	if (ret == -ENOENT) {
		if (ev)
			log_err("unknown event '%s': no event %s in system %s (%s/events)",
				spec, ev, sys, tracefs_tracing_dir());
		else
			log_err("unknown event '%s': no event system %s (%s/events)", spec,
				sys, tracefs_tracing_dir());
		goto out;
	}
	if (ret)
		goto out;
	snprintf(rs, sizeof(rs), "^%s$", sys);
	snprintf(re, sizeof(re), "^%s$", ev ? ev : ".*");
	if (tracefs_event_enable(t->inst, rs, re) < 0) {
		ret = errno ? -errno : -EIO;
		log_err("cannot enable event '%s' in %s: %s", spec, inst_label(t),
			strerror(-ret));
	}
out:
	tracefs_list_free(list);
	free(sys);
	return ret;
}

static int setup(struct tracing *t, const struct tracing_params *p)
{
	char buf[32];
	int ret;

	t->on_saved = (int)read_number(t, "tracing_on");
	if (t->on_saved < 0) {
		ret = -errno;
		log_err("cannot read tracing_on of %s: %s", inst_label(t), strerror(errno));
		return ret;
	}
	/* A takeover changes nothing that would stop or drop what is being traced. */
	ret = t->taking ? 0 : tracing_set_on(t, 0);
	if (ret || t->taking)
		t->on_saved = -1;
	if (ret)
		return ret;

	if (p->clock) {
		t->clock_saved = tracefs_get_clock(t->inst);
		if (!t->clock_saved || strcmp(t->clock_saved, p->clock)) {
			ret = write_file(t, "trace_clock", p->clock);
			if (ret) {
				log_err("unknown or unusable trace clock '%s'", p->clock);
				return ret;
			}
		}
	}
	t->clock = tracefs_get_clock(t->inst);
	if (!t->clock) {
		log_err("cannot read trace_clock of %s", inst_label(t));
		return -EIO;
	}

	/* A resize may drop what a taken-over buffer holds: only when it must. */
	if (p->buffer_kb && (!t->taking ||
			     read_number(t, "buffer_size_kb") != (long)p->buffer_kb)) {
		t->kb_saved = read_number(t, "buffer_size_kb");
		snprintf(buf, sizeof(buf), "%u", p->buffer_kb);
		ret = write_file(t, "buffer_size_kb", buf);
		if (ret)
			return ret;
	}
	if (p->overwrite >= 0) {
		t->ow_saved = (int)read_number(t, "options/overwrite");
		ret = write_file(t, "options/overwrite", p->overwrite ? "1" : "0");
		if (ret)
			return ret;
	}
	if (p->buffer_percent >= 0) {
		/*
		 * The fill level at which poll wakes the reader: the default 50% leaves
		 * little room for scheduling latency, and under a flood the kernel's
		 * writers were measured twice as fast with 10% (pages recycled while
		 * still in cache). Kernels without the file just use their default.
		 */
		long v = read_number(t, "buffer_percent");

		if (v >= 0 && v != p->buffer_percent) {
			snprintf(buf, sizeof(buf), "%d", p->buffer_percent);
			ret = write_file(t, "buffer_percent", buf);
			if (ret)
				return ret;
			t->bp_saved = (int)v;
		}
	}
	for (int i = 0; i < p->nr_events; i++) {
		ret = enable_event(t, p->events[i]);
		if (ret)
			return ret;
	}
	/* Start from an empty buffer, as trace-cmd record does (unless taking over). */
	return t->taking || p->keep ? 0 : write_file(t, "trace", "");
}

/*
 * The recording is live: a taken-over instance was made by our predecessor, and is
 * now ours to turn off and remove at the end. Until then, a failing start leaves it
 * tracing with what it holds, for the next daemon or salvage to take over.
 */
void tracing_adopt(struct tracing *t)
{
	if (!t->taking)
		return;
	t->taking = 0;
	t->created = 1;
	t->on_saved = 0;
}

/*
 * Removes the instance we created. A task the traced command left behind (its children
 * inherit an open trace_marker) keeps it busy until it exits: waited for briefly.
 */
static int destroy_instance(struct tracing *t)
{
	for (int i = 0; i < DESTROY_TRIES; i++) {
		if (!tracefs_instance_destroy(t->inst))
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(DESTROY_WAIT_US);
	}
	return -EBUSY;
}

/*
 * Tracing off, and nothing else put back: a restored buffer size could drop what the
 * buffer holds.
 */
int tracing_keep(struct tracing *t)
{
	t->created = 0;
	t->taking = 0;
	t->restored = 1;
	return tracing_set_on(t, 0);
}

struct tracing *tracing_setup(const struct tracing_params *p, int *err)
{
	struct tracing *t = calloc(1, sizeof(*t));
	int ret;

	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	t->on_saved = -1;
	t->kb_saved = -1;
	t->ow_saved = -1;
	t->bp_saved = -1;
	if (!tracefs_tracing_dir()) {
		log_err("tracefs is not mounted and could not be mounted at /sys/kernel/tracing");
		free(t);
		*err = -ENODEV;
		return NULL;
	}
	if (p->instance) {
		if (!valid_name(p->instance)) {
			log_err("bad instance name '%s'", p->instance);
			ret = -EINVAL;
			goto fail;
		}
		t->name = strdup(p->instance);
		if (!t->name) {
			ret = -ENOMEM;
			goto fail;
		}
		if (p->create) {
			t->inst = tracefs_instance_create(p->instance);
			t->created = t->inst && tracefs_instance_is_new(t->inst);
		} else if (tracefs_instance_exists(p->instance)) {
			t->inst = tracefs_instance_alloc(NULL, p->instance);
		} else {
			errno = ENOENT;
		}
		if (!t->inst) {
			ret = errno ? -errno : -ENOENT;
			log_err("cannot open tracefs instance '%s': %s", p->instance,
				strerror(-ret));
			goto fail;
		}
		t->taking = !t->created && p->take_over;
	}
	ret = setup(t, p);
	if (ret)
		goto fail;
	return t;
fail:
	if (ret == -EACCES || ret == -EPERM)
		log_err("no permission to change tracefs in %s (recording needs root)",
			tracefs_tracing_dir());
	tracing_free(t);
	*err = ret;
	return NULL;
}

int tracing_restore(struct tracing *t)
{
	char buf[32];
	int ret = 0, r;

	if (t->restored)
		return 0;
	t->restored = 1;
	/* Reverse order of setup; tracing_on last so nothing is traced in between. */
	for (int i = t->nr_enabled - 1; i >= 0; i--) {
		if (tracefs_event_file_write(t->inst, t->enabled[i].system, t->enabled[i].event,
					     "enable", "0") < 0 && !ret) {
			ret = -EIO;
			log_err("cannot disable event %s:%s again", t->enabled[i].system,
				t->enabled[i].event);
		}
	}
	if (t->ow_saved >= 0) {
		r = write_file(t, "options/overwrite", t->ow_saved ? "1" : "0");
		ret = ret ? ret : r;
	}
	if (t->bp_saved >= 0) {
		snprintf(buf, sizeof(buf), "%d", t->bp_saved);
		r = write_file(t, "buffer_percent", buf);
		ret = ret ? ret : r;
	}
	if (t->kb_saved > 0) {
		snprintf(buf, sizeof(buf), "%ld", t->kb_saved);
		r = write_file(t, "buffer_size_kb", buf);
		ret = ret ? ret : r;
	}
	if (t->clock_saved && t->clock && strcmp(t->clock_saved, t->clock)) {
		r = write_file(t, "trace_clock", t->clock_saved);
		ret = ret ? ret : r;
	}
	if (t->on_saved >= 0) {
		r = tracing_set_on(t, t->on_saved);
		ret = ret ? ret : r;
	}
	if (t->created) {
		r = destroy_instance(t);
		if (r && !ret) {
			ret = r;
			log_err("cannot remove the instance '%s' we created: %s", t->name,
				strerror(-r));
		}
	}
	return ret;
}

void tracing_free(struct tracing *t)
{
	if (!t)
		return;
	tracing_restore(t);
	for (int i = 0; i < t->nr_enabled; i++) {
		free(t->enabled[i].system);
		free(t->enabled[i].event);
	}
	free(t->enabled);
	tracefs_instance_free(t->inst);
	free(t->clock_saved);
	free(t->clock);
	free(t->name);
	free(t);
}

void tracing_parse_cpu_stats(const char *text, struct source_cpu_stats *st)
{
	/*
	 * Lost: "dropped events" (a full buffer that does not overwrite) and "commit
	 * overrun" (either mode: the writer came round to a page an interrupted writer
	 * still holds), both dropped as they came (kernel/trace/ring_buffer.c).
	 */
	static const struct {
		const char	*key;
		size_t		off;
	} keys[] = {
		{ "entries:",		offsetof(struct source_cpu_stats, entries) },
		{ "overrun:",		offsetof(struct source_cpu_stats, overrun) },
		{ "dropped events:",	offsetof(struct source_cpu_stats, lost) },
		{ "commit overrun:",	offsetof(struct source_cpu_stats, lost) },
		{ "read events:",	offsetof(struct source_cpu_stats, read) },
	};
	const char *line;

	st->entries = 0;
	st->overrun = 0;
	st->lost = 0;
	st->read = 0;
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(line, keys[i].key, strlen(keys[i].key)))
				*(uint64_t *)((char *)st + keys[i].off) +=
					strtoull(line + strlen(keys[i].key), NULL, 10);
	/* "entries" counts what is still in the buffer: written = that + read + overrun */
	st->entries += st->read + st->overrun;
}

int tracing_cpu_stats(const char *instance, int cpu, struct source_cpu_stats *st)
{
	char file[64], *text;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracing_read(instance, file, NULL);
	if (!text)
		return -errno;
	tracing_parse_cpu_stats(text, st);
	free(text);
	return 0;
}

char *tracing_cpustat_text(const char *instance, int cpu)
{
	char file[64], *text, *out;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracing_read(instance, file, NULL);
	if (!text)
		return NULL;
	if (asprintf(&out, "CPU: %d\n%s", cpu, text) < 0)
		out = NULL;
	free(text);
	return out;
}

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Appends "TID COMM" for every thread of process @pid to @f. */
static void add_task_comms(FILE *f, const char *pid)
{
	char path[600], comm[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d)
		return;		/* it exited meanwhile */
	while ((de = readdir(d))) {
		FILE *c;

		if (!is_number(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", pid, de->d_name);
		c = fopen(path, "re");
		if (!c)
			continue;
		if (fgets(comm, sizeof(comm), c)) {
			comm[strcspn(comm, "\n")] = '\0';
			fprintf(f, "%s %s\n", de->d_name, comm);
		}
		fclose(c);
	}
	closedir(d);
}

char *tracing_cmdlines(bool with_saved, size_t *len, size_t *live_len)
{
	size_t saved_len = 0, blen = 0;
	char *saved, *buf = NULL;
	struct dirent *de;
	long live;
	DIR *proc;
	FILE *f;

	*len = 0;
	*live_len = 0;
	f = open_memstream(&buf, &blen);
	if (!f)
		return NULL;
	proc = opendir("/proc");
	if (proc) {
		while ((de = readdir(proc)))
			if (is_number(de->d_name))
				add_task_comms(f, de->d_name);
		closedir(proc);
	}
	live = ftell(f);
	/* read after the walk: a task that exits meanwhile is in one or the other */
	saved = with_saved ? tracing_read(NULL, "saved_cmdlines", &saved_len) : NULL;
	if (saved)
		fwrite(saved, 1, saved_len, f);
	free(saved);
	if (fclose(f) || live < 0) {
		free(buf);
		return NULL;
	}
	*len = blen;
	*live_len = (size_t)live;
	return buf;
}
