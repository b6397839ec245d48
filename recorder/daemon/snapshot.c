// SPDX-License-Identifier: GPL-2.0
/*
 * Flight-recorder snapshots (recorder/daemon/snapshot.h): a one-shot drain of the kernel
 * buffers into a second writer while tracing keeps running. Not a capture loop: the
 * source is opened for the drain and closed after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/trace_output.h"
#include "util/fileio.h"
#include "util/log.h"
#include "format/meta.h"
#include "snapshot.h"
#include "source/tracing.h"
#include "format/v7_writer.h"

#define DRAIN_BATCH	256	/* pages per read */
/* A file's metadata, kallsyms most of it (~7 MiB on a distribution kernel). */
#define SNAPSHOT_META_MAX	(16ULL << 20)

/*
 * What earlier snapshots drained of one CPU, newest last: the kernel ring gives each
 * page once, so the next snapshot starts from these. At most the ring's size.
 */
struct history {
	char		*pages;		/* cap pages, circular */
	size_t		head;		/* oldest */
	size_t		n;
};

struct flight {
	struct tracing		*tr;
	const struct source_ops	*ops;
	struct source_params	sp;
	char			*instance;
	unsigned int		buffer_kb;
	int			ncpus;
	size_t			cap;		/* pages of history per CPU: the ring's size */
	unsigned int		page_size;
	struct history		*hist;		/* [ncpus] */
	struct trace_meta	meta;		/* the last snapshot's formats (meta_collect_since) */
};

struct flight *flight_start(const struct rec_config *c, int take_over, int *err)
{
	struct flight *f = calloc(1, sizeof(*f));
	const char *name = c->source;
	struct tracing_params tp = {
		.instance = c->instance,
		.create = c->instance != NULL,
		.events = (const char *const *)c->events,
		.nr_events = c->nr_events,
		.buffer_kb = c->buffer_kb,
		.overwrite = 1,
		.clock = c->clock,
		.take_over = take_over,
	};
	int ret;

	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	f->instance = c->instance ? strdup(c->instance) : NULL;
	f->buffer_kb = c->buffer_kb;
	f->sp.instance = f->instance;
	f->sp.buffer_kb = c->buffer_kb;
	f->sp.overwrite = 1;
	/* The module keeps its events in its own buffers: the capture core handles it. */
	if (source_is_module(name, &f->sp)) {
		ret = -EOPNOTSUPP;
		goto fail;
	}
	f->tr = tracing_setup(&tp, &ret);
	if (!f->tr)
		goto fail;
	f->ops = source_find(strcmp(name, "auto") ? name : "tracefs", &f->sp);
	if (!f->ops) {
		ret = -ENODEV;
		goto fail;
	}
	f->ncpus = tracing_ncpus();
	ret = tracing_set_on(f->tr, 1);
	if (ret)
		goto fail;
	tracing_adopt(f->tr);	/* live: a taken-over instance is ours */
	return f;
fail:
	flight_stop(f);
	*err = ret;
	return NULL;
}

/* Appends @n pages to @h, dropping its oldest past @f->cap. */
static void history_add(struct flight *f, struct history *h, const char *pages, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t slot = (h->head + h->n) % f->cap;

		memcpy(h->pages + slot * f->page_size, pages + i * f->page_size, f->page_size);
		if (h->n < f->cap)
			h->n++;
		else
			h->head = (h->head + 1) % f->cap;
	}
}

/*
 * Moves what the ring holds for @cpu (at most @max pages: the producer keeps writing)
 * into its history, then writes the history, oldest first, to @w: the snapshot holds
 * the newest ring-size of events whenever the last snapshot was taken.
 * Returns the pages written or -errno.
 */
static long drain_cpu(struct flight *f, struct source *src, struct v7_writer *w, int cpu,
		      char *buf, uint64_t max)
{
	struct history *h = &f->hist[cpu];
	uint64_t total = 0;
	ssize_t r;
	int ret;

	if (!h->pages) {
		h->pages = malloc(f->cap * f->page_size);
		if (!h->pages)
			return -ENOMEM;
	}
	while (total < max) {
		r = src->ops->read_pages(src, cpu, buf, DRAIN_BATCH, 1);
		if (r < 0)
			return r;
		if (!r)
			break;
		history_add(f, h, buf, (size_t)r);
		total += (uint64_t)r;
	}
	for (size_t i = 0; i < h->n; i++) {
		ret = v7_append_pages(w, cpu, h->pages + ((h->head + i) % f->cap) * f->page_size,
				      1);
		if (ret)
			return ret;
	}
	return (long)h->n;
}

