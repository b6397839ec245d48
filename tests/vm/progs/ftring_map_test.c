// SPDX-License-Identifier: GPL-2.0
/*
 * ftring mmap ABI test, in the guest, modelled on the kernel's
 * tools/testing/selftests/ring-buffer/map_test.c: one fixture per CPU maps that
 * CPU's meta page and checks the fields after a reset, after known marker writes and
 * across GET_READER; the mapping rules (read-only, shared, bounded); that overwrite
 * mode keeps exactly the newest events and discard mode exactly the oldest; that a
 * marker whose text goes away during its copy leaves one record. The
 * control-device tests check every ioctl's argument validation and EBUSY rules.
 *
 * Only the marker event is enabled, so every count is exact.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include "ftring_test.h"
#include "ftring_events.h"
#include "kselftest_harness.h"

#define MARKER_ID	FT_ID(marker)
#define MARKER_BIT	(1ULL << FTRING_EV_marker)

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Markers found in a page: their sequence numbers ("map-<seq>") and any anomaly. */
struct seen {
	long	*seq;
	int	n, max;
	int	bad;		/* wrong type, pid or text layout */
	pid_t	tid;
};

static void collect_marker(const struct ftp_event *ev, void *arg)
{
	const struct ftring_ev_marker *m = ev->payload;
	struct seen *s = arg;
	uint32_t loc, off, len;
	const char *txt;
	char *end;
	long seq;

	if (m->ent.type != MARKER_ID || m->ent.pid != s->tid || m->pid != s->tid) {
		s->bad++;
		return;
	}
	loc = m->buf;
	off = loc & 0xffff;
	len = loc >> 16;
	if (off < sizeof(*m) || off + len > ev->payload_len || !len) {
		s->bad++;
		return;
	}
	txt = (const char *)m + off;
	if (txt[len - 1] != '\0' || strncmp(txt, "map-", 4)) {
		s->bad++;
		return;
	}
	seq = strtol(txt + 4, &end, 10);
	if (*end || s->n >= s->max) {
		s->bad++;
		return;
	}
	s->seq[s->n++] = seq;
}

FIXTURE(map) {
	int			ctl, fd, mfd;
	struct ftring_meta	*meta;
	long			page;
	char			*data;		/* data region, mapped on demand */
	size_t			data_len;
	struct ftring_config	saved;
	int			skipped;	/* setup skipped: the test body must too */
};

FIXTURE_VARIANT(map) {
	int	cpu;
};

FIXTURE_VARIANT_ADD(map, cpu0) { .cpu = 0 };
FIXTURE_VARIANT_ADD(map, cpu1) { .cpu = 1 };
FIXTURE_VARIANT_ADD(map, cpu2) { .cpu = 2 };
FIXTURE_VARIANT_ADD(map, cpu3) { .cpu = 3 };

static int map_prepare(struct _test_data_map *self, int cpu, uint32_t nr_subbufs, int mode)
{
	int ret;

	if (self->data)
		munmap(self->data, self->data_len);
	if (self->meta)
		munmap(self->meta, self->page);
	if (self->fd >= 0)
		close(self->fd);
	self->data = NULL;
	self->meta = NULL;
	self->fd = -1;
	ret = ft_setup(self->ctl, nr_subbufs, mode);
	if (ret)
		return ret;
	ret = ft_set_events(self->ctl, MARKER_BIT);
	if (ret)
		return ret;
	self->fd = ft_cpu_open(cpu, O_RDONLY | O_NONBLOCK);
	if (self->fd < 0)
		return self->fd;
	self->meta = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd, 0);
	if (self->meta == MAP_FAILED) {
		self->meta = NULL;
		return -errno;
	}
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

FIXTURE_SETUP(map)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */

	sigaction(SIGUSR1, &sa, NULL);
	self->fd = -1;
	self->mfd = -1;
	self->ctl = -1;
	self->meta = NULL;
	self->data = NULL;
	self->page = ft_page_size();
	self->skipped = 1;
	if (getuid())
		SKIP(return, "not root");
	self->skipped = 0;
	if (variant->cpu >= sysconf(_SC_NPROCESSORS_ONLN)) {
		self->skipped = 1;
		SKIP(return, "CPU %d is not online", variant->cpu);
	}
	self->ctl = ft_ctl_open();
	ASSERT_LE(0, self->ctl) TH_LOG("open %s: %s", FTRING_DEV_CTL, strerror(-self->ctl));
	ASSERT_EQ(0, ft_pin(variant->cpu));
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, ft_get_config(self->ctl, &self->saved));
	ASSERT_EQ(0, map_prepare(self, variant->cpu, 0, FTRING_MODE_DISCARD));
	self->mfd = open(FTRING_DEV_MARKER, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, self->mfd);
}

FIXTURE_TEARDOWN(map)
{
	if (self->data)
		munmap(self->data, self->data_len);
	if (self->meta)
		munmap(self->meta, self->page);
	if (self->fd >= 0)
		close(self->fd);
	if (self->mfd >= 0)
		close(self->mfd);
	if (self->ctl >= 0) {
		ft_stop(self->ctl);
		ft_set_config(self->ctl, &self->saved);
		ft_reset(self->ctl);
		ft_set_events(self->ctl, FTRING_EVENTS_DEFAULT);
		close(self->ctl);
	}
}

static int map_data(struct _test_data_map *self)
{
	void *p;

	self->data_len = (size_t)self->meta->subbuf_size * self->meta->nr_subbufs;
	p = mmap(NULL, self->data_len, PROT_READ, MAP_SHARED, self->fd,
		 self->meta->meta_page_size);
	if (p == MAP_FAILED)
		return -errno;
	self->data = p;
	return 0;
}

static const void *reader_page(struct _test_data_map *self)
{
	return self->data + (size_t)self->meta->reader.id * self->meta->subbuf_size;
}

