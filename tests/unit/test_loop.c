// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/capture/loop.c: periodic timers (with their expiration counts), signals through
 * signalfd, fd handlers, handlers removed during a wake-up, and loop_quit's code.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "capture/loop.h"
/* The harness compares int literals with unsigned fields. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

struct state {
	int		ticks;
	uint64_t	expirations;
	int		signo;
	int		reads;
	int		pipe_a[2];
	int		pipe_b[2];
	int		other_called;
};

static void on_tick(struct loop *l, uint64_t n, void *arg)
{
	struct state *s = arg;

	s->ticks++;
	s->expirations += n;
	if (s->ticks == 5)
		loop_quit(l, 42);
}

TEST(timer_fires_periodically_and_quit_returns_code)
{
	struct loop *l = loop_new();
	struct state s = { 0 };
	struct timespec t0, t1;
	double ms;

	ASSERT_NE(NULL, l);
	ASSERT_GE(loop_add_timer(l, 20, on_tick, &s), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(42, loop_run(l));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	EXPECT_EQ(5, s.ticks);
	EXPECT_GE(ms, 95);	/* 5 periods of 20 ms */
	EXPECT_LT(ms, 2000);
	loop_free(l);
}

TEST(timer_period_change_and_disarm)
{
	struct loop *l = loop_new();
	struct state s = { 0 };
	int id;

	ASSERT_NE(NULL, l);
	id = loop_add_timer(l, 10000, on_tick, &s);
	ASSERT_GE(id, 0);
	EXPECT_EQ(0, loop_set_timer(l, id, 10));
	EXPECT_EQ(42, loop_run(l));
	EXPECT_EQ(5, s.ticks);
	EXPECT_EQ(0, loop_set_timer(l, id, 0));
	EXPECT_NE(0, loop_set_timer(l, id + 100, 10));
	loop_free(l);
}

static void on_signal(struct loop *l, int signo, void *arg)
{
	struct state *s = arg;

	s->signo = signo;
	loop_quit(l, 7);
}

static void send_signal(struct loop *l, uint64_t n, void *arg)
{
	raise(SIGUSR1);
}

TEST(signals_arrive_through_the_loop)
{
	static const int sigs[] = { SIGUSR1, 0 };
	struct loop *l = loop_new();
	struct state s = { 0 };
	sigset_t cur;

	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, loop_add_signals(l, sigs, on_signal, &s));
	/* Blocked, so a raise() before loop_run() waits in the signalfd instead of killing. */
	sigprocmask(SIG_BLOCK, NULL, &cur);
	EXPECT_TRUE(sigismember(&cur, SIGUSR1));
	ASSERT_GE(loop_add_timer(l, 10, send_signal, &s), 0);
	EXPECT_EQ(7, loop_run(l));
	EXPECT_EQ(SIGUSR1, s.signo);
	loop_free(l);
}

static void tick_never(struct loop *l, uint64_t n, void *arg)
{
}

/*
 * The first of two pending signals adds timers, as a reload re-arming its triggers
 * does: the slot array grows (realloc), and the loop must not read the second signal
 * through the old one. test_loop_asan (rules.mk) sees the use after free; a plain
 * build goes on reading freed memory unseen.
 */
static void on_signal_adds(struct loop *l, int signo, void *arg)
{
	struct state *s = arg;

	if (++s->reads == 1) {
		for (int i = 0; i < 24; i++)
			loop_add_timer(l, 100000, tick_never, NULL);
		return;
	}
	s->signo = signo;
	loop_quit(l, 7);
}

TEST(signal_handler_that_adds_handlers)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, 0 };
	struct loop *l = loop_new();
	struct state s = { 0 };

	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, loop_add_signals(l, sigs, on_signal_adds, &s));
	raise(SIGUSR1);
	raise(SIGUSR2);
	EXPECT_EQ(7, loop_run(l));
	EXPECT_EQ(2, s.reads);
	EXPECT_EQ(SIGUSR2, s.signo);
	loop_free(l);
}

static void on_b(struct loop *l, int fd, uint32_t ev, void *arg)
{
	struct state *s = arg;

	s->other_called++;
}

/* Reads pipe a, then removes pipe b's handler, which is readable in the same batch. */
static void on_a(struct loop *l, int fd, uint32_t ev, void *arg)
{
	struct state *s = arg;
	char c;

	if (read(fd, &c, 1) == 1)
		s->reads++;
	loop_del_fd(l, s->pipe_b[0]);
	if (s->reads == 1)
		loop_quit(l, 1);
}

TEST(fd_handlers_and_removal_during_a_wakeup)
{
	struct loop *l = loop_new();
	struct state s = { 0 };

	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, pipe(s.pipe_a));
	ASSERT_EQ(0, pipe(s.pipe_b));
	ASSERT_EQ(0, loop_add_fd(l, s.pipe_a[0], EPOLLIN, on_a, &s));
	ASSERT_EQ(0, loop_add_fd(l, s.pipe_b[0], EPOLLIN, on_b, &s));
	ASSERT_EQ(1, write(s.pipe_a[1], "x", 1));
	ASSERT_EQ(1, write(s.pipe_b[1], "y", 1));
	EXPECT_EQ(1, loop_run(l));
	EXPECT_EQ(1, s.reads);
	/* b was either served before a removed it, or never: never after its removal. */
	EXPECT_LE(s.other_called, 1);
	EXPECT_EQ(-2, loop_del_fd(l, s.pipe_b[0]));	/* -ENOENT: already gone */
	loop_free(l);
	for (int i = 0; i < 2; i++) {
		close(s.pipe_a[i]);
		close(s.pipe_b[i]);
	}
}

TEST_HARNESS_MAIN
