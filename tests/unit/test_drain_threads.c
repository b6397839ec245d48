// SPDX-License-Identifier: GPL-2.0
/*
 * drain_threads.h over a scripted source: one CPU whose pages 0..NR_PAGES-1, each
 * stamped with its number, are all ready at once. The caller takes them a few at a
 * time, in order, and its wake-up fd stays readable while any is queued: a caller
 * that takes fewer than the thread queued must be woken again for the rest, or they
 * wait for the next batch the ring may never bring.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "source/drain_threads.h"

#define PS		4096
#define NR_PAGES	100	/* fewer than one wake-up of the thread queues */
#define TAKE		8	/* pages the caller asks for at a time */

struct fake {
	struct source	s;
	int		efd;	/* always readable: pages are "ready" */
	unsigned int	next;
};

static int fake_open(struct source *s, const struct source_params *p)
{
	struct fake *f = (struct fake *)s;

	s->ncpus = 1;
	s->page_size = PS;
	f->efd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
	return f->efd < 0 ? -errno : 0;
}

static int fake_poll_fd(struct source *s, int cpu)
{
	return ((struct fake *)s)->efd;
}

static ssize_t fake_read_pages(struct source *s, int cpu, void *dst, size_t max, int flush)
{
	struct fake *f = (struct fake *)s;
	size_t n = 0;

	for (; n < max && f->next < NR_PAGES; n++, f->next++) {
		memset((char *)dst + n * PS, 0, PS);
		memcpy((char *)dst + n * PS, &f->next, sizeof(f->next));
	}
	return (ssize_t)n;
}

static int fake_stats(struct source *s, int cpu, struct source_cpu_stats *st)
{
	memset(st, 0, sizeof(*st));
	return 0;
}

static char *fake_cpustat_text(struct source *s, int cpu)
{
	return NULL;
}

static void fake_close(struct source *s)
{
	close(((struct fake *)s)->efd);
}

static const struct source_ops fake_ops = {
	.name		= "fake",
	.size		= sizeof(struct fake),
	.open		= fake_open,
	.poll_fd	= fake_poll_fd,
	.read_pages	= fake_read_pages,
	.stats		= fake_stats,
	.cpustat_text	= fake_cpustat_text,
	.close		= fake_close,
};

/* Takes every page, TAKE at a time, each time woken; reads as a flush if @flush. */
static void take_all(struct __test_metadata *_metadata, int flush)
{
	const struct source_params p = { 0 };
	char *buf = malloc((size_t)TAKE * PS);
	struct source *in, *s;
	unsigned int want = 0, got;
	int err = 0, fd;

	ASSERT_NE(NULL, buf);
	in = source_open(&fake_ops, &p, &err);
	ASSERT_NE(NULL, in);
	s = drain_threads_wrap(in, 1, &err);
	ASSERT_NE(NULL, s) TH_LOG("drain_threads_wrap: %s", strerror(-err));
	fd = s->ops->poll_fd(s, 0);
	ASSERT_LE(0, fd);
	while (want < NR_PAGES) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;

		ASSERT_EQ(1, poll(&pfd, 1, 2000)) {
			TH_LOG("no wake-up with %u of %u pages taken", want, NR_PAGES);
		}
		r = s->ops->read_pages(s, 0, buf, TAKE, flush);
		ASSERT_LT(0, r);
		for (ssize_t i = 0; i < r; i++, want++) {
			memcpy(&got, buf + i * PS, sizeof(got));
			ASSERT_EQ(want, got);
		}
	}
	source_close(s);
	free(buf);
}

TEST(woken_while_pages_are_queued)
{
	take_all(_metadata, 0);
}

/* A flush (a sync's) that takes fewer than are queued leaves the caller woken too. */
TEST(woken_after_a_flush_that_left_pages)
{
	take_all(_metadata, 1);
}

TEST_HARNESS_MAIN
