// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat v7 reader for files that are not trusted (v7_decode.h). Every read goes
 * through pread with its bounds checked first; sizes are capped before anything is
 * allocated; loops are bounded by the file size or a constant.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compress.h"
#include "ftrace_page.h"
#include "util/fileio.h"
#include "v7_decode.h"

#define MAX_SECTIONS		64	/* before the BUFFER section */
#define MAX_OPT_CHAIN		16
#define MAX_OPTIONS_SIZE	(64U << 20)

static int fail(struct v7_file *f, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
	return err;
}

/* @len bytes at @off, which must lie inside the file. */
static int rd(struct v7_file *f, void *buf, size_t len, uint64_t off)
{
	if (off > f->size || len > f->size - off)
		return -ERANGE;
	return fio_pread_all(f->fd, buf, len, off);
}

struct sec_hdr {
	uint16_t	id;
	uint16_t	flags;
	int32_t		desc;
	uint64_t	size;
};

static int read_sec_hdr(struct v7_file *f, uint64_t off, struct sec_hdr *h)
{
	uint8_t b[V7_SEC_HDR_SIZE];

	if (rd(f, b, sizeof(b), off))
		return -EINVAL;
	memcpy(&h->id, b, 2);
	memcpy(&h->flags, b + 2, 2);
	memcpy(&h->desc, b + 4, 4);
	memcpy(&h->size, b + 8, 8);
	return 0;
}

/* Initial header (A.2). */
static int parse_header(struct v7_file *f)
{
	uint8_t h[128];
	size_t n1, n2;

	if (f->size < 32 || rd(f, h, f->size < sizeof(h) ? f->size : sizeof(h), 0))
		return fail(f, -ENODATA, "%llu bytes, no complete header: nothing to save",
			    (unsigned long long)f->size);
	if (memcmp(h, V7_MAGIC, 10) || memcmp(h + 10, "7", 2))
		return fail(f, -EINVAL, "not a trace.dat version 7");
	if (h[12] != 0)
		return fail(f, -ENOTSUP, "big-endian files are not handled");
	memcpy(&f->page_size, h + 14, 4);
	n1 = strnlen((char *)h + 18, 32) + 1;
	n2 = n1 <= 32 ? strnlen((char *)h + 18 + n1, 32) + 1 : 33;
	if (n1 > 32 || n2 > 32 || f->page_size < 64 || f->page_size > (1U << 27) ||
	    (f->page_size & (f->page_size - 1)) || 18 + n1 + n2 + 8 > f->size)
		return fail(f, -EINVAL, "bad or cut initial header");
	f->zstd = !strcmp((char *)h + 18, "zstd");
	if (!f->zstd && strcmp((char *)h + 18, "none"))
		return fail(f, -ENOTSUP, "compression '%s' is not handled", (char *)h + 18);
	f->opt_ptr_at = 18 + n1 + n2;
	memcpy(&f->opt_off, h + f->opt_ptr_at, 8);
	return 0;
}

/* Sections from the start up to the BUFFER section (A.3), and the layout record. */
static int walk_sections(struct v7_file *f)
{
	uint64_t off = f->opt_ptr_at + 8;
	struct sec_hdr h;
	uint8_t lay[V7_LAYOUT_SIZE];

	for (int i = 0; i < MAX_SECTIONS && off < f->size; i++) {
		if (read_sec_hdr(f, off, &h))
			break;
		if (h.id == V7_OPT_BUFFER) {
			f->buf_sec = off;
			f->buf_zstd = h.flags & V7_SEC_FL_COMPRESS;
			f->buf_desc = h.desc;
			f->buf_end = h.size <= f->size - off - V7_SEC_HDR_SIZE ?
				     off + V7_SEC_HDR_SIZE + h.size : f->size;
			f->has_layout = !rd(f, lay, sizeof(lay), off + V7_SEC_HDR_SIZE) &&
					!v7_get_layout(lay, sizeof(lay), &f->layout) &&
					f->layout.page_size == f->page_size &&
					!!(f->layout.flags & V7_LAYOUT_ZSTD) == f->buf_zstd &&
					f->layout.data_base >= off + V7_SEC_HDR_SIZE + sizeof(lay);
			return 0;
		}
		/* trace-cmd also puts OPTIONS and STRINGS sections before the data */
		if ((h.id != V7_OPT_DONE && h.id != V7_SEC_STRINGS &&
		     (h.id < V7_SEC_HEADER_INFO || h.id > V7_SEC_CMDLINES)) ||
		    h.size > f->size - off - V7_SEC_HDR_SIZE)
			break;
		if (h.id >= V7_SEC_HEADER_INFO && !f->sec[h.id]) {
			f->sec[h.id] = off;
			f->sec_desc[h.id] = h.desc;
		}
		off += V7_SEC_HDR_SIZE + h.size;
	}
	return fail(f, -EINVAL, "no BUFFER section after the metadata (cut before any data?)");
}

