// SPDX-License-Identifier: GPL-2.0
/*
 * Independent trace.dat v7 parser for tests (formats.md A.2-A.11). Little-endian
 * files only, which is all this project writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "dat_parse.h"

#define ERR(...) (fprintf(stderr, "dat_parse: " __VA_ARGS__), -EINVAL)

static uint16_t g16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t g32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t g64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int unblock(const struct dp_file *f, uint64_t off, uint64_t size,
		   unsigned char **out, size_t *len)
{
	uint32_t c, u;
	size_t r;

	if (size < 8 || off + size > f->len)
		return ERR("compressed block at %llu out of the file\n", (unsigned long long)off);
	c = g32(f->map + off);
	u = g32(f->map + off + 4);
	if (8 + (uint64_t)c > size)
		return ERR("block at %llu: %u > section\n", (unsigned long long)off, c);
	*out = malloc(u ? u : 1);
	if (!*out)
		return -ENOMEM;
	r = ZSTD_decompress(*out, u, f->map + off + 8, c);
	if (ZSTD_isError(r) || r != u) {
		free(*out);
		return ERR("block at %llu does not decompress to %u bytes\n",
			   (unsigned long long)off, u);
	}
	*len = u;
	return 0;
}

int dp_find_section(const struct dp_file *f, uint64_t off)
{
	int i;

	for (i = 0; i < f->nr_secs; i++)
		if (f->secs[i].off == off)
			return i;
	return -1;
}

int dp_section_body(const struct dp_file *f, int i, unsigned char **body, size_t *len)
{
	const struct dp_section *s = &f->secs[i];

	if (s->flags & 1)
		return unblock(f, s->off + 16, s->size, body, len);
	*body = malloc(s->size ? s->size : 1);
	if (!*body)
		return -ENOMEM;
	memcpy(*body, f->map + s->off + 16, s->size);
	*len = s->size;
	return 0;
}

static int walk(struct dp_file *f, uint64_t off)
{
	while (off + 16 <= f->len && f->nr_secs < DP_MAX_SECS) {
		struct dp_section *s = &f->secs[f->nr_secs++];

		s->off = off;
		s->id = g16(f->map + off);
		s->flags = g16(f->map + off + 2);
		s->desc = (int32_t)g32(f->map + off + 4);
		s->size = g64(f->map + off + 8);
		if (s->id > 25 || off + 16 + s->size > f->len)
			return 0;
		off += 16 + s->size;
	}
	f->walk_ok = off == f->len;
	return 0;
}

static int read_options(struct dp_file *f, uint64_t off)
{
	int guard = 0;

	while (off) {
		int i = dp_find_section(f, off);
		uint64_t p, end;

		if (++guard > 64)
			return ERR("options chain loops\n");
		if (off + 16 > f->len || g16(f->map + off))
			return ERR("options offset %llu is not an OPTIONS section\n",
				   (unsigned long long)off);
		if (g16(f->map + off + 2) & 1)
			return ERR("compressed options not supported here\n");
		(void)i;
		f->nr_opt_sections++;
		p = off + 16;
		end = p + g64(f->map + off + 8);
		if (end > f->len)
			return ERR("options section runs past EOF\n");
		off = 0;
		while (p + 6 <= end) {
			struct dp_option *o;

			if (f->nr_opts == DP_MAX_OPTS)
				return ERR("too many options\n");
			o = &f->opts[f->nr_opts++];
			o->id = g16(f->map + p);
			o->len = g32(f->map + p + 2);
			o->off = p + 6;
			o->data = f->map + p + 6;
			if (o->off + o->len > end)
				return ERR("option %u runs past its section\n", o->id);
			p = o->off + o->len;
			if (o->id == 0) {
				if (o->len != 8)
					return ERR("DONE of size %u\n", o->len);
				off = g64(o->data);
				if (p != end)
					return ERR("bytes after DONE\n");
				break;
			}
		}
		if (!f->nr_opts || f->opts[f->nr_opts - 1].id != 0)
			return ERR("options section without DONE\n");
	}
	return 0;
}

static int read_buffer_option(struct dp_file *f, const struct dp_option *o)
{
	const unsigned char *p = o->data, *end = o->data + o->len;
	size_t n;
	uint32_t k, i;

	if (o->len < 8 + 2 + 8)
		return ERR("BUFFER option too short\n");
	f->buf_sec = g64(p);
	p += 8;
	n = strnlen((const char *)p, end - p);
	snprintf(f->buf_name, sizeof(f->buf_name), "%.*s", (int)n, p);
	p += n + 1;
	n = strnlen((const char *)p, end - p);
	snprintf(f->clock, sizeof(f->clock), "%.*s", (int)n, p);
	p += n + 1;
	if (p + 8 > end)
		return ERR("BUFFER option truncated\n");
	f->buf_ps = g32(p);
	k = g32(p + 4);
	p += 8;
	if (p + (size_t)k * 20 != end || k > DP_MAX_CPUS)
		return ERR("BUFFER option: %u CPU entries do not match its size\n", k);
	for (i = 0; i < k; i++, p += 20) {
		f->cpus[i].cpu = g32(p);
		f->cpus[i].off = g64(p + 4);
		f->cpus[i].size = g64(p + 12);
	}
	f->nr_cpus = (int)k;
	if (f->buf_sec + 16 > f->len || g16(f->map + f->buf_sec) != 3)
		return ERR("BUFFER option does not point at a BUFFER section\n");
	f->buf_compressed = g16(f->map + f->buf_sec + 2) & 1;
	f->have_buffer = true;
	return 0;
}

int dp_open(const char *path, struct dp_file *f)
{
	struct stat st;
	uint64_t p;
	int i, ret;

	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	if (fstat(f->fd, &st) || st.st_size < 32) {
		close(f->fd);
		return -EINVAL;
	}
	f->len = (uint64_t)st.st_size;
	f->map = mmap(NULL, f->len, PROT_READ, MAP_SHARED, f->fd, 0);
	if (f->map == MAP_FAILED) {
		close(f->fd);
		return -errno;
	}
	if (memcmp(f->map, "\x17\x08\x44tracing", 10) || memcmp(f->map + 10, "7", 2) ||
	    f->map[12] != 0) {
		dp_close(f);
		return ERR("not a little-endian v7 trace.dat\n");
	}
	f->page_size = g32(f->map + 14);
	p = 18;
	snprintf(f->comp, sizeof(f->comp), "%s", (const char *)f->map + p);
	p += strlen(f->comp) + 1;
	snprintf(f->comp_ver, sizeof(f->comp_ver), "%s", (const char *)f->map + p);
	p += strlen(f->comp_ver) + 1;
	f->opt_ptr_off = p;
	f->first_opts = g64(f->map + p);
	walk(f, p + 8);
	/* STRINGS: every STRINGS section of the walk, concatenated (A.11). */
	for (i = 0; i < f->nr_secs; i++) {
		unsigned char *b, *nb;
		size_t n;

		if (f->secs[i].id != 15 || dp_section_body(f, i, &b, &n))
			continue;
		nb = realloc(f->strings, f->strings_len + n + 1);
		if (nb) {
			f->strings = nb;
			memcpy(nb + f->strings_len, b, n);
			f->strings_len += n;
			nb[f->strings_len] = '\0';
		}
		free(b);
	}
	ret = read_options(f, f->first_opts);
	for (i = 0; !ret && i < f->nr_opts; i++)
		if (f->opts[i].id == 3 && !f->have_buffer)
			ret = read_buffer_option(f, &f->opts[i]);
	if (ret)
		dp_close(f);
	return ret;
}