static int write_markers(int mfd, long first, long n)
{
	char buf[32];
	long i;

	for (i = first; i < first + n; i++) {
		int len = snprintf(buf, sizeof(buf), "map-%ld", i);
		ssize_t ret = ft_marker(mfd, buf, len + 1);

		if (ret != len + 1)
			return ret < 0 ? (int)ret : -EIO;
	}
	return 0;
}

/*
 * The 6.1 harness runs the test body even when FIXTURE_SETUP called SKIP(); every
 * TEST_F(map, ...) starts with this.
 */
#define MAP_SKIP_IF_NEEDED()						\
	do {								\
		if (self->skipped)					\
			SKIP(return, "setup skipped");			\
	} while (0)

/* Where a reader is: its sub-buffer and how much of it was walked. */
struct drain_pos {
	uint32_t	id, done;
};

/*
 * GET_READER until the buffer is empty, calling @fn for every event past @pos (kept
 * for the next call, so a reader may drain while the ring is written); -errno.
 */
static int drain_from(struct _test_data_map *self, struct drain_pos *pos,
		      ft_event_fn fn, void *arg, uint64_t *lost_events)
{
	uint32_t id = pos->id, done = pos->done, len;
	int loops, ret;

	for (loops = 0; loops < 100000; loops++) {
		const void *page;
		int64_t missed;

		ret = ft_ioctl(self->fd, FTRING_IOC_GET_READER, NULL);
		if (ret)
			return ret;
		page = reader_page(self);
		/* one snapshot: the writer may still append to the reader page */
		len = ft_page_len_acquire(page);
		if (self->meta->reader.id == id && len == done) {
			pos->id = id;
			pos->done = done;
			return 0;	/* nothing new: empty */
		}
		if (self->meta->reader.id != id) {
			id = self->meta->reader.id;
			done = 0;
			missed = ft_page_missed(page, self->meta->subbuf_size);
			if (lost_events)
				*lost_events += self->meta->reader.lost_events;
			if (missed < 0 && !self->meta->reader.lost_events)
				return -EBADMSG;
		}
		/* A page handed out again has grown: only its new part is new. */
		ret = ft_walk_page_range(page, self->meta->subbuf_size, done, len, fn, arg);
		if (ret < 0)
			return ret;
		done = len;
	}
	return -ELOOP;
}

/* GET_READER until the buffer is empty, collecting every marker; returns -errno. */
static int drain(struct _test_data_map *self, struct seen *s, uint64_t *lost_events)
{
	struct drain_pos pos = { .id = self->meta->reader.id };

	return drain_from(self, &pos, collect_marker, s, lost_events);
}

TEST_F(map, meta_page_check)
{
	struct ftring_meta *m = self->meta;
	struct ftring_cpu_stats st;
	struct ftring_config c;
	long seqs[64];
	struct seen s = { .seq = seqs, .max = 64, .tid = gettid_() };
	uint32_t id0;
	int i;

	MAP_SKIP_IF_NEEDED();
	ASSERT_EQ(0, ft_get_config(self->ctl, &c));
	EXPECT_EQ(sizeof(struct ftring_meta), m->meta_struct_len);
	/* upstream's 80 bytes, then ftring's writer */
	EXPECT_EQ(88, m->meta_struct_len);
	EXPECT_EQ(80, offsetof(struct ftring_meta, writer));
	EXPECT_EQ(0, m->meta_page_size % self->page);
	EXPECT_LE(self->page, m->meta_page_size);
	EXPECT_EQ(self->page, m->subbuf_size);
	EXPECT_EQ(c.subbuf_size, m->subbuf_size);
	EXPECT_EQ(c.nr_subbufs + 1, m->nr_subbufs);
	EXPECT_EQ(0, m->flags);	/* upstream: 0 until new features are supported */
	EXPECT_EQ(0, m->entries);
	EXPECT_EQ(0, m->overrun);
	EXPECT_EQ(0, m->read);
	EXPECT_EQ(0, m->reader.lost_events);
	EXPECT_EQ(0, m->reader.read);
	EXPECT_EQ(0, m->reader.id);
	EXPECT_NE(m->reader.id, m->writer);	/* the writer starts in the ring */
	EXPECT_GT(m->nr_subbufs, m->writer);
	EXPECT_EQ(0, m->Reserved1);
	EXPECT_EQ(0, m->Reserved2);

	/* Empty buffer: the ioctl succeeds and swaps nothing in. */
	id0 = m->reader.id;
	ASSERT_EQ(0, ft_ioctl(self->fd, FTRING_IOC_GET_READER, NULL));
	EXPECT_EQ(id0, m->reader.id);
	EXPECT_EQ(0, m->entries);
	EXPECT_EQ(0, m->read);

	ASSERT_EQ(0, ft_start(self->ctl));
	ASSERT_EQ(0, write_markers(self->mfd, 0, 16));
	/* The meta page changes only through GET_READER. */
	EXPECT_EQ(0, m->entries);

	ASSERT_EQ(0, ft_ioctl(self->fd, FTRING_IOC_GET_READER, NULL));
	EXPECT_EQ(16, m->entries);
	EXPECT_EQ(0, m->overrun);
	EXPECT_EQ(16, m->read);
	EXPECT_NE(id0, m->reader.id);
	ASSERT_GT(m->nr_subbufs, m->reader.id);

	/* The reader sub-buffer holds the 16 markers, in order, from this thread. */
	ASSERT_EQ(0, map_data(self));
	EXPECT_EQ(16, ft_walk_page(reader_page(self), m->subbuf_size, collect_marker, &s));
	EXPECT_EQ(0, s.bad);
	ASSERT_EQ(16, s.n);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(i, s.seq[i]);
	EXPECT_EQ(0, ft_page_missed(reader_page(self), m->subbuf_size));
	EXPECT_GE(ftp_page_len(reader_page(self)), m->reader.read);

	/* A second ioctl with nothing new changes nothing. */
	id0 = m->reader.id;
	ASSERT_EQ(0, ft_ioctl(self->fd, FTRING_IOC_GET_READER, NULL));
	EXPECT_EQ(16, m->entries);
	EXPECT_EQ(0, m->overrun);
	EXPECT_EQ(16, m->read);
	EXPECT_EQ(id0, m->reader.id);

	ASSERT_EQ(0, ft_get_stats(self->ctl, variant->cpu, &st));
	EXPECT_EQ(variant->cpu, st.cpu);
	EXPECT_EQ(1, st.online);
	EXPECT_EQ(16, st.entries);
	EXPECT_EQ(16, st.read);
	EXPECT_EQ(0, st.overrun);
	EXPECT_EQ(0, st.lost);
	EXPECT_EQ(st.lost_full + st.lost_busy + st.lost_too_big, st.lost);
	EXPECT_EQ(m->nr_subbufs, st.nr_subbufs);
	/* "map-N\0" markers: 8 + 4 + 4 + 6 = 22 -> 24 payload + 4 header = 28 bytes. */
	EXPECT_LE(16 * ftp_data_len(sizeof(struct ftring_ev_marker) + 6), st.bytes);
	EXPECT_GT(16 * ftp_data_len(sizeof(struct ftring_ev_marker) + 6) + 64, st.bytes);
}

