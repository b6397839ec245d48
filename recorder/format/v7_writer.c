// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming trace.dat version 7 writer (format: ../shared/docs/formats.md A).
 *
 * File layout while recording:
 *
 *   [initial header][HEADER_INFO][FTRACE_EVENTS][EVENT_FORMATS][KALLSYMS][PRINTK]
 *   [BUFFER section header] pad to A
 *   region 0 (CPU 0) | region 1 (CPU 1) | ... | region n-1    each region_bytes, sparse
 *   T:   low tail slot   [OPTIONS][STRINGS, zero padded up to T + S]
 *   T+S: high tail slot  [OPTIONS][STRINGS]
 *
 * A = max(page size, fs block size): regions start page aligned (uncompressed data
 * must, formats.md A.9) and block aligned (FALLOC_FL_COLLAPSE_RANGE needs it).
 * Compressed, a region holds the u32 chunk count and the chunks (A.5); raw, the pages.
 * Data are only ever appended inside a region, never rewritten.
 *
 * Here: creating a file, admitting and appending pages (raw, or compressed in chunks
 * of chunk_pages), the options a capture adds. v7_sync.c makes what was appended
 * readable (the sync/tail protocol, kill -9 and power-cut safe); v7_finish.c compacts
 * the file once the capture ends; the byte layouts are v7_encode.c's.
 *
 * Not thread-safe: one thread drives a writer. The append path does no allocation:
 * each CPU has one chunk buffer (allocated with its first pages), the writer one
 * compression context and output buffer. With a pool (chunk_pool.h) full chunks are
 * compressed by its workers and come back, in order, through v7_chunk_done() on the
 * driving thread: only that thread ever writes the file. The room a chunk in the pool
 * may take is promised at submission, so admission stays exact.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftrace_page.h"
#include "chunk_pool.h"
#include "compress.h"
#include "util/log.h"
#include "util/fileio.h"
#include "v7_writer_local.h"

/* Fails the writer for good: the file keeps its last synced state. */
int v7w_fail(struct v7_writer *w, int err, const char *what)
{
	if (!w->err) {
		w->err = err;
		log_err("trace.dat writer: %s: %s", what, strerror(-err));
	}
	return err;
}

/* Fault injection for tests: the file updates a kill -9 would not have let happen. */
int v7w_injected(struct v7_writer *w)
{
	if (w->fail_after < 0 || w->fail_after-- > 0)
		return 0;
	return v7w_fail(w, -EIO, "injected failure");
}

int v7w_truncate(struct v7_writer *w, uint64_t len)
{
	if (v7w_injected(w))
		return w->err;
	if (ftruncate(w->fd, (off_t)len))
		return v7w_fail(w, -errno, "truncate");
	return 0;
}

/*
 * With @durable, what was written reaches the disk before what comes next refers
 * to it: chunks before the tail that lists them, the tail before the header flip.
 * Without it the order only holds for a killed process (the page cache survives).
 */
int v7w_barrier(struct v7_writer *w)
{
	if (!w->durable || w->err)
		return w->err;
	if (fdatasync(w->fd))
		return v7w_fail(w, -errno, "fdatasync");
	return 0;
}

/* The one sink every byte of the file goes through. */
int v7w_write(struct v7_writer *w, const void *data, size_t len, uint64_t off)
{
	const char *p = data;

	if (w->err)
		return w->err;
	if (v7w_injected(w))
		return w->err;
	while (len) {
		ssize_t r = pwrite(w->fd, p, len, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return v7w_fail(w, -errno, "write");
		}
		if (r == 0)
			return v7w_fail(w, -EIO, "write");
		p += r;
		len -= (size_t)r;
		off += (uint64_t)r;
		w->file_bytes += (uint64_t)r;
	}
	return 0;
}

int v7w_patch_u64(struct v7_writer *w, uint64_t off, uint64_t v)
{
	return v7w_write(w, &v, sizeof(v), off);
}

int v7w_check_state(const struct v7_writer *w, enum v7_state want, const char *fn)
{
	if (w->err)
		return w->err;
	if (w->state != want) {
		log_err("%s: unexpected state %d", fn, w->state);
		return -EINVAL;
	}
	return 0;
}

