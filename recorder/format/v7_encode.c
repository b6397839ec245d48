// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat v7 encoders (v7_encode.h): every byte layout of formats.md A.2-A.11 that
 * the recorder writes is built here, into memory, and nowhere else.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <sys/types.h>

#include "compress.h"
#include "v7_encode.h"

int v7_buf_reserve(struct v7_buf *b, size_t len)
{
	/* Never NULL after success, even for 0 bytes: callers do p + len arithmetic. */
	if (b->len + len > b->cap || !b->p) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	return 0;
}

int v7_buf_put(struct v7_buf *b, const void *data, size_t len)
{
	int ret = v7_buf_reserve(b, len);

	if (ret)
		return ret;
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

int v7_buf_u16(struct v7_buf *b, uint16_t v)
{
	return v7_buf_put(b, &v, sizeof(v));
}

int v7_buf_u32(struct v7_buf *b, uint32_t v)
{
	return v7_buf_put(b, &v, sizeof(v));
}

int v7_buf_u64(struct v7_buf *b, uint64_t v)
{
	return v7_buf_put(b, &v, sizeof(v));
}

int v7_buf_str(struct v7_buf *b, const char *s)
{
	return v7_buf_put(b, s, strlen(s) + 1);
}

void v7_buf_free(struct v7_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int32_t v7_string_id(struct v7_buf *strs, const char *s)
{
	size_t off = 0;

	while (off < strs->len) {
		if (!strcmp(strs->p + off, s))
			return (int32_t)off;
		off += strlen(strs->p + off) + 1;
	}
	if (v7_buf_str(strs, s))
		return -1;
	return (int32_t)off;
}

int v7_put_section(struct v7_buf *out, struct v7_buf *strs, uint16_t id, const char *desc,
		   const void *body, size_t len, const struct codec *codec,
		   struct codec_ctx *ctx, uint64_t sec_end)
{
	int32_t sid = strs ? v7_string_id(strs, desc) : -1;
	uint16_t flags = codec ? V7_SEC_FL_COMPRESS : 0;
	size_t hdr = out->len;
	uint64_t size;
	int ret;

	if (strs && sid < 0)
		return -ENOMEM;
	ret = v7_buf_u16(out, id);
	ret = ret ?: v7_buf_u16(out, flags);
	ret = ret ?: v7_buf_u32(out, (uint32_t)sid);
	/* The size is patched in once the body is there (A.3). */
	ret = ret ?: v7_buf_u64(out, 0);
	if (ret)
		return ret;
	if (codec) {
		size_t bound = codec_bound(codec, len);
		ssize_t c;

		if (len > UINT32_MAX)
			return -EFBIG;
		ret = v7_buf_reserve(out, 8 + bound);
		if (ret)
			return ret;
		c = codec_compress(ctx, body, len, out->p + out->len + 8, bound);
		if (c < 0)
			return (int)c;
		/* A.5: compressed size, uncompressed size, then the frame. */
		v7_buf_u32(out, (uint32_t)c);
		v7_buf_u32(out, (uint32_t)len);
		out->len += (size_t)c;
	} else {
		ret = v7_buf_put(out, body, len);
		if (ret)
			return ret;
	}
	size = out->len - hdr - V7_SEC_HDR_SIZE;
	if (sec_end)
		size = sec_end - hdr - V7_SEC_HDR_SIZE;
	memcpy(out->p + hdr + 8, &size, sizeof(size));
	return 0;
}

int v7_put_option(struct v7_buf *b, uint16_t id, const void *data, uint32_t len)
{
	int ret = v7_buf_u16(b, id);

	ret = ret ?: v7_buf_u32(b, len);
	return ret ?: v7_buf_put(b, data, len);
}

int v7_put_buffer_option(struct v7_buf *b, uint64_t sec_off, const char *name,
			 const char *clock, uint32_t page_size,
			 const struct v7_cpu_extent *cpus, uint32_t n)
{
	struct v7_buf d = { 0 };
	int ret;

	ret = v7_buf_u64(&d, sec_off);
	ret = ret ?: v7_buf_str(&d, name);
	ret = ret ?: v7_buf_str(&d, clock);
	ret = ret ?: v7_buf_u32(&d, page_size);
	ret = ret ?: v7_buf_u32(&d, n);
	for (uint32_t i = 0; !ret && i < n; i++) {
		ret = v7_buf_u32(&d, cpus[i].cpu);
		ret = ret ?: v7_buf_u64(&d, cpus[i].off);
		ret = ret ?: v7_buf_u64(&d, cpus[i].size);
	}
	ret = ret ?: v7_put_option(b, V7_OPT_BUFFER, d.p, (uint32_t)d.len);
	v7_buf_free(&d);
	return ret;
}

int v7_put_initial_header(struct v7_buf *b, uint32_t page_size, const struct codec *codec,
			  uint64_t *opt_ptr)
{
	uint16_t one = 1;
	uint8_t endian = *(uint8_t *)&one ? 0 : 1;
	uint8_t lsize = sizeof(long);
	int ret;

	ret = v7_buf_put(b, V7_MAGIC, 10);
	ret = ret ?: v7_buf_put(b, "7", 2);
	ret = ret ?: v7_buf_put(b, &endian, 1);
	ret = ret ?: v7_buf_put(b, &lsize, 1);
	ret = ret ?: v7_buf_u32(b, page_size);
	ret = ret ?: v7_buf_str(b, codec_name(codec));
	ret = ret ?: v7_buf_str(b, codec_version(codec));
	if (ret)
		return ret;
	*opt_ptr = b->len;
	/* The options offset, set by the first tail. */
	return v7_buf_u64(b, 0);
}

static int put_format(struct v7_buf *b, const struct meta_format *f)
{
	int ret = v7_buf_u64(b, f->len);

	return ret ?: v7_buf_put(b, f->text, f->len);
}

static int put_headers(struct v7_buf *b, const struct trace_meta *m)
{
	int ret;

	ret = v7_buf_put(b, "header_page", 12);
	ret = ret ?: v7_buf_u64(b, m->header_page_len);
	ret = ret ?: v7_buf_put(b, m->header_page, m->header_page_len);
	ret = ret ?: v7_buf_put(b, "header_event", 13);
	ret = ret ?: v7_buf_u64(b, m->header_event_len);
	return ret ?: v7_buf_put(b, m->header_event, m->header_event_len);
}

static int put_ftrace(struct v7_buf *b, const struct trace_meta *m)
{
	int i, ret = v7_buf_u32(b, (uint32_t)m->ftrace.nr_events);

	for (i = 0; !ret && i < m->ftrace.nr_events; i++)
		ret = put_format(b, &m->ftrace.events[i]);
	return ret;
}

static int put_formats(struct v7_buf *b, const struct trace_meta *m)
{
	int i, j, ret = v7_buf_u32(b, (uint32_t)m->nr_systems);

	for (i = 0; !ret && i < m->nr_systems; i++) {
		const struct meta_system *s = &m->systems[i];

		ret = v7_buf_str(b, s->name);
		ret = ret ?: v7_buf_u32(b, (uint32_t)s->nr_events);
		for (j = 0; !ret && j < s->nr_events; j++)
			ret = put_format(b, &s->events[j]);
	}
	return ret;
}

static int put_text32(struct v7_buf *b, const char *text, size_t len)
{
	int ret;

	if (len > UINT32_MAX)
		return -EFBIG;
	ret = v7_buf_u32(b, text ? (uint32_t)len : 0);
	return ret ?: v7_buf_put(b, text, text ? len : 0);
}

int v7_put_meta_body(struct v7_buf *b, uint16_t id, const struct trace_meta *m)
{
	switch (id) {
	case V7_SEC_HEADER_INFO:
		return put_headers(b, m);
	case V7_SEC_FTRACE_EVENTS:
		return put_ftrace(b, m);
	case V7_SEC_EVENT_FORMATS:
		return put_formats(b, m);
	case V7_SEC_KALLSYMS:
		return put_text32(b, m->kallsyms, m->kallsyms_len);
	case V7_SEC_PRINTK:
		return put_text32(b, m->printk, m->printk_len);
	default:
		return -EINVAL;
	}
}

int v7_put_cmdlines_body(struct v7_buf *b, const char *text, size_t len)
{
	int ret;

	if (!text)
		len = 0;
	ret = v7_buf_u64(b, len);
	return ret ?: v7_buf_put(b, text, len);
}

const char *v7_section_desc(uint16_t id)
{
	static const char *const desc[] = {
		[V7_SEC_HEADER_INFO - V7_SEC_HEADER_INFO]	= "headers",
		[V7_SEC_FTRACE_EVENTS - V7_SEC_HEADER_INFO]	= "ftrace events",
		[V7_SEC_EVENT_FORMATS - V7_SEC_HEADER_INFO]	= "events format",
		[V7_SEC_KALLSYMS - V7_SEC_HEADER_INFO]		= "kallsyms",
		[V7_SEC_PRINTK - V7_SEC_HEADER_INFO]		= "printk",
		[V7_SEC_CMDLINES - V7_SEC_HEADER_INFO]		= "command lines",
	};

	if (id < V7_SEC_HEADER_INFO || id > V7_SEC_CMDLINES)
		return NULL;
	return desc[id - V7_SEC_HEADER_INFO];
}

int v7_put_layout(struct v7_buf *b, const struct v7_layout *l)
{
	size_t start = b->len;
	int ret;

	ret = v7_buf_put(b, V7_LAYOUT_MAGIC, 8);
	ret = ret ?: v7_buf_u32(b, V7_LAYOUT_VERSION);
	ret = ret ?: v7_buf_u32(b, V7_LAYOUT_SIZE);
	ret = ret ?: v7_buf_u64(b, l->data_base);
	ret = ret ?: v7_buf_u64(b, l->region_bytes);
	ret = ret ?: v7_buf_u64(b, l->tail_base);
	ret = ret ?: v7_buf_u64(b, l->slot_size);
	ret = ret ?: v7_buf_u32(b, l->ncpus);
	ret = ret ?: v7_buf_u32(b, l->page_size);
	ret = ret ?: v7_buf_u32(b, l->flags);
	ret = ret ?: v7_buf_reserve(b, V7_LAYOUT_SIZE - (b->len - start));
	if (ret)
		return ret;
	memset(b->p + b->len, 0, V7_LAYOUT_SIZE - (b->len - start));
	b->len = start + V7_LAYOUT_SIZE;
	return 0;
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

int v7_get_layout(const void *p, size_t len, struct v7_layout *l)
{
	const uint8_t *b = p;

	if (len < V7_LAYOUT_SIZE || memcmp(b, V7_LAYOUT_MAGIC, 8) ||
	    get_u32(b + 8) != V7_LAYOUT_VERSION || get_u32(b + 12) < 60)
		return -EINVAL;
	l->data_base = get_u64(b + 16);
	l->region_bytes = get_u64(b + 24);
	l->tail_base = get_u64(b + 32);
	l->slot_size = get_u64(b + 40);
	l->ncpus = get_u32(b + 48);
	l->page_size = get_u32(b + 52);
	l->flags = get_u32(b + 56);
	/* Nothing from a file is trusted: sizes must fit together without overflow. */
	if (!l->ncpus || l->ncpus > 4096 || l->page_size < 64 || l->page_size > (1U << 27) ||
	    (l->page_size & (l->page_size - 1)) || !l->region_bytes ||
	    l->region_bytes > (1ULL << 44) || l->data_base > (1ULL << 44) ||
	    !l->slot_size || l->slot_size > (1ULL << 30) ||
	    l->tail_base != l->data_base + (uint64_t)l->ncpus * l->region_bytes)
		return -EINVAL;
	return 0;
}
