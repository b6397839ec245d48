// SPDX-License-Identifier: GPL-2.0
/*
 * capture_rotate() under a marker flood (host tracefs, an instance of our own): a
 * child pinned to CPU 0 writes markers 1..N while the capture runs with small CPU
 * regions, so that the writer reports full regions (-ENOSPC) again and again; every
 * -ENOSPC and a timer rotate to the next file. Read back through libtracecmd, the
 * files in order must hold markers 1..N each exactly once, in order: no event lost or
 * doubled at a switch, including the batch a full region refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "kselftest_harness.h"
#include "../lib/harness_skip.h"
#include "capture/capture.h"
#include "format/meta.h"
#include "util/log.h"
#include "../lib/readback.h"

/*
 * The capture's source, as source_find() gives it, with reads that fail on demand
 * (linked with --wrap=source_find, rules.mk): a source error at a chosen moment.
 */
const struct source_ops *__real_source_find(const char *name, const struct source_params *p);
static const struct source_ops *real_ops;
static struct source_ops faulty_ops;
static int fail_flushes;	/* reads that take the partly filled page fail */

static ssize_t faulty_read(struct source *s, int cpu, void *dst, size_t max, int flush)
{
	if (flush && fail_flushes)
		return -EIO;
	return real_ops->read_pages(s, cpu, dst, max, flush);
}

static ssize_t faulty_splice(struct source *s, int cpu, int fd, off_t off, size_t max, int flush)
{
	if (flush && fail_flushes)
		return -EIO;
	return real_ops->splice_pages(s, cpu, fd, off, max, flush);
}

const struct source_ops *__wrap_source_find(const char *name, const struct source_params *p)
{
	real_ops = __real_source_find(name, p);
	if (!real_ops)
		return NULL;
	faulty_ops = *real_ops;
	faulty_ops.read_pages = faulty_read;
	if (real_ops->splice_pages)
		faulty_ops.splice_pages = faulty_splice;
	return &faulty_ops;
}

/*
 * The metadata read again at a rotation, made slow on demand (--wrap=
 * meta_collect_since), and the file syncs counted (--wrap=fdatasync).
 */
int __real_meta_collect_since(struct trace_meta *m, const char *instance,
			      const struct trace_meta *prev);
static int slow_meta;		/* ms the next collections take */
static int in_meta;		/* one is running (on the rotation's thread) */
static int syncs;

int __wrap_meta_collect_since(struct trace_meta *m, const char *instance,
			      const struct trace_meta *prev)
{
	int ret;

	__atomic_store_n(&in_meta, 1, __ATOMIC_SEQ_CST);
	if (slow_meta)
		usleep(slow_meta * 1000);
	ret = __real_meta_collect_since(m, instance, prev);
	__atomic_store_n(&in_meta, 0, __ATOMIC_SEQ_CST);
	return ret;
}

int __real_fdatasync(int fd);
int __wrap_fdatasync(int fd)
{
	__atomic_add_fetch(&syncs, 1, __ATOMIC_SEQ_CST);
	return __real_fdatasync(fd);
}

#define NR_MARKERS	60000
#define PACED		40000	/* then a burst of 20000 left for the drain at stop */
#define MAX_FILES	400
#define TIMED_MS	300	/* a rotation without a full region this often */

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Child: markers "r N" on CPU 0 (one CPU: file order is write order), paced up to
 * @paced, then says so on @sync and writes the rest at full speed.
 */
static void write_markers(const char *inst, int n, int paced, int sync)
{
	char path[256], msg[128];
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	snprintf(path, sizeof(path), "/sys/kernel/tracing/instances/%s/trace_marker", inst);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(2);
	for (int i = 1; i <= n; i++) {
		int len = snprintf(msg, sizeof(msg), "r %d %.60s", i,
				   "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");

		while (write(fd, msg, (size_t)len) < 0)
			if (errno != EINTR && errno != EAGAIN)
				_exit(3);
		/* ~1 s: long enough for timed rotations, within 8 MiB of buffer. */
		if (i < paced && !(i % 100))
			usleep(2500);
		/*
		 * A quiet spell longer than TIMED_MS: however far behind a loaded machine
		 * leaves the reader, it catches up and rotates on time, not on a full region.
		 */
		if (i == paced / 2)
			usleep(3 * TIMED_MS * 1000);
		if (i == paced && write(sync, "x", 1) != 1)
			_exit(4);
	}
	_exit(0);
}

