// SPDX-License-Identifier: GPL-2.0
/*
 * Metadata for trace.dat from the running kernel's tracefs, read the way trace-cmd
 * reads it (formats.md D.3): header_page/header_event, the ftrace system's formats
 * for FTRACE_EVENTS, every other system's for EVENT_FORMATS, printk_formats,
 * trace_clock, and /proc/kallsyms with kptr_restrict lowered while it is copied.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "format/meta.h"
#include "util/fileio.h"
#include "util/log.h"

#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, s, strlen(s));
	close(fd);
	return r == (ssize_t)strlen(s) ? 0 : -EIO;
}

/*
 * /proc/kallsyms shows zero addresses while kptr_restrict hides them; trace-cmd
 * writes 0 there for the copy and puts the old value back. Failing that (no root,
 * a locked sysctl), the symbols are still copied, maybe without addresses.
 */
static void read_kallsyms(struct trace_meta *m)
{
	size_t len = 0;
	char *old = fio_read_whole(KPTR_RESTRICT, &len);
	int lowered = old && strncmp(old, "0", 1) && !write_str(KPTR_RESTRICT, "0");

	m->kallsyms = fio_read_whole("/proc/kallsyms", &m->kallsyms_len);
	if (!m->kallsyms)
		log_warn("meta: /proc/kallsyms: %s; symbols will show as addresses",
			 strerror(errno));
	if (lowered && write_str(KPTR_RESTRICT, old))
		log_warn("meta: could not restore kptr_restrict to %.*s", 1, old);
	free(old);
}

/* Reads every event format of @sys into @s; events whose format is unreadable are skipped. */
static int read_system(struct meta_system *s, const char *sys)
{
	char **events = tracefs_system_events(NULL, sys);
	int i, ret = 0;

	s->name = strdup(sys);
	if (!s->name) {
		tracefs_list_free(events);
		return -ENOMEM;
	}
	for (i = 0; events && events[i] && !ret; i++) {
		int size = 0;
		char *text = tracefs_event_file_read(NULL, sys, events[i], "format", &size);

		if (!text || size <= 0) {
			log_debug("meta: no format for %s/%s", sys, events[i]);
			free(text);
			continue;
		}
		ret = meta_system_add(s, events[i], text, (size_t)size);
		free(text);
	}
	tracefs_list_free(events);
	return ret;
}

static char *read_tracefs(struct tracefs_instance *inst, const char *file, size_t *len)
{
	int size = 0;
	char *text = tracefs_instance_file_read(inst, file, &size);

	if (text && size < 0) {
		free(text);
		text = NULL;
	}
	if (len)
		*len = text ? (size_t)size : 0;
	return text;
}

static int collect_formats(struct trace_meta *m)
{
	char **systems = tracefs_event_systems(NULL);
	int i, n = 0, ret;

	ret = read_system(&m->ftrace, "ftrace");
	if (ret)
		goto out;
	for (i = 0; systems && systems[i]; i++)
		n++;
	m->systems = calloc(n ? n : 1, sizeof(*m->systems));
	if (!m->systems) {
		ret = -ENOMEM;
		goto out;
	}
	/* tracefs_event_systems() leaves out "ftrace" (no enable file), as trace-cmd does. */
	for (i = 0; i < n && !ret; i++) {
		if (!strcmp(systems[i], "ftrace"))
			continue;
		ret = read_system(&m->systems[m->nr_systems], systems[i]);
		if (!ret && !m->systems[m->nr_systems].nr_events)
			meta_system_free(&m->systems[m->nr_systems]);
		else if (!ret)
			m->nr_systems++;
	}
out:
	tracefs_list_free(systems);
	return ret;
}

/* Appends "@name:" and @n bytes of @text to the key. 0 or -1 (no memory). */
static int key_put(char **key, size_t *len, const char *name, const char *text, size_t n)
{
	char *grown = realloc(*key, *len + strlen(name) + 1 + n + 1);

	if (!grown)
		return -1;
	*key = grown;
	*len += (size_t)sprintf(*key + *len, "%s:", name);
	memcpy(*key + *len, text, n);
	*len += n;
	(*key)[*len] = '\0';
	return 0;
}

/*
 * /proc/modules without the columns that change with use (references, users): name,
 * size, state and address. A module loaded again at the same address with the same
 * size keeps its key: its events, if enabled again meanwhile, would carry the formats
 * (and IDs) of its previous load.
 */
static int key_add_modules(char **key, size_t *len)
{
	size_t n = 0, out = 0;
	char *text = fio_read_whole("/proc/modules", &n), *line, *save = NULL, *f[6];
	int ret;

	if (!text)
		return errno == ENOENT ? 0 : -1;	/* ENOENT: no modules */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *fsave = NULL;
		int k = 0;

		for (char *t = strtok_r(line, " ", &fsave); t && k < 6;
		     t = strtok_r(NULL, " ", &fsave))
			f[k++] = t;
		if (k < 6)
			continue;
		/* in place: the output never outruns the input */
		out += (size_t)sprintf(text + out, "%s %s %s %s\n", f[0], f[1], f[4], f[5]);
	}
	ret = key_put(key, len, "modules", text, out);
	free(text);
	return ret;
}

/*
 * A dynamic-event file, and the ID of each event it lists ("p:GROUP/NAME ..."): an
 * event removed and defined again the same way gets a new ID. A file the kernel does
 * not have adds nothing. 0, or -1 when it cannot be read.
 */