/* The ring's size per CPU in pages: buffer_kb as set, else as tracefs reports it. */
static size_t ring_pages(struct flight *f, unsigned int page_size)
{
	unsigned long kb = f->buffer_kb;
	char *text;

	if (!kb) {
		text = tracing_read(f->instance, "buffer_size_kb", NULL);
		kb = text ? strtoul(text, NULL, 10) : 0;
		free(text);
	}
	if (!kb)
		kb = 1408;	/* the kernel's default per CPU */
	return (size_t)kb * 1024 / page_size + 1;
}

int flight_room(struct flight *f, const char *dir)
{
	unsigned int ps = f->page_size ? f->page_size : (unsigned int)getpagesize();
	uint64_t need = (uint64_t)f->ncpus * ring_pages(f, ps) * ps + SNAPSHOT_META_MAX;
	uint64_t room;

	/* room unknown (no directory yet): the snapshot itself says what is wrong */
	if (fio_free_bytes(dir, &room) || room >= need)
		return 0;
	log_err("snapshot to %s: %llu MiB free, and a full ring may need %llu MiB: not taken",
		dir, (unsigned long long)(room >> 20), (unsigned long long)(need >> 20));
	return -ENOSPC;
}

int flight_snapshot(struct flight *f, const char *path, const struct rec_config *c,
		    uint64_t *raw, uint64_t *file)
{
	struct trace_output out = { .fd = -1 };
	struct trace_meta m = { 0 };
	struct v7_params wp = { 0 };
	struct source *src = NULL;
	char *buf = NULL;
	uint64_t max;
	int ret;

	ret = meta_collect_since(&m, f->instance, &f->meta);
	if (ret)
		goto out;
	src = source_open(f->ops, &f->sp, &ret);
	if (!src)
		goto out;
	if (src->page_size != m.page_size) {
		log_err("snapshot: source gives %u-byte pages, header_page says %u",
			src->page_size, m.page_size);
		ret = -EPROTO;
		goto out;
	}
	wp.page_size = src->page_size;
	wp.ncpus = src->ncpus;
	wp.comp = c->comp;
	wp.zstd_level = c->zstd_level;
	wp.chunk_pages = c->chunk_pages;
	wp.region_bytes = c->region_bytes;
	wp.clock = tracing_clock(f->tr);
	wp.buffer_name = "";
	wp.durable = c->durable;
	buf = malloc((size_t)DRAIN_BATCH * src->page_size);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	ret = trace_output_create(&out, path, 1, c->group_gid, &wp, &m);
	if (ret)
		goto out;
	if (!f->hist) {
		f->page_size = src->page_size;
		f->cap = ring_pages(f, src->page_size);
		f->hist = calloc((size_t)src->ncpus, sizeof(*f->hist));
		if (!f->hist) {
			ret = -ENOMEM;
			trace_output_discard(&out, 1);
			goto out;
		}
	}
	/* One ring's worth (plus a batch): a producer that keeps writing cannot hold us. */
	max = f->cap + DRAIN_BATCH;
	for (int cpu = 0; !ret && cpu < src->ncpus && cpu < f->ncpus; cpu++) {
		long n = drain_cpu(f, src, out.w, cpu, buf, max);

		if (n < 0) {
			ret = (int)n;
			log_err("snapshot: CPU %d: %s", cpu, strerror(-ret));
		}
	}
	if (ret)
		trace_output_discard(&out, 1);
	else
		ret = trace_output_finish(&out, src, raw, file);
	if (ret)
		unlink(path);
out:
	free(buf);
	source_close(src);
	if (!ret) {
		/* the next snapshot's formats come from these while nothing changes */
		meta_free(&f->meta);
		meta_keep_formats(&m);
		f->meta = m;
	} else {
		meta_free(&m);
	}
	return ret;
}

int flight_cpu_stats(struct flight *f, int cpu, struct source_cpu_stats *st)
{
	return tracing_cpu_stats(f->instance, cpu, st);
}

int flight_ncpus(const struct flight *f)
{
	return f->ncpus;
}

const char *flight_source_name(const struct flight *f)
{
	return f->ops ? f->ops->name : "";
}

int flight_keep(struct flight *f)
{
	return tracing_keep(f->tr);
}

void flight_stop(struct flight *f)
{
	if (!f)
		return;
	for (int i = 0; f->hist && i < f->ncpus; i++)
		free(f->hist[i].pages);
	free(f->hist);
	meta_free(&f->meta);
	tracing_free(f->tr);
	free(f->instance);
	free(f);
}
