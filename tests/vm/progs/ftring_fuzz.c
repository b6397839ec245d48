// SPDX-License-Identifier: GPL-2.0
/*
 * Random requests against the ftring devices, from two threads at once: ioctls with
 * random numbers and arguments on /dev/ftring/ctl and the per-CPU devices, random
 * mmap windows and protections, marker writes, GET_READER. Every call must return
 * success or one of the errors the ABI names; afterwards the module must still work
 * (stop, reset, one marker read back through the mapping).
 *
 *   ftring_fuzz [-n ITERATIONS] [-d SECONDS] [-s SEED]
 * Each thread stops after ITERATIONS calls or SECONDS (default 15; the harness
 * kills a test after 30 s), whichever comes first.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "ftring_test.h"
#include "ftring_events.h"
#include "kselftest_harness.h"

static long iterations = 20000;
static double seconds = 15;
static unsigned int seed;
static int ncpus;

/* Errors the ABI (or the VFS, for foreign ioctl numbers) may return. */
static int errno_allowed(int e)
{
	switch (e) {
	case EINVAL: case ENOTTY: case EFAULT: case EBUSY: case EALREADY: case ENODEV:
	case ENOMEM: case EPERM: case ENODATA: case ENOSPC: case EAGAIN: case EINTR:
	case ENXIO: case EOVERFLOW: case EACCES: case EBADF:
		return 1;
	}
	return 0;
}

struct fuzzer {
	unsigned int	rnd;
	int		ctl, mfd, cpufd[64];
	long		calls, errors, bad;
	int		bad_errno, bad_cmd;
	char		*buf;		/* 4 pages of scratch for ioctl arguments */
};

static unsigned int rnd(struct fuzzer *f)
{
	return rand_r(&f->rnd);
}

/* Foreign ioctl types the VFS acts on itself (freeze, clone, FIONBIO...): skipped. */
static int cmd_is_generic(unsigned int cmd)
{
	unsigned int type = _IOC_TYPE(cmd);

	return type == 'X' || type == 'f' || type == 'T' || type == 0x94 || type == 0 ||
	       type == 'v' || type == '$';
}

static unsigned long pick_cmd(struct fuzzer *f)
{
	static const unsigned long real[] = {
		FTRING_IOC_ABI_VERSION, FTRING_IOC_GET_STATUS, FTRING_IOC_GET_CONFIG,
		FTRING_IOC_SET_CONFIG, FTRING_IOC_SET_EVENTS, FTRING_IOC_START,
		FTRING_IOC_STOP, FTRING_IOC_RESET, FTRING_IOC_GET_STATS,
		FTRING_IOC_GET_READER,
	};
	unsigned int cmd;

	switch (rnd(f) % 4) {
	case 0:
	case 1:
		return real[rnd(f) % (sizeof(real) / sizeof(real[0]))];
	case 2:	/* our magics, any direction, number and size */
		return _IOC(rnd(f) % 4, rnd(f) & 1 ? FTRING_IOC_MAGIC : 'R', rnd(f) % 0x30,
			    rnd(f) % 512);
	default:
		do
			cmd = rnd(f) ^ (rnd(f) << 16);
		while (cmd_is_generic(cmd));
		return cmd;
	}
}

static void *pick_arg(struct fuzzer *f, unsigned long cmd)
{
	unsigned int i;

	switch (rnd(f) % 6) {
	case 0:
		return NULL;
	case 1:
		return (void *)(unsigned long)(rnd(f) % 4096);
	case 2:
		return (void *)0xffffffff81000000UL;	/* kernel text */
	case 3:	/* straddles the end of the scratch area */
		return f->buf + 4 * 4096 - (rnd(f) % 64);
	default:
		for (i = 0; i < 256; i++)
			f->buf[i] = (char)rnd(f);
		if (cmd == FTRING_IOC_SET_CONFIG && rnd(f) % 2) {
			/* A plausible config, sized so memory cannot run out. */
			struct ftring_config *c = (void *)f->buf;

			memset(c, 0, sizeof(*c));
			c->nr_subbufs = rnd(f) % 70;
			c->mode = rnd(f) % 3;
			c->clock = rnd(f) % 5;
			c->watermark = rnd(f) % 8;
		} else if (cmd == FTRING_IOC_SET_CONFIG) {
			/* Random bytes, but never a ring big enough to exhaust memory. */
			((struct ftring_config *)f->buf)->nr_subbufs &= 0xff;
		} else if (cmd == FTRING_IOC_SET_EVENTS && rnd(f) % 2) {
			*(uint64_t *)f->buf &= FTRING_EVENTS_ALL;
		}
		return f->buf;
	}
}

static void check(struct fuzzer *f, long ret, unsigned long cmd)
{
	f->calls++;
	if (ret >= 0)
		return;
	f->errors++;
	if (!errno_allowed(errno)) {
		f->bad++;
		f->bad_errno = errno;
		f->bad_cmd = (int)cmd;
	}
}