int v7d_open(struct v7_file *f, int fd)
{
	uint64_t size;
	int ret;

	memset(f, 0, sizeof(*f));
	f->fd = fd;
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	if ((int64_t)size < 0)
		return fail(f, -errno, "%s", strerror(errno));
	f->size = size;
	ret = parse_header(f);
	ret = ret ?: walk_sections(f);
	if (!ret && f->zstd) {
		f->z = codec_dctx_new();
		if (!f->z)
			ret = fail(f, -ENOMEM, "out of memory");
	}
	return ret;
}

void v7d_close(struct v7_file *f)
{
	codec_dctx_free(f->z);
	f->z = NULL;
}

/*
 * A.5 block: u32 compressed size, u32 size, one frame; into @out (grown). *@stored (if
 * not NULL): the frame is one a sync stored uncompressed (codec_frame_stored()).
 */
static int read_block(struct v7_file *f, uint64_t off, uint64_t avail, uint32_t max,
		      struct v7_buf *out, bool *stored)
{
	uint32_t c, u;
	uint8_t h[8];
	char *in;
	ssize_t got;
	int ret;

	if (!f->z || avail < 8 || rd(f, h, 8, off))
		return fail(f, -EINVAL, "compressed block at %llu cut", (unsigned long long)off);
	memcpy(&c, h, 4);
	memcpy(&u, h + 4, 4);
	if (c > avail - 8 || u > max)
		return fail(f, -EINVAL, "compressed block at %llu: sizes %u/%u do not fit",
			    (unsigned long long)off, c, u);
	in = malloc(c ? c : 1);
	if (!in)
		return fail(f, -ENOMEM, "out of memory");
	ret = rd(f, in, c, off + 8);
	if (!ret)
		ret = v7_buf_reserve(out, u);
	got = ret ? -EIO : codec_decompress(f->z, in, c, out->p + out->len, u);
	if (stored)
		*stored = got >= 0 && codec_frame_stored(in, c, u);
	free(in);
	if (got < 0 || (uint32_t)got != u)
		return fail(f, -EINVAL, "compressed block at %llu does not decompress",
			    (unsigned long long)off);
	out->len += u;
	return 0;
}

int v7d_read_section(struct v7_file *f, uint64_t off, uint16_t id, struct v7_buf *body,
		     int32_t *desc)
{
	struct sec_hdr h;
	int ret;

	if (!off || read_sec_hdr(f, off, &h) || h.id != id ||
	    h.size > f->size - off - V7_SEC_HDR_SIZE)
		return fail(f, -EINVAL, "no section %u at %llu", id, (unsigned long long)off);
	if (desc)
		*desc = h.desc;
	if (h.flags & V7_SEC_FL_COMPRESS)
		return read_block(f, off + V7_SEC_HDR_SIZE, h.size, V7D_MAX_SECTION, body, NULL);
	if (h.size > V7D_MAX_SECTION)
		return fail(f, -EFBIG, "section %u at %llu is too large", id,
			    (unsigned long long)off);
	ret = v7_buf_reserve(body, h.size);
	ret = ret ?: rd(f, body->p + body->len, h.size, off + V7_SEC_HDR_SIZE);
	if (ret)
		return fail(f, -EIO, "section %u at %llu unreadable", id, (unsigned long long)off);
	body->len += h.size;
	return 0;
}

