// SPDX-License-Identifier: GPL-2.0
/*
 * Read-back through libtracecmd: tracecmd_open() then per CPU
 * tracecmd_read_cpu_first()/tracecmd_read_data(), so per-CPU order is the file's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "readback.h"

static void note_event(struct rb_summary *s, const char *name)
{
	struct rb_count *e;
	int i;

	for (i = 0; i < s->nr_events; i++)
		if (!strcmp(s->events[i].name, name)) {
			s->events[i].count++;
			return;
		}
	e = realloc(s->events, (s->nr_events + 1) * sizeof(*e));
	if (!e)
		return;
	s->events = e;
	e = &s->events[s->nr_events++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->count = 1;
}

static void note_marker(struct rb_summary *s, int cpu, struct tep_event *ev,
			struct tep_record *r)
{
	struct tep_format_field *f = tep_find_field(ev, "buf");
	char **m, *text;
	size_t len;

	if (!f || f->offset >= r->size)
		return;
	len = strnlen((char *)r->data + f->offset, r->size - f->offset);
	text = strndup((char *)r->data + f->offset, len);
	if (!text)
		return;
	if (s->nr_markers[cpu] == s->cap_markers[cpu]) {
		size_t cap = s->cap_markers[cpu] ? 2 * s->cap_markers[cpu] : 256;

		m = realloc(s->markers[cpu], cap * sizeof(*m));
		if (!m) {
			free(text);
			return;
		}
		s->markers[cpu] = m;
		s->cap_markers[cpu] = cap;
	}
	/* trace_marker adds a newline; compare texts without it. */
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	s->markers[cpu][s->nr_markers[cpu]++] = text;
}

int rb_summarize(const char *path, struct rb_summary *s)
{
	struct tracecmd_input *h;
	struct tep_handle *tep;
	int cpu;

	memset(s, 0, sizeof(*s));
	s->ts_ordered = true;
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h)
		return -EIO;
	tep = tracecmd_get_tep(h);
	s->ncpus = tep_get_cpus(tep);
	for (cpu = 0; cpu < s->ncpus && cpu < RB_MAX_CPUS; cpu++) {
		struct tep_record *r = tracecmd_read_cpu_first(h, cpu);
		uint64_t last = 0;

		for (; r; r = tracecmd_read_data(h, cpu)) {
			struct tep_event *ev = tep_find_event_by_record(tep, r);
			char name[128];

			snprintf(name, sizeof(name), "%s/%s", ev ? ev->system : "?",
				 ev ? ev->name : "?");
			note_event(s, name);
			if (ev && !strcmp(name, "ftrace/print"))
				note_marker(s, cpu, ev, r);
			if (r->missed_events > 0)
				s->missed += (uint64_t)r->missed_events;
			else if (r->missed_events < 0)
				s->missed_unknown++;
			if (r->missed_events)
				s->missed_pages++;
			if (r->ts < last)
				s->ts_ordered = false;
			last = r->ts;
			if (!s->total || r->ts < s->first_ts)
				s->first_ts = r->ts;
			if (r->ts > s->last_ts)
				s->last_ts = r->ts;
			s->total++;
			s->per_cpu[cpu]++;
			tracecmd_free_record(r);
		}
	}
	tracecmd_close(h);
	return 0;
}

uint64_t rb_count(const struct rb_summary *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr_events; i++)
		if (!strcmp(s->events[i].name, name))
			return s->events[i].count;
	return 0;
}

void rb_summary_free(struct rb_summary *s)
{
	int cpu;
	size_t i;

	for (cpu = 0; cpu < RB_MAX_CPUS; cpu++) {
		for (i = 0; i < s->nr_markers[cpu]; i++)
			free(s->markers[cpu][i]);
		free(s->markers[cpu]);
	}
	free(s->events);
	memset(s, 0, sizeof(*s));
}

int rb_records(const char *path, struct rb_record **recs, size_t *n)
{
	struct tracecmd_input *h;
	struct rb_record *v = NULL;
	size_t cnt = 0, cap = 0;
	int cpu, ncpus, ret = 0;

	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h)
		return -EIO;
	ncpus = tep_get_cpus(tracecmd_get_tep(h));
	for (cpu = 0; cpu < ncpus && !ret; cpu++) {
		struct tep_record *r;

		for (r = tracecmd_read_cpu_first(h, cpu); r; r = tracecmd_read_data(h, cpu)) {
			struct rb_record *x;

			if (cnt == cap) {
				cap = cap ? cap * 2 : 256;
				x = realloc(v, cap * sizeof(*v));
				if (!x) {
					ret = -ENOMEM;
					tracecmd_free_record(r);
					break;
				}
				v = x;
			}
			x = &v[cnt];
			x->ts = r->ts;
			x->cpu = r->cpu;
			x->size = r->size;
			x->missed = r->missed_events;
			x->type = r->size >= 2 ? *(unsigned short *)r->data : -1;
			x->data = malloc(r->size ? r->size : 1);
			if (x->data)
				memcpy(x->data, r->data, r->size);
			cnt++;
			tracecmd_free_record(r);
		}
	}
	tracecmd_close(h);
	*recs = v;
	*n = cnt;
	return ret;
}

void rb_records_free(struct rb_record *recs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(recs[i].data);
	free(recs);
}

const char *rb_shared_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("FTRING_SHARED");
	char exe[PATH_MAX - 16], *p;
	struct stat st;
	ssize_t n;
	int up;

	if (env && *env)
		return env;
	if (dir[0])
		return dir;
	/* The test binary is <top>/build/tests/X: shared/ sits beside <top>. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	for (up = 0; up < 3; up++) {
		p = strrchr(exe, '/');
		if (!p)
			return NULL;
		*p = '\0';
	}
	snprintf(dir, sizeof(dir), "%s/../shared", exe);
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		return dir;
	dir[0] = '\0';
	return NULL;
}

char *rb_run(const char *cmd, int *status)
{
	FILE *f = popen(cmd, "r");
	size_t len = 0, cap = 65536;
	char *out = malloc(cap), *p;
	size_t r;
	int st;

	if (!f || !out) {
		if (f)
			pclose(f);
		free(out);
		return NULL;
	}
	while ((r = fread(out + len, 1, cap - len - 1, f)) > 0) {
		len += r;
		if (len + 1 == cap) {
			p = realloc(out, cap * 2);
			if (!p)
				break;
			out = p;
			cap *= 2;
		}
	}
	out[len] = '\0';
	st = pclose(f);
	if (status)
		*status = st;
	return out;
}