/* Writes a section at @off; returns its end offset in *@end. */
int v7w_write_section(struct v7_writer *w, uint64_t off, uint16_t id,
			    const char *desc, const struct v7_buf *body, uint64_t *end)
{
	struct v7_buf out = { 0 };
	int ret;

	ret = v7_put_section(&out, &w->strs, id, desc, body->p, body->len,
			     w->compressed ? w->codec : NULL, w->cctx, 0);
	if (!ret)
		ret = v7w_write(w, out.p, out.len, off);
	if (!ret)
		*end = off + out.len;
	v7_buf_free(&out);
	return ret;
}

static int v7_write_meta_section(struct v7_writer *w, uint64_t *off, uint16_t id,
				 const struct trace_meta *m)
{
	struct v7_buf body = { 0 };
	int ret = v7_put_meta_body(&body, id, m);

	if (!ret) {
		w->sec_off[id - V7_SEC_HEADER_INFO] = *off;
		ret = v7w_write_section(w, *off, id, v7_section_desc(id), &body, off);
	}
	v7_buf_free(&body);
	return ret;
}

/* Initial header, formats.md A.2 (byte exact). */
static int v7_write_initial(struct v7_writer *w, uint64_t *off)
{
	struct v7_buf b = { 0 };
	int ret = v7_put_initial_header(&b, w->ps, w->codec, &w->opt_ptr);

	if (!ret)
		ret = v7w_write(w, b.p, b.len, 0);
	if (!ret)
		*off = b.len;
	v7_buf_free(&b);
	return ret;
}

/* Worst-case file bytes of one chunk of @u uncompressed bytes. */
static uint64_t v7_chunk_worst(const struct v7_writer *w, size_t u)
{
	return 8 + codec_bound(w->codec, u);
}

/* Appends a compressed chunk: @buf holds 8 bytes of room, then the @clen-byte frame. */
static int v7_put_chunk(struct v7_writer *w, struct v7_cpu *c, char *buf, size_t clen,
			uint32_t u)
{
	uint32_t c32 = (uint32_t)clen;
	int ret;

	v7w_chunk_header(buf, c32, u);
	if (c->used + 8 + c32 > w->region_bytes)	/* admission control prevents it */
		return v7w_fail(w, -EOVERFLOW, "region overflow");
	ret = v7w_write(w, buf, 8 + c32, c->region + c->used);
	if (ret)
		return ret;
	c->used += 8 + c32;
	c->nr_chunks++;
	c->put_raw += u;
	/* framed as they were for a sync (chunk_pool_reap_until()): compacting compresses */
	c->stored += codec_frame_stored(buf + 8, c32, u);
	return 0;
}

/* A chunk the pool compressed (chunk_pool_deliver_fn): into the file, in order. */
static void v7_chunk_done(void *owner, int cpu, char *buf, ssize_t clen, size_t ulen)
{
	struct v7_writer *w = owner;
	struct v7_cpu *c = &w->cpus[cpu];

	c->promised -= v7_chunk_worst(w, ulen);
	c->in_pool--;
	w->in_pool--;
	if (clen < 0)
		v7w_fail(w, (int)clen, "compress");
	else
		v7_put_chunk(w, c, buf, (size_t)clen, (uint32_t)ulen);
}

struct chunk_pool *v7_pool_new(const struct v7_params *p, unsigned int workers,
			       const char *spool_dir, int *err)
{
	unsigned int pages = p->chunk_pages ? p->chunk_pages : V7_DEF_CHUNK_PAGES;
	struct chunk_pool_params cp = {
		.codec = codec_find("zstd"),
		.level = p->zstd_level,
		.job_bytes = (size_t)pages * p->page_size,
		.headroom = 8,
		.workers = workers,
		.spool_dir = spool_dir,
		.deliver = v7_chunk_done,
	};

	if (p->comp != V7_COMP_ZSTD || !p->page_size || pages > 4096) {
		*err = -EINVAL;
		return NULL;
	}
	return chunk_pool_new(&cp, err);
}

/*
 * Compresses @n pages at @pages into one chunk appended to the CPU's region: here, or
 * queued to the pool (which never refuses for good: when it is full, reaping makes
 * room, compressing the oldest chunk on this thread).
 */