/* Child: markers "@tag N" for N in 1..@n on @cpu, one every @gap_us. */
static void write_paced(const char *inst, int cpu, char tag, int n, int gap_us)
{
	char path[256], msg[64];
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(5);
	snprintf(path, sizeof(path), "/sys/kernel/tracing/instances/%s/trace_marker", inst);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(2);
	for (int i = 1; i <= n; i++) {
		int len = snprintf(msg, sizeof(msg), "%c %d", tag, i);

		while (write(fd, msg, (size_t)len) < 0)
			if (errno != EINTR && errno != EAGAIN)
				_exit(3);
		if (gap_us)
			usleep(gap_us);
	}
	_exit(0);
}

/*
 * Appends the numbers of the markers "@tag N" of @path, CPU by CPU, to @got; -1 if it
 * does not read.
 */
static int read_tagged(const char *path, char tag, int *got, int *n, int max)
{
	struct rb_summary s;

	if (rb_summarize(path, &s))
		return -1;
	for (int cpu = 0; cpu < s.ncpus && cpu < RB_MAX_CPUS; cpu++)
		for (size_t i = 0; i < s.nr_markers[cpu]; i++)
			if (s.markers[cpu][i][0] == tag && *n < max)
				got[(*n)++] = atoi(s.markers[cpu][i] + 2);
	rb_summary_free(&s);
	return 0;
}

static int read_markers(const char *path, int *got, int *n, int max)
{
	return read_tagged(path, 'r', got, n, max);
}

static int rotate_next(struct capture *c, const char *dir, char (*files)[96], int *nfiles)
{
	int ret;

	if (*nfiles >= MAX_FILES)
		return -EFBIG;
	snprintf(files[*nfiles], 96, "%s/f%03d.dat", dir, *nfiles);
	ret = capture_rotate(c, files[*nfiles]);
	if (!ret)
		(*nfiles)++;
	return ret;
}

/*
 * Waits, as the daemon's loop does, until a capture fd is readable or the capture's
 * timer is due, or @extra (-1: none) is readable; true for the latter.
 */
