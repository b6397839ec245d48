// SPDX-License-Identifier: GPL-2.0
/* The page pump between the event loop and the capture core (capture_pump.h). */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "capture_pump.h"

struct capture_pump {
	struct loop		*loop;
	struct capture		*cap;
	capture_pump_fail_fn	fail;
	void			*arg;
	int			nfds;
	struct capture_fd	*fds;
	char			*parked;	/* not in the loop until the next tick */
};

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
		if (ret == 0 && !p->parked[i]) {
			loop_del_fd(l, fd);
			p->parked[i] = 1;
		}
		return;
	}
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
	p->fds = calloc(st.ncpus > 0 ? (size_t)st.ncpus : 1, sizeof(*p->fds));
	p->parked = calloc(st.ncpus > 0 ? (size_t)st.ncpus : 1, 1);
	if (!p->fds || !p->parked) {
		capture_pump_stop(p);
		errno = ENOMEM;
		return NULL;
	}
	p->nfds = capture_fds(c, p->fds, st.ncpus);
	for (int i = 0; i < p->nfds; i++)
		if (loop_add_fd(l, p->fds[i].fd, EPOLLIN, on_fd, p))
			p->parked[i] = 1;	/* the tick still services that CPU */
	return p;
}

void capture_pump_tick(struct capture_pump *p)
{
	long ret;

	for (int i = 0; i < p->nfds; i++)
		if (p->parked[i] && !loop_add_fd(p->loop, p->fds[i].fd, EPOLLIN, on_fd, p))
			p->parked[i] = 0;
	ret = capture_service(p->cap, -1);
	if (ret < 0)
		p->fail(p->arg, ret);
}

void capture_pump_stop(struct capture_pump *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nfds; i++)
		if (!p->parked[i])
			loop_del_fd(p->loop, p->fds[i].fd);
	free(p->fds);
	free(p->parked);
	free(p);
}
