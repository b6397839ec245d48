// SPDX-License-Identifier: GPL-2.0
/*
 * Metadata for trace.dat from the running kernel's tracefs, read the way trace-cmd
 * reads it (formats.md D.3): header_page/header_event, the ftrace system's formats
 * for FTRACE_EVENTS, every other system's for EVENT_FORMATS, printk_formats,
 * trace_clock, and /proc/kallsyms with kptr_restrict lowered while it is copied.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "util/log.h"
#include "meta.h"

#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"

/* Reads a whole (procfs) file whose size stat cannot tell; NULL with errno. */
static char *read_whole(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf)
		goto fail;
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			p = realloc(buf, cap * 2);
			if (!p)
				goto fail;
			buf = p;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

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
	char *old = read_whole(KPTR_RESTRICT, &len);
	int lowered = old && strncmp(old, "0", 1) && !write_str(KPTR_RESTRICT, "0");

	m->kallsyms = read_whole("/proc/kallsyms", &m->kallsyms_len);
	if (!m->kallsyms)
		log_warn("meta: /proc/kallsyms: %s; symbols will show as addresses",
			 strerror(errno));
	if (lowered && write_str(KPTR_RESTRICT, old))
		log_warn("meta: could not restore kptr_restrict to %.*s", 1, old);
	free(old);
}

static void free_system(struct meta_system *s)
{
	int i;

	for (i = 0; i < s->nr_events; i++) {
		free(s->events[i].name);
		free(s->events[i].text);
	}
	free(s->events);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

static int add_format(struct meta_system *s, const char *name, const char *text, size_t len)
{
	struct meta_format *f = realloc(s->events, (s->nr_events + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	s->events = f;
	f = &s->events[s->nr_events];
	f->name = strdup(name);
	f->text = malloc(len + 1);
	if (!f->name || !f->text) {
		free(f->name);
		free(f->text);
		return -ENOMEM;
	}
	memcpy(f->text, text, len);
	f->text[len] = '\0';
	f->len = len;
	s->nr_events++;
	return 0;
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
		ret = add_format(s, events[i], text, (size_t)size);
		free(text);
	}
	tracefs_list_free(events);
	return ret;
}

/* The trace page size is the data field's offset + size in header_page (A.1). */
static unsigned int header_page_size(char *text, size_t len)
{
	struct tep_handle *tep = tep_alloc();
	int ps = 0;

	if (!tep)
		return 0;
	if (!tep_parse_header_page(tep, text, len, sizeof(long)))
		ps = tep_get_sub_buffer_size(tep);
	tep_free(tep);
	return ps > 0 ? (unsigned int)ps : 0;
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
			free_system(&m->systems[m->nr_systems]);
		else if (!ret)
			m->nr_systems++;
	}
out:
	tracefs_list_free(systems);
	return ret;
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
	m->page_size = header_page_size(m->header_page, m->header_page_len);
	if (!m->page_size) {
		log_err("meta: cannot parse events/header_page");
		ret = -EINVAL;
		goto fail;
	}
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

/**
 * meta_add_system_text() - add or replace a system from concatenated format files
 * @m: metadata
 * @sys: system name ("ftrace" replaces the FTRACE_EVENTS set)
 * @text: format files, each starting with a line "name: <event>"
 * @len: bytes of @text
 *
 * Return: 0, -EINVAL when @text holds no format, -ENOMEM.
 */
int meta_add_system_text(struct trace_meta *m, const char *sys, const char *text, size_t len)
{
	struct meta_system s = { 0 }, *slot = NULL, *grown;
	const char *end = text + len, *p = text;
	int i, ret = 0;

	s.name = strdup(sys);
	if (!s.name)
		return -ENOMEM;
	while (p < end && !ret) {
		const char *q = p, *nl, *name_end;
		char name[256];

		/* This format runs up to the next line starting with "name: ". */
		do {
			nl = memchr(q, '\n', (size_t)(end - q));
			q = nl ? nl + 1 : end;
		} while (q < end && ((size_t)(end - q) < 6 || memcmp(q, "name: ", 6)));
		if ((size_t)(q - p) < 6 || memcmp(p, "name: ", 6)) {
			ret = -EINVAL;
			break;
		}
		name_end = memchr(p + 6, '\n', (size_t)(q - p - 6));
		if (!name_end || name_end - (p + 6) >= (long)sizeof(name) || name_end == p + 6) {
			ret = -EINVAL;
			break;
		}
		memcpy(name, p + 6, (size_t)(name_end - (p + 6)));
		name[name_end - (p + 6)] = '\0';
		ret = add_format(&s, name, p, (size_t)(q - p));
		p = q;
	}
	if (!ret && !s.nr_events)
		ret = -EINVAL;
	if (ret) {
		log_err("meta: bad format text for system %s", sys);
		free_system(&s);
		return ret;
	}
	if (!strcmp(sys, "ftrace")) {
		slot = &m->ftrace;
	} else {
		for (i = 0; i < m->nr_systems; i++)
			if (!strcmp(m->systems[i].name, sys))
				slot = &m->systems[i];
	}
	if (!slot) {
		grown = realloc(m->systems, (m->nr_systems + 1) * sizeof(*grown));
		if (!grown) {
			free_system(&s);
			return -ENOMEM;
		}
		m->systems = grown;
		slot = &m->systems[m->nr_systems++];
		memset(slot, 0, sizeof(*slot));
	}
	free_system(slot);
	*slot = s;
	return 0;
}

/**
 * meta_free() - free what meta_collect()/meta_add_system_text() allocated
 * @m: metadata (may be all zeros)
 */
void meta_free(struct trace_meta *m)
{
	int i;

	if (!m)
		return;
	free(m->header_page);
	free(m->header_event);
	free_system(&m->ftrace);
	for (i = 0; i < m->nr_systems; i++)
		free_system(&m->systems[i]);
	free(m->systems);
	free(m->kallsyms);
	free(m->printk);
	free(m->trace_clock);
	free(m->clock);
	memset(m, 0, sizeof(*m));
}
