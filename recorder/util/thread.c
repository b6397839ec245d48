// SPDX-License-Identifier: GPL-2.0
/* Helper threads (thread.h). */
#include <signal.h>

#include "thread.h"

int thread_start(pthread_t *th, void *(*fn)(void *), void *arg, const char *name)
{
	sigset_t all, old;
	int ret;

	/* the thread inherits the mask: no signal is ever delivered to it */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	if (name)
		pthread_setname_np(*th, name);
	return 0;
}