static void fuzz_mmap(struct fuzzer *f, int fd)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_EXEC,
				     PROT_READ | PROT_EXEC, PROT_NONE };
	size_t len = (size_t)(rnd(f) % 80 + 1) * 4096;
	off_t off = (off_t)(rnd(f) % 80) * 4096 + (rnd(f) % 8 ? 0 : rnd(f) % 4096);
	int flags = rnd(f) % 4 ? MAP_SHARED : MAP_PRIVATE;
	int prot = prots[rnd(f) % 5];
	void *p;

	p = mmap(NULL, len, prot, flags, fd, off);
	check(f, p == MAP_FAILED ? -1 : 0, 0);
	if (p == MAP_FAILED)
		return;
	/* Touch what was mapped: every page must be readable. */
	for (size_t i = 0; (prot & PROT_READ) && i < len; i += 4096)
		(void)*(volatile char *)((char *)p + i);
	if (rnd(f) % 2)
		check(f, mprotect(p, 4096, PROT_READ | PROT_WRITE) ? -1 : 0, 1);
	munmap(p, len);
}

static void *fuzz_thread(void *arg)
{
	struct fuzzer *f = arg;
	struct timespec t0, t;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < iterations; i++) {
		int fd, which = rnd(f) % 8;
		unsigned long cmd;

		fd = which < 4 ? f->ctl : f->cpufd[rnd(f) % ncpus];
		if (which == 7) {
			fuzz_mmap(f, f->cpufd[rnd(f) % ncpus]);
			continue;
		}
		if (which == 6) {
			check(f, write(f->mfd, f->buf, rnd(f) % 5000), 2);
			continue;
		}
		cmd = pick_cmd(f);
		/* Blocking GET_READER would wait for data: always non-blocking fds. */
		check(f, ioctl(fd, cmd, pick_arg(f, cmd)), cmd);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 > seconds)
			break;
	}
	return NULL;
}

static int open_all(struct fuzzer *f, unsigned int s)
{
	int c;

	memset(f, 0, sizeof(*f));
	f->rnd = s;
	f->ctl = ft_ctl_open();
	f->mfd = open(FTRING_DEV_MARKER, O_WRONLY | O_CLOEXEC);
	if (f->ctl < 0 || f->mfd < 0)
		return -1;
	for (c = 0; c < ncpus; c++) {
		f->cpufd[c] = ft_cpu_open(c, O_RDONLY | O_NONBLOCK);
		if (f->cpufd[c] < 0)
			return -1;
	}
	f->buf = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return f->buf == MAP_FAILED ? -1 : 0;
}

static void close_all(struct fuzzer *f)
{
	int c;

	for (c = 0; c < ncpus; c++)
		close(f->cpufd[c]);
	close(f->ctl);
	close(f->mfd);
	munmap(f->buf, 4 * 4096);
}

TEST(fuzz_ioctl_mmap)
{
	struct fuzzer f[2];
	pthread_t th[2];
	int i;

	if (getuid())
		SKIP(return, "not root");
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > 64)
		ncpus = 64;
	TH_LOG("seed %u, up to %ld iterations or %.0f s x 2 threads, %d CPUs", seed, iterations,
	       seconds, ncpus);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, open_all(&f[i], seed + i));
		ASSERT_EQ(0, pthread_create(&th[i], NULL, fuzz_thread, &f[i]));
	}
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		TH_LOG("thread %d: %ld calls, %ld errors, %ld unexpected", i, f[i].calls,
		       f[i].errors, f[i].bad);
		EXPECT_EQ(0, f[i].bad) TH_LOG("errno %d (%s) from cmd %#x", f[i].bad_errno,
					      strerror(f[i].bad_errno), f[i].bad_cmd);
		close_all(&f[i]);
	}
}

/* After the fuzzing the module still works: one marker round trip on CPU 0. */
TEST(still_works)
{
	struct ftring_cpu_stats st;
	struct ftring_meta *m;
	int ctl, fd, mfd;

	if (getuid())
		SKIP(return, "not root");
	ctl = ft_ctl_open();
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, ft_pin(0));
	ASSERT_EQ(0, ft_stop(ctl));
	ASSERT_EQ(0, ft_reset(ctl));
	ASSERT_EQ(0, ft_set_events(ctl, 1ULL << FTRING_EV_marker));
	fd = ft_cpu_open(0, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	mfd = open(FTRING_DEV_MARKER, O_WRONLY);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ft_start(ctl));
	ASSERT_EQ(5, ft_marker(mfd, "ping", 5));
	ASSERT_EQ(0, ft_stop(ctl));
	ASSERT_EQ(0, ft_ioctl(fd, FTRING_IOC_GET_READER, NULL));
	EXPECT_EQ(1, m->entries);
	EXPECT_EQ(1, m->read);
	ASSERT_EQ(0, ft_get_stats(ctl, 0, &st));
	EXPECT_EQ(1, st.entries);
	EXPECT_EQ(0, st.lost);
	ft_set_events(ctl, FTRING_EVENTS_DEFAULT);
	munmap(m, 4096);
	close(mfd);
	close(fd);
	close(ctl);
}

int main(int argc, char **argv)
{
	int opt;

	seed = (unsigned int)getpid();
	while ((opt = getopt(argc, argv, "n:d:s:")) != -1) {
		switch (opt) {
		case 'd':
			seconds = atof(optarg);
			break;
		case 'n':
			iterations = strtol(optarg, NULL, 0);
			break;
		case 's':
			seed = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-n ITERATIONS] [-d SECONDS] [-s SEED]\n",
				argv[0]);
			return 2;
		}
	}
	return test_harness_run(1, argv);
}