TEST_F(map, data_mmap)
{
	struct ftring_meta *m = self->meta;
	size_t data_len, i;
	char *p;

	MAP_SKIP_IF_NEEDED();
	data_len = (size_t)m->subbuf_size * m->nr_subbufs;
	/* The whole data region, then one sub-buffer less. */
	p = mmap(NULL, data_len, PROT_READ, MAP_SHARED, self->fd, m->meta_page_size);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, data_len);
	p = mmap(NULL, data_len - m->subbuf_size, PROT_READ, MAP_SHARED, self->fd,
		 m->meta_page_size);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, data_len - m->subbuf_size);

	/* Meta page and data in one mapping. */
	p = mmap(NULL, m->meta_page_size + data_len, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, m->meta_page_size + data_len);

	/* Past the end: shifted by two sub-buffers, or one page after the last. */
	p = mmap(NULL, data_len, PROT_READ, MAP_SHARED, self->fd,
		 m->meta_page_size + 2 * m->subbuf_size);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd,
		 m->meta_page_size + data_len);
	EXPECT_EQ(MAP_FAILED, p);

	/* Writable, executable and private mappings are refused: through a read-only fd
	 * the VFS already says EACCES, through a read-write fd the driver says EPERM.
	 */
	p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	{
		int rw = ft_cpu_open(variant->cpu, O_RDWR);

		ASSERT_LE(0, rw);
		p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0);
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(EPERM, errno);
		p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, rw, 0);
		ASSERT_NE(MAP_FAILED, p);
		EXPECT_NE(0, mprotect(p, self->page, PROT_READ | PROT_WRITE));
		munmap(p, self->page);
		close(rw);
	}
	p = mmap(NULL, self->page, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, self->page, PROT_READ, MAP_PRIVATE, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);	/* as upstream */
	/* ... and a read-only mapping cannot be made writable later. */
	EXPECT_NE(0, mprotect(self->meta, self->page, PROT_READ | PROT_WRITE));

	/* Everything after the struct up to the first sub-buffer is zero. */
	for (i = m->meta_struct_len; i < self->page; i++)
		if (((const char *)m)[i]) {
			EXPECT_EQ(0, ((const char *)m)[i]) TH_LOG("meta byte %zu", i);
			break;
		}
	if (m->meta_page_size > self->page) {
		p = mmap(NULL, m->meta_page_size, PROT_READ, MAP_SHARED, self->fd, 0);
		ASSERT_NE(MAP_FAILED, p);
		for (i = m->meta_struct_len; i < m->meta_page_size; i++)
			if (p[i])
				break;
		EXPECT_EQ(m->meta_page_size, i);
		munmap(p, m->meta_page_size);
	}

	/* While mapped, the ring cannot be resized. */
	{
		struct ftring_config c;

		ASSERT_EQ(0, ft_get_config(self->ctl, &c));
		c.nr_subbufs = c.nr_subbufs == 8 ? 16 : 8;
		EXPECT_EQ(-EBUSY, ft_set_config(self->ctl, &c));
	}
}

TEST_F(map, poll_readable)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };

	MAP_SKIP_IF_NEEDED();
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, ft_start(self->ctl));
	ASSERT_EQ(0, write_markers(self->mfd, 0, 1));
	/* Watermark 0 (default): one committed event makes the buffer readable. */
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_TRUE(pfd.revents & POLLIN);
}

struct blocked_reader {
	int	fd;
	int	ret;
	int	done;
};

