// SPDX-License-Identifier: GPL-2.0
/*
 * epoll event loop (recorder/capture/loop.h). Handlers live in a small table indexed by slot;
 * epoll carries the slot number and the slot's generation, so an event of a handler
 * removed during a wake-up (its slot freed, or already reused) is dropped, never
 * delivered to the wrong handler.
 */
#include <errno.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "util/log.h"
#include "loop.h"

#define LOOP_MAX_EVENTS	32

enum slot_kind { SLOT_FREE, SLOT_FD, SLOT_TIMER, SLOT_SIGNAL };

struct slot {
	enum slot_kind	kind;
	uint32_t	gen;		/* bumped at every reuse */
	int		fd;
	void		*arg;
	union {
		loop_fd_fn	fd_fn;
		loop_timer_fn	timer_fn;
		loop_signal_fn	signal_fn;
	};
};

struct loop {
	_Atomic unsigned long turns;	/* epoll_wait returns, for another thread */
	int		epfd;
	int		quit;
	int		code;
	struct slot	*slots;
	int		nr_slots;
};

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nr_slots; i++)
		if (l->slots[i].kind == SLOT_TIMER || l->slots[i].kind == SLOT_SIGNAL)
			close(l->slots[i].fd);
	free(l->slots);
	close(l->epfd);
	free(l);
}

static int slot_add(struct loop *l, enum slot_kind kind, int fd, uint32_t events, void *arg)
{
	struct epoll_event ev = { .events = events };
	int i;

	for (i = 0; i < l->nr_slots; i++)
		if (l->slots[i].kind == SLOT_FREE)
			break;
	if (i == l->nr_slots) {
		struct slot *s = realloc(l->slots, (l->nr_slots + 8) * sizeof(*s));

		if (!s)
			return -ENOMEM;
		memset(s + l->nr_slots, 0, 8 * sizeof(*s));
		l->slots = s;
		l->nr_slots += 8;
	}
	l->slots[i].gen++;
	ev.data.u64 = (uint64_t)l->slots[i].gen << 32 | (uint32_t)i;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	l->slots[i].kind = kind;
	l->slots[i].fd = fd;
	l->slots[i].arg = arg;
	return i;
}

int loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *arg)
{
	int i = slot_add(l, SLOT_FD, fd, events, arg);

	if (i < 0)
		return i;
	l->slots[i].fd_fn = fn;
	return 0;
}

int loop_del_fd(struct loop *l, int fd)
{
	for (int i = 0; i < l->nr_slots; i++) {
		if (l->slots[i].kind == SLOT_FD && l->slots[i].fd == fd) {
			epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
			l->slots[i].kind = SLOT_FREE;
			return 0;
		}
	}
	return -ENOENT;
}

static int timer_arm(int fd, unsigned int ms)
{
	struct itimerspec its = {
		.it_interval = { ms / 1000, (ms % 1000) * 1000000L },
		.it_value = { ms / 1000, (ms % 1000) * 1000000L },
	};

	return timerfd_settime(fd, 0, &its, NULL) ? -errno : 0;
}

int loop_add_timer(struct loop *l, unsigned int period_ms, loop_timer_fn fn, void *arg)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	int i, ret;

	if (fd < 0)
		return -errno;
	ret = timer_arm(fd, period_ms);
	i = ret ? ret : slot_add(l, SLOT_TIMER, fd, EPOLLIN, arg);
	if (i < 0) {
		close(fd);
		return i;
	}
	l->slots[i].timer_fn = fn;
	return i;
}

int loop_set_timer(struct loop *l, int id, unsigned int period_ms)
{
	if (id < 0 || id >= l->nr_slots || l->slots[id].kind != SLOT_TIMER)
		return -EINVAL;
	return timer_arm(l->slots[id].fd, period_ms);
}

int loop_del_timer(struct loop *l, int id)
{
	if (id < 0 || id >= l->nr_slots || l->slots[id].kind != SLOT_TIMER)
		return -EINVAL;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, l->slots[id].fd, NULL);
	close(l->slots[id].fd);
	l->slots[id].kind = SLOT_FREE;
	return 0;
}

int loop_add_signals(struct loop *l, const int *sigs, loop_signal_fn fn, void *arg)
{
	sigset_t set;
	int fd, i;

	sigemptyset(&set);
	for (const int *s = sigs; *s; s++)
		sigaddset(&set, *s);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	i = slot_add(l, SLOT_SIGNAL, fd, EPOLLIN, arg);
	if (i < 0) {
		close(fd);
		return i;
	}
	l->slots[i].signal_fn = fn;
	return 0;
}

/*
 * A handler may add slots, which can move the array: @s is not read after a call
 * (a reload's handler re-arms its triggers between two signals of one read loop).
 */
static void dispatch(struct loop *l, struct slot *s, uint32_t events)
{
	struct signalfd_siginfo si;
	loop_signal_fn signal_fn;
	void *arg = s->arg;
	int fd = s->fd;
	uint64_t n;

	switch (s->kind) {
	case SLOT_FD:
		s->fd_fn(l, fd, events, arg);
		break;
	case SLOT_TIMER:
		if (read(fd, &n, sizeof(n)) == sizeof(n) && n)
			s->timer_fn(l, n, arg);
		break;
	case SLOT_SIGNAL:
		signal_fn = s->signal_fn;
		while (read(fd, &si, sizeof(si)) == sizeof(si))
			signal_fn(l, (int)si.ssi_signo, arg);
		break;
	case SLOT_FREE:
		break;
	}
}

int loop_run(struct loop *l)
{
	struct epoll_event evs[LOOP_MAX_EVENTS];

	l->quit = 0;
	while (!l->quit) {
		int n = epoll_wait(l->epfd, evs, LOOP_MAX_EVENTS, -1);

		atomic_fetch_add_explicit(&l->turns, 1, memory_order_relaxed);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_err("event loop: epoll_wait: %s", strerror(errno));
			return -errno;
		}
		for (int i = 0; i < n && !l->quit; i++) {
			uint32_t id = (uint32_t)evs[i].data.u64;
			uint32_t gen = evs[i].data.u64 >> 32;

			/* A handler earlier in this batch may have removed (or reused) it. */
			if (id < (uint32_t)l->nr_slots && l->slots[id].gen == gen)
				dispatch(l, &l->slots[id], evs[i].events);
		}
	}
	return l->code;
}

void loop_quit(struct loop *l, int code)
{
	l->quit = 1;
	l->code = code;
}

unsigned long loop_turns(struct loop *l)
{
	return atomic_load_explicit(&l->turns, memory_order_relaxed);
}
