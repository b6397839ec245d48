// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/format/chunk_pool.c: jobs come back compressed, whole and in submission
 * order, from memory and from the spool; a full pool refuses and reaping makes room;
 * workers leave their jobs to the sync while every CPU is busy, within a budget.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <zstd.h>

#include "kselftest_harness.h"
#include "../lib/cpu_pin.h"
#include "format/chunk_pool.h"
#include "format/compress.h"
#include "util/mono_clock.h"

#define JOB	(32 * 4096)
#define NJOBS	200
#define HR	8

struct got {
	int	n;
	int	tags[NJOBS];
	int	bad;		/* deliveries whose frame did not give the input back */
	char	*out;
};

static struct got got;
static bool pool_defers;	/* new_pool(): workers defer on a busy machine (the default) */

/* Job i: JOB - i*97 bytes of a pattern of i, compressible as trace pages are. */
static size_t job_len(int i)
{
	return JOB - (size_t)(i % 50) * 97;
}

static void job_fill(char *p, int i)
{
	size_t n = job_len(i);

	for (size_t k = 0; k < n; k++)
		p[k] = (char)("0123456789abcdef"[(k / 8 + (size_t)i) % 16] ^ (k % 4096 == 0 ? i : 0));
}

static void deliver(void *owner, int tag, char *buf, ssize_t clen, size_t ulen)
{
	static char in[JOB];
	size_t r;

	got.tags[got.n++] = tag;
	if (owner != &got || clen <= 0 || ulen != job_len(tag)) {
		got.bad++;
		return;
	}
	memset(buf, 0x5a, HR);		/* the headroom is ours to write */
	r = ZSTD_decompress(got.out, JOB, buf + HR, (size_t)clen);
	job_fill(in, tag);
	if (ZSTD_isError(r) || r != ulen || memcmp(got.out, in, ulen))
		got.bad++;
}

static struct chunk_pool *new_pool(unsigned int workers, unsigned int mem, unsigned int max,
				   const char *spool)
{
	struct chunk_pool_params p = {
		.codec = codec_find("zstd"),
		.level = 1,
		.job_bytes = JOB,
		.headroom = HR,
		.workers = workers,
		.mem_jobs = mem,
		.max_jobs = max,
		.spool_dir = spool,
		.no_defer = !pool_defers,
		.deliver = deliver,
	};
	int err = 0;

	memset(&got, 0, sizeof(got));
	got.out = malloc(JOB);
	return chunk_pool_new(&p, &err);
}

static void check_all_in_order(struct __test_metadata *_metadata, int n)
{
	EXPECT_EQ(n, got.n);
	EXPECT_EQ(0, got.bad);
	for (int i = 0; i < got.n; i++)
		if (got.tags[i] != i) {
			EXPECT_EQ(i, got.tags[i]);
			break;
		}
	free(got.out);
}

/* Three workers finish out of order; delivery is in submission order all the same. */
TEST(in_order_from_memory)
{
	struct chunk_pool *p = new_pool(3, 16, 64, NULL);
	struct chunk_pool_stats st;
	static char in[JOB];
	long n = 0;

	ASSERT_NE(NULL, p);
	for (int i = 0; i < NJOBS; i++) {
		job_fill(in, i);
		while (chunk_pool_submit(p, &got, i, in, job_len(i)) == -EAGAIN)
			n += chunk_pool_reap(p, CHUNK_POOL_ROOM);
		n += chunk_pool_reap(p, CHUNK_POOL_NOWAIT);
	}
	n += chunk_pool_reap(p, CHUNK_POOL_ALL);
	EXPECT_EQ(NJOBS, n);
	chunk_pool_stats(p, &st);
	EXPECT_EQ(0, st.in_flight);
	EXPECT_EQ(NJOBS, st.jobs);
	EXPECT_EQ(0, st.spooled);
	EXPECT_EQ(3, st.workers);
	chunk_pool_free(p);
	check_all_in_order(_metadata, NJOBS);
}

