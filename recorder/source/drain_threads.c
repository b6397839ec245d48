// SPDX-License-Identifier: GPL-2.0
/* A source's rings read over threads (drain_threads.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
#include "util/mono_clock.h"
#include "util/thread.h"
#include "drain_threads.h"

/* Queued pages per CPU; fewer when the CPUs are many (all queues: DRAIN_QUEUE_BYTES). */
#define DRAIN_QUEUE_PAGES	1024
#define DRAIN_QUEUE_BYTES	(64UL << 20)
#define DRAIN_QUEUE_MIN		16
/* Pages per read of the ring, and reads per CPU per wake-up, so no CPU starves. */
#define DRAIN_BATCH		64
#define DRAIN_ROUNDS		4
/*
 * A wake-up fd that had nothing whole to take stays out of the thread's epoll this
 * long (its readiness is level-triggered and may stay stale); each thread also reads
 * its CPUs every DRAIN_TICK_MS while pages come. Flat, not the page pump's back-off
 * (util/park.h says why).
 */
#define DRAIN_PARK_MS		10
/*
 * While pages come, each thread also reads all its CPUs this often: the watermark's
 * wake-up alone comes late or not at all (a full ftring ring whose writers only drop
 * raises none; 6.1's buffer_percent wake-ups lag a flood). trace-cmd's readers poll
 * every millisecond all the time. Once such a round finds no whole page the thread
 * sleeps on its fds alone: idle costs nothing, a trickle one wake-up more per batch.
 */
#define DRAIN_TICK_MS		2
#define STOP_KEY		UINT32_MAX

struct dt_cpu {
	pthread_mutex_t	lock;		/* inner's @cpu: the thread's reads and a flush */
	char		*pages;		/* cap pages, a ring of them */
	_Atomic size_t	head;		/* pages taken by the caller */
	_Atomic size_t	tail;		/* pages queued by the thread */
	_Atomic int	err;		/* the thread's read failed: -errno, sticky */
	int		efd;		/* readable while pages were queued */
	int		in_fd;		/* inner's wake-up fd; -1: the caller reads */
	int		thread;
	int		parked;
};

struct dt_thread {
	struct drain_threads	*dt;
	pthread_t		th;
	int			index;
	int			epfd;
	int			running;
	int			only_cpu;	/* the one CPU it reads, or < 0 */
};

struct drain_threads {
	struct source		s;	/* first: what the caller holds */
	struct source_ops	ops;	/* inner's, reading replaced */
	struct source		*in;
	size_t			cap;
	struct dt_cpu		*cpus;
	struct dt_thread	*th;
	unsigned int		nthreads;
	int			stop_efd;	/* readable: every thread returns */
};

static struct drain_threads *dt_of(struct source *s)
{
	return (struct drain_threads *)s;
}

/*
 * Thread side: as many pages of @cpu as the ring has whole and the queue has room for.
 * Return: pages queued, or the read's -errno (kept for the caller, who reports it).
 */
static long fill(struct drain_threads *dt, int cpu)
{
	struct dt_cpu *c = &dt->cpus[cpu];
	size_t ps = dt->s.page_size;
	long total = 0;
	ssize_t r = 0;

	pthread_mutex_lock(&c->lock);
	for (int round = 0; round < DRAIN_ROUNDS; round++) {
		size_t tail = atomic_load_explicit(&c->tail, memory_order_relaxed);
		size_t head = atomic_load_explicit(&c->head, memory_order_acquire);
		size_t room = dt->cap - (tail - head), at = tail % dt->cap, n;

		n = dt->cap - at < room ? dt->cap - at : room;
		if (n > DRAIN_BATCH)
			n = DRAIN_BATCH;
		if (!n)
			break;
		r = dt->in->ops->read_pages(dt->in, cpu, c->pages + at * ps, n, 0);
		if (r <= 0)
			break;
		/* the pages are written before the caller can see the new tail */
		atomic_store_explicit(&c->tail, tail + (size_t)r, memory_order_release);
		total += r;
		if ((size_t)r < n)
			break;
	}
	pthread_mutex_unlock(&c->lock);
	if (r < 0)
		atomic_store(&c->err, (int)r);
	if (total || r < 0)
		eventfd_write(c->efd, 1);
	return r < 0 ? r : total;
}

static void park(struct dt_thread *t, int cpu)
{
	struct dt_cpu *c = &t->dt->cpus[cpu];

	epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->in_fd, NULL);
	c->parked = 1;
}

