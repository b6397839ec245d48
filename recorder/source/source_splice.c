// SPDX-License-Identifier: GPL-2.0
/*
 * Page source "splice": per_cpu/cpuN/trace_pipe_raw through a pipe, on any kernel.
 * The kernel splices only sub-buffers its writer has left (ring_buffer_read_page with
 * full = 1), already stamped with commit and missed-event flags; the page the writer
 * is still filling is taken at flush with a non-blocking read(), which copies out its
 * events so far (later reads give only the newer ones). Whole pages only, always.
 *
 * Compressed output: splice to the pipe, read the pipe into the batch (one copy).
 * Uncompressed output: splice_pages() moves the pages pipe -> file, no copy at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/log.h"
#include "source.h"
#include "format/meta.h"
#include "tracing.h"

#define SPLICE_PIPE_WANT	(1U << 20)	/* pipe size to ask for (pipe-max-size default) */

struct splice_cpu {
	int		fd;		/* trace_pipe_raw, -1: CPU absent */
	int		pipe[2];
	size_t		in_pipe;	/* bytes spliced in, not yet taken out (whole pages) */
	char		*held;		/* a whole page the file refused: goes first next time */
	uint64_t	pages;
};

struct source_splice {
	struct source		s;
	char			*instance;
	size_t			pipe_size;
	struct splice_cpu	*cpus;
	char			*page;		/* bounce page for the flush read() */
};

/* The sub-buffer size the kernel uses, from events/header_page of @instance. */
static unsigned int header_page_size(const char *instance)
{
	size_t len = 0;
	char *text = tracing_read(instance, "events/header_page", &len);
	unsigned int ps = text ? meta_page_size(text, len) : 0;

	free(text);
	return ps;
}

static int splice_probe(const struct source_params *p)
{
	int fd = tracing_open_pipe_raw(p->instance, 0);

	if (fd < 0) {
		int ret = -errno;

		log_err("splice source: cannot open trace_pipe_raw of %s: %s",
			p->instance ? p->instance : "the top buffer", strerror(errno));
		return ret;
	}
	close(fd);
	return 0;
}

static void splice_close(struct source *s)
{
	struct source_splice *ss = (struct source_splice *)s;

	for (int i = 0; ss->cpus && i < s->ncpus; i++) {
		struct splice_cpu *c = &ss->cpus[i];

		if (c->fd >= 0)
			close(c->fd);
		if (c->pipe[0] >= 0)
			close(c->pipe[0]);
		if (c->pipe[1] >= 0)
			close(c->pipe[1]);
		if (c->held)
			log_warn("splice source: CPU %d: a page of events the file refused is lost",
				 i);
		free(c->held);
	}
	free(ss->cpus);
	free(ss->page);
	free(ss->instance);
}

static int splice_open(struct source *s, const struct source_params *p)
{
	struct source_splice *ss = (struct source_splice *)s;
	int ret = 0, found = 0;

	s->ncpus = tracing_ncpus();
	s->page_size = header_page_size(p->instance);
	if (s->page_size < 64 || s->page_size & (s->page_size - 1)) {
		log_err("splice source: cannot tell the sub-buffer size from events/header_page");
		return -EPROTO;
	}
	ss->cpus = calloc((size_t)s->ncpus, sizeof(*ss->cpus));
	ss->page = malloc(s->page_size);
	ss->instance = p->instance ? strdup(p->instance) : NULL;
	if (!ss->cpus || !ss->page || (p->instance && !ss->instance)) {
		ret = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < s->ncpus; i++) {
		ss->cpus[i].fd = -1;
		ss->cpus[i].pipe[0] = ss->cpus[i].pipe[1] = -1;
	}
	for (int i = 0; i < s->ncpus; i++) {
		struct splice_cpu *c = &ss->cpus[i];
		int sz;

		c->fd = tracing_open_pipe_raw(p->instance, i);
		if (c->fd < 0) {
			if (errno == ENOENT || errno == ENODEV)
				continue;
			ret = -errno;
			log_err("splice source: cannot open trace_pipe_raw of CPU %d: %s", i,
				strerror(errno));
			goto fail;
		}
		if (pipe2(c->pipe, O_CLOEXEC | O_NONBLOCK)) {
			ret = -errno;
			log_err("splice source: pipe: %s", strerror(errno));
			goto fail;
		}
		/* A bigger pipe means fewer splice calls per wake-up; the default is fine too. */
		fcntl(c->pipe[1], F_SETPIPE_SZ, SPLICE_PIPE_WANT);
		sz = fcntl(c->pipe[1], F_GETPIPE_SZ);
		if (sz < (int)s->page_size) {
			log_err("splice source: pipe of %d bytes cannot hold a page", sz);
			ret = -EINVAL;
			goto fail;
		}
		if (!ss->pipe_size || (size_t)sz < ss->pipe_size)
			ss->pipe_size = (size_t)sz - (size_t)sz % s->page_size;
		found++;
	}
	if (!found) {
		log_err("splice source: no CPU buffer found");
		ret = -ENODEV;
		goto fail;
	}
	return 0;
fail:
	splice_close(s);
	return ret;
}

