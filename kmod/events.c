// SPDX-License-Identifier: GPL-2.0
/*
 * The events' IDs and formats. IDs come from the kernel's own trace event type
 * registry (register_trace_event(), as kprobe and synthetic events get theirs), so
 * they are unique on the running kernel and small: readers that keep an ID in 16
 * signed bits (KernelShark) handle them. The formats, in tracefs syntax, are
 * generated once at load from common/ftring_events.h (the same macros that lay out
 * the records the probes write) and served by read() on the control device.
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include "ftring.h"

struct ftring_field {
	const char	*decl;		/* "type name" as the format prints it */
	unsigned int	offset;
	unsigned int	size;
	int		is_signed;
};

struct ftring_event_fmt {
	const char			*system;
	const char			*name;
	const char			*print_fmt;
	const struct ftring_field	*fields;
	unsigned int			nr_fields;
};

#define FMT_STR(x)	#x
#define FMT_XSTR(x)	FMT_STR(x)
#define FMT_F(S, ct, ft, n, sgn)					\
	{ ft " " #n, offsetof(struct S, n), sizeof(ct), sgn },
#define FMT_A(S, ct, ft, n, cnt, sgn)					\
	{ ft " " #n "[" FMT_XSTR(cnt) "]", offsetof(struct S, n),	\
	  sizeof(((struct S *)0)->n), sgn },
#define FMT_D(S, ft, n)							\
	{ "__data_loc " ft "[] " #n, offsetof(struct S, n), 4, 1 },

/* static const struct ftring_field fields_<name>[] */
#define FMT_FIELDS(name, sys, pfmt, on)					\
	static const struct ftring_field fields_##name[] = {		\
		FTRING_FIELDS_##name(FMT_F, FMT_A, FMT_D, ftring_ev_##name) \
	};
FTRING_EVENT_LIST(FMT_FIELDS)

#define FMT_EVENT(name, sys, pfmt, on)					\
	[FTRING_EV_##name] = { sys, #name, pfmt, fields_##name, ARRAY_SIZE(fields_##name) },

static const struct ftring_event_fmt ftring_event_fmts[FTRING_NR_EVENTS] = {
	FTRING_EVENT_LIST(FMT_EVENT)
};

/* struct trace_entry as every kernel event format lists it */
static const struct ftring_field ftring_common_fields[] = {
	{ "unsigned short common_type", 0, 2, 0 },
	{ "unsigned char common_flags", 2, 1, 0 },
	{ "unsigned char common_preempt_count", 3, 1, 0 },
	{ "int common_pid", 4, 4, 1 },
};

u16 ftring_event_ids[FTRING_NR_EVENTS] __read_mostly;

/*
 * Registered only to own their type numbers: ftrace never holds these events, so the
 * output functions are the defaults register_trace_event() fills in.
 */
static struct trace_event_functions ftring_trace_funcs;
static struct trace_event ftring_trace_events[FTRING_NR_EVENTS];

static void ftring_event_ids_exit(void)
{
	unsigned int i;

	for (i = 0; i < FTRING_NR_EVENTS; i++)
		if (ftring_trace_events[i].type)
			unregister_trace_event(&ftring_trace_events[i]);
}

static int ftring_event_ids_init(void)
{
	unsigned int i;
	int type;

	for (i = 0; i < FTRING_NR_EVENTS; i++) {
		ftring_trace_events[i].funcs = &ftring_trace_funcs;
		type = register_trace_event(&ftring_trace_events[i]);
		if (!type || type > S16_MAX) {
			pr_err("ftring: no event type for %s (got %d)\n",
			       ftring_event_fmts[i].name, type);
			ftring_event_ids_exit();
			return -ENOSPC;
		}
		ftring_event_ids[i] = type;
	}
	return 0;
}

static char *ftring_formats;
static size_t ftring_formats_len;

struct fmt_buf {
	char	*buf;		/* NULL: only measure */
	size_t	size;
	size_t	len;
};

static __printf(2, 3) void fmt_add(struct fmt_buf *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s->buf ? s->buf + s->len : NULL, s->buf ? s->size - s->len : 0, fmt, ap);
	va_end(ap);
	s->len += n;
}

static void fmt_fields(struct fmt_buf *s, const struct ftring_field *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fmt_add(s, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			f[i].decl, f[i].offset, f[i].size, f[i].is_signed);
}

static void fmt_all(struct fmt_buf *s)
{
	unsigned int i;

	for (i = 0; i < FTRING_NR_EVENTS; i++) {
		const struct ftring_event_fmt *e = &ftring_event_fmts[i];

		fmt_add(s, "system: %s\nname: %s\nID: %u\nformat:\n", e->system, e->name,
			ftring_event_ids[i]);
		fmt_fields(s, ftring_common_fields, ARRAY_SIZE(ftring_common_fields));
		fmt_add(s, "\n");
		fmt_fields(s, e->fields, e->nr_fields);
		fmt_add(s, "\nprint fmt: %s\n", e->print_fmt);
	}
}

/**
 * ftring_formats_init() - give every event its ID, and build their format text.
 *
 * Return: 0, -ENOSPC (no event type left), or -ENOMEM.
 */
int ftring_formats_init(void)
{
	struct fmt_buf s = { };
	int ret = ftring_event_ids_init();

	if (ret)
		return ret;

	fmt_all(&s);			/* measure */
	s.size = s.len + 1;
	s.len = 0;
	s.buf = kmalloc(s.size, GFP_KERNEL);
	if (!s.buf) {
		ftring_event_ids_exit();
		return -ENOMEM;
	}
	fmt_all(&s);
	ftring_formats = s.buf;
	ftring_formats_len = s.len;
	return 0;
}

void ftring_formats_exit(void)
{
	kfree(ftring_formats);
	ftring_event_ids_exit();
}

/**
 * ftring_formats_text() - the format text, as read() gives it.
 * @len: Out: its length.
 *
 * Return: the text (valid while the module is loaded).
 */
const char *ftring_formats_text(size_t *len)
{
	*len = ftring_formats_len;
	return ftring_formats;
}

/**
 * ftring_formats_read() - read() of the format text.
 * @ubuf:	User buffer.
 * @count:	Its size.
 * @ppos:	File position.
 *
 * Return: bytes copied, 0 at the end, or -EFAULT.
 */
ssize_t ftring_formats_read(char __user *ubuf, size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, count, ppos, ftring_formats,
				       ftring_formats_len);
}