void dp_close(struct dp_file *f)
{
	if (f->map && f->map != MAP_FAILED)
		munmap((void *)f->map, f->len);
	if (f->fd > 0)
		close(f->fd);
	free(f->strings);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

const char *dp_string(const struct dp_file *f, int32_t id)
{
	if (id < 0 || (size_t)id >= f->strings_len)
		return NULL;
	return (const char *)f->strings + id;
}

const struct dp_option *dp_option(const struct dp_file *f, uint16_t id)
{
	int i;

	for (i = 0; i < f->nr_opts; i++)
		if (f->opts[i].id == id)
			return &f->opts[i];
	return NULL;
}

int dp_cpu_pages(const struct dp_file *f, int idx, unsigned char **pages, size_t *len,
		 uint32_t *nr_chunks, uint32_t *nr_stored)
{
	const struct dp_cpu *c = &f->cpus[idx];
	unsigned char *out = NULL;
	size_t n = 0;
	uint64_t p;
	uint32_t k, i;

	*nr_chunks = 0;
	if (nr_stored)
		*nr_stored = 0;
	if (!f->buf_compressed) {
		if (c->off + c->size > f->len)
			return ERR("CPU %u data past EOF\n", c->cpu);
		out = malloc(c->size ? c->size : 1);
		if (!out)
			return -ENOMEM;
		memcpy(out, f->map + c->off, c->size);
		*pages = out;
		*len = c->size;
		return 0;
	}
	if (c->off + 4 > f->len)
		return ERR("CPU %u chunk count past EOF\n", c->cpu);
	k = g32(f->map + c->off);
	p = c->off + 4;
	for (i = 0; i < k; i++) {
		uint32_t cs, us;
		unsigned char *b;
		size_t r;

		if (p + 8 > f->len)
			goto bad;
		cs = g32(f->map + p);
		us = g32(f->map + p + 4);
		if (p + 8 + cs > f->len || (f->page_size && us % f->page_size))
			goto bad;
		b = realloc(out, n + us + 1);
		if (!b)
			goto bad;
		out = b;
		r = ZSTD_decompress(out + n, us, f->map + p + 8, cs);
		if (ZSTD_isError(r) || r != us)
			goto bad;
		if (nr_stored && cs >= us)
			(*nr_stored)++;
		n += us;
		p += 8 + cs;
	}
	*pages = out;
	*len = n;
	*nr_chunks = k;
	return 0;
bad:
	free(out);
	return ERR("CPU %u: chunk %u at %llu is bad\n", c->cpu, i, (unsigned long long)p);
}

int dp_count_chunks(const struct dp_file *f, uint64_t *chunks, uint64_t *stored)
{
	*chunks = 0;
	*stored = 0;
	for (int i = 0; i < f->nr_cpus; i++) {
		unsigned char *pages;
		uint32_t n, k;
		size_t len;
		int ret = dp_cpu_pages(f, i, &pages, &len, &n, &k);

		if (ret)
			return ret;
		free(pages);
		*chunks += n;
		*stored += k;
	}
	return 0;
}

static int take_text(char **dst, size_t *dlen, const unsigned char *src, uint64_t n)
{
	*dst = malloc(n + 1);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, n);
	(*dst)[n] = '\0';
	if (dlen)
		*dlen = n;
	return 0;
}

