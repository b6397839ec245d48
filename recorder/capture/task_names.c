// SPDX-License-Identifier: GPL-2.0
/*
 * The task-name walker (task_names.h). One mutex and one condition variable: the
 * thread sleeps until a walk is asked for, walks without the lock and publishes the
 * text; @asked and @done count walks, so a taker waiting for a fresh one knows it
 * when it sees it. Idle, the thread sleeps: no timer, no wake-up.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "source/tracing.h"
#include "task_names.h"
#include "util/thread.h"

struct task_names {
	pthread_t	thread;
	pthread_mutex_t	lock;
	pthread_cond_t	cond;		/* a walk asked for, done, or quit */
	uint64_t	asked;		/* requests so far */
	uint64_t	started;	/* @asked when the last walk began: it answers those */
	uint64_t	done;		/* @started of the last walk finished */
	bool		quit;
	bool		with_saved;	/* read saved_cmdlines too */
	char		*text;		/* the newest walk's, not taken yet */
	size_t		len;
	size_t		live_len;	/* of @len, the tasks alive (tracing_cmdlines()) */
};

/*
 * At the lowest nice: at the page path's (nice 0) the walk took the page path's CPU
 * in 10 ms slices while the page path waited, runnable, and a 2-vCPU guest's ring
 * overflowed meanwhile. A thread may lower its own priority without privilege.
 */
static void *walker(void *arg)
{
	struct task_names *t = arg;

	setpriority(PRIO_PROCESS, (id_t)gettid(), 19);
	pthread_mutex_lock(&t->lock);
	for (;;) {
		size_t len = 0, live_len = 0;
		uint64_t n;
		char *text;

		while (!t->quit && t->started == t->asked)
			pthread_cond_wait(&t->cond, &t->lock);
		if (t->quit)
			break;
		t->started = t->asked;
		n = t->started;
		pthread_mutex_unlock(&t->lock);
		text = tracing_cmdlines(t->with_saved, &len, &live_len);
		pthread_mutex_lock(&t->lock);
		if (text) {
			free(t->text);
			t->text = text;
			t->len = len;
			t->live_len = live_len;
		}
		t->done = n;
		pthread_cond_broadcast(&t->cond);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

struct task_names *task_names_start(bool with_saved, int *err)
{
	struct task_names *t = calloc(1, sizeof(*t));
	int ret;

	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	t->asked = 1;
	t->with_saved = with_saved;
	ret = thread_start(&t->thread, walker, t, "recorderd-names");
	if (ret) {
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		free(t);
		*err = ret;
		return NULL;
	}
	return t;
}

void task_names_want(struct task_names *t)
{
	pthread_mutex_lock(&t->lock);
	/* none asked for and none under way */
	if (t->asked == t->started && t->done == t->started) {
		t->asked++;
		pthread_cond_broadcast(&t->cond);
	}
	pthread_mutex_unlock(&t->lock);
}

char *task_names_take(struct task_names *t, int wait, size_t *len, size_t *live_len)
{
	char *text;

	pthread_mutex_lock(&t->lock);
	if (wait) {
		/* a walk that begins after now: the one asked here, or a later one */
		uint64_t want = ++t->asked;

		pthread_cond_broadcast(&t->cond);
		while (t->done < want)
			pthread_cond_wait(&t->cond, &t->lock);
	}
	text = t->text;
	*len = t->len;
	*live_len = t->live_len;
	t->text = NULL;
	t->len = 0;
	pthread_mutex_unlock(&t->lock);
	return text;
}

void task_names_stop(struct task_names *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->quit = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t->text);
	free(t);
}