int v7d_options(struct v7_file *f, uint64_t off,
		int (*fn)(const struct v7d_option *o, void *arg), void *arg)
{
	for (int depth = 0; depth < MAX_OPT_CHAIN; depth++) {
		struct v7_buf b = { 0 };
		uint64_t next = 0, p = 0;
		int ret, done = 0;

		ret = v7d_read_section(f, off, V7_OPT_DONE, &b, NULL);
		if (!ret && b.len > MAX_OPTIONS_SIZE)
			ret = fail(f, -EFBIG, "options section too large");
		while (!ret && !done && p + 6 <= b.len) {
			struct v7d_option o;

			memcpy(&o.id, b.p + p, 2);
			memcpy(&o.len, b.p + p + 2, 4);
			p += 6;
			if (o.len > b.len - p) {
				ret = fail(f, -EINVAL, "option %u runs past its section", o.id);
				break;
			}
			o.data = (const uint8_t *)b.p + p;
			p += o.len;
			if (o.id == V7_OPT_DONE) {
				if (o.len == 8)
					memcpy(&next, o.data, 8);
				done = 1;
			} else {
				ret = fn(&o, arg);
			}
		}
		v7_buf_free(&b);
		if (ret)
			return ret;
		if (!done)
			return fail(f, -EINVAL, "options at %llu end without DONE",
				    (unsigned long long)off);
		if (!next)
			return 0;
		off = next;
	}
	return fail(f, -ELOOP, "more than %d chained options sections", MAX_OPT_CHAIN);
}

