/* SPDX-License-Identifier: GPL-2.0 */
/* Helper threads of recorderd: signals stay the main loop's (its signalfd). */
#ifndef REC_UTIL_THREAD_H
#define REC_UTIL_THREAD_H

#include <pthread.h>

/*
 * thread_start() - pthread_create() with every signal blocked in the new thread,
 * named @name (NULL: unnamed). Return: 0 or -errno.
 */
int thread_start(pthread_t *th, void *(*fn)(void *), void *arg, const char *name);

#endif /* REC_UTIL_THREAD_H */