/*
 * Nothing reaped while submitting: the two memory slots stay taken, so every later job
 * goes through the spool, and comes back from it whole and in order.
 */
TEST(spills_to_the_spool)
{
	char dir[] = "/tmp/cpool.XXXXXX";
	struct chunk_pool_stats st;
	struct chunk_pool *p;
	static char in[JOB];
	uint64_t peak;

	ASSERT_NE(NULL, mkdtemp(dir));
	p = new_pool(2, 2, 64, dir);
	ASSERT_NE(NULL, p);
	for (int i = 0; i < 60; i++) {
		job_fill(in, i);
		ASSERT_EQ(0, chunk_pool_submit(p, &got, i, in, job_len(i)));
	}
	chunk_pool_stats(p, &st);
	EXPECT_EQ(58, st.spooled);
	EXPECT_GE(st.spool_peak, 58ULL * JOB);
	peak = st.spool_peak;
	EXPECT_EQ(60, chunk_pool_reap(p, CHUNK_POOL_ALL));
	/* Empty again: the spool is reused from its start. */
	for (int i = 60; i < 64; i++) {
		job_fill(in, i);
		ASSERT_EQ(0, chunk_pool_submit(p, &got, i, in, job_len(i)));
	}
	EXPECT_EQ(4, chunk_pool_reap(p, CHUNK_POOL_ALL));
	chunk_pool_stats(p, &st);
	EXPECT_EQ(60, st.spooled);
	EXPECT_EQ(peak, st.spool_peak);
	chunk_pool_free(p);
	/* O_TMPFILE: nothing left in the directory. */
	EXPECT_EQ(0, rmdir(dir));
	check_all_in_order(_metadata, 64);
}

/* Bytes in use on the filesystem of @dir. */
static uint64_t used_bytes(const char *dir)
{
	struct statvfs sv;

	if (statvfs(dir, &sv))
		return 0;
	return (uint64_t)(sv.f_blocks - sv.f_bfree) * sv.f_frsize;
}

/*
 * A spilled job's frame goes back over its input, and an incompressible job's frame is
 * longer than its input. So a spill takes its whole extent at once: a disk that fills
 * meanwhile (the trace file grows into the spool's reserve) then cannot fail the frame's
 * write-back, which would lose the chunk. On a tmpfs of its own, spilled jobs take an
 * extent (the codec's bound, rounded to pages) each, not their input's size. (When the
 * disk fills is up to the workers' pace: a test of the write-back itself would pass
 * without the reservation whenever they were quicker than the filler.)
 */
TEST(spill_takes_the_frame_room)
{
	char dir[] = "/tmp/cpool.XXXXXX";
	size_t extent = (ZSTD_compressBound(JOB) + 4095) / 4096 * 4096;
	uint64_t before, spilled;
	struct chunk_pool *p;
	static char in[JOB];

	ASSERT_NE(NULL, mkdtemp(dir));
	if (mount("cpool_spool", dir, "tmpfs", 0, "size=100m")) {
		rmdir(dir);
		SKIP(return, "cannot mount a tmpfs (needs root)");
	}
	p = new_pool(1, 1, 64, dir);
	ASSERT_NE(NULL, p);
	before = used_bytes(dir);
	for (int i = 0; i < 9; i++) {
		job_fill(in, i);
		ASSERT_EQ(0, chunk_pool_submit(p, &got, i, in, job_len(i)));
	}
	spilled = used_bytes(dir) - before;
	TH_LOG("8 spilled jobs of up to %d bytes take %llu bytes (extent %zu)", JOB,
	       (unsigned long long)spilled, extent);
	EXPECT_GE(spilled, 8 * extent);
	EXPECT_EQ(9, chunk_pool_reap(p, CHUNK_POOL_ALL));
	chunk_pool_free(p);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	check_all_in_order(_metadata, 9);
}