static void unpark_all(struct dt_thread *t)
{
	struct drain_threads *dt = t->dt;

	for (int i = 0; i < dt->s.ncpus; i++) {
		struct dt_cpu *c = &dt->cpus[i];
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		/* a CPU whose reads failed stays out: its error is the caller's now */
		if (c->thread != t->index || !c->parked || atomic_load(&c->err))
			continue;
		if (!epoll_ctl(t->epfd, EPOLL_CTL_ADD, c->in_fd, &ev))
			c->parked = 0;
	}
}

/* Reads every CPU of @t. Return: 1 when any had pages. */
static int fill_all(struct dt_thread *t)
{
	struct drain_threads *dt = t->dt;
	int moved = 0;

	for (int i = 0; i < dt->s.ncpus; i++)
		if (dt->cpus[i].thread == t->index && !atomic_load(&dt->cpus[i].err))
			moved |= fill(dt, i) > 0;
	return moved;
}

static void *reader_main(void *arg)
{
	struct dt_thread *t = arg;
	struct epoll_event ev[32];
	uint64_t unpark_at = 0, tick_at = 0;
	char name[16];

	snprintf(name, sizeof(name), "rd-drain/%d", t->only_cpu >= 0 ? t->only_cpu : t->index);
	pthread_setname_np(pthread_self(), name);

	/*
	 * A thread of one CPU of the module runs on it: the module swaps a reader page on
	 * the ring's own CPU, which from elsewhere is an IPI per page, each waiting for a
	 * busy CPU. Others go where the scheduler finds room: pinned beside a writer
	 * that hogs its CPU (SCHED_FIFO), a reader only gets what RT throttling leaves.
	 */
	if (t->only_cpu >= 0 && (t->dt->in->ops->flags & SOURCE_SWAP_ON_CPU)) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->only_cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			log_debug("drain thread of CPU %d: stays unpinned: %s", t->only_cpu,
				  strerror(errno));
	}
	for (;;) {
		uint64_t now = mono_ms(), next = 0;
		int timeout = -1, n;

		if (unpark_at && now >= unpark_at) {
			unpark_all(t);
			unpark_at = 0;
		}
		if (tick_at && now >= tick_at)
			tick_at = fill_all(t) ? now + DRAIN_TICK_MS : 0;
		if (unpark_at)
			next = unpark_at;
		if (tick_at && (!next || tick_at < next))
			next = tick_at;
		if (next)
			timeout = (int)(next - now);
		n = epoll_wait(t->epfd, ev, 32, timeout);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			uint32_t cpu = ev[i].data.u32;
			long got;

			if (cpu == STOP_KEY)
				return NULL;
			got = fill(t->dt, (int)cpu);
			if (got > 0 && !tick_at)
				tick_at = mono_ms() + DRAIN_TICK_MS;
			/* nothing whole (or no room, or an error): out for a while */
			if (got <= 0) {
				park(t, (int)cpu);
				if (!unpark_at)
					unpark_at = mono_ms() + DRAIN_PARK_MS;
			}
		}
	}
	/* its CPUs would go unread: their error is the page path's to report */
	for (int i = 0; i < t->dt->s.ncpus; i++) {
		struct dt_cpu *c = &t->dt->cpus[i];

		if (c->thread != t->index)
			continue;
		atomic_store(&c->err, -errno);
		eventfd_write(c->efd, 1);
	}
	return NULL;
}

/* Caller side: up to @max queued pages of @c into @dst, in order. */
static size_t pop(struct drain_threads *dt, struct dt_cpu *c, char *dst, size_t max)
{
	size_t ps = dt->s.page_size, done = 0;
	size_t head = atomic_load_explicit(&c->head, memory_order_relaxed);
	size_t tail = atomic_load_explicit(&c->tail, memory_order_acquire);

	while (done < max && head != tail) {
		size_t at = head % dt->cap, n = tail - head;

		if (n > dt->cap - at)
			n = dt->cap - at;
		if (n > max - done)
			n = max - done;
		memcpy(dst + done * ps, c->pages + at * ps, n * ps);
		done += n;
		head += n;
	}
	/* the copies are done before the thread may reuse the slots */
	atomic_store_explicit(&c->head, head, memory_order_release);
	return done;
}

/* Pages left queued after a take: the caller is woken again for them (not by a next batch). */
static void rewake_if_queued(struct dt_cpu *c)
{
	if (atomic_load_explicit(&c->tail, memory_order_acquire) !=
	    atomic_load_explicit(&c->head, memory_order_relaxed))
		eventfd_write(c->efd, 1);
}