static void *block_in_get_reader(void *arg)
{
	struct blocked_reader *b = arg;

	b->ret = ft_ioctl(b->fd, FTRING_IOC_GET_READER, NULL);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A blocking GET_READER sleeps on an empty buffer and wakes up when an event comes. */
TEST_F(map, blocking_get_reader_wakes)
{
	struct blocked_reader b = { .ret = 1 };
	pthread_t th;
	int i;

	MAP_SKIP_IF_NEEDED();
	b.fd = ft_cpu_open(variant->cpu, O_RDONLY);
	ASSERT_LE(0, b.fd);
	ASSERT_EQ(0, ft_start(self->ctl));
	ASSERT_EQ(0, pthread_create(&th, NULL, block_in_get_reader, &b));
	usleep(300000);
	EXPECT_EQ(0, __atomic_load_n(&b.done, __ATOMIC_ACQUIRE)) TH_LOG("did not block");
	ASSERT_EQ(0, write_markers(self->mfd, 0, 1));
	for (i = 0; i < 200 && !__atomic_load_n(&b.done, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	EXPECT_EQ(1, __atomic_load_n(&b.done, __ATOMIC_ACQUIRE)) TH_LOG("no wake-up in 2 s");
	if (!b.done) {
		/* Unblock it for the teardown: a signal makes it return EINTR. */
		pthread_kill(th, SIGUSR1);
	}
	pthread_join(th, NULL);
	EXPECT_EQ(0, b.ret);
	EXPECT_EQ(1, self->meta->entries);
	close(b.fd);
}

/* Overwrite mode on a 4-sub-buffer ring: exactly the newest events survive. */
TEST_F(map, overwrite_keeps_newest)
{
	const long n = 2000;	/* ~18 sub-buffers of "map-NNNN" markers */
	struct ftring_cpu_stats st;
	struct seen s = { .max = 2000, .tid = gettid_() };
	uint64_t lost_events = 0;
	int i;

	MAP_SKIP_IF_NEEDED();
	s.seq = calloc(s.max, sizeof(long));
	ASSERT_NE(NULL, s.seq);
	ASSERT_EQ(0, map_prepare(self, variant->cpu, 4, FTRING_MODE_OVERWRITE));
	ASSERT_EQ(0, map_data(self));
	ASSERT_EQ(0, ft_start(self->ctl));
	ASSERT_EQ(0, write_markers(self->mfd, 0, n));
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, drain(self, &s, &lost_events));
	ASSERT_EQ(0, ft_get_stats(self->ctl, variant->cpu, &st));

	EXPECT_EQ(0, s.bad);
	EXPECT_EQ(n, st.entries);
	EXPECT_EQ(0, st.lost);
	EXPECT_LT(0, st.overrun);
	EXPECT_EQ(st.entries, st.read + st.overrun);
	EXPECT_EQ(st.read, s.n);
	EXPECT_EQ(self->meta->entries, st.entries);
	EXPECT_EQ(self->meta->overrun, st.overrun);
	EXPECT_EQ(self->meta->read, st.read);
	/* What was read is one run ending with the last marker and starting right after
	 * the overwritten ones.
	 */
	ASSERT_LT(0, s.n);
	EXPECT_EQ(n - 1, s.seq[s.n - 1]);
	EXPECT_EQ((long)st.overrun, s.seq[0]);
	for (i = 1; i < s.n; i++)
		if (s.seq[i] != s.seq[i - 1] + 1) {
			EXPECT_EQ(s.seq[i - 1] + 1, s.seq[i]) TH_LOG("gap at %d", i);
			break;
		}
	/* The loss is reported to the reader with the first page after it. */
	EXPECT_EQ(st.overrun, lost_events);
	free(s.seq);
}

/*
 * Discard mode on a 4-sub-buffer ring: the oldest events stay, the rest are lost.
 * With @strict (module parameter strict_writes) a dropped write fails with ENOSPC;
 * without, as shipped, it returns its count (a tracer must not make the traced
 * program fail) and the loss is only in the counters.
 */
static void discard_keeps_oldest(struct __test_metadata *_metadata,
				 FIXTURE_DATA(map) *self, int cpu, int strict)
{
	const long n = 2000;
	struct ftring_cpu_stats st;
	struct seen s = { .max = 2000, .tid = gettid_() };
	long i, ok = 0, nospc = 0, other = 0;
	int was;
	char buf[32];

	s.seq = calloc(s.max, sizeof(long));
	ASSERT_NE(NULL, s.seq);
	was = ft_strict_writes(strict);
	ASSERT_LE(0, was);
	ASSERT_EQ(0, map_prepare(self, cpu, 4, FTRING_MODE_DISCARD));
	ASSERT_EQ(0, map_data(self));
	ASSERT_EQ(0, ft_start(self->ctl));
	for (i = 0; i < n; i++) {
		int len = snprintf(buf, sizeof(buf), "map-%ld", i);
		ssize_t ret = ft_marker(self->mfd, buf, len + 1);

		if (ret == len + 1)
			ok++;
		else if (ret == -ENOSPC)
			nospc++;
		else
			other++;
	}
	ASSERT_EQ(0, ft_stop(self->ctl));
	ft_strict_writes(was);
	ASSERT_EQ(0, drain(self, &s, NULL));
	ASSERT_EQ(0, ft_get_stats(self->ctl, cpu, &st));

	EXPECT_EQ(0, s.bad);
	EXPECT_EQ(0, other);
	EXPECT_LT(0, st.lost);
	if (strict) {
		EXPECT_EQ(ok, st.entries);
		EXPECT_EQ(nospc, st.lost);
	} else {
		EXPECT_EQ(n, ok);
		EXPECT_EQ(0, nospc);
		EXPECT_EQ(n, st.entries + st.lost);
	}
	EXPECT_EQ(st.lost, st.lost_full);
	EXPECT_EQ(0, st.overrun);
	EXPECT_EQ(st.entries, st.read);
	EXPECT_EQ((long)st.entries, s.n);
	for (i = 0; i < s.n; i++)
		if (s.seq[i] != i) {
			EXPECT_EQ(i, s.seq[i]);
			break;
		}
	free(s.seq);
}

TEST_F(map, discard_keeps_oldest_strict)
{
	MAP_SKIP_IF_NEEDED();
	discard_keeps_oldest(_metadata, self, variant->cpu, 1);
}

/* #14: a full ring never fails the write() of the traced program */
TEST_F(map, discard_drop_returns_count)
{
	MAP_SKIP_IF_NEEDED();
	discard_keeps_oldest(_metadata, self, variant->cpu, 0);
}

/*
 * #13: a long marker (copied in place, with page faults disabled) whose page goes
 * away between the fault-in and the copy: the one record reads "<faulted>" and the
 * write fails with EFAULT, as upstream's trace_marker; the text is not recorded a
 * second time. The text lies across two pages of a shared anonymous mapping that
 * another thread, on another CPU, keeps zapping (MADV_DONTNEED drops the page table
 * entries, the text stays in shmem), so some in-place copies fault. The writer's
 * records come in write order on its CPU: each write that returned its count has
 * exactly one record, its text; each that failed with EFAULT at most one, reading
 * "<faulted>". A run without a faulted copy says so (SKIP) rather than pass.
 */
#define FLT_LEN		3000	/* > the 128-byte stack copy: copied in place */
#define FLT_HEAD	13	/* "flt-%08ld-" */
#define FLT_TAIL	9	/* "-%08ld" */
#define FLT_BATCH	256	/* writes between two drains, < the ring's sub-buffers */
#define FLT_SUBBUFS	512	/* one 3000-byte marker per sub-buffer */
#define FLT_HITS	12	/* faulted copies enough to stop early */
#define FLT_SECONDS	20
#define FLT_FAULTED	"<faulted>"

/* Writes @seq's tags into the text @t (its filler is written once). */
static void flt_tag(char *t, long seq)
{
	char tag[16];

	snprintf(tag, sizeof(tag), "flt-%08ld-", seq);
	memcpy(t, tag, FLT_HEAD);
	snprintf(tag, sizeof(tag), "-%08ld", seq);
	memcpy(t + FLT_LEN - FLT_TAIL, tag, FLT_TAIL);
}

static void flt_fill(char *t)
{
	for (int i = 0; i < FLT_LEN; i++)
		t[i] = 'a' + i % 26;
}

struct flt_zapper {
	char	*map;
	size_t	len;
	int	cpu;
	int	stop;
	long	zaps;
};

static void *flt_zap(void *arg)
{
	struct flt_zapper *z = arg;

	if (ft_pin(z->cpu))
		return NULL;
	while (!__atomic_load_n(&z->stop, __ATOMIC_RELAXED)) {
		if (madvise(z->map, z->len, MADV_DONTNEED))
			break;
		z->zaps++;
	}
	return NULL;
}

/* What the writes returned and what their records say, in write order. */
struct flt_check {
	pid_t	tid;
	ssize_t	*ret;		/* by write, FLT_BATCH at most unresolved */
	long	nwrites;	/* writes done */
	long	next;		/* the first write whose record is still to come */
	char	expect[FLT_LEN];
	long	texts;		/* records holding their write's text */
	long	faulted;	/* "<faulted>" records of EFAULT writes: the fix */
	long	faulted_ok;	/* "<faulted>" records of writes that returned their count */
	long	efault_bare;	/* EFAULT writes without a record */
	long	missing;	/* writes that returned their count, without their text */
	long	dup;		/* a text recorded again */
	long	failed_text;	/* EFAULT writes whose text was recorded */
	long	wrong;		/* a text that is not what was written */
	long	bad;		/* not a marker of this thread, or a broken layout */
	char	first[160];	/* the first anomaly */
};

#define FLT_RING	(2 * FLT_BATCH)
#define FLT_RET(c, seq)	((c)->ret[(seq) % FLT_RING])

static void flt_note(struct flt_check *c, long *counter, const char *what, long seq)
{
	(*counter)++;
	if (!c->first[0])
		snprintf(c->first, sizeof(c->first), "write %ld (returned %zd): %s", seq,
			 seq >= 0 && seq < c->nwrites ? FLT_RET(c, seq) : 0, what);
}

static void flt_record(const struct ftp_event *ev, void *arg)
{
	const struct ftring_ev_marker *m = ev->payload;
	struct flt_check *c = arg;
	uint32_t off = m->buf & 0xffff, len = m->buf >> 16;
	const char *txt = (const char *)m + off;
	char *end;
	long seq;

	if (m->ent.type != MARKER_ID || m->ent.pid != c->tid || m->pid != c->tid ||
	    off < sizeof(*m) || !len || off + len > ev->payload_len || txt[len - 1]) {
		flt_note(c, &c->bad, "a record not of this thread, or broken", c->next);
		return;
	}
	if (!strcmp(txt, FLT_FAULTED)) {
		if (c->next < c->nwrites && FLT_RET(c, c->next) == -EFAULT) {
			c->faulted++;
			c->next++;
		} else {
			/* the old retry: "<faulted>", then the text again */
			flt_note(c, &c->faulted_ok, "a <faulted> record, yet the write succeeded",
				 c->next);
		}
		return;
	}
	if (strncmp(txt, "flt-", 4)) {
		flt_note(c, &c->bad, "a record of another text", c->next);
		return;
	}
	seq = strtol(txt + 4, &end, 10);
	if (end != txt + FLT_HEAD - 1 || seq < 0 || seq >= c->nwrites) {
		flt_note(c, &c->bad, "a text of no write", c->next);
		return;
	}
	if (seq < c->next) {
		flt_note(c, &c->dup, "its text recorded again", seq);
		return;
	}
	for (; c->next < seq; c->next++)
		if (FLT_RET(c, c->next) == -EFAULT)
			c->efault_bare++;
		else
			flt_note(c, &c->missing, "no record", c->next);
	c->next = seq + 1;
	if (FLT_RET(c, seq) != FLT_LEN) {
		flt_note(c, &c->failed_text, "failed, yet its text was recorded", seq);
		return;
	}
	flt_tag(c->expect, seq);
	if (len != FLT_LEN + 1 || memcmp(txt, c->expect, FLT_LEN)) {
		flt_note(c, &c->wrong, "a record of another text", seq);
		return;
	}
	c->texts++;
}

TEST_F_TIMEOUT(map, marker_fault_one_record, 120)
{
	long pg = self->page, ncpus = sysconf(_SC_NPROCESSORS_ONLN), other = 0, hits, nwrites;
	struct flt_zapper z = { .len = 2 * pg };
	struct flt_check *c;
	struct ftring_cpu_stats st;
	struct drain_pos pos;
	struct timespec t0, t;
	pthread_t th;
	char *text;
	ssize_t r;
	int i;

	MAP_SKIP_IF_NEEDED();
	if (ncpus < 2)
		SKIP(return, "needs a second CPU to zap the text from");
	c = calloc(1, sizeof(*c));
	ASSERT_NE(NULL, c);
	c->ret = calloc(FLT_RING, sizeof(*c->ret));
	ASSERT_NE(NULL, c->ret);
	c->tid = gettid_();
	flt_fill(c->expect);
	z.map = mmap(NULL, z.len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, z.map);
	text = z.map + pg - FLT_LEN / 2;	/* half on each page */
	flt_fill(text);
	z.cpu = (variant->cpu + 1) % ncpus;

	ASSERT_EQ(0, map_prepare(self, variant->cpu, FLT_SUBBUFS, FTRING_MODE_DISCARD));
	ASSERT_EQ(0, map_data(self));
	pos.id = self->meta->reader.id;
	pos.done = 0;
	ASSERT_EQ(0, ft_start(self->ctl));
	ASSERT_EQ(0, pthread_create(&th, NULL, flt_zap, &z));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < FLT_BATCH; i++, c->nwrites++) {
			flt_tag(text, c->nwrites);
			r = ft_marker(self->mfd, text, FLT_LEN);
			FLT_RET(c, c->nwrites) = r;
			if (r != FLT_LEN && r != -EFAULT && !other++)
				TH_LOG("write %ld: %zd", c->nwrites, r);
		}
		/* this CPU's ring holds only this thread's markers: read them all */
		ASSERT_EQ(0, drain_from(self, &pos, flt_record, c, NULL));
		for (; c->next < c->nwrites; c->next++)
			if (FLT_RET(c, c->next) == -EFAULT)
				c->efault_bare++;
			else
				flt_note(c, &c->missing, "no record", c->next);
		hits = c->faulted + c->faulted_ok;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (hits < FLT_HITS && t.tv_sec - t0.tv_sec < FLT_SECONDS);
	__atomic_store_n(&z.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, ft_get_stats(self->ctl, variant->cpu, &st));

	TH_LOG("%ld writes in %ld s, %ld zaps: %ld faulted copies", c->nwrites,
	       (long)(t.tv_sec - t0.tv_sec), z.zaps, hits);
	TH_LOG("  %ld EFAULT with one <faulted> record, %ld <faulted> then the text again,",
	       c->faulted, c->faulted_ok);
	TH_LOG("  %ld EFAULT without a record", c->efault_bare);
	if (c->first[0])
		TH_LOG("first anomaly: %s", c->first);
	EXPECT_EQ(0, other);
	EXPECT_EQ(0, st.lost);
	EXPECT_EQ(0, c->bad);
	EXPECT_EQ(0, c->faulted_ok);	/* one write, one record */
	EXPECT_EQ(0, c->dup);
	EXPECT_EQ(0, c->missing);
	EXPECT_EQ(0, c->failed_text);
	EXPECT_EQ(0, c->wrong);
	EXPECT_EQ(c->nwrites, c->texts + c->faulted + c->efault_bare);
	EXPECT_EQ(st.entries, c->texts + c->faulted + c->faulted_ok);
	nwrites = c->nwrites;
	munmap(z.map, z.len);
	free(c->ret);
	free(c);
	if (!hits && _metadata->passed)
		SKIP(return, "no copy faulted in %ld writes (%ld zaps)", nwrites, z.zaps);
}

/* Control device: version, status and the validation of every setting. */
FIXTURE(ctl) {
	int	ctl;
	struct ftring_config	saved;
};

FIXTURE_SETUP(ctl)
{
	self->ctl = -1;
	if (getuid())
		SKIP(return, "not root");
	self->ctl = ft_ctl_open();
	ASSERT_LE(0, self->ctl);
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, ft_get_config(self->ctl, &self->saved));
}