int v7d_buffer_option(struct v7_file *f, const struct v7d_option *o, struct v7d_buffer *b)
{
	const uint8_t *d = o->data;
	size_t end = o->len, q, nl, cl;

	memset(b, 0, sizeof(*b));
	if (end < 8 + 2 + 8)
		return fail(f, -EINVAL, "BUFFER option too short");
	memcpy(&b->sec_off, d, 8);
	nl = strnlen((const char *)d + 8, end - 8);
	if (8 + nl + 1 >= end || nl >= sizeof(b->name))
		return fail(f, -EINVAL, "BUFFER option: bad name");
	memcpy(b->name, d + 8, nl);
	q = 8 + nl + 1;
	cl = strnlen((const char *)d + q, end - q);
	if (q + cl + 1 + 8 > end || cl >= sizeof(b->clock))
		return fail(f, -EINVAL, "BUFFER option: bad clock");
	memcpy(b->clock, d + q, cl);
	q += cl + 1;
	memcpy(&b->page_size, d + q, 4);
	memcpy(&b->n, d + q + 4, 4);
	q += 8;
	if (b->n > 4096 || (uint64_t)b->n * 20 > end - q)
		return fail(f, -EINVAL, "BUFFER option: %u CPUs do not fit", b->n);
	b->cpus = calloc(b->n ? b->n : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return fail(f, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < b->n; i++, q += 20) {
		memcpy(&b->cpus[i].cpu, d + q, 4);
		memcpy(&b->cpus[i].off, d + q + 4, 8);
		memcpy(&b->cpus[i].size, d + q + 12, 8);
	}
	return 0;
}

long v7d_page_events(const void *page, uint32_t page_size)
{
	uint32_t size = ftp_page_len(page), off = 0;
	__u64 ts = ftp_page_ts(page);
	struct ftp_event ev;
	long n = 0;

	if (size > page_size - FTP_HDR_SIZE)
		return -1;
	while (off < size) {
		off = ftp_next(ftp_page_data(page), size, off, &ts, &ev);
		if (!off)
			return -1;
		n += ev.type_len <= FTP_TYPE_DATA_MAX;
	}
	return n;
}

/* Pages of one decompressed chunk (or raw run): all readable, or the chunk is not. */
static int take_pages(struct v7_file *f, const char *p, uint64_t len,
		      struct v7d_stream *st, int (*page_fn)(const void *, void *), void *arg)
{
	uint64_t events = 0;

	for (uint64_t o = 0; o < len; o += f->page_size) {
		long n = v7d_page_events(p + o, f->page_size);

		if (n < 0 || !ftp_page_ts(p + o))
			return -EINVAL;
		events += (uint64_t)n;
	}
	for (uint64_t o = 0; page_fn && o < len; o += f->page_size) {
		int ret = page_fn(p + o, arg);

		if (ret)
			return ret;
	}
	st->pages += len / f->page_size;
	st->events += events;
	return 0;
}

/*
 * The compressed chunk at @pos, before @limit, into @b: its stored size (header
 * included) in @len, or 0 when not even its header fits; -EINVAL when it does not
 * decompress to pages.
 */
static int read_chunk(struct v7_file *f, uint64_t pos, uint64_t limit, struct v7_buf *b,
		      bool *stored, uint64_t *len)
{
	uint32_t c;

	*len = 0;
	b->len = 0;
	if (limit - pos < 8 || rd(f, &c, 4, pos) || c > limit - pos - 8)
		return -EINVAL;
	*len = 8 + (uint64_t)c;
	if (read_block(f, pos, limit - pos, V7D_MAX_CHUNK, b, stored) || !b->len ||
	    b->len % f->page_size)
		return -EINVAL;
	return 0;
}

/* Whether the chunk (or raw page) at @pos is whole and holds readable pages. */
static bool whole_at(struct v7_file *f, uint64_t pos, uint64_t limit, bool compressed)
{
	struct v7d_stream st = { 0 };
	struct v7_buf b = { 0 };
	uint64_t len;
	bool stored, ok;

	if (compressed)
		ok = !read_chunk(f, pos, limit, &b, &stored, &len) &&
		     !take_pages(f, b.p, b.len, &st, NULL, NULL);
	else
		ok = pos <= limit && f->page_size <= limit - pos &&
		     !v7_buf_reserve(&b, f->page_size) && !rd(f, b.p, f->page_size, pos) &&
		     !take_pages(f, b.p, f->page_size, &st, NULL, NULL);
	v7_buf_free(&b);
	return ok;
}

int v7d_stream(struct v7_file *f, uint64_t off, uint64_t limit, bool compressed,
	       uint32_t max_chunks, struct v7d_stream *st,
	       int (*page_fn)(const void *page, void *arg), void *arg)
{
	struct v7_buf b = { 0 };
	uint64_t pos, len;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (limit > f->size)
		limit = f->size;
	if (!compressed) {
		ret = v7_buf_reserve(&b, f->page_size);
		for (pos = off; !ret && pos <= limit && f->page_size <= limit - pos;
		     pos += f->page_size) {
			if (st->chunks >= max_chunks || rd(f, b.p, f->page_size, pos))
				break;
			ret = take_pages(f, b.p, f->page_size, st, page_fn, arg);
			if (ret == -EINVAL) {
				ret = 0;
				/* a damaged page amid good ones: the stream goes on after it */
				if (!whole_at(f, pos + f->page_size, limit, false))
					break;
				st->skipped++;
			} else {
				st->chunks++;
			}
			st->bytes += f->page_size;
		}
		v7_buf_free(&b);
		return ret;
	}
	if (off > limit || limit - off < 4 || rd(f, &st->stored, 4, off))
		return 0;
	for (pos = off + 4; st->chunks < max_chunks && pos < limit; pos += len) {
		bool stored;

		ret = read_chunk(f, pos, limit, &b, &stored, &len);
		if (!ret)
			ret = take_pages(f, b.p, b.len, st, page_fn, arg);
		if (ret == -EINVAL) {
			ret = 0;
			/*
			 * A damaged chunk whose size still leads to a whole one (a bad
			 * sector, a flipped bit) is skipped; else the stream ends here, as
			 * where a crash cut it.
			 */
			if (!len || !whole_at(f, pos + len, limit, true))
				break;
			st->skipped++;
			st->bytes += len;
			continue;
		}
		if (ret)
			break;
		st->chunks++;
		st->uncompressed += stored;
		st->bytes += len;
	}
	v7_buf_free(&b);
	return ret;
}

/* Cursor over a section body. */
struct cur {
	const char	*p;
	size_t		len, at;
	int		bad;
};

static uint64_t cur_u(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || n > c->len - c->at) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p + c->at, n);
	c->at += n;
	return v;
}

/* @n bytes, copied with a NUL after them. */
static char *cur_bytes(struct cur *c, uint64_t n)
{
	char *s;

	if (c->bad || n > c->len - c->at) {
		c->bad = 1;
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		c->bad = 1;
		return NULL;
	}
	memcpy(s, c->p + c->at, n);
	s[n] = '\0';
	c->at += n;
	return s;
}