static int splice_poll_fd(struct source *s, int cpu)
{
	return ((struct source_splice *)s)->cpus[cpu].fd;
}

/* Moves up to @max whole pages the writer has left from the ring into the pipe. */
static ssize_t fill_pipe(struct source_splice *ss, struct splice_cpu *c, size_t max)
{
	size_t room = ss->pipe_size - c->in_pipe, want = max * ss->s.page_size;
	ssize_t r;

	if (want > room)
		want = room;
	if (!want)
		return 0;
	do {
		r = splice(c->fd, NULL, c->pipe[1], NULL, want,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN ? 0 : -errno;
	c->in_pipe += (size_t)r;
	return r;
}

/*
 * Where the pages go: user memory (read_pages: the batch to compress) or a file at an
 * offset (splice_pages: pipe -> file, no copy).
 */
struct page_sink {
	char	*mem;		/* NULL: to @fd */
	int	fd;
	off_t	off;
};

/*
 * After a failed move to the sink: the rest of a page it took part of leaves the pipe
 * too (lost), so that the pipe holds whole pages again for the next sink.
 */
static void pipe_realign(struct source_splice *ss, struct splice_cpu *c)
{
	size_t part = c->in_pipe % ss->s.page_size;
	ssize_t r;

	while (part) {
		r = read(c->pipe[0], ss->page, part);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		part -= (size_t)r;
		c->in_pipe -= (size_t)r;
	}
}

/*
 * After a failed move to the sink that got the first @got bytes of a page: the page
 * again, whole, held for the next sink (its start read back from this sink, the rest
 * from the pipe). 0, or -1 when it cannot be (the rest is then left to pipe_realign).
 */
static int hold_torn_page(struct source_splice *ss, struct splice_cpu *c,
			  const struct page_sink *k, size_t at, size_t got)
{
	size_t page_size = ss->s.page_size, part = page_size - got;
	char *page = malloc(page_size);
	ssize_t r;

	if (!page)
		return -1;
	if (k->mem)
		memcpy(page, k->mem + at - got, got);
	else if (fio_pread_all(k->fd, page, got, (uint64_t)k->off + at - got))
		goto fail;
	while (part) {
		r = read(c->pipe[0], page + page_size - part, part);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto fail;
		part -= (size_t)r;
		c->in_pipe -= (size_t)r;
	}
	c->held = page;
	return 0;
fail:
	free(page);
	return -1;
}

/*
 * Moves exactly @len bytes (whole pages, in the pipe) to byte @at of the sink; on an
 * error, *@pages = the whole pages that made it, and a page the sink took part of is
 * held whole for the next one.
 */
static int pipe_to_sink(struct source_splice *ss, struct splice_cpu *c,
			const struct page_sink *k, size_t at, size_t len, size_t *pages)
{
	loff_t o = k->off + (off_t)at;
	size_t start = at;

	while (len) {
		ssize_t r;

		if (k->mem)
			r = read(c->pipe[0], k->mem + at, len);
		else
			r = splice(c->pipe[0], NULL, k->fd, &o, len, SPLICE_F_MOVE);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int err = r < 0 ? -errno : -EIO;

			*pages = (at - start) / ss->s.page_size;
			if ((at - start) % ss->s.page_size &&
			    !hold_torn_page(ss, c, k, at, (at - start) % ss->s.page_size))
				return err;
			pipe_realign(ss, c);
			return err;
		}
		at += (size_t)r;
		len -= (size_t)r;
		c->in_pipe -= (size_t)r;
	}
	*pages = (at - start) / ss->s.page_size;
	return 0;
}

/*
 * The page a sink refused at a flush, to byte @at of this one: the oldest of its
 * CPU's events (the pipe was empty then), so it goes first. 1, 0 (none) or -errno.
 */
static int held_to_sink(struct source_splice *ss, struct splice_cpu *c,
			const struct page_sink *k, size_t at)
{
	int ret;

	if (!c->held)
		return 0;
	if (k->mem) {
		memcpy(k->mem + at, c->held, ss->s.page_size);
	} else {
		ret = fio_pwrite_all(k->fd, c->held, ss->s.page_size, (uint64_t)k->off + at);
		if (ret)
			return ret;
	}
	free(c->held);
	c->held = NULL;
	return 1;
}

/*
 * At flush: the partly written page, copied out by the kernel, to byte @at of the
 * sink. 1, 0 (none) or -errno. The kernel counts it read once copied out: a file
 * that refuses it (a full disk) leaves it held for the next sink, not lost.
 */
static int partial_to_sink(struct source_splice *ss, struct splice_cpu *c,
			   const struct page_sink *k, size_t at)
{
	unsigned int page_size = ss->s.page_size;
	char *dst = k->mem ? k->mem + at : ss->page;
	ssize_t r;
	int ret;

	do {
		r = read(c->fd, dst, page_size);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (!r)
		return 0;
	if ((size_t)r != page_size)
		return -EIO;	/* we always ask for a whole page */
	if (k->mem)
		return 1;
	ret = fio_pwrite_all(k->fd, dst, page_size, (uint64_t)k->off + at);
	if (ret) {
		c->held = ss->page;
		ss->page = malloc(page_size);
		if (!ss->page) {
			/* no memory for a new bounce page: keep it, and lose the page */
			ss->page = c->held;
			c->held = NULL;
			log_warn("splice source: CPU %d: a page of events the file refused is lost",
				 (int)(c - ss->cpus));
		}
		return ret;
	}
	return 1;
}

/*
 * Up to @max whole pages of @cpu to the sink; at @flush also the writer's page. An
 * error after some pages is said by the next call: those pages are the caller's.
 */
static ssize_t move_pages(struct source *s, int cpu, const struct page_sink *k, size_t max,
			  int flush)
{
	struct source_splice *ss = (struct source_splice *)s;
	struct splice_cpu *c = &ss->cpus[cpu];
	size_t n = 0, moved;
	ssize_t err = 0;
	int ret;

	if (c->fd < 0 || !max)
		return 0;
	ret = held_to_sink(ss, c, k, 0);
	if (ret < 0)
		return ret;
	n = (size_t)ret;
	while (n < max) {
		size_t take;

		if (!c->in_pipe) {
			err = fill_pipe(ss, c, max - n);
			if (err <= 0)
				break;
			err = 0;
		}
		take = c->in_pipe / s->page_size;
		if (take > max - n)
			take = max - n;
		err = pipe_to_sink(ss, c, k, n * s->page_size, take * s->page_size, &moved);
		n += moved;
		if (err)
			break;
	}
	/*
	 * One partly written page per call: what the producer wrote before the call. A
	 * loop here would chase a producer that keeps writing, one tiny page per read(),
	 * while the ring fills behind it (the caller's next call takes the rest).
	 */
	if (!err && flush && n < max && !c->in_pipe) {
		ret = partial_to_sink(ss, c, k, n * s->page_size);
		if (ret < 0)
			err = ret;
		else
			n += ret;
	}
	c->pages += n;
	return n ? (ssize_t)n : err;
}

static ssize_t splice_read_pages(struct source *s, int cpu, void *dst, size_t max, int flush)
{
	const struct page_sink k = { .mem = dst, .fd = -1 };

	return move_pages(s, cpu, &k, max, flush);
}

static ssize_t splice_splice_pages(struct source *s, int cpu, int fd, off_t off, size_t max,
				   int flush)
{
	const struct page_sink k = { .fd = fd, .off = off };

	return move_pages(s, cpu, &k, max, flush);
}

static int splice_stats(struct source *s, int cpu, struct source_cpu_stats *st)
{
	struct source_splice *ss = (struct source_splice *)s;
	int ret;

	memset(st, 0, sizeof(*st));
	if (ss->cpus[cpu].fd < 0)
		return 0;
	ret = tracing_cpu_stats(ss->instance, cpu, st);
	st->pages = ss->cpus[cpu].pages;
	st->bytes = st->pages * s->page_size;
	return ret;
}

static char *splice_cpustat_text(struct source *s, int cpu)
{
	struct source_splice *ss = (struct source_splice *)s;

	return tracing_cpustat_text(ss->instance, cpu);
}

const struct source_ops source_splice_ops = {
	.name		= "splice",
	.size		= sizeof(struct source_splice),
	.probe		= splice_probe,
	.open		= splice_open,
	.poll_fd	= splice_poll_fd,
	.read_pages	= splice_read_pages,
	.splice_pages	= splice_splice_pages,
	.stats		= splice_stats,
	.cpustat_text	= splice_cpustat_text,
	.close		= splice_close,
};