FIXTURE_TEARDOWN(ctl)
{
	if (self->ctl < 0)
		return;
	ft_stop(self->ctl);
	ft_set_config(self->ctl, &self->saved);
	ft_set_events(self->ctl, FTRING_EVENTS_DEFAULT);
	ft_reset(self->ctl);
	close(self->ctl);
}

TEST_F(ctl, version_and_status)
{
	struct ftring_version v = { 0 };
	struct ftring_status s;

	ASSERT_EQ(0, ft_ioctl(self->ctl, FTRING_IOC_ABI_VERSION, &v));
	EXPECT_EQ(FTRING_ABI_MAJOR, v.major);
	EXPECT_LE(FTRING_ABI_MINOR, v.minor);
	ASSERT_EQ(0, ft_get_status(self->ctl, &s));
	EXPECT_EQ(0, s.recording);
	EXPECT_LE(sysconf(_SC_NPROCESSORS_ONLN), s.nr_cpu_ids);
	EXPECT_EQ(0, s.event_id_base);	/* IDs per load: GET_EVENT_IDS */
	{
		/* from the kernel's registry: unique, and below 32768 (KernelShark) */
		struct ftring_event_ids ids;
		char fmt[256];
		int n, ffd;

		ASSERT_EQ(0, ft_ioctl(self->ctl, FTRING_IOC_GET_EVENT_IDS, &ids));
		EXPECT_EQ(FTRING_NR_EVENTS, ids.nr);
		for (unsigned int i = 0; i < ids.nr; i++) {
			EXPECT_LT(0, ids.id[i]);
			EXPECT_GT(32768, ids.id[i]);
			for (unsigned int j = 0; j < i; j++)
				EXPECT_NE(ids.id[j], ids.id[i]);
		}
		/* the formats say the same: the first event's ID line */
		ffd = ft_ctl_open();
		ASSERT_LE(0, ffd);
		n = read(ffd, fmt, sizeof(fmt) - 1);
		close(ffd);
		ASSERT_LT(0, n);
		fmt[n] = 0;
		{
			char want[32];

			snprintf(want, sizeof(want), "\nID: %u\n", ids.id[0]);
			EXPECT_NE(NULL, strstr(fmt, want));
		}
	}
	EXPECT_EQ(FTRING_NR_EVENTS, s.nr_events);
	EXPECT_EQ(0, s.reserved[0] | s.reserved[1] | s.pad);
	EXPECT_EQ(0, s.flags);	/* loaded without persist= */

	ASSERT_EQ(0, ft_set_events(self->ctl, MARKER_BIT));
	ASSERT_EQ(0, ft_start(self->ctl));
	EXPECT_EQ(-EALREADY, ft_start(self->ctl));
	ASSERT_EQ(0, ft_get_status(self->ctl, &s));
	EXPECT_EQ(1, s.recording);
	EXPECT_EQ(MARKER_BIT, s.events);
	ASSERT_EQ(0, ft_ioctl(self->ctl, FTRING_IOC_STOP, NULL));
	ASSERT_EQ(0, ft_get_status(self->ctl, &s));
	EXPECT_EQ(0, s.recording);
}

