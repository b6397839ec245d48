// SPDX-License-Identifier: GPL-2.0
/* The page pump between the event loop and the capture core (capture_pump.h). */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "capture_pump.h"
#include "util/mono_clock.h"
#include "util/park.h"

/* Ticks that found nothing for this long: the tick slows down to the sync interval. */
#define PUMP_IDLE_MS	1000

struct capture_pump {
	struct loop		*loop;
	struct capture		*cap;
	capture_pump_fail_fn	fail;
	void			*arg;
	int			nfds;
	struct capture_fd	*fds;
	char			*parked;	/* out of the loop for a while (util/park.h) */
	unsigned int		*empties;	/* empty wake-ups in a row, per fd */
	int			park_timer;	/* loop timer id, armed while any is parked */
	int			park_armed;
	uint64_t		park_at;	/* when it fires (mono_ns) */
	int			cpu_fds;	/* CPUs with a wake-up fd */
	unsigned int		idle_ms;	/* ticks that found nothing, in ms */
};

static void unpark(struct capture_pump *p);

static void on_fd(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct capture_pump *p = arg;

	for (int i = 0; i < p->nfds; i++) {
		long ret;

		if (p->fds[i].fd != fd)
			continue;
		ret = capture_service(p->cap, p->fds[i].cpu);
		if (ret < 0) {
			p->fail(p->arg, ret);
			return;
		}
		if (ret > 0)
			p->empties[i] = 0;
		if (ret == 0 && !p->parked[i] && p->fds[i].cpu >= 0) {
			/*
			 * A drain thread's queue: its thread reads the ring meanwhile, so a
			 * park only delays the move to the file, and the flat park cost
			 * less (park.h).
			 */
			unsigned int ms = p->fds[i].queued ? PARK_MAX_MS : park_ms(&p->empties[i]);
			uint64_t at = mono_ns() + ms * 1000000ULL;

			loop_del_fd(l, fd);
			p->parked[i] = 1;
			/* one timer: the earliest park ends all of them */
			if ((!p->park_armed || at < p->park_at) &&
			    !loop_set_timer(l, p->park_timer, ms)) {
				p->park_armed = 1;
				p->park_at = at;
			}
		}
		return;
	}
}

static void on_park_timer(struct loop *l, uint64_t n, void *arg)
{
	unpark(arg);
}

/* Every parked fd back in the loop; the park timer disarmed. */
static void unpark(struct capture_pump *p)
{
	for (int i = 0; i < p->nfds; i++)
		if (p->parked[i] && !loop_add_fd(p->loop, p->fds[i].fd, EPOLLIN, on_fd, p))
			p->parked[i] = 0;
	if (p->park_armed && !loop_set_timer(p->loop, p->park_timer, 0))
		p->park_armed = 0;
}

struct capture_pump *capture_pump_start(struct loop *l, struct capture *c,
					capture_pump_fail_fn fail, void *arg)
{
	struct capture_pump *p = calloc(1, sizeof(*p));
	struct capture_status st;

	if (!p)
		return NULL;
	capture_status(c, &st);
	p->loop = l;
	p->cap = c;
	p->fail = fail;
	p->arg = arg;
	/* a CPU's fd each, and the compression pool's */
	p->fds = calloc(st.ncpus > 0 ? (size_t)st.ncpus + 1 : 1, sizeof(*p->fds));
	p->parked = calloc(st.ncpus > 0 ? (size_t)st.ncpus + 1 : 1, 1);
	p->empties = calloc(st.ncpus > 0 ? (size_t)st.ncpus + 1 : 1, sizeof(*p->empties));
	/* created disarmed: armed only while an fd is parked */
	p->park_timer = loop_add_timer(l, 0, on_park_timer, p);
	if (!p->fds || !p->parked || !p->empties || p->park_timer < 0) {
		capture_pump_stop(p);
		errno = ENOMEM;
		return NULL;
	}
	p->nfds = capture_fds(c, p->fds, st.ncpus + 1);
	for (int i = 0; i < p->nfds; i++) {
		p->cpu_fds += p->fds[i].cpu >= 0;
		if (loop_add_fd(l, p->fds[i].fd, EPOLLIN, on_fd, p))
			p->parked[i] = 1;	/* the tick still services that CPU */
	}
	return p;
}

unsigned int capture_pump_tick(struct capture_pump *p)
{
	unsigned int period = capture_period_ms(p->cap), next;
	struct capture_status st;
	long ret;

	unpark(p);
	ret = capture_service(p->cap, -1);
	if (ret < 0) {
		p->fail(p->arg, ret);
		return period;
	}
	capture_status(p->cap, &st);
	if (ret > 0 || capture_unsynced(p->cap) || p->cpu_fds < st.ncpus) {
		p->idle_ms = 0;
		return period;
	}
	if (p->idle_ms < PUMP_IDLE_MS)
		p->idle_ms += period;
	if (p->idle_ms < PUMP_IDLE_MS)
		return period;
	/* Wake when the next sync is due (it takes what came in below the watermark). */
	next = capture_ms_to_sync(p->cap);
	return next > period ? next : period;
}

void capture_pump_stop(struct capture_pump *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nfds; i++)
		if (!p->parked[i])
			loop_del_fd(p->loop, p->fds[i].fd);
	if (p->park_timer >= 0)
		loop_del_timer(p->loop, p->park_timer);
	free(p->fds);
	free(p->parked);
	free(p->empties);
	free(p);
}
