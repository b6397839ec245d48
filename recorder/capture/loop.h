/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's one event loop: epoll over fd handlers, with timers as timerfds and
 * signals as a signalfd, so every wake-up (capture fd, control socket, timer, SIGTERM)
 * is an fd event handled in one thread, in order, with no async signal handlers.
 */
#ifndef REC_LOOP_H
#define REC_LOOP_H

#include <stdint.h>

struct loop;

/* Called with the epoll events of @fd. */
typedef void (*loop_fd_fn)(struct loop *l, int fd, uint32_t events, void *arg);
/* Called with the number of expirations since the last call (>= 1). */
typedef void (*loop_timer_fn)(struct loop *l, uint64_t expirations, void *arg);
/* Called once per delivered signal. */
typedef void (*loop_signal_fn)(struct loop *l, int signo, void *arg);

struct loop *loop_new(void);

/* Frees the loop and closes the timer and signal fds it created. Accepts NULL. */
void loop_free(struct loop *l);

/* Watches @fd (not owned) for @events (EPOLLIN, ...). 0 or -errno. */
int loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *arg);
int loop_del_fd(struct loop *l, int fd);

/*
 * Adds a periodic timer (CLOCK_MONOTONIC) of @period_ms; the first expiry is one period
 * from now. Returns a timer id (>= 0) or -errno.
 */
int loop_add_timer(struct loop *l, unsigned int period_ms, loop_timer_fn fn, void *arg);

/* Changes the period of timer @id (0 disarms it). 0 or -errno. */
int loop_set_timer(struct loop *l, int id, unsigned int period_ms);

/* Removes timer @id and closes its timerfd. 0 or -EINVAL. */
int loop_del_timer(struct loop *l, int id);

/*
 * Blocks @sigs (0-terminated) in the calling thread and delivers them through a
 * signalfd. Call once, before starting threads. 0 or -errno.
 */
int loop_add_signals(struct loop *l, const int *sigs, loop_signal_fn fn, void *arg);

/* Runs until loop_quit(); returns its @code, or -errno if epoll fails. */
int loop_run(struct loop *l);

/*
 * How many times loop_run() has woken up: another thread reads it to tell a loop
 * that is held up (in a handler) from one that turns. Any thread.
 */
unsigned long loop_turns(struct loop *l);

/* Makes loop_run() return @code after the handler that calls it. */
void loop_quit(struct loop *l, int code);

#endif /* REC_LOOP_H */