TEST_F(ctl, config_validation)
{
	struct ftring_config c, now;

	c = self->saved;
	EXPECT_EQ(ft_page_size(), c.subbuf_size);
	EXPECT_LE(2, c.nr_subbufs);
	EXPECT_GE(FTRING_MODE_OVERWRITE, c.mode);
	EXPECT_GE(FTRING_CLOCK_MAX, c.clock);
	EXPECT_EQ(0, c.flags);

	c = self->saved; c.nr_subbufs = 1;
	EXPECT_EQ(-EINVAL, ft_set_config(self->ctl, &c));
	c = self->saved; c.nr_subbufs = 65537;
	EXPECT_EQ(-EINVAL, ft_set_config(self->ctl, &c));
	c = self->saved; c.mode = 2;
	EXPECT_EQ(-EINVAL, ft_set_config(self->ctl, &c));
	c = self->saved; c.clock = FTRING_CLOCK_MAX + 1;
	EXPECT_EQ(-EINVAL, ft_set_config(self->ctl, &c));
	c = self->saved; c.flags = 1;
	EXPECT_EQ(-EINVAL, ft_set_config(self->ctl, &c));
	c = self->saved; c.reserved[2] = 1;
	EXPECT_EQ(-EINVAL, ft_set_config(self->ctl, &c));
	c = self->saved; c.watermark = c.nr_subbufs;
	EXPECT_EQ(-EINVAL, ft_set_config(self->ctl, &c));
	/* Nothing of a refused config was applied. */
	ASSERT_EQ(0, ft_get_config(self->ctl, &now));
	EXPECT_EQ(0, memcmp(&now, &self->saved, sizeof(now)));

	/* A valid change applies whole. */
	c = self->saved;
	c.nr_subbufs = 6;
	c.mode = FTRING_MODE_OVERWRITE;
	c.clock = FTRING_CLOCK_GLOBAL;
	c.watermark = 2;
	ASSERT_EQ(0, ft_set_config(self->ctl, &c));
	ASSERT_EQ(0, ft_get_config(self->ctl, &now));
	EXPECT_EQ(6, now.nr_subbufs);
	EXPECT_EQ(FTRING_MODE_OVERWRITE, now.mode);
	EXPECT_EQ(FTRING_CLOCK_GLOBAL, now.clock);
	EXPECT_EQ(2, now.watermark);

	/* While recording: mode, clock and size are locked, the watermark is not. */
	ASSERT_EQ(0, ft_start(self->ctl));
	c = now; c.mode = FTRING_MODE_DISCARD;
	EXPECT_EQ(-EBUSY, ft_set_config(self->ctl, &c));
	c = now; c.clock = FTRING_CLOCK_LOCAL;
	EXPECT_EQ(-EBUSY, ft_set_config(self->ctl, &c));
	c = now; c.nr_subbufs = 8;
	EXPECT_EQ(-EBUSY, ft_set_config(self->ctl, &c));
	c = now; c.watermark = 1;
	EXPECT_EQ(0, ft_set_config(self->ctl, &c));
	EXPECT_EQ(-EBUSY, ft_reset(self->ctl));
	ASSERT_EQ(0, ft_ioctl(self->ctl, FTRING_IOC_STOP, NULL));
	EXPECT_EQ(0, ft_reset(self->ctl));
}

