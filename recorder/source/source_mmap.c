// SPDX-License-Identifier: GPL-2.0
/*
 * Page source "mmap": ftrace's own ring buffer mapped through per_cpu/cpuN/trace_pipe_raw
 * (Linux >= 6.10), consumed by mmap_ring.c. One copy per page (ring -> our batch),
 * no splice, no per-event work except re-basing a page taken while partly written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/log.h"
#include "mmap_ring.h"
#include "source.h"
#include "tracing.h"

struct mmap_cpu {
	int			fd;	/* -1: CPU absent (offline) */
	struct mmap_ring	*ring;
};

struct source_mmap {
	struct source	s;
	char		*instance;
	struct mmap_cpu	*cpus;
};

static int mmap_probe(const struct source_params *p)
{
	int fd = tracing_open_pipe_raw(p->instance, 0), ret = 0;
	void *m;

	if (fd < 0) {
		ret = -errno;
		log_info("mmap source: cannot open trace_pipe_raw: %s", strerror(errno));
		return ret;
	}
	m = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		ret = -errno;
		log_info("mmap source: this kernel cannot map trace_pipe_raw (%s; needs Linux >= 6.10)",
			 strerror(errno));
	} else {
		munmap(m, (size_t)sysconf(_SC_PAGESIZE));
	}
	close(fd);
	return ret;
}

static void mmap_close(struct source *s)
{
	struct source_mmap *sm = (struct source_mmap *)s;

	for (int i = 0; sm->cpus && i < s->ncpus; i++) {
		mmap_ring_close(sm->cpus[i].ring);
		if (sm->cpus[i].fd >= 0)
			close(sm->cpus[i].fd);
	}
	free(sm->cpus);
	free(sm->instance);
}

static int mmap_open(struct source *s, const struct source_params *p)
{
	struct source_mmap *sm = (struct source_mmap *)s;
	int ret = 0, found = 0;

	s->ncpus = tracing_ncpus();
	sm->cpus = calloc((size_t)s->ncpus, sizeof(*sm->cpus));
	sm->instance = p->instance ? strdup(p->instance) : NULL;
	if (!sm->cpus || (p->instance && !sm->instance)) {
		ret = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < s->ncpus; i++)
		sm->cpus[i].fd = -1;
	for (int i = 0; i < s->ncpus; i++) {
		struct mmap_cpu *c = &sm->cpus[i];

		c->fd = tracing_open_pipe_raw(p->instance, i);
		if (c->fd < 0) {
			if (errno == ENOENT || errno == ENODEV)
				continue;	/* offline CPU: no pages from it */
			ret = -errno;
			log_err("mmap source: cannot open trace_pipe_raw of CPU %d: %s", i,
				strerror(errno));
			goto fail;
		}
		c->ring = mmap_ring_open(c->fd, &ret);
		if (!c->ring) {
			log_err("mmap source: cannot map the ring buffer of CPU %d: %s", i,
				strerror(-ret));
			goto fail;
		}
		if (!found)
			s->page_size = mmap_ring_page_size(c->ring);
		if (mmap_ring_page_size(c->ring) != s->page_size) {
			log_err("mmap source: CPUs have different sub-buffer sizes");
			ret = -EPROTO;
			goto fail;
		}
		found++;
	}
	if (!found) {
		log_err("mmap source: no CPU buffer found");
		ret = -ENODEV;
		goto fail;
	}
	return 0;
fail:
	mmap_close(s);
	return ret;
}

static int mmap_poll_fd(struct source *s, int cpu)
{
	return ((struct source_mmap *)s)->cpus[cpu].fd;
}

static ssize_t mmap_read_pages(struct source *s, int cpu, void *dst, size_t max, int flush)
{
	struct mmap_cpu *c = &((struct source_mmap *)s)->cpus[cpu];

	if (!c->ring)
		return 0;
	return mmap_ring_read_pages(c->ring, dst, max, flush);
}

static int mmap_stats(struct source *s, int cpu, struct source_cpu_stats *st)
{
	struct source_mmap *sm = (struct source_mmap *)s;
	struct mmap_ring_stats rs = { 0 };
	int ret;

	memset(st, 0, sizeof(*st));
	if (!sm->cpus[cpu].ring)
		return 0;
	mmap_ring_stats(sm->cpus[cpu].ring, &rs);
	ret = tracing_cpu_stats(sm->instance, cpu, st);
	if (ret) {
		st->entries = rs.entries;
		st->overrun = rs.overrun;
		st->read = rs.read;
		st->lost = rs.missed_events + rs.lost_events;
	}
	st->pages = rs.pages;
	st->bytes = rs.pages * s->page_size;
	return 0;
}

static char *mmap_cpustat_text(struct source *s, int cpu)
{
	struct source_mmap *sm = (struct source_mmap *)s;

	return tracing_cpustat_text(sm->instance, cpu);
}

const struct source_ops source_mmap_ops = {
	.name		= "mmap",
	.size		= sizeof(struct source_mmap),
	.probe		= mmap_probe,
	.open		= mmap_open,
	.poll_fd	= mmap_poll_fd,
	.read_pages	= mmap_read_pages,
	.stats		= mmap_stats,
	.cpustat_text	= mmap_cpustat_text,
	.close		= mmap_close,
};