static int v7_write_chunk(struct v7_writer *w, struct v7_cpu *c, const void *pages,
			  unsigned int n)
{
	uint32_t u = n * w->ps;
	ssize_t clen;
	int ret;

	if (w->pool) {
		while ((ret = chunk_pool_submit(w->pool, w, (int)(c - w->cpus), pages, u)) ==
		       -EAGAIN)
			chunk_pool_reap(w->pool, CHUNK_POOL_ROOM);
		if (ret)
			return v7w_fail(w, ret, "compression queue");
		c->promised += v7_chunk_worst(w, u);
		c->in_pool++;
		w->in_pool++;
		return 0;
	}
	clen = codec_compress(w->cctx, pages, u, w->zbuf + 8, w->zcap - 8);
	if (clen < 0)
		return v7w_fail(w, (int)clen, "compress");
	return v7_put_chunk(w, c, w->zbuf, (size_t)clen, u);
}

static int v7_flush_cpu(struct v7_writer *w, struct v7_cpu *c)
{
	int ret;

	if (!c->pending)
		return 0;
	ret = v7_write_chunk(w, c, c->chunk, c->pending);
	if (!ret)
		c->pending = 0;
	return ret;
}

int v7w_flush_data(struct v7_writer *w)
{
	int i, ret;

	for (i = 0; w->compressed && i < w->ncpus; i++) {
		ret = v7_flush_cpu(w, &w->cpus[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * v7_flush() - hand the partly filled chunks on (to the pool, or into the file)
 * @w: writer that will take no more pages
 *
 * Return: 0 or -errno.
 */
int v7_flush(struct v7_writer *w)
{
	return v7w_check_state(w, V7_ST_CAPTURE, __func__) ?: v7w_flush_data(w);
}

/**
 * v7_pending() - chunks of @w the compression pool has not delivered yet
 * @w: writer
 *
 * Context: the thread that reaps the pool.
 * Return: their count.
 */
unsigned int v7_pending(const struct v7_writer *w)
{
	return w->in_pool;
}

/* Worst-case bytes @p buffered pages take once written as chunks. */
static uint64_t v7_worst(const struct v7_writer *w, uint64_t p)
{
	uint64_t full = p / w->chunk_pages, rest = p % w->chunk_pages;
	uint64_t bytes = full * w->chunk_worst;

	if (rest)
		bytes += v7_chunk_worst(w, rest * w->ps);
	return bytes;
}

/* Whether @n more pages of @c fit in its region, by the worst case of their chunks. */
static bool v7_fits(const struct v7_writer *w, const struct v7_cpu *c, uint64_t n)
{
	if (!w->compressed)
		return n <= (w->region_bytes - c->used) / w->ps;
	return c->used + c->promised + v7_worst(w, c->pending + n) <= w->region_bytes;
}

/*
 * Near a region's end, the worst case promised for @c's chunks in the pool gives way
 * to what they really took, one delivery at a time, until @n pages fit.
 */
static void v7_make_room(struct v7_writer *w, struct v7_cpu *c, uint64_t n)
{
	while (w->compressed && !v7_fits(w, c, n) && c->in_pool && !w->err)
		chunk_pool_reap(w->pool, CHUNK_POOL_ONE);
}

static bool v7_pages_valid(const struct v7_writer *w, const char *pages, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ftp_page_len(pages + i * w->ps) > w->ps - FTP_HDR_SIZE)
			return false;
	return true;
}

static int v7_check_cpu(const struct v7_writer *w, int cpu, const char *fn)
{
	int ret = v7w_check_state(w, V7_ST_CAPTURE, fn);

	if (ret)
		return ret;
	if (cpu < 0 || cpu >= w->ncpus) {
		log_err("%s: no CPU %d", fn, cpu);
		return -EINVAL;
	}
	return 0;
}

/**
 * v7_append_pages() - append whole trace pages of one CPU
 * @w: writer
 * @cpu: CPU id
 * @pages: @n pages of the file's page size each
 * @n: number of pages
 *
 * Context: the page path: no allocation, no logging except on a hard error.
 * Return: 0; -ENOSPC when the CPU's region cannot take the pages (none taken, the
 * writer stays usable: rotate to a new file); -EINVAL for a page whose commit length
 * exceeds the page (none taken); another -errno on a write error (sticky): pages the
 * call took are lost with the rest since the last sync (v7_unkept_pages()); a writer
 * failed before the call takes none.
 */
int v7_append_pages(struct v7_writer *w, int cpu, const void *pages, size_t n)
{
	const char *src = pages;
	struct v7_cpu *c;
	int ret = v7_check_cpu(w, cpu, __func__);

	if (ret)
		return ret;
	if (!n)
		return 0;
	if (!pages || !v7_pages_valid(w, pages, n))
		return -EINVAL;
	c = &w->cpus[cpu];
	v7_make_room(w, c, n);
	/* From here the pages are taken: a write error loses them, counted (v7_unkept_pages) */
	if (w->err) {
		w->raw_bytes += n * w->ps;
		return w->err;
	}
	if (!v7_fits(w, c, n))
		return -ENOSPC;
	/* Once per CPU, on its first pages: idle CPUs of big machines cost nothing. */
	if (w->compressed && !c->chunk) {
		c->chunk = malloc((size_t)w->chunk_pages * w->ps);
		if (!c->chunk)
			return -ENOMEM;	/* none taken */
	}
	w->raw_bytes += n * w->ps;
	if (!w->compressed) {
		ret = v7w_write(w, pages, n * w->ps, c->region + c->used);
		if (ret)
			return ret;
		c->used += n * w->ps;
		c->put_raw += n * w->ps;
		return 0;
	}
	while (n) {
		size_t take;

		if (!c->pending && n >= w->chunk_pages) {
			/* A whole chunk straight from the caller's memory. */
			ret = v7_write_chunk(w, c, src, w->chunk_pages);
			if (ret)
				return ret;
			src += (size_t)w->chunk_pages * w->ps;
			n -= w->chunk_pages;
			continue;
		}
		take = w->chunk_pages - c->pending;
		if (take > n)
			take = n;
		memcpy(c->chunk + (size_t)c->pending * w->ps, src, take * w->ps);
		c->pending += take;
		src += take * w->ps;
		n -= take;
		if (c->pending == w->chunk_pages) {
			ret = v7_flush_cpu(w, c);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/**
 * v7_room_pages() - how many more pages of @cpu its region takes
 * @w: writer
 * @cpu: CPU id
 * @max: pages wanted
 * @room: set to the most pages, up to @max, that v7_append_pages() then takes whole
 *
 * When not a page fits by the worst case promised for this CPU's chunks in the pool,
 * waits for them one at a time (what they really took gives room back). So a caller
 * reads no more from its source than the file takes: what does not fit stays in the
 * source for the next file.
 *
 * Context: the page path.
 * Return: 0 (@room 0: the region is full), or the writer's -errno.
 */
int v7_room_pages(struct v7_writer *w, int cpu, size_t max, size_t *room)
{
	struct v7_cpu *c;
	int ret = v7_check_cpu(w, cpu, __func__);

	*room = 0;
	if (ret)
		return ret;
	c = &w->cpus[cpu];
	for (;;) {
		size_t lo = 0, hi = max;

		if (w->err)
			return w->err;
		/* the most that fits (the worst case grows with the pages), most often all */
		if (v7_fits(w, c, max))
			lo = max;
		while (lo < hi) {
			size_t mid = hi - (hi - lo) / 2;

			if (v7_fits(w, c, mid))
				lo = mid;
			else
				hi = mid - 1;
		}
		/* Waits for the pool only when not a page fits by the worst case. */
		if (lo || !w->compressed || !c->in_pool) {
			*room = lo;
			return 0;
		}
		chunk_pool_reap(w->pool, CHUNK_POOL_ONE);
	}
}

/**
 * v7_reserve_pages() - where the next raw pages of @cpu go (uncompressed files)
 * @w: writer
 * @cpu: CPU id
 * @off: file offset for the next page (page aligned)
 * @max: pages that fit in the region from there
 *
 * Return: 0, -ENOSPC when the region is full, -EINVAL on a compressed file.
 */
int v7_reserve_pages(struct v7_writer *w, int cpu, off_t *off, size_t *max)
{
	struct v7_cpu *c;
	int ret = v7_check_cpu(w, cpu, __func__);

	if (ret)
		return ret;
	if (w->compressed) {
		log_err("%s: compressed file", __func__);
		return -EINVAL;
	}
	c = &w->cpus[cpu];
	*off = (off_t)(c->region + c->used);
	*max = (size_t)((w->region_bytes - c->used) / w->ps);
	return *max ? 0 : -ENOSPC;
}

/**
 * v7_commit_pages() - account for @n pages written at the v7_reserve_pages() offset
 * @w: writer
 * @cpu: CPU id
 * @n: pages, at most what v7_reserve_pages() allowed
 *
 * Return: 0 or -EINVAL.
 */
int v7_fail_pages(struct v7_writer *w, int err)
{
	return v7w_fail(w, err, "pages moved into the file");
}

int v7_commit_pages(struct v7_writer *w, int cpu, size_t n)
{
	struct v7_cpu *c;
	int ret = v7_check_cpu(w, cpu, __func__);

	if (ret)
		return ret;
	c = &w->cpus[cpu];
	if (w->compressed || n > (w->region_bytes - c->used) / w->ps)
		return -EINVAL;
	c->used += n * w->ps;
	w->raw_bytes += n * w->ps;
	c->put_raw += n * w->ps;
	w->file_bytes += n * w->ps;
	return 0;
}

/**
 * v7_add_option() - add an option written with every tail
 * @w: writer
 * @id: option id; the ones the writer owns (DONE, BUFFER, CPUCOUNT, sections) are
 *	refused, CPUSTAT goes through v7_finish()
 * @data: option data (strings include their NUL)
 * @len: bytes
 *
 * Return: 0 or -errno.
 */
int v7_add_option(struct v7_writer *w, uint16_t id, const void *data, uint32_t len)
{
	struct v7_opt *o;
	int ret = v7w_check_state(w, V7_ST_CAPTURE, __func__);

	if (ret)
		return ret;
	if (id == V7_OPT_DONE || id == V7_OPT_BUFFER || id == V7_OPT_CPUCOUNT ||
	    id == V7_OPT_CPUSTAT || (id >= V7_SEC_STRINGS && id <= V7_SEC_CMDLINES) ||
	    (len && !data) || len > V7_SLOT_SIZE / 2) {
		log_err("%s: option %u (%u bytes) refused", __func__, id, len);
		return -EINVAL;
	}
	o = realloc(w->opts, (w->nr_opts + 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	w->opts = o;
	o = &w->opts[w->nr_opts];
	o->data = malloc(len ? len : 1);
	if (!o->data)
		return -ENOMEM;
	memcpy(o->data, data, len);
	o->id = id;
	o->len = len;
	w->nr_opts++;
	w->tail_dirty = true;
	return 0;
}

static int v7_alloc(struct v7_writer *w, const struct v7_params *p)
{
	size_t chunk = (size_t)w->chunk_pages * w->ps;

	w->cpus = calloc((size_t)w->ncpus, sizeof(*w->cpus));
	w->base = calloc((size_t)w->ncpus, sizeof(*w->base));
	w->ext = calloc((size_t)w->ncpus, sizeof(*w->ext));
	w->cpustat = calloc((size_t)w->ncpus, sizeof(*w->cpustat));
	w->path = p->path ? strdup(p->path) : NULL;
	w->clock = strdup(p->clock ? p->clock : "local");
	w->buffer_name = strdup(p->buffer_name ? p->buffer_name : "");
	if (!w->cpus || !w->base || !w->ext || !w->cpustat ||
	    (p->path && !w->path) || !w->clock || !w->buffer_name)
		return -ENOMEM;
	w->cctx = codec_ctx_new(w->codec, p->zstd_level);
	if (!w->cctx)
		return -errno;
	if (!w->compressed)
		return 0;
	w->chunk_worst = 8 + codec_bound(w->codec, chunk);
	w->zcap = w->chunk_worst;
	w->zbuf = malloc(w->zcap);
	return w->zbuf ? 0 : -ENOMEM;
}

static int v7_check_params(const struct v7_params *p, const struct trace_meta *m)
{
	unsigned int ps = p->page_size ? p->page_size : m ? m->page_size : 0;

	int fl = p->fd >= 0 ? fcntl(p->fd, F_GETFL) : -1;

	if (fl < 0 || p->ncpus <= 0 || p->ncpus > 4096 || !m || !m->header_page ||
	    !m->header_page_len || !m->header_event) {
		log_err("trace.dat writer: needs an fd, 1..4096 CPUs, header_page and header_event");
		return -EINVAL;
	}
	/* pwrite() on an O_APPEND fd appends; finishing reads the data back. */
	if ((fl & O_ACCMODE) != O_RDWR || (fl & O_APPEND)) {
		log_err("trace.dat writer: the output must be opened O_RDWR without O_APPEND");
		return -EINVAL;
	}
	if (ps < 64 || ps > (1U << 27) || (ps & (ps - 1))) {
		log_err("trace.dat writer: page size %u is not a power of two in 64..2^27", ps);
		return -EINVAL;
	}
	if (p->comp != V7_COMP_NONE && p->comp != V7_COMP_ZSTD) {
		log_err("trace.dat writer: unknown compression %d", p->comp);
		return -EINVAL;
	}
	/* a chunk's header holds its sizes in u32s (formats.md A.5) */
	if (p->chunk_pages > 4096 ||
	    (uint64_t)(p->chunk_pages ? p->chunk_pages : V7_DEF_CHUNK_PAGES) * ps > UINT32_MAX) {
		log_err("trace.dat writer: %u pages per chunk is too many", p->chunk_pages);
		return -EINVAL;
	}
	return 0;
}

static int v7_layout(struct v7_writer *w, const struct v7_params *p, uint64_t off)
{
	struct stat st;
	uint64_t blk = 4096;
	int i;

	if (!fstat(w->fd, &st) && st.st_blksize > 0)
		blk = (uint64_t)st.st_blksize;
	w->align = blk > w->ps ? blk : w->ps;
	if (w->align % w->ps || w->align % blk)
		w->align = w->ps * blk;		/* both are powers of two in practice */
	/* no offset may wrap: the regions of every CPU, rounded up, and the tail slots */
	if (p->region_bytes > (uint64_t)LLONG_MAX / 4 / (uint64_t)w->ncpus)
		return -EFBIG;
	w->region_bytes = v7w_round_up(p->region_bytes ? p->region_bytes : V7_DEF_REGION,
				   w->align);
	w->buf_sec = off;
	/* The layout record sits between the BUFFER section header and region 0. */
	w->data_base = v7w_round_up(off + V7_SEC_HDR_SIZE + V7_LAYOUT_SIZE, w->align);
	for (i = 0; i < w->ncpus; i++) {
		w->cpus[i].region = w->data_base + (uint64_t)i * w->region_bytes;
		/* Compressed, the region starts with the u32 chunk count. */
		w->cpus[i].used = w->compressed ? 4 : 0;
	}
	w->tail_base = w->data_base + (uint64_t)w->ncpus * w->region_bytes;
	if (w->tail_base + 2 * V7_SLOT_SIZE > (uint64_t)LLONG_MAX / 2)
		return -EFBIG;
	return 0;
}

/* BUFFER section header; its size is set by every tail (it ends at the slot). */
static int v7_write_buffer_header(struct v7_writer *w)
{
	struct v7_buf b = { 0 };
	char desc[300];
	int ret;

	snprintf(desc, sizeof(desc), "buffer flyrecord %s", w->buffer_name);
	ret = v7_put_section(&b, &w->strs, V7_OPT_BUFFER, desc, NULL, 0, NULL, NULL, 0);
	if (!ret && w->compressed) {
		uint16_t fl = V7_SEC_FL_COMPRESS;

		memcpy(b.p + 2, &fl, 2);
	}
	if (!ret) {
		uint64_t size = w->tail_base - w->buf_sec - V7_SEC_HDR_SIZE;
		struct v7_layout l = {
			.data_base = w->data_base,
			.region_bytes = w->region_bytes,
			.tail_base = w->tail_base,
			.slot_size = V7_SLOT_SIZE,
			.ncpus = (uint32_t)w->ncpus,
			.page_size = w->ps,
			.flags = w->compressed ? V7_LAYOUT_ZSTD : 0,
		};

		memcpy(b.p + 8, &size, 8);
		ret = v7_put_layout(&b, &l);
		ret = ret ?: v7w_write(w, b.p, b.len, w->buf_sec);
	}
	v7_buf_free(&b);
	return ret;
}

/**
 * v7_create() - start a trace.dat v7 file
 * @p: parameters; @p->fd must be an empty file opened read-write
 * @meta: metadata (header_page and header_event required)
 *
 * Writes the initial header, the metadata sections, the BUFFER section header and a
 * first tail, so the file is a valid (empty) trace.dat from the start.
 *
 * Return: the writer, or NULL with errno set.
 */
struct v7_writer *v7_create(const struct v7_params *p, const struct trace_meta *meta)
{
	struct v7_writer *w;
	uint64_t off = 0;
	int i, ret;

	ret = v7_check_params(p, meta);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = p->fd;
	w->ps = p->page_size ? p->page_size : meta->page_size;
	w->ncpus = p->ncpus;
	w->compressed = p->comp == V7_COMP_ZSTD;
	w->durable = p->durable;
	w->codec = codec_find(w->compressed ? "zstd" : "none");
	w->chunk_pages = p->chunk_pages ? p->chunk_pages : V7_DEF_CHUNK_PAGES;
	w->slot = -1;
	w->fail_after = -1;
	w->pool = w->compressed ? p->pool : NULL;
	ret = v7_alloc(w, p);
	ret = ret ?: v7_write_initial(w, &off);
	for (i = 0; !ret && i < 5; i++)
		ret = v7_write_meta_section(w, &off, V7_SEC_HEADER_INFO + i, meta);
	ret = ret ?: v7_layout(w, p, off);
	ret = ret ?: v7_write_buffer_header(w);
	ret = ret ?: v7w_write_tail(w);
	if (ret) {
		if (!w->err)
			log_err("trace.dat writer: %s", strerror(-ret));
		v7_free(w);
		errno = -ret;
		return NULL;
	}
	return w;
}

/**
 * v7_counters() - bytes accepted and bytes written
 * @w: writer
 * @raw_bytes: page bytes accepted so far
 * @file_bytes: bytes written to the file so far (data, metadata, tails)
 */
void v7_counters(const struct v7_writer *w, uint64_t *raw_bytes, uint64_t *file_bytes)
{
	if (raw_bytes)
		*raw_bytes = w->raw_bytes;
	if (file_bytes)
		*file_bytes = w->file_bytes;
}

/**
 * v7_unkept_pages() - pages accepted that the file, as it stands, does not hold
 * @w: writer
 *
 * The file holds what its chunk counts and tail name (its last sync): what came after
 * (pending, compressing, or written but not named) is lost if the writer goes now;
 * after a write error (the file keeps its last sync) or a finish that failed, the
 * caller counts it. 0 once v7_complete() made it.
 *
 * Return: how many.
 */
uint64_t v7_unkept_pages(const struct v7_writer *w)
{
	uint64_t kept = 0;

	for (int i = 0; i < w->ncpus; i++)
		kept += w->cpus[i].kept_raw;
	return (w->raw_bytes - kept) / w->ps;
}

/**
 * v7_error() - the sticky write error
 * @w: writer
 *
 * Return: 0, or the -errno that made the writer refuse further data.
 */
int v7_error(const struct v7_writer *w)
{
	return w->err;
}

/**
 * v7_fail_after() - fault injection for tests
 * @w: writer
 * @n: file updates (writes, truncations) still allowed; -1 turns injection off
 *
 * The update after the last allowed one fails with -EIO as if the process had been
 * killed there: the file keeps exactly what a kill -9 at that point leaves.
 */
void v7_fail_after(struct v7_writer *w, long n)
{
	w->fail_after = n;
}

/**
 * v7_free() - free the writer (the fd stays open)
 * @w: writer or NULL
 */
void v7_free(struct v7_writer *w)
{
	int i;

	if (!w)
		return;
	/* Nothing of ours may be delivered once we are gone. */
	if (w->in_pool)
		chunk_pool_reap(w->pool, CHUNK_POOL_ALL);
	for (i = 0; w->cpus && i < w->ncpus; i++)
		free(w->cpus[i].chunk);
	for (i = 0; i < w->nr_opts; i++)
		free(w->opts[i].data);
	for (i = 0; w->cpustat && i < w->ncpus; i++)
		free(w->cpustat[i]);
	free(w->cpustat);
	free(w->cmdlines);
	v7_buf_free(&w->cmdlines_sec);
	free(w->path);
	free(w->opts);
	free(w->cpus);
	free(w->base);
	free(w->ext);
	free(w->zbuf);
	codec_ctx_free(w->cctx);
	v7_buf_free(&w->strs);
	free(w->clock);
	free(w->buffer_name);
	free(w);
}
