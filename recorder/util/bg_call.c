// SPDX-License-Identifier: GPL-2.0
/* One call on a thread of its own (bg_call.h). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "bg_call.h"
#include "log.h"
#include "thread.h"

struct bg_call {
	pthread_t	thread;
	void		(*fn)(void *arg);
	void		*arg;
	int		efd;	/* written once @done is set */
	atomic_int	done;
	char		error[256];	/* the first error @fn logged, for the caller */
};

static void *run(void *arg)
{
	struct bg_call *b = arg;
	uint64_t one = 1;
	ssize_t n;

	log_mark_errors();
	b->fn(b->arg);
	snprintf(b->error, sizeof(b->error), "%s", log_first_error());
	atomic_store(&b->done, 1);
	/* one write to a fresh eventfd cannot fail; @done says it all the same */
	n = write(b->efd, &one, sizeof(one));
	(void)n;
	return NULL;
}

struct bg_call *bg_call_start(void (*fn)(void *), void *arg, const char *name, int *err)
{
	struct bg_call *b = calloc(1, sizeof(*b));

	if (!b) {
		*err = -ENOMEM;
		return NULL;
	}
	b->fn = fn;
	b->arg = arg;
	b->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (b->efd < 0) {
		*err = -errno;
		free(b);
		return NULL;
	}
	*err = thread_start(&b->thread, run, b, name);
	if (*err) {
		close(b->efd);
		free(b);
		return NULL;
	}
	return b;
}

int bg_call_fd(const struct bg_call *b)
{
	return b->efd;
}

int bg_call_done(const struct bg_call *b)
{
	return atomic_load(&b->done);
}

void bg_call_finish(struct bg_call *b)
{
	pthread_join(b->thread, NULL);
	log_keep_error(b->error);
	close(b->efd);
	free(b);
}
