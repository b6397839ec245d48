// SPDX-License-Identifier: GPL-2.0
/* Checking and walking the previous boot's trace image (lastboot_image.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace_page.h"
#include "ftring_events.h"
#include "lastboot_image.h"

#define MAX_FORMATS	(1U << 20)

void lastboot_view_free(struct lastboot_view *v)
{
	free(v->formats);
	free(v->first);
	memset(v, 0, sizeof(*v));
}

int lastboot_view_init(struct lastboot_view *v, const void *img, size_t len, const char **why)
{
	const struct ftring_lastboot *h = img;
	size_t off_cpus, off_fmt, off_pages, total = 0;
	const struct ftring_lastboot_cpu *c;

	memset(v, 0, sizeof(*v));
	*why = NULL;
	if (len < sizeof(*h))
		*why = "shorter than its header";
	else if (h->magic != FTRING_LASTBOOT_MAGIC)
		*why = "bad magic";
	else if (h->version != FTRING_LASTBOOT_VERSION)
		*why = "unknown version";
	else if (h->hdr_len < sizeof(*h) || h->hdr_len > 4096)
		*why = "bad header length";
	else if (h->page_size < 4096 || h->page_size > 65536 || (h->page_size & (h->page_size - 1)))
		*why = "bad page size";
	else if (!h->nr_cpus || h->nr_cpus > LASTBOOT_MAX_CPUS)
		*why = "bad CPU count";
	else if (!h->fmt_len || h->fmt_len > MAX_FORMATS)
		*why = "bad format text length";
	else if (h->clock > FTRING_CLOCK_MAX)
		*why = "unknown clock";
	else if (h->sealed > FTRING_SEAL_CLEAN)
		*why = "unknown end of boot";
	if (*why)
		return -EINVAL;
	off_cpus = h->hdr_len;
	off_fmt = off_cpus + (size_t)h->nr_cpus * sizeof(*c);
	off_pages = (off_fmt + h->fmt_len + h->page_size - 1) / h->page_size * h->page_size;
	if (off_pages > len) {
		*why = "truncated before its pages";
		return -EINVAL;
	}
	c = (const void *)((const char *)img + off_cpus);
	for (uint32_t i = 0; i < h->nr_cpus; i++) {
		if (c[i].cpu != i || c[i].pages > (len - off_pages) / h->page_size) {
			*why = "bad CPU table";
			return -EINVAL;
		}
		total += c[i].pages;
	}
	if (total != h->nr_pages || total > (len - off_pages) / h->page_size) {
		*why = "page count does not match the image";
		return -EINVAL;
	}
	v->formats = malloc((size_t)h->fmt_len + 1);
	v->first = calloc(h->nr_cpus, sizeof(*v->first));
	if (!v->formats || !v->first) {
		lastboot_view_free(v);
		return -ENOMEM;
	}
	memcpy(v->formats, (const char *)img + off_fmt, h->fmt_len);
	v->formats[h->fmt_len] = '\0';
	for (uint32_t i = 0, at = 0; i < h->nr_cpus; at += c[i].pages, i++)
		v->first[i] = at;
	v->hdr = h;
	v->cpus = c;
	v->pages = (const char *)img + off_pages;
	return 0;
}

const char *lastboot_cpu_pages(const struct lastboot_view *v, uint32_t cpu, uint32_t *n)
{
	if (cpu >= v->hdr->nr_cpus) {
		*n = 0;
		return NULL;
	}
	*n = v->cpus[cpu].pages;
	return v->pages + v->first[cpu] * v->hdr->page_size;
}

/* The ID of event @name in the format text (its "name: " line, then "ID: "), or -1. */
static int format_id(const char *text, const char *name)
{
	char want[80];
	const char *p;
	long id;

	snprintf(want, sizeof(want), "\nname: %s\nID: ", name);
	p = strstr(text, want);
	if (!p)
		return -1;
	id = strtol(p + strlen(want), NULL, 10);
	return id > 0 && id < 65536 ? (int)id : -1;
}

struct task_name {
	int32_t		pid;
	uint64_t	ts;		/* when the name was seen */
	char		comm[FTRING_COMM_LEN + 1];
};

struct names {
	struct task_name	*v;
	size_t			n, cap;
	int			oom;
};

