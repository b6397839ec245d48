// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/capture/capture_pump.c: how long a CPU's wake-up fd is parked after a
 * wake-up that moved nothing (util/park.h). The capture is a script (capture_service
 * and the calls the pump makes at start are wrapped: tests/unit/rules.mk); the loop
 * and its timers are the real ones, and every park the pump arms is recorded.
 *
 * The case that lost events: a wake-up another path had just served (the pages moved
 * by a sync that the compression pool's wake-up ran) finds nothing; parking the fd
 * for a flat 10 ms then left a 1-vCPU guest's 256 KiB ring unread while 320 k
 * markers/s filled it (230-500 events lost a run).
 */
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "capture/capture_pump.h"
#include "util/park.h"
/* The harness compares int literals with unsigned fields. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define MAX_STEPS	32

/* What each capture_service() call of CPU 0 returns (pages moved), in turn. */
static struct {
	struct loop	*loop;
	int		efd;		/* CPU 0's wake-up fd: always readable */
	const long	*script;
	int		steps, calls;
	unsigned int	parks[MAX_STEPS];	/* ms of each park the pump armed */
	int		nparks;
	int		park_timer;
	int		queued;		/* CPU 0's fd is a drain thread's queue */
} S;

long __wrap_capture_service(struct capture *c, int cpu)
{
	long r;

	if (cpu != 0 || S.calls >= S.steps)
		return 0;
	r = S.script[S.calls++];
	if (S.calls == S.steps)
		loop_quit(S.loop, 0);
	return r;
}

void __wrap_capture_status(struct capture *c, struct capture_status *st)
{
	memset(st, 0, sizeof(*st));
	st->ncpus = 1;
}

int __wrap_capture_fds(struct capture *c, struct capture_fd *fds, int max)
{
	fds[0].fd = S.efd;
	fds[0].cpu = 0;
	fds[0].queued = S.queued;
	return 1;
}

int __real_loop_set_timer(struct loop *l, int id, unsigned int period_ms);
int __real_loop_add_timer(struct loop *l, unsigned int period_ms, loop_timer_fn fn,
			  void *arg);

/* The pump's only timer is its park timer. */
int __wrap_loop_add_timer(struct loop *l, unsigned int period_ms, loop_timer_fn fn, void *arg)
{
	S.park_timer = __real_loop_add_timer(l, period_ms, fn, arg);
	return S.park_timer;
}

int __wrap_loop_set_timer(struct loop *l, int id, unsigned int period_ms)
{
	if (id == S.park_timer && period_ms && S.nparks < MAX_STEPS)
		S.parks[S.nparks++] = period_ms;
	return __real_loop_set_timer(l, id, period_ms);
}

static void on_fail(void *arg, long err)
{
	loop_quit(S.loop, 1);
}

/* Runs the pump over @script (@queued: a drain queue's fd); returns the parks armed. */
static int run_fd(const long *script, int steps, int queued)
{
	struct capture_pump *p;
	int ret;

	memset(&S, 0, sizeof(S));
	S.queued = queued;
	S.script = script;
	S.steps = steps;
	S.loop = loop_new();
	S.efd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!S.loop || S.efd < 0)
		return -1;
	p = capture_pump_start(S.loop, (struct capture *)&S, on_fail, NULL);
	if (!p)
		return -1;
	ret = loop_run(S.loop);
	capture_pump_stop(p);
	loop_free(S.loop);
	close(S.efd);
	return ret ? -1 : S.nparks;
}

static int run(const long *script, int steps)
{
	return run_fd(script, steps, 0);
}

TEST(one_empty_wake_parks_for_a_millisecond)
{
	static const long script[] = { 4, 0, 4 };

	ASSERT_EQ(1, run(script, 3));
	EXPECT_EQ(1, S.parks[0]);
	EXPECT_EQ(3, S.calls);
}

TEST(stale_readiness_backs_off_to_the_cap)
{
	static const long script[] = { 0, 0, 0, 0, 0, 0, 0 };
	static const unsigned int want[] = { 1, 2, 4, 8, PARK_MAX_MS, PARK_MAX_MS, PARK_MAX_MS };

	ASSERT_EQ(7, run(script, 7));
	for (int i = 0; i < 7; i++)
		EXPECT_EQ(want[i], S.parks[i]);
}

TEST(pages_moved_start_the_back_off_again)
{
	static const long script[] = { 0, 0, 0, 5, 0, 0, 1, 0, 7 };
	static const unsigned int want[] = { 1, 2, 4, 1, 2, 1 };

	ASSERT_EQ(6, run(script, 9));
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(want[i], S.parks[i]);
}

/* The drain thread reads the ring meanwhile: a park only delays the move to the file. */
TEST(a_drain_queue_fd_parks_flat)
{
	static const long script[] = { 0, 3, 0, 0 };

	ASSERT_EQ(3, run_fd(script, 4, 1));
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(PARK_MAX_MS, S.parks[i]);
}

TEST_HARNESS_MAIN