/* MemAvailable in bytes, or 0. */
static unsigned long long mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/*
 * Rings larger than the memory the system has: ENOMEM, the old rings stay, and no
 * OOM kill or allocation warning (the guest script checks the kernel log after).
 */
TEST_F(ctl, resize_beyond_memory)
{
	struct ftring_config c = self->saved, now;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long want;

	c.nr_subbufs = 65536;
	want = (c.nr_subbufs + 1ULL) * ncpus * ft_page_size();
	if (want < mem_available() + (64ULL << 20))
		SKIP(return, "the guest has room for %llu MiB of rings", want >> 20);
	EXPECT_EQ(-ENOMEM, ft_set_config(self->ctl, &c));
	ASSERT_EQ(0, ft_get_config(self->ctl, &now));
	EXPECT_EQ(0, memcmp(&now, &self->saved, sizeof(now)));
}

/* Events of two clocks never share a buffer: a clock change empties them (#13). */
TEST_F(ctl, clock_change_empties)
{
	struct ftring_config c = self->saved;
	struct ftring_cpu_stats st;
	int mfd = open(FTRING_DEV_MARKER, O_WRONLY | O_CLOEXEC), fd;
	void *p;

	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ft_pin(0));
	c.clock = FTRING_CLOCK_LOCAL;
	ASSERT_EQ(0, ft_set_config(self->ctl, &c));
	ASSERT_EQ(0, ft_reset(self->ctl));
	ASSERT_EQ(0, ft_set_events(self->ctl, MARKER_BIT));
	ASSERT_EQ(0, ft_start(self->ctl));
	ASSERT_EQ(6, ft_marker(mfd, "local", 6));
	ASSERT_EQ(0, ft_ioctl(self->ctl, FTRING_IOC_STOP, NULL));
	ASSERT_EQ(0, ft_get_stats(self->ctl, 0, &st));
	EXPECT_EQ(1, st.entries);

	/* a mapping reader may be reading them: refused, nothing changes */
	fd = ft_cpu_open(0, O_RDONLY);
	ASSERT_LE(0, fd);
	p = mmap(NULL, ft_page_size(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	c.clock = FTRING_CLOCK_MONO;
	EXPECT_EQ(-EBUSY, ft_set_config(self->ctl, &c));
	/* nor is a reset: the reader's meta page would go blank under it */
	EXPECT_EQ(-EBUSY, ft_reset(self->ctl));
	ASSERT_EQ(0, ft_get_stats(self->ctl, 0, &st));
	EXPECT_EQ(1, st.entries);
	munmap(p, ft_page_size());
	close(fd);

	ASSERT_EQ(0, ft_set_config(self->ctl, &c));
	ASSERT_EQ(0, ft_get_stats(self->ctl, 0, &st));
	EXPECT_EQ(0, st.entries);
	EXPECT_EQ(0, st.read);
	close(mfd);
}

/* Events written on all CPUs, or -1. */
static long long total_entries(int ctl)
{
	struct ftring_cpu_stats st;
	struct ftring_status s;
	long long n = 0;
	unsigned int cpu;

	if (ft_get_status(ctl, &s))
		return -1;
	for (cpu = 0; cpu < s.nr_cpu_ids; cpu++)
		if (!ft_get_stats(ctl, cpu, &st))
			n += st.entries;
	return n;
}

TEST_F(ctl, events_and_marker)
{
	char big[FTRING_MARKER_MAX + 100];
	void *volatile bad_ptr = (void *)8;
	long pg = sysconf(_SC_PAGESIZE);
	long long entries;
	char *hole;
	int mfd;

	/* A bit past the schema. */
	EXPECT_EQ(-EINVAL, ft_set_events(self->ctl, FTRING_EVENTS_ALL + 1));
	mfd = open(FTRING_DEV_MARKER, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, mfd);
	/* Not recording: the marker is refused. */
	EXPECT_EQ(-ENODATA, ft_marker(mfd, "x", 1));
	ASSERT_EQ(0, ft_set_events(self->ctl, FTRING_EVENTS_ALL & ~MARKER_BIT));
	ASSERT_EQ(0, ft_start(self->ctl));
	/* Recording without the marker event: refused too. */
	EXPECT_EQ(-ENODATA, ft_marker(mfd, "x", 1));
	ASSERT_EQ(0, ft_set_events(self->ctl, MARKER_BIT));
	EXPECT_EQ(1, ft_marker(mfd, "x", 1));
	memset(big, 'b', sizeof(big));
	EXPECT_EQ(FTRING_MARKER_MAX, ft_marker(mfd, big, sizeof(big)));
	EXPECT_GE(0, ft_marker(mfd, big, 0));
	/* Bad or partly unmapped text, short (via the stack) or long (in place): no record. */
	hole = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	memset(hole, 'h', pg);
	ASSERT_EQ(0, munmap(hole + pg, pg));
	entries = total_entries(self->ctl);
	EXPECT_EQ(-EFAULT, ft_marker(mfd, bad_ptr, 16));
	EXPECT_EQ(-EFAULT, ft_marker(mfd, bad_ptr, 1000));
	EXPECT_EQ(-EFAULT, ft_marker(mfd, hole + pg - 9, 16));
	EXPECT_EQ(-EFAULT, ft_marker(mfd, hole + pg - 500, 1000));
	EXPECT_EQ(entries, total_entries(self->ctl));
	EXPECT_EQ(1000, ft_marker(mfd, hole + pg - 1000, 1000));
	munmap(hole, pg);
	ASSERT_EQ(0, ft_ioctl(self->ctl, FTRING_IOC_STOP, NULL));
	close(mfd);
}

TEST_F(ctl, bad_requests)
{
	struct ftring_cpu_stats st;
	struct ftring_status s;
	int fd;

	ASSERT_EQ(0, ft_get_status(self->ctl, &s));
	EXPECT_NE(0, ft_get_stats(self->ctl, s.nr_cpu_ids, &st));
	EXPECT_NE(0, ft_get_stats(self->ctl, -1, &st));
	EXPECT_EQ(-ENOTTY, ft_ioctl(self->ctl, _IO(FTRING_IOC_MAGIC, 0x1f), NULL));
	EXPECT_EQ(-ENOTTY, ft_ioctl(self->ctl, FTRING_IOC_GET_READER, NULL));
	EXPECT_EQ(-EFAULT, ft_ioctl(self->ctl, FTRING_IOC_GET_STATUS, (void *)8));
	EXPECT_EQ(-EFAULT, ft_ioctl(self->ctl, FTRING_IOC_SET_CONFIG, (void *)8));
	fd = ft_cpu_open(0, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOTTY, ft_ioctl(fd, FTRING_IOC_START, NULL));
	EXPECT_EQ(-ENOTTY, ft_ioctl(fd, _IO('R', 0x21), NULL));
	close(fd);
}

/* As upstream: GET_READER is for a mapping reader; on a CPU nobody maps, ENODEV. */
TEST(get_reader_needs_mapping)
{
	int fd = ft_cpu_open(0, O_RDONLY | O_NONBLOCK);
	void *p;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENODEV, ft_ioctl(fd, FTRING_IOC_GET_READER, NULL));
	p = mmap(NULL, ft_page_size(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, ft_ioctl(fd, FTRING_IOC_GET_READER, NULL));
	munmap(p, ft_page_size());
	EXPECT_EQ(-ENODEV, ft_ioctl(fd, FTRING_IOC_GET_READER, NULL));
	close(fd);
}

TEST_HARNESS_MAIN