static ssize_t dt_read_pages(struct source *s, int cpu, void *dst, size_t max, int flush)
{
	struct drain_threads *dt = dt_of(s);
	struct dt_cpu *c = &dt->cpus[cpu];
	size_t ps = s->page_size, n;
	eventfd_t v;
	ssize_t r = 0;

	if (c->in_fd < 0)	/* no thread reads it */
		return dt->in->ops->read_pages(dt->in, cpu, dst, max, flush);
	/* cleared before taking: a batch queued after this wakes the caller again */
	eventfd_read(c->efd, &v);
	if (!flush) {
		n = pop(dt, c, dst, max);
		rewake_if_queued(c);
		return n ? (ssize_t)n : atomic_load(&c->err);
	}
	/*
	 * A flush (sync, stop) takes the queue, then what the ring holds, the page being
	 * written included (once): the CPU's lock keeps the thread out meanwhile, so
	 * nothing comes out of order. The thread polls a busy ring every DRAIN_TICK_MS,
	 * so little is left for the caller to read (on the module, with an IPI per page).
	 */
	pthread_mutex_lock(&c->lock);
	n = pop(dt, c, dst, max);
	if (n < max && !atomic_load(&c->err))
		r = dt->in->ops->read_pages(dt->in, cpu, (char *)dst + n * ps, max - n, 1);
	pthread_mutex_unlock(&c->lock);
	rewake_if_queued(c);
	if (n || r > 0)
		return (ssize_t)(n + (r > 0 ? (size_t)r : 0));
	return r ? r : atomic_load(&c->err);
}

static int dt_poll_fd(struct source *s, int cpu)
{
	struct drain_threads *dt = dt_of(s);

	return dt->cpus[cpu].in_fd < 0 ? -1 : dt->cpus[cpu].efd;
}

/* The rest goes to inner, under the CPU's lock where inner's per-CPU state is read. */
static int dt_stats(struct source *s, int cpu, struct source_cpu_stats *st)
{
	struct drain_threads *dt = dt_of(s);
	int ret;

	pthread_mutex_lock(&dt->cpus[cpu].lock);
	ret = dt->in->ops->stats(dt->in, cpu, st);
	pthread_mutex_unlock(&dt->cpus[cpu].lock);
	return ret;
}

static char *dt_cpustat_text(struct source *s, int cpu)
{
	struct drain_threads *dt = dt_of(s);
	char *text;

	pthread_mutex_lock(&dt->cpus[cpu].lock);
	text = dt->in->ops->cpustat_text(dt->in, cpu);
	pthread_mutex_unlock(&dt->cpus[cpu].lock);
	return text;
}

static int dt_add_meta(struct source *s, struct trace_meta *m)
{
	return dt_of(s)->in->ops->add_meta(dt_of(s)->in, m);
}

static const char *dt_clock_name(struct source *s)
{
	return dt_of(s)->in->ops->clock_name(dt_of(s)->in);
}

static int dt_stop(struct source *s)
{
	return dt_of(s)->in->ops->stop(dt_of(s)->in);
}

static void dt_adopt(struct source *s)
{
	dt_of(s)->in->ops->adopt(dt_of(s)->in);
}

/* Stops and joins the threads, frees the queues; inner stays open. */
static void dt_release(struct drain_threads *dt)
{
	if (dt->stop_efd >= 0)
		eventfd_write(dt->stop_efd, 1);
	for (unsigned int i = 0; dt->th && i < dt->nthreads; i++) {
		if (dt->th[i].running)
			pthread_join(dt->th[i].th, NULL);
		if (dt->th[i].epfd >= 0)
			close(dt->th[i].epfd);
	}
	for (int i = 0; dt->cpus && i < dt->s.ncpus; i++) {
		if (dt->cpus[i].efd >= 0)
			close(dt->cpus[i].efd);
		free(dt->cpus[i].pages);
		pthread_mutex_destroy(&dt->cpus[i].lock);
	}
	if (dt->stop_efd >= 0)
		close(dt->stop_efd);
	free(dt->th);
	free(dt->cpus);
	dt->th = NULL;
	dt->cpus = NULL;
}

static void dt_close(struct source *s)
{
	struct drain_threads *dt = dt_of(s);

	dt_release(dt);
	source_close(dt->in);
}

unsigned int drain_threads_auto(int ncpus)
{
	if (ncpus < DRAIN_THREADS_MIN_CPUS)
		return 0;
	return (unsigned int)(ncpus < DRAIN_THREADS_MAX ? ncpus : DRAIN_THREADS_MAX);
}