static int take_formats(struct meta_system *s, const unsigned char **pp,
			const unsigned char *end, uint32_t count)
{
	const unsigned char *p = *pp;
	uint32_t i;

	s->events = calloc(count ? count : 1, sizeof(*s->events));
	if (!s->events)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		struct meta_format *e = &s->events[i];
		uint64_t n;
		const char *nm;

		if (p + 8 > end)
			return -EINVAL;
		n = g64(p);
		p += 8;
		if (p + n > end || take_text(&e->text, &e->len, p, n))
			return -EINVAL;
		p += n;
		nm = strstr(e->text, "name: ");
		e->name = strndup(nm ? nm + 6 : "?", nm ? strcspn(nm + 6, "\n") : 1);
		s->nr_events++;
	}
	*pp = p;
	return 0;
}

int dp_meta(const struct dp_file *f, struct trace_meta *m)
{
	int i, ret = 0;

	memset(m, 0, sizeof(*m));
	m->page_size = f->page_size;
	m->clock = strdup(f->clock[0] ? f->clock : "local");
	for (i = 0; i < f->nr_opts && !ret; i++) {
		const struct dp_option *o = &f->opts[i];
		const unsigned char *p, *end;
		unsigned char *body;
		size_t len;
		int s;

		if (o->id == 4) {
			ret = take_text(&m->trace_clock, NULL, o->data, strnlen((const char *)o->data, o->len));
			continue;
		}
		if (o->id < 16 || o->id > 20)
			continue;
		s = dp_find_section(f, g64(o->data));
		if (s < 0 || dp_section_body(f, s, &body, &len))
			return -EINVAL;
		p = body;
		end = body + len;
		switch (o->id) {
		case 16:
			if (len < 12 + 8 || memcmp(p, "header_page", 12))
				ret = -EINVAL;
			if (!ret) {
				uint64_t n = g64(p + 12);

				p += 20;
				ret = take_text(&m->header_page, &m->header_page_len, p, n);
				p += n;
			}
			if (!ret && (p + 21 > end || memcmp(p, "header_event", 13)))
				ret = -EINVAL;
			if (!ret)
				ret = take_text(&m->header_event, &m->header_event_len, p + 21,
						g64(p + 13));
			break;
		case 17: {
			const unsigned char *q = body + 4;

			m->ftrace.name = strdup("ftrace");
			ret = len < 4 ? -EINVAL : take_formats(&m->ftrace, &q, end, g32(body));
			break;
		}
		case 18: {
			uint32_t ns = len < 4 ? 0 : g32(p), k;

			p += 4;
			m->systems = calloc(ns ? ns : 1, sizeof(*m->systems));
			if (!m->systems)
				ret = -ENOMEM;
			for (k = 0; k < ns && !ret; k++) {
				struct meta_system *sy = &m->systems[k];
				size_t nl = strnlen((const char *)p, end - p);
				const unsigned char *q;

				sy->name = strndup((const char *)p, nl);
				p += nl + 1;
				if (p + 4 > end) {
					ret = -EINVAL;
					break;
				}
				q = p + 4;
				ret = take_formats(sy, &q, end, g32(p));
				p = q;
				m->nr_systems++;
			}
			break;
		}
		case 19:
			ret = take_text(&m->kallsyms, &m->kallsyms_len, p + 4, g32(p));
			break;
		case 20:
			ret = take_text(&m->printk, &m->printk_len, p + 4, g32(p));
			break;
		}
		free(body);
	}
	return ret;
}