/*
 * A sync that cannot wait: the first 40 of 60 jobs (memory and spool) are delivered at
 * once, in order, whole; those the worker had not taken (on one CPU with this busy
 * thread it gets next to none) are stored zstd frames, which decompress as any other.
 */
TEST(reap_until_stores_what_waits)
{
	char dir[] = "/tmp/cpool.XXXXXX";
	struct chunk_pool_stats st;
	struct chunk_pool *p;
	static char in[JOB];
	cpu_set_t old;
	long n;

	ASSERT_EQ(0, cpu_pin_here(&old));
	ASSERT_NE(NULL, mkdtemp(dir));
	p = new_pool(1, 4, 64, dir);
	ASSERT_NE(NULL, p);
	for (int i = 0; i < 60; i++) {
		job_fill(in, i);
		ASSERT_EQ(0, chunk_pool_submit(p, &got, i, in, job_len(i)));
	}
	n = chunk_pool_reap_until(p, 40);
	chunk_pool_stats(p, &st);
	EXPECT_GE(n, 40);
	EXPECT_EQ(60 - n, st.in_flight);
	EXPECT_GE(st.stored, 1);
	EXPECT_LE(st.stored, 40);
	EXPECT_EQ(0, st.helped);
	/* delivered already: nothing to do */
	EXPECT_EQ(0, chunk_pool_reap_until(p, 40));
	EXPECT_EQ(60 - n, chunk_pool_reap(p, CHUNK_POOL_ALL));
	chunk_pool_free(p);
	EXPECT_EQ(0, rmdir(dir));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(old), &old));
	check_all_in_order(_metadata, 60);
}

/* Memory and job slots full, no spool: refused until a reap made room, nothing lost. */
TEST(full_refuses_then_room)
{
	struct chunk_pool *p = new_pool(1, 4, 4, NULL);
	struct chunk_pool_stats st;
	static char in[JOB];

	ASSERT_NE(NULL, p);
	for (int i = 0; i < 4; i++) {
		job_fill(in, i);
		ASSERT_EQ(0, chunk_pool_submit(p, &got, i, in, job_len(i)));
	}
	job_fill(in, 4);
	EXPECT_EQ(-EAGAIN, chunk_pool_submit(p, &got, 4, in, job_len(4)));
	EXPECT_GE(chunk_pool_reap(p, CHUNK_POOL_ROOM), 1);
	EXPECT_EQ(0, chunk_pool_submit(p, &got, 4, in, job_len(4)));
	EXPECT_EQ(-EINVAL, chunk_pool_submit(p, &got, 5, in, JOB + 1));
	/* ONE: waits for a delivery, and no longer than that when more are in flight */
	EXPECT_GE(chunk_pool_reap(p, CHUNK_POOL_ONE), 1);
	chunk_pool_reap(p, CHUNK_POOL_ALL);
	chunk_pool_stats(p, &st);
	EXPECT_EQ(1, st.full);
	EXPECT_EQ(5, st.jobs);
	chunk_pool_free(p);
	check_all_in_order(_metadata, 5);
}

static atomic_bool spin_stop;

/* A task every CPU has to run: at idle priority, so the workers get their share. */
static void *spin(void *arg)
{
	struct sched_param sp = { 0 };

	pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	while (!atomic_load(&spin_stop))
		;
	return arg;
}

/* One spinning thread per CPU online (@on), or stops them. */
static int spinners(bool on)
{
	static pthread_t t[256];
	static int n;

	if (!on) {
		atomic_store(&spin_stop, true);
		for (; n > 0; n--)
			pthread_join(t[n - 1], NULL);
		return 0;
	}
	atomic_store(&spin_stop, false);
	for (long cpus = sysconf(_SC_NPROCESSORS_ONLN); n < cpus && n < 256; n++)
		if (pthread_create(&t[n], NULL, spin, NULL))
			return -1;
	return 0;
}

/* Submits jobs @from..@to-1. */
static void submit_range(struct __test_metadata *_metadata, struct chunk_pool *p, int from,
			 int to)
{
	static char in[JOB];

	for (int i = from; i < to; i++) {
		job_fill(in, i);
		ASSERT_EQ(0, chunk_pool_submit(p, &got, i, in, job_len(i)));
	}
}

