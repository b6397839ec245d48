// SPDX-License-Identifier: GPL-2.0
/*
 * What a trace.dat carries besides the pages (meta.h): the event formats grouped by
 * system, header_page and its page size. Filled from tracefs by source/meta_collect.c
 * and from the ftring module by its source; encoded by v7_encode.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "util/log.h"
#include "meta.h"

void meta_system_free(struct meta_system *s)
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

int meta_system_add(struct meta_system *s, const char *name, const char *text, size_t len)
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

/**
 * meta_page_size() - the trace page (sub-buffer) size header_page describes
 * @text: the events/header_page file
 * @len: its length
 *
 * The size is the data field's offset + size (formats.md A.1), parsed by libtraceevent.
 *
 * Return: the size, or 0 when @text cannot be parsed.
 */
unsigned int meta_page_size(const char *text, size_t len)
{
	struct tep_handle *tep = tep_alloc();
	int ps = 0;

	if (!tep)
		return 0;
	if (!tep_parse_header_page(tep, (char *)text, len, sizeof(long)))
		ps = tep_get_sub_buffer_size(tep);
	tep_free(tep);
	return ps > 0 ? (unsigned int)ps : 0;
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
		ret = meta_system_add(&s, name, p, (size_t)(q - p));
		p = q;
	}
	if (!ret && !s.nr_events)
		ret = -EINVAL;
	if (ret) {
		log_err("meta: bad format text for system %s", sys);
		meta_system_free(&s);
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
			meta_system_free(&s);
			return -ENOMEM;
		}
		m->systems = grown;
		slot = &m->systems[m->nr_systems++];
		memset(slot, 0, sizeof(*slot));
	}
	meta_system_free(slot);
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
	meta_system_free(&m->ftrace);
	for (i = 0; i < m->nr_systems; i++)
		meta_system_free(&m->systems[i]);
	free(m->systems);
	free(m->kallsyms);
	free(m->printk);
	free(m->trace_clock);
	free(m->clock);
	memset(m, 0, sizeof(*m));
}
