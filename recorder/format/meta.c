// SPDX-License-Identifier: GPL-2.0
/*
 * What a trace.dat carries besides the pages (meta.h): the event formats grouped by
 * system, header_page and its page size. Filled from tracefs by source/meta_collect.c
 * and from the ftring module by its source; encoded by v7_encode.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "util/log.h"
#include "meta.h"

/* systems the ftring module's format text may name (it has five) */
#define MODULE_MAX_SYSTEMS	64

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

static int copy_system(struct meta_system *dst, const struct meta_system *src)
{
	int i, ret = 0;

	dst->name = src->name ? strdup(src->name) : NULL;
	if (src->name && !dst->name)
		return -ENOMEM;
	for (i = 0; i < src->nr_events && !ret; i++)
		ret = meta_system_add(dst, src->events[i].name, src->events[i].text,
				      src->events[i].len);
	return ret;
}

int meta_copy_formats(struct trace_meta *dst, const struct trace_meta *src)
{
	int i, ret;

	ret = copy_system(&dst->ftrace, &src->ftrace);
	if (ret)
		return ret;
	dst->systems = calloc(src->nr_systems ? src->nr_systems : 1, sizeof(*dst->systems));
	if (!dst->systems)
		return -ENOMEM;
	for (i = 0; i < src->nr_systems; i++) {
		/* counted first: meta_free() frees a half-copied one too */
		dst->nr_systems++;
		ret = copy_system(&dst->systems[i], &src->systems[i]);
		if (ret)
			return ret;
	}
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
 * meta_add_module_formats() - add the ftring module's event formats
 * @m: metadata to add to
 * @text: NUL-terminated; per event a line "system: SYS" then its tracefs format file
 *        (what /dev/ftring/ctl reads, and what the persistent region keeps)
 * @len: strlen(@text)
 *
 * Each system's formats go into the metadata together, replacing a tracefs system of
 * the same name: the pages hold the module's events, with the module's IDs.
 * Return: 0, -EPROTO for text not in that form, or -ENOMEM.
 */
int meta_add_module_formats(struct trace_meta *m, const char *text, size_t len)
{
	const char *done[MODULE_MAX_SYSTEMS];
	int nr_done = 0, ret = 0;
	char *acc = malloc(len + 1);

	if (!acc)
		return -ENOMEM;
	/* Pass 1 finds each new system; pass 2 gathers that system's formats. */
	for (const char *p = text; p && *p && !ret;) {
		const char *sys = p + 8, *eol = strchr(p, '\n');
		size_t syslen, acc_len = 0;
		int seen = 0;

		if (strncmp(p, "system: ", 8) || !eol || eol == sys ||
		    nr_done >= MODULE_MAX_SYSTEMS) {
			ret = -EPROTO;
			break;
		}
		syslen = (size_t)(eol - sys);
		for (int i = 0; i < nr_done; i++)
			seen |= !strncmp(done[i], sys, syslen) && done[i][syslen] == '\n';
		for (const char *q = p; !seen && q && *q;) {
			const char *qsys = q + 8, *nl = strchr(q, '\n');
			const char *body = nl ? nl + 1 : q + strlen(q);
			const char *next = strstr(body, "\nsystem: ");
			size_t blen = next ? (size_t)(next + 1 - body) : strlen(body);

			if (!strncmp(qsys, sys, syslen) && qsys[syslen] == '\n') {
				memcpy(acc + acc_len, body, blen);
				acc_len += blen;
			}
			q = next ? next + 1 : NULL;
		}
		if (!seen) {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)syslen, sys);
			done[nr_done++] = sys;
			ret = meta_add_system_text(m, name, acc, acc_len);
		}
		p = strstr(p, "\nsystem: ");
		p = p ? p + 1 : NULL;
	}
	free(acc);
	return ret == -EINVAL ? -EPROTO : ret;
}

void meta_keep_formats(struct trace_meta *m)
{
	free(m->header_page);
	free(m->header_event);
	free(m->kallsyms);
	free(m->printk);
	free(m->trace_clock);
	free(m->clock);
	m->header_page = m->header_event = m->kallsyms = m->printk = NULL;
	m->trace_clock = m->clock = NULL;
	m->header_page_len = m->header_event_len = m->kallsyms_len = m->printk_len = 0;
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
	meta_keep_formats(m);
	meta_system_free(&m->ftrace);
	for (i = 0; i < m->nr_systems; i++)
		meta_system_free(&m->systems[i]);
	free(m->systems);
	free(m->formats_key);
	memset(m, 0, sizeof(*m));
}
