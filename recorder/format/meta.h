/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything a trace.dat needs besides the pages: header_page/header_event, event
 * format files, kallsyms, printk formats, trace_clock. Collected from tracefs with
 * libtracefs (source/meta_collect.c); the ftring module's formats are added as
 * systems of their own (meta_add_system_text).
 */
#ifndef REC_META_H
#define REC_META_H

#include <stddef.h>

struct meta_format {
	char	*name;		/* event name */
	char	*text;		/* the whole "format" file */
	size_t	len;
};

struct meta_system {
	char			*name;
	struct meta_format	*events;
	int			nr_events;
};

struct trace_meta {
	char			*header_page;	/* events/header_page */
	size_t			header_page_len;
	char			*header_event;	/* events/header_event */
	size_t			header_event_len;
	struct meta_system	ftrace;		/* FTRACE_EVENTS: the "ftrace" system */
	struct meta_system	*systems;	/* EVENT_FORMATS: every other system */
	int			nr_systems;
	char			*kallsyms;	/* /proc/kallsyms, may be NULL */
	size_t			kallsyms_len;
	char			*printk;	/* printk_formats, may be NULL */
	size_t			printk_len;
	char			*trace_clock;	/* the whole trace_clock file */
	char			*clock;		/* selected clock name, e.g. "local" */
	unsigned int		page_size;	/* from header_page (data offset + size) */
	/*
	 * What the formats were read under (/proc/modules, the dynamic events): only a
	 * module or a dynamic event adds or changes an event format, so the same key
	 * again means the same formats (meta_collect_since). NULL: not known.
	 */
	char			*formats_key;
	size_t			formats_key_len;
};

/*
 * Reads the metadata of the running kernel's tracefs (@instance NULL = top).
 * Returns 0 or -errno with a message logged. (source/meta_collect.c)
 */
int meta_collect(struct trace_meta *m, const char *instance);

/*
 * meta_collect() for the next file of a capture: the event formats are copied from
 * @prev (NULL: read) when no module or dynamic event came or went since @prev was
 * read; everything else is read again. (source/meta_collect.c)
 */
int meta_collect_since(struct trace_meta *m, const char *instance, const struct trace_meta *prev);

/*
 * Frees all of @m but its event formats and their key: what meta_collect_since() needs
 * of the previous set, kept between a flight recorder's snapshots.
 */
void meta_keep_formats(struct trace_meta *m);

/* Copies @src's event formats (ftrace and every system) into @dst's. 0 or -ENOMEM. */
int meta_copy_formats(struct trace_meta *dst, const struct trace_meta *src);

/* The page size events/header_page @text describes, or 0 when it cannot be parsed. */
unsigned int meta_page_size(const char *text, size_t len);

/* Adds a copy of format @text (@len bytes) as event @name of @s. 0 or -ENOMEM. */
int meta_system_add(struct meta_system *s, const char *name, const char *text, size_t len);
void meta_system_free(struct meta_system *s);

/* Adds (or replaces) system @sys with the formats in @text ("format" files, each
 * starting with "name: "), as the ftring module exports them. */
int meta_add_system_text(struct trace_meta *m, const char *sys, const char *text, size_t len);

/* Adds the ftring module's formats (@text as /dev/ftring/ctl reads, NUL-terminated):
 * each of its systems replaces a tracefs one of that name. 0, -EPROTO or -ENOMEM. */
int meta_add_module_formats(struct trace_meta *m, const char *text, size_t len);

void meta_free(struct trace_meta *m);

#endif /* REC_META_H */