static char *cur_str(struct cur *c)
{
	size_t n;
	char *s;

	if (c->bad || c->at >= c->len) {
		c->bad = 1;
		return NULL;
	}
	n = strnlen(c->p + c->at, c->len - c->at);
	if (n == c->len - c->at) {
		c->bad = 1;
		return NULL;
	}
	s = cur_bytes(c, n);
	if (s)
		c->at++;	/* its NUL */
	return s;
}

/*
 * A u32 count of u64-length format files (A.6) into @s, taken from *@left: a few
 * kilobytes of compressed section must not cost gigabytes in allocations.
 */
static int cur_formats(struct cur *c, struct meta_system *s, uint32_t *left)
{
	uint64_t n = cur_u(c, 4);

	if (n > c->len / 8 || n > *left)
		c->bad = 1;
	else
		*left -= (uint32_t)n;
	for (uint64_t i = 0; !c->bad && i < n; i++) {
		uint64_t len = cur_u(c, 8);
		char *text = cur_bytes(c, len);

		if (text && meta_system_add(s, "", text, (size_t)len))
			c->bad = 1;
		free(text);
	}
	return c->bad ? -EINVAL : 0;
}

static int meta_section(struct v7_file *f, uint16_t id, struct v7_buf *b, struct cur *c)
{
	int ret;

	b->len = 0;
	if (!f->sec[id])
		return fail(f, -EINVAL, "no %s section", v7_section_desc(id));
	ret = v7d_read_section(f, f->sec[id], id, b, NULL);
	c->p = b->p;
	c->len = b->len;
	c->at = 0;
	c->bad = 0;
	return ret;
}

int v7d_meta(struct v7_file *f, struct trace_meta *m)
{
	uint32_t formats_left = V7D_MAX_FORMATS;
	struct v7_buf b = { 0 };
	struct cur c;
	int ret;

	memset(m, 0, sizeof(*m));
	m->page_size = f->page_size;
	ret = meta_section(f, V7_SEC_HEADER_INFO, &b, &c);
	if (!ret) {
		free(cur_bytes(&c, 12));	/* "header_page\0" */
		m->header_page_len = cur_u(&c, 8);
		m->header_page = cur_bytes(&c, m->header_page_len);
		free(cur_bytes(&c, 13));	/* "header_event\0" */
		m->header_event_len = cur_u(&c, 8);
		m->header_event = cur_bytes(&c, m->header_event_len);
		if (c.bad)
			ret = fail(f, -EINVAL, "bad headers section");
	}
	ret = ret ?: meta_section(f, V7_SEC_FTRACE_EVENTS, &b, &c);
	if (!ret && cur_formats(&c, &m->ftrace, &formats_left))
		ret = fail(f, -EINVAL, "bad ftrace events section");
	ret = ret ?: meta_section(f, V7_SEC_EVENT_FORMATS, &b, &c);
	if (!ret) {
		uint64_t n = cur_u(&c, 4);

		/* systems are capped as formats are */
		m->systems = n <= c.len / 8 && n <= formats_left ? calloc(n ? n : 1, sizeof(*m->systems)) : NULL;
		if (!m->systems)
			c.bad = 1;
		for (uint64_t i = 0; !c.bad && i < n; i++) {
			char *name = cur_str(&c);

			if (!name)
				break;
			m->systems[i].name = name;
			m->nr_systems++;
			cur_formats(&c, &m->systems[i], &formats_left);
		}
		if (c.bad)
			ret = fail(f, -EINVAL, "bad events format section");
	}
	/* kallsyms and printk may be missing or empty: the events still read. */
	if (!ret && !meta_section(f, V7_SEC_KALLSYMS, &b, &c)) {
		m->kallsyms_len = cur_u(&c, 4);
		m->kallsyms = cur_bytes(&c, m->kallsyms_len);
		if (!m->kallsyms)
			m->kallsyms_len = 0;
	}
	if (!ret && !meta_section(f, V7_SEC_PRINTK, &b, &c)) {
		m->printk_len = cur_u(&c, 4);
		m->printk = cur_bytes(&c, m->printk_len);
		if (!m->printk)
			m->printk_len = 0;
	}
	v7_buf_free(&b);
	if (ret)
		meta_free(m);
	return ret;
}