static bool wait_capture(struct capture *c, int extra)
{
	struct capture_fd cfds[64];
	struct pollfd pfd[65];
	int nfd = capture_fds(c, cfds, 64);

	for (int i = 0; i < nfd; i++) {
		pfd[i].fd = cfds[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[nfd].fd = extra;	/* poll() leaves a negative fd alone */
	pfd[nfd].events = POLLIN;
	pfd[nfd].revents = 0;
	poll(pfd, (nfds_t)nfd + 1, capture_timeout_ms(c));
	return pfd[nfd].revents;
}

FIXTURE(rot) {
	char	dir[64];
	char	inst[64];
	char	small[80];	/* a tmpfs mounted in @dir, or "" */
};

FIXTURE_VARIANT(rot) {
	const char		*source;
	enum v7_compression	comp;
	unsigned int		chunk_pages;
	uint64_t		region;
};

/* Compressed: v7_append_pages refuses (-ENOSPC), the refused pages are held. */
FIXTURE_VARIANT_ADD(rot, mmap_zstd) {
	.source = "mmap",
	.comp = V7_COMP_ZSTD,
	/* The writer admits a chunk by its worst size (~33 KiB for 8 pages). */
	.chunk_pages = 8,
	.region = 64 << 10,
};

/* Uncompressed splice: pages go straight to the file; a full region takes none. */
FIXTURE_VARIANT_ADD(rot, splice_raw) {
	.source = "splice",
	.comp = V7_COMP_NONE,
	.region = 512 << 10,	/* 128 pages */
};

FIXTURE_SETUP(rot)
{
	char path[PATH_MAX];
	const char *dir;

	snprintf(self->dir, sizeof(self->dir), "/tmp/test_capture_rotate.XXXXXX");
	snprintf(self->inst, sizeof(self->inst), "test_rotate_%d", (int)getpid());
	/*
	 * tracefs_tracing_dir() mounts tracefs when nothing has yet (a fresh boot, where
	 * this is the first test to use it), as the recorder itself does.
	 */
	dir = tracefs_tracing_dir();
	snprintf(path, sizeof(path), "%s/instances", dir ? dir : "/sys/kernel/tracing");
	if (geteuid() || access(path, W_OK))
		SKIP(return, "needs root and a writable tracefs");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(rot)
{
	char cmd[128];

	if (self->small[0])
		umount2(self->small, MNT_DETACH);
	if (self->dir[sizeof("/tmp/test_capture_rotate.") - 1] != 'X') {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
		if (system(cmd))
			TH_LOG("cannot remove %s", self->dir);
	}
}

TEST_F_TIMEOUT(rot, flood_across_rotations, 120)
{
	struct capture_params p = {
		.source = variant->source,
		.instance = self->inst,
		.create_instance = 1,
		.comp = variant->comp,
		.chunk_pages = variant->chunk_pages,
		/* Small CPU regions: full many times over. */
		.region_bytes = variant->region,
		.buffer_kb = 8192,
		.period_ms = 50,
		.sync_ms = 200,
	};
	static int got[NR_MARKERS + 1000];
	char files[MAX_FILES][96];
	int nfiles = 0, n = 0, full = 0, timed = 0, drained = 0, status = -1, bad = -1, err = 0;
	int sync[2];
	uint64_t last_timed;
	struct capture *c;
	pid_t child;
	long r = 0;

	if (setup_skipped(_metadata))
		return;
	snprintf(files[0], sizeof(files[0]), "%s/f%03d.dat", self->dir, 0);
	p.output = files[nfiles++];
	log_max_level = LOG_LVL_ERR;	/* one "region full" per file is expected */
	c = capture_start(&p, &err);
	if (!c && (err == -ENODEV || err == -EOPNOTSUPP))
		SKIP(return, "source %s not available here", variant->source);
	ASSERT_NE(NULL, c) TH_LOG("capture_start: %s", strerror(-err));

	ASSERT_EQ(0, pipe(sync));
	child = fork();
	ASSERT_GE(child, 0);
	if (!child)
		write_markers(self->inst, NR_MARKERS, PACED, sync[1]);
	close(sync[1]);

	last_timed = ms_now();
	for (;;) {
		/* The burst: left in the buffer for the drain at stop. */
		if (wait_capture(c, sync[0]))
			break;
		r = capture_service(c, -1);
		if (r >= 0 && ms_now() - last_timed < TIMED_MS)
			continue;
		if (r < 0 && r != -ENOSPC)
			break;
		ASSERT_EQ(0, rotate_next(c, self->dir, files, &nfiles));
		full += r == -ENOSPC;
		if (r >= 0) {
			timed++;
			last_timed = ms_now();
		}
		r = 0;
	}
	close(sync[0]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_LE(0, r) TH_LOG("capture_service: %s", strerror((int)-r));
	/* As the daemon stops: tracing off, drain, a new file whenever a region is full. */
	while ((err = capture_drain(c)) == -ENOSPC) {
		ASSERT_EQ(0, rotate_next(c, self->dir, files, &nfiles));
		drained++;
	}
	EXPECT_EQ(0, err) TH_LOG("capture_drain: %s", strerror(-err));
	EXPECT_EQ(0, capture_stop(c));
	capture_free(c);

	for (int f = 0; f < nfiles; f++) {
		int ret = read_markers(files[f], got, &n, NR_MARKERS + 1000);

		EXPECT_EQ(0, ret) TH_LOG("%s does not read", files[f]);
	}
	for (int i = 0; i < n && bad < 0; i++)
		if (got[i] != i + 1)
			bad = i;
	TH_LOG("%s: %d markers written, %d read over %d files", variant->source, NR_MARKERS, n,
	       nfiles);
	TH_LOG("rotations: %d on a full region, %d timed, %d in the drain at stop", full, timed,
	       drained);
	if (bad >= 0)
		TH_LOG("first break at position %d: %d after %d", bad, got[bad],
		       bad ? got[bad - 1] : 0);
	EXPECT_GE(full, 2);
	EXPECT_GE(timed, 1);
	EXPECT_GE(drained, 1);
	EXPECT_EQ(-1, bad);
	EXPECT_EQ(NR_MARKERS, n);
}

/*
 * A full disk under uncompressed splice: the capture says -ENOSPC with capture_error()
 * set, and a rotation to a file on another disk goes on from there. The first file
 * sits on a small tmpfs that a filler leaves 256 KiB of. The pages go from the pipe
 * straight to the file, not through the writer: the rotation used to be refused (the
 * error was the capture's alone, and only a writer's error is one a new file gets
 * past), so the daemon stopped at a full disk even when its budget had made room.
 */
TEST_F_TIMEOUT(rot, disk_full_then_rotate, 120)
{
	struct capture_params p = {
		.source = variant->source,
		.instance = self->inst,
		.create_instance = 1,
		.comp = variant->comp,
		.chunk_pages = variant->chunk_pages,
		.buffer_kb = 8192,
		.period_ms = 50,
		.sync_ms = 1000,
	};
	static int got[NR_MARKERS + 1000];
	char files[MAX_FILES][96], filler[128];
	int nfiles = 1, n = 0, disk = 0, status = -1, bad = -1, err = 0, fd;
	struct capture_status st;
	struct statvfs sv;
	struct capture *c;
	pid_t child;
	long r = 0;

	if (setup_skipped(_metadata))
		return;
	/*
	 * Compressed, when the disk fills depends on the pool's pace (the error may come
	 * only at the stop); a write error of the writer's own is test_v7_writer's.
	 */
	if (variant->comp != V7_COMP_NONE)
		SKIP(return, "uncompressed splice only: the pages bypass the writer there");
	snprintf(self->small, sizeof(self->small), "%s/small", self->dir);
	ASSERT_EQ(0, mkdir(self->small, 0700));
	if (mount("recd_rotate", self->small, "tmpfs", 0, "size=64m")) {
		self->small[0] = 0;
		SKIP(return, "cannot mount a tmpfs here");
	}
	snprintf(files[0], sizeof(files[0]), "%s/f000.dat", self->small);
	p.output = files[0];
	log_max_level = LOG_LVL_ERR;	/* the full disk is said */
	c = capture_start(&p, &err);
	if (!c && (err == -ENODEV || err == -EOPNOTSUPP))
		SKIP(return, "source %s not available here", variant->source);
	ASSERT_NE(NULL, c) TH_LOG("capture_start: %s", strerror(-err));
	/* the disk full but for 256 KiB, once the file's metadata are in */
	snprintf(filler, sizeof(filler), "%s/filler", self->small);
	fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, statvfs(self->small, &sv));
	ASSERT_EQ(0, posix_fallocate(fd, 0, (off_t)(sv.f_bavail * sv.f_frsize) - (256 << 10)));
	close(fd);

	child = fork();
	ASSERT_GE(child, 0);
	if (!child)
		write_markers(self->inst, NR_MARKERS, NR_MARKERS + 1, -1);
	for (;;) {
		wait_capture(c, -1);
		r = capture_service(c, -1);
		if (r == -ENOSPC) {
			disk += capture_error(c) == -ENOSPC;
			ASSERT_EQ(0, rotate_next(c, self->dir, files, &nfiles));
			r = 0;
		}
		if (r < 0 || waitpid(child, &status, WNOHANG) == child)
			break;
	}
	EXPECT_LE(0, r) TH_LOG("capture_service: %s", strerror((int)-r));
	if (r < 0)
		waitpid(child, &status, 0);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	while ((err = capture_drain(c)) == -ENOSPC)
		ASSERT_EQ(0, rotate_next(c, self->dir, files, &nfiles));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, capture_stop(c));
	capture_status(c, &st);
	capture_free(c);

	for (int f = 0; f < nfiles; f++) {
		EXPECT_EQ(0, read_markers(files[f], got, &n, NR_MARKERS + 1000)) {
			TH_LOG("%s does not read", files[f]);
		}
	}
	/* the first file keeps what it had at its last sync: in order, none twice */
	for (int i = 1; i < n && bad < 0; i++)
		if (got[i] <= got[i - 1])
			bad = i;
	TH_LOG("%s: %d disk-full rotations, %d files, %d markers read, last %d; lost %llu pages",
	       variant->source, disk, nfiles, n, n ? got[n - 1] : 0,
	       (unsigned long long)st.lost_pages);
	EXPECT_EQ(1, disk);
	EXPECT_EQ(-1, bad);
	EXPECT_LT(0, n);
	EXPECT_EQ(NR_MARKERS, n ? got[n - 1] : 0);
	/* the markers the full disk cost are counted: in pages, at most 256 markers each */
	if (n < NR_MARKERS) {
		EXPECT_LT(0, st.lost_pages);
	}
	EXPECT_LE((uint64_t)(NR_MARKERS - n), st.lost_pages * 256);
}

/*
 * A rotation drains every CPU into the old file before the switch. A source error in
 * that drain is the capture's error, not the old file's: the rotation says it and
 * leaves the capture as it was, failed (the daemon then stops, as at any source
 * error), with no new file; the stop finishes the old one. It used to be cleared with
 * the old file's errors, so the capture went on as if the pages had been read.
 */
TEST_F_TIMEOUT(rot, source_error_in_the_last_drain, 60)
{
	struct capture_params p = {
		.source = variant->source,
		.instance = self->inst,
		.create_instance = 1,
		.comp = variant->comp,
		.chunk_pages = variant->chunk_pages,
		.drain_threads = -1,	/* the rotation's own reads of the source */
		.buffer_kb = 1024,
		/* no flush before the rotation's: no sync, no timer */
		.period_ms = 60000,
		.sync_ms = 60000,
	};
	char files[MAX_FILES][96];
	int nfiles = 1, status = -1, err = 0, n = 0, got[100];
	struct capture *c;
	pid_t child;

	if (setup_skipped(_metadata))
		return;
	snprintf(files[0], sizeof(files[0]), "%s/f000.dat", self->dir);
	p.output = files[0];
	log_max_level = LOG_LVL_ERR;	/* the source error is said */
	fail_flushes = 0;
	c = capture_start(&p, &err);
	if (!c && (err == -ENODEV || err == -EOPNOTSUPP))
		SKIP(return, "source %s not available here", variant->source);
	ASSERT_NE(NULL, c) TH_LOG("capture_start: %s", strerror(-err));
	/* less than a page: only a flush takes it */
	child = fork();
	ASSERT_GE(child, 0);
	if (!child)
		write_markers(self->inst, 20, 0, -1);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_LE(0, capture_service(c, -1));

	fail_flushes = 1;
	err = rotate_next(c, self->dir, files, &nfiles);
	fail_flushes = 0;
	EXPECT_EQ(-EIO, err);
	EXPECT_EQ(-EIO, capture_error(c));
	EXPECT_EQ(-EIO, capture_service(c, -1));
	EXPECT_EQ(1, nfiles);
	EXPECT_EQ(-1, access(files[1], F_OK)) TH_LOG("%s left behind", files[1]);
	EXPECT_EQ(-EIO, capture_stop(c));
	capture_free(c);
	EXPECT_EQ(0, read_markers(files[0], got, &n, 100)) TH_LOG("%s does not read", files[0]);
}

/* What the rotation's page path did while the slow metadata were read. */
struct meta_watch {
	struct capture	*c;
	int		seen;
	uint64_t	pages0, pages1;	/* CPU 1's pages in the old file, first and last */
	int		syncs0, syncs1;
};

static void watch_meta(void *arg, uint64_t waited_ms)
{
	struct meta_watch *w = arg;
	struct capture_status st;

	if (!w->c || !__atomic_load_n(&in_meta, __ATOMIC_SEQ_CST))
		return;
	capture_status(w->c, &st);
	if (!w->seen++) {
		w->pages0 = st.cpu[1].pages;
		w->syncs0 = __atomic_load_n(&syncs, __ATOMIC_SEQ_CST);
	}
	w->pages1 = st.cpu[1].pages;
	w->syncs1 = __atomic_load_n(&syncs, __ATOMIC_SEQ_CST);
}

/*
 * A rotation for a full region (CPU 0's) reads the metadata again, which took 1.5 s in
 * a TCG guest (made that slow here). Meanwhile CPU 1's ring must go on draining into
 * the old file, and that file on syncing every sync_ms: both used to stop for the
 * whole rotation, the page path taking the full region for its own error. Then every
 * marker of both CPUs is in the files once, in order.
 */
TEST_F_TIMEOUT(rot, full_region_rotation_keeps_draining_and_syncing, 90)
{
	static struct meta_watch watch;
	struct capture_params p = {
		.source = variant->source,
		.instance = self->inst,
		.create_instance = 1,
		.comp = variant->comp,
		.chunk_pages = variant->chunk_pages,
		.region_bytes = variant->region,
		.buffer_kb = 8192,
		.period_ms = 50,
		.sync_ms = 200,
		.durable = 1,	/* each sync an fdatasync, counted */
		.waiting = watch_meta,
		.waiting_arg = &watch,
	};
	enum { NA = 20000, NB = 3000 };
	static int got[NA + NB];
	char files[MAX_FILES][96];
	int nfiles = 1, n, status = -1, err = 0, bad;
	struct capture *c;
	pid_t a, b;
	long r = 0;

	if (setup_skipped(_metadata))
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	memset(&watch, 0, sizeof(watch));
	snprintf(files[0], sizeof(files[0]), "%s/f000.dat", self->dir);
	p.output = files[0];
	log_max_level = LOG_LVL_ERR;	/* "region full" is expected */
	c = capture_start(&p, &err);
	if (!c && (err == -ENODEV || err == -EOPNOTSUPP))
		SKIP(return, "source %s not available here", variant->source);
	ASSERT_NE(NULL, c) TH_LOG("capture_start: %s", strerror(-err));

	/* CPU 0: more markers than its region takes */
	a = fork();
	ASSERT_GE(a, 0);
	if (!a)
		write_paced(self->inst, 0, 'a', NA, 0);
	ASSERT_EQ(a, waitpid(a, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	for (int i = 0; i < 400 && r != -ENOSPC; i++) {
		wait_capture(c, -1);
		r = capture_service(c, -1);
		ASSERT_TRUE(r >= 0 || r == -ENOSPC) TH_LOG("%s", strerror((int)-r));
	}
	ASSERT_EQ(-ENOSPC, r) TH_LOG("CPU 0's region never filled");
	ASSERT_EQ(0, capture_error(c));

	/* CPU 1: markers over 3 s, while the rotation reads its metadata for 1.5 s */
	b = fork();
	ASSERT_GE(b, 0);
	if (!b)
		write_paced(self->inst, 1, 'b', NB, 1000);
	usleep(200 * 1000);
	watch.c = c;
	slow_meta = 1500;
	err = rotate_next(c, self->dir, files, &nfiles);
	slow_meta = 0;
	watch.c = NULL;
	ASSERT_EQ(0, err);
	TH_LOG("%s: during the slow metadata, CPU 1 pages %llu -> %llu, syncs %d",
	       variant->source, (unsigned long long)watch.pages0,
	       (unsigned long long)watch.pages1, watch.syncs1 - watch.syncs0);
	EXPECT_LT(watch.pages0, watch.pages1);
	EXPECT_LE(3, watch.syncs1 - watch.syncs0);

	/* the rest as the daemon does it */
	while (waitpid(b, &status, WNOHANG) != b) {
		wait_capture(c, -1);
		r = capture_service(c, -1);
		if (r == -ENOSPC && !capture_error(c)) {
			ASSERT_EQ(0, rotate_next(c, self->dir, files, &nfiles));
		} else {
			ASSERT_LE(0, r) TH_LOG("%s", strerror((int)-r));
		}
	}
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	while ((err = capture_drain(c)) == -ENOSPC)
		ASSERT_EQ(0, rotate_next(c, self->dir, files, &nfiles));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, capture_stop(c));
	capture_free(c);
	for (int t = 0; t < 2; t++) {
		n = 0;
		for (int f = 0; f < nfiles; f++)
			EXPECT_EQ(0, read_tagged(files[f], t ? 'b' : 'a', got, &n, NA + NB));
		bad = -1;
		for (int i = 0; i < n && bad < 0; i++)
			if (got[i] != i + 1)
				bad = i;
		EXPECT_EQ(t ? NB : NA, n) TH_LOG("markers %c: %d read", t ? 'b' : 'a', n);
		EXPECT_EQ(-1, bad) TH_LOG("markers %c: %d at position %d", t ? 'b' : 'a',
					 bad >= 0 ? got[bad] : 0, bad);
	}
}

TEST_HARNESS_MAIN