/* Thread @t's epoll: its CPUs' wake-up fds and the stop fd. */
static int thread_setup(struct drain_threads *dt, struct dt_thread *t)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = STOP_KEY };

	t->only_cpu = -1;
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epfd < 0 || epoll_ctl(t->epfd, EPOLL_CTL_ADD, dt->stop_efd, &ev))
		return -errno;
	for (int i = 0; i < dt->s.ncpus; i++) {
		if (dt->cpus[i].thread != t->index)
			continue;
		ev.data.u32 = (uint32_t)i;
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, dt->cpus[i].in_fd, &ev))
			return -errno;
		t->only_cpu = t->only_cpu == -1 ? i : -2;
	}
	return 0;
}

static int start_threads(struct drain_threads *dt)
{
	int ret = 0;

	for (unsigned int i = 0; i < dt->nthreads && !ret; i++) {
		struct dt_thread *t = &dt->th[i];

		ret = thread_setup(dt, t);
		if (!ret)
			ret = thread_start(&t->th, reader_main, t, NULL);
		t->running = !ret;
	}
	return ret;
}

struct source *drain_threads_wrap(struct source *inner, unsigned int threads, int *err)
{
	struct drain_threads *dt = calloc(1, sizeof(*dt));
	size_t ps = inner->page_size;
	int ncpus = inner->ncpus, fds = 0, ret = 0;

	if (!dt) {
		*err = -ENOMEM;
		return NULL;
	}
	dt->in = inner;
	dt->s = *inner;
	dt->s.ops = &dt->ops;
	/* each op forwarded by name: one added to source.h later is absent, not misrouted */
	dt->ops.name = inner->ops->name;
	dt->ops.flags = inner->ops->flags;
	dt->ops.read_pages = dt_read_pages;
	dt->ops.poll_fd = dt_poll_fd;
	dt->ops.close = dt_close;
	dt->ops.stats = inner->ops->stats ? dt_stats : NULL;
	dt->ops.cpustat_text = inner->ops->cpustat_text ? dt_cpustat_text : NULL;
	dt->ops.add_meta = inner->ops->add_meta ? dt_add_meta : NULL;
	dt->ops.clock_name = inner->ops->clock_name ? dt_clock_name : NULL;
	dt->ops.stop = inner->ops->stop ? dt_stop : NULL;
	dt->ops.adopt = inner->ops->adopt ? dt_adopt : NULL;
	dt->cap = DRAIN_QUEUE_PAGES;
	if (ncpus > 0 && dt->cap * ps * (size_t)ncpus > DRAIN_QUEUE_BYTES)
		dt->cap = DRAIN_QUEUE_BYTES / ps / (size_t)ncpus;
	if (dt->cap < DRAIN_QUEUE_MIN)
		dt->cap = DRAIN_QUEUE_MIN;
	if (!threads)
		threads = 1;
	if (threads > DRAIN_THREADS_MAX)
		threads = DRAIN_THREADS_MAX;
	dt->cpus = calloc(ncpus > 0 ? (size_t)ncpus : 1, sizeof(*dt->cpus));
	dt->th = calloc(threads, sizeof(*dt->th));
	/* every fd -1 before anything can fail: dt_release() closes what is >= 0 */
	for (int i = 0; dt->cpus && i < ncpus; i++)
		dt->cpus[i].efd = -1;
	dt->stop_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (dt->stop_efd < 0 || !dt->cpus || !dt->th) {
		ret = dt->stop_efd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	for (unsigned int i = 0; i < threads; i++) {
		dt->th[i].dt = dt;
		dt->th[i].index = (int)i;
		dt->th[i].epfd = -1;
	}
	for (int i = 0; i < ncpus; i++) {
		struct dt_cpu *c = &dt->cpus[i];

		pthread_mutex_init(&c->lock, NULL);
		c->in_fd = inner->ops->poll_fd ? inner->ops->poll_fd(inner, i) : -1;
		c->thread = -1;
		if (c->in_fd < 0)
			continue;
		c->thread = fds++ % (int)threads;
		c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		/* untouched until used: a quiet CPU's queue costs address space only */
		c->pages = malloc(dt->cap * ps);
		if (c->efd < 0 || !c->pages) {
			ret = c->efd < 0 ? -errno : -ENOMEM;
			goto fail;
		}
	}
	/* no thread without a CPU to read */
	dt->nthreads = threads < (unsigned int)fds ? threads : (unsigned int)fds;
	ret = start_threads(dt);
	if (ret)
		goto fail;
	log_debug("reading %d CPUs over %u threads, %zu pages queued per CPU at most",
		  fds, dt->nthreads, dt->cap);
	return &dt->s;
fail:
	log_err("cannot start the drain threads: %s", strerror(-ret));
	dt_release(dt);
	free(dt);
	*err = ret;
	return NULL;
}