static int key_add_dynamic(char **key, size_t *len, const char *file)
{
	char *path = tracefs_get_tracing_file(file), *text, *line, *save = NULL;
	size_t n = 0;
	int ret;

	text = path ? fio_read_whole(path, &n) : NULL;
	tracefs_put_tracing_file(path);
	if (!text)
		return path && errno == ENOENT ? 0 : -1;
	ret = key_put(key, len, file, text, n);
	for (line = strtok_r(text, "\n", &save); !ret && line; line = strtok_r(NULL, "\n", &save)) {
		char *ev = strchr(line, ':'), *end, *id;
		int size = 0;

		if (!ev || !strchr(ev, '/'))
			continue;
		end = strpbrk(++ev, " \t");
		if (end)
			*end = '\0';
		/* GROUP/NAME is the event's directory under events/ */
		if (!strchr(strchr(ev, '/') + 1, '/')) {
			char *sys = ev, *name = strchr(ev, '/');

			*name++ = '\0';
			id = tracefs_event_file_read(NULL, sys, name, "id", &size);
			ret = key_put(key, len, "id", id ? id : "?", id && size > 0 ? (size_t)size : 1);
			free(id);
		}
	}
	free(text);
	return ret;
}

/*
 * Where event formats come from besides the kernel image: modules (their own events,
 * and the enums they add to others') and dynamic events (kprobe, uprobe, synthetic,
 * user events: all listed in dynamic_events on kernels that have it, in the other
 * three files before). Read before the formats: a module loaded in between makes the
 * next key differ, never a stale copy. NULL when one cannot be read (the formats are
 * read then).
 */
static char *read_formats_key(size_t *len)
{
	static const char *const files[] = {
		"dynamic_events", "kprobe_events", "uprobe_events", "synthetic_events",
	};
	char *key = NULL;
	int ret;

	*len = 0;
	ret = key_add_modules(&key, len);
	for (size_t i = 0; !ret && i < sizeof(files) / sizeof(files[0]); i++)
		ret = key_add_dynamic(&key, len, files[i]);
	if (!ret && !key)
		key = strdup("");
	if (ret) {
		free(key);
		key = NULL;
	}
	return key;
}

static int same_key(const struct trace_meta *a, const struct trace_meta *b)
{
	return a->formats_key && b->formats_key && a->formats_key_len == b->formats_key_len &&
	       !memcmp(a->formats_key, b->formats_key, a->formats_key_len);
}

/**
 * meta_collect() - read the metadata of the running kernel
 * @m: filled in; free with meta_free()
 * @instance: tracefs instance for trace_clock and the clock name, NULL = top
 *
 * Context: needs tracefs mounted and readable (root).
 * Return: 0 or -errno, with a message logged.
 */
int meta_collect(struct trace_meta *m, const char *instance)
{
	return meta_collect_since(m, instance, NULL);
}

/**
 * meta_collect_since() - meta_collect() for a capture's next file
 * @m: filled in; free with meta_free()
 * @instance: as for meta_collect()
 * @prev: the metadata of the capture's previous file, or NULL
 *
 * Reading every event format is most of meta_collect() (2 300 files here, two thirds
 * of its time; 1.1 s a snapshot in a TCG guest): they are copied from @prev unless a
 * module or a dynamic event came or went. kallsyms and the rest are read again.
 *
 * Return: 0 or -errno, with a message logged.
 */
int meta_collect_since(struct trace_meta *m, const char *instance, const struct trace_meta *prev)
{
	struct tracefs_instance *inst = NULL;
	int ret = -ENOMEM;

	memset(m, 0, sizeof(*m));
	if (!tracefs_tracing_dir()) {
		log_err("meta: tracefs is not mounted");
		return -ENOENT;
	}
	if (instance) {
		inst = tracefs_instance_alloc(NULL, instance);
		if (!inst) {
			log_err("meta: instance %s: %s", instance, strerror(errno));
			return -ENOENT;
		}
	}
	/* per instance: its sub-buffer size (buffer_subbuf_size_kb) may differ from the top one */
	m->header_page = read_tracefs(inst, "events/header_page", &m->header_page_len);
	m->header_event = read_tracefs(NULL, "events/header_event", &m->header_event_len);
	if (!m->header_page || !m->header_page_len || !m->header_event) {
		log_err("meta: cannot read events/header_page or header_event");
		ret = -EIO;
		goto fail;
	}
	m->page_size = meta_page_size(m->header_page, m->header_page_len);
	if (!m->page_size) {
		log_err("meta: cannot parse events/header_page");
		ret = -EINVAL;
		goto fail;
	}
	m->formats_key = read_formats_key(&m->formats_key_len);
	if (prev && same_key(m, prev))
		ret = meta_copy_formats(m, prev);
	else
		ret = collect_formats(m);
	if (ret) {
		log_err("meta: event formats: %s", strerror(-ret));
		goto fail;
	}
	m->printk = read_tracefs(NULL, "printk_formats", &m->printk_len);
	m->trace_clock = read_tracefs(inst, "trace_clock", NULL);
	m->clock = tracefs_get_clock(inst);
	if (!m->clock)
		m->clock = strdup("local");
	if (!m->clock) {
		ret = -ENOMEM;
		goto fail;
	}
	read_kallsyms(m);
	tracefs_instance_free(inst);
	return 0;
fail:
	tracefs_instance_free(inst);
	meta_free(m);
	return ret;
}