static void names_add(struct names *t, uint64_t ts, int32_t pid, const char *comm)
{
	struct task_name *e;

	if (pid <= 0 || !comm[0] || t->oom)
		return;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct task_name *g = realloc(t->v, cap * sizeof(*g));

		if (!g) {
			t->oom = 1;
			return;
		}
		t->v = g;
		t->cap = cap;
	}
	e = &t->v[t->n];
	e->pid = pid;
	e->ts = ts;
	t->n++;
	memcpy(e->comm, comm, FTRING_COMM_LEN);
	e->comm[FTRING_COMM_LEN] = '\0';
	/* one line per task: no newline inside a name */
	for (char *q = e->comm; *q; q++)
		if (*q == '\n')
			*q = ' ';
}

static int name_cmp(const void *a, const void *b)
{
	const struct task_name *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Adds the names record @rec (@len bytes, common header first) carries, seen at @ts. */
static void names_of_record(struct names *t, const int ids[4], uint64_t ts, const char *rec,
			    uint32_t len)
{
	uint16_t type;

	memcpy(&type, rec, sizeof(type));
	if (type == ids[0] && len >= sizeof(struct ftring_ev_sched_switch)) {
		struct ftring_ev_sched_switch e;

		memcpy(&e, rec, sizeof(e));
		names_add(t, ts, e.prev_pid, e.prev_comm);
		names_add(t, ts, e.next_pid, e.next_comm);
	} else if ((type == ids[1] || type == ids[2]) &&
		   len >= sizeof(struct ftring_ev_sched_wakeup)) {
		struct ftring_ev_sched_wakeup e;

		memcpy(&e, rec, sizeof(e));
		names_add(t, ts, e.pid, e.comm);
	} else if (type == ids[3] && len >= sizeof(struct ftring_ev_sched_process_fork)) {
		struct ftring_ev_sched_process_fork e;

		memcpy(&e, rec, sizeof(e));
		names_add(t, ts, e.parent_pid, e.parent_comm);
		names_add(t, ts, e.child_pid, e.child_comm);
	}
}

char *lastboot_cmdlines(const struct lastboot_view *v, size_t *len)
{
	const int ids[4] = {
		format_id(v->formats, "sched_switch"),
		format_id(v->formats, "sched_wakeup"),
		format_id(v->formats, "sched_wakeup_new"),
		format_id(v->formats, "sched_process_fork"),
	};
	uint32_t ps = v->hdr->page_size;
	struct names t = { 0 };
	size_t cap, n = 0;
	char *out;

	for (uint32_t i = 0; i < v->hdr->nr_pages; i++) {
		const char *page = v->pages + (size_t)i * ps;
		const char *data = ftp_page_data(page);
		uint32_t size = ftp_page_len(page), pos = 0;
		__u64 ts = ftp_page_ts(page);
		struct ftp_event ev;

		if (size > ps - FTP_HDR_SIZE)
			continue;
		while (pos < size && (pos = ftp_next(data, size, pos, &ts, &ev)))
			if (ev.payload && ev.payload_len >= sizeof(struct ftp_entry))
				names_of_record(&t, ids, ev.ts, ev.payload, ev.payload_len);
	}
	if (t.oom) {
		free(t.v);
		return NULL;
	}
	qsort(t.v, t.n, sizeof(*t.v), name_cmp);
	cap = t.n * (12 + FTRING_COMM_LEN + 1) + 1;
	out = malloc(cap);
	if (!out) {
		free(t.v);
		return NULL;
	}
	for (size_t i = 0; i < t.n; i++)
		if (i + 1 == t.n || t.v[i + 1].pid != t.v[i].pid)
			n += (size_t)snprintf(out + n, cap - n, "%d %s\n", t.v[i].pid, t.v[i].comm);
	out[n] = '\0';
	*len = n;
	free(t.v);
	return out;
}

void lastboot_uuid_str(const uint8_t id[16], char out[37])
{
	char *p = out;

	for (int i = 0; i < 16; i++) {
		p += sprintf(p, "%02x", id[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*p++ = '-';
	}
	*p = '\0';
}

int lastboot_uuid_parse(const char *s, uint8_t id[16])
{
	for (int i = 0; i < 16; i++) {
		unsigned int b;

		if (i == 4 || i == 6 || i == 8 || i == 10) {
			if (*s != '-')
				return -EINVAL;
			s++;
		}
		if (sscanf(s, "%2x", &b) != 1 || !s[0] || !s[1] ||
		    !strchr("0123456789abcdefABCDEF", s[0]) || !strchr("0123456789abcdefABCDEF", s[1]))
			return -EINVAL;
		id[i] = (uint8_t)b;
		s += 2;
	}
	return *s && *s != '\n' ? -EINVAL : 0;
}