/* Delivers, as a loop polling the fd does, until @n were delivered in all (10 s at most). */
static void reap_by_fd(struct chunk_pool *p, int n)
{
	struct pollfd pfd = { .fd = chunk_pool_fd(p), .events = POLLIN };

	for (int i = 0; i < 100 && got.n < n; i++)
		if (poll(&pfd, 1, 100) == 1)
			chunk_pool_reap(p, CHUNK_POOL_FD);
}

/*
 * Every CPU busy: the worker compresses nothing (at idle priority, against spinners of
 * the same priority, it would take a few ms), the sync stores it all. That spends the
 * deferral budget (mem_jobs, 4): the worker compresses again, busy as the CPUs are,
 * until a second has given one job of it back, and then lets one job wait.
 */
TEST(defers_while_cpus_busy)
{
	struct chunk_pool_stats st;
	struct chunk_pool *p;
	uint64_t t0;

	if (access("/proc/loadavg", R_OK) || sysconf(_SC_NPROCESSORS_ONLN) > 256)
		SKIP(return, "no /proc/loadavg, or more CPUs than spinners");
	t0 = mono_ms();		/* no later than the pool's refill clock */
	pool_defers = true;
	p = new_pool(1, 4, 64, NULL);
	pool_defers = false;
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, spinners(true));
	submit_range(_metadata, p, 0, 4);
	usleep(300 * 1000);
	EXPECT_EQ(4, chunk_pool_reap_until(p, 4));
	chunk_pool_stats(p, &st);
	EXPECT_EQ(4, st.stored);

	/* spent: compressed, delivered through the fd (before a second gives one back) */
	if (mono_ms() - t0 > 900) {
		spinners(false);
		chunk_pool_free(p);
		SKIP(return, "the host took more than 900 ms for 300");
	}
	submit_range(_metadata, p, 4, 8);
	reap_by_fd(p, 8);
	EXPECT_EQ(8, got.n);
	chunk_pool_stats(p, &st);
	EXPECT_EQ(4, st.stored);

	/*
	 * A second later, one job's worth back: of two, the worker compresses the first
	 * (two would wait) and leaves the second waiting.
	 */
	usleep(1100 * 1000);
	if (mono_ms() - t0 > 1900) {
		spinners(false);
		chunk_pool_free(p);
		SKIP(return, "the host took more than 1.9 s for 1.4: two seconds' worth back");
	}
	submit_range(_metadata, p, 8, 10);
	usleep(300 * 1000);
	EXPECT_EQ(2, chunk_pool_reap_until(p, 10));
	spinners(false);
	chunk_pool_stats(p, &st);
	EXPECT_EQ(5, st.stored);
	EXPECT_EQ(0, st.helped);
	chunk_pool_free(p);
	check_all_in_order(_metadata, 10);
}

/* The fd says when a job is ready, and reaping clears it. */
TEST(fd_readiness)
{
	struct chunk_pool *p = new_pool(1, 4, 8, NULL);
	static char in[JOB];
	uint64_t v;

	ASSERT_NE(NULL, p);
	EXPECT_EQ(-1, read(chunk_pool_fd(p), &v, sizeof(v)));
	job_fill(in, 0);
	ASSERT_EQ(0, chunk_pool_submit(p, &got, 0, in, job_len(0)));
	for (int i = 0; i < 2000 && read(chunk_pool_fd(p), &v, sizeof(v)) < 0; i++)
		usleep(1000);
	EXPECT_EQ(1, v);
	EXPECT_EQ(1, chunk_pool_reap(p, CHUNK_POOL_FD));
	EXPECT_EQ(-1, read(chunk_pool_fd(p), &v, sizeof(v)));
	chunk_pool_free(p);
	check_all_in_order(_metadata, 1);
}

TEST_HARNESS_MAIN
