// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/source/mmap_ring.c: the step that copies the reader sub-buffer out while the
 * kernel may still write to it (mmap_ring_take), on synthetic pages grown event by
 * event the way the kernel's writer grows them; every page handed over is decoded
 * with libtraceevent's kbuffer (what trace-cmd report uses): each event must come
 * out exactly once, with its original timestamp. A last test runs the consumer on
 * a real tracefs instance (skipped without root/tracefs mmap).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kbuffer.h>

#include "kselftest_harness.h"
#include "../lib/harness_skip.h"
#include "ftrace_page.h"
#include "source/mmap_ring.h"

#define PS		4096
#define PAYLOAD		12	/* struct ftp_entry + u32 sequence number */

/* A sub-buffer being written, as the kernel writer does it: data, then commit. */
struct live_page {
	char		page[PS];
	uint32_t	len;
	uint64_t	last_ts;
};

static void lp_init(struct live_page *lp, uint64_t ts)
{
	memset(lp->page, 0, PS);
	*(uint64_t *)lp->page = ts;
	lp->len = 0;
	lp->last_ts = ts;
}

static void lp_commit(struct live_page *lp)
{
	*(uint64_t *)(lp->page + FTP_COMMIT_OFFSET) = lp->len;
}

/* Adds event @seq at @ts; 0, or -1 if it does not fit (the page is then "left"). */
static int lp_add(struct live_page *lp, uint64_t ts, uint32_t seq)
{
	char *data = lp->page + FTP_HDR_SIZE;
	uint64_t delta = ts - lp->last_ts;
	uint32_t need = ftp_data_len(PAYLOAD) + (delta >> FTP_DELTA_BITS ? FTP_EXTEND_LEN : 0);
	struct ftp_entry *e;

	if (FTP_HDR_SIZE + lp->len + need > PS)
		return -1;
	if (delta >> FTP_DELTA_BITS) {
		ftp_put_extend(data + lp->len, delta);
		lp->len += FTP_EXTEND_LEN;
		delta = 0;
	}
	e = ftp_put_data(data + lp->len, PAYLOAD, (uint32_t)delta);
	e->type = 5;
	e->flags = 0;
	e->preempt_count = 0;
	e->pid = 1;
	memcpy(e + 1, &seq, 4);
	lp->len += ftp_data_len(PAYLOAD);
	lp->last_ts = ts;
	lp_commit(lp);
	return 0;
}

/* The writer leaves the page: padding to the end if >= 8 bytes remain (rb_reset_tail). */
static void lp_leave(struct live_page *lp)
{
	uint32_t room = PS - FTP_HDR_SIZE - lp->len;

	if (room >= FTP_MIN_PADDING) {
		ftp_put_padding(lp->page + FTP_HDR_SIZE + lp->len, room);
		lp->len += room;
		lp_commit(lp);
	}
}

struct seen {
	uint32_t		seq[4096];
	unsigned long long	ts[4096];
	int			n;
};

/* Decodes @page with kbuffer and appends its events to @s; returns events found. */
static int kb_collect(void *page, struct seen *s, int *missed)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned long long ts;
	int n = 0;
	void *d;

	if (!kb || kbuffer_load_subbuffer(kb, page) < 0)
		return -1;
	if (missed)
		*missed = kbuffer_missed_events(kb);
	for (d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts)) {
		memcpy(&s->seq[s->n], (char *)d + sizeof(struct ftp_entry), 4);
		s->ts[s->n++] = ts;
		n++;
	}
	kbuffer_free(kb);
	return n;
}

static uint64_t ts_of(uint32_t seq)
{
	/* uneven gaps, and one that needs a TIME_EXTEND (>= 2^27) */
	return 1000000000ULL + seq * 1000ULL + (seq % 7) * 3 + (seq >= 50 ? 1ULL << 28 : 0);
}

static void check_all_once(struct __test_metadata *_metadata, const struct seen *s,
			   uint32_t expect)
{
	ASSERT_EQ((int)expect, s->n);
	for (int i = 0; i < s->n; i++) {
		ASSERT_EQ((uint32_t)i, s->seq[i]);
		ASSERT_EQ(ts_of((uint32_t)i), (uint64_t)s->ts[i]);
	}
}

TEST(complete_rule)
{
	uint64_t data = PS - FTP_HDR_SIZE;

	EXPECT_EQ(1, mmap_ring_page_complete(data, PS));
	EXPECT_EQ(1, mmap_ring_page_complete(data - 7, PS));	/* < 1 event of room */
	EXPECT_EQ(0, mmap_ring_page_complete(data - 8, PS));
	EXPECT_EQ(0, mmap_ring_page_complete(96, PS));
	EXPECT_EQ(1, mmap_ring_page_complete(96 | FTP_MISSED_EVENTS, PS));
	EXPECT_EQ(1, mmap_ring_page_complete(96 | FTP_MISSED_EVENTS | FTP_MISSED_STORED, PS));
}

TEST(partial_waits_without_flush)
{
	struct mmap_ring_cursor cur = { .id = 1, .done = 0 };
	static struct live_page lp;
	char out[PS];
	int rebased;

	lp_init(&lp, ts_of(0));
	for (uint32_t i = 0; i < 10; i++)
		ASSERT_EQ(0, lp_add(&lp, ts_of(i), i));
	EXPECT_EQ(0, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased));
	EXPECT_EQ(0u, cur.done);
	/* the writer leaves it: now it goes, whole and as is */
	lp_leave(&lp);
	ASSERT_EQ(1, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased));
	EXPECT_EQ(0, rebased);
	EXPECT_EQ(0, memcmp(out, lp.page, PS));
	EXPECT_EQ(0, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased));
}

/* Flush, grow, flush, grow, leave: every event exactly once, times unchanged. */
TEST(flush_then_grow_rebases)
{
	struct mmap_ring_cursor cur = { .id = 3, .done = 0 };
	static struct live_page lp;
	static struct seen s;
	char out[PS];
	uint32_t seq = 0;
	int rebased, pages = 0, rebased_pages = 0;

	lp_init(&lp, ts_of(0));
	s.n = 0;
	for (int round = 0; round < 6; round++) {
		for (int k = 0; k < 7 + round * 5; k++, seq++)
			ASSERT_EQ(0, lp_add(&lp, ts_of(seq), seq));
		ASSERT_EQ(1, mmap_ring_take(&cur, lp.page, PS, out, 1, &rebased));
		ASSERT_EQ((int)(round > 0), rebased);
		ASSERT_EQ((uint64_t)0, *(uint64_t *)(out + FTP_COMMIT_OFFSET) & ~(uint64_t)FTP_COMMIT_MASK);
		ASSERT_LT(0, kb_collect(out, &s, NULL));
		pages++;
		rebased_pages += rebased;
		/* flushing again with nothing new gives nothing */
		ASSERT_EQ(0, mmap_ring_take(&cur, lp.page, PS, out, 1, &rebased));
	}
	while (!lp_add(&lp, ts_of(seq), seq))
		seq++;
	lp_leave(&lp);
	ASSERT_EQ(1, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased));
	ASSERT_EQ(1, rebased);
	ASSERT_LT(0, kb_collect(out, &s, NULL));
	check_all_once(_metadata, &s, seq);
	EXPECT_EQ(5, rebased_pages);	/* every flush after the first */
	EXPECT_EQ(6, pages);
}

/* A page grown only by the writer's end padding yields no (empty) page. */
TEST(padding_only_growth_skipped)
{
	struct mmap_ring_cursor cur = { .id = 0, .done = 0 };
	static struct live_page lp;
	char out[PS];
	int rebased;

	lp_init(&lp, ts_of(0));
	ASSERT_EQ(0, lp_add(&lp, ts_of(0), 0));
	ASSERT_EQ(1, mmap_ring_take(&cur, lp.page, PS, out, 1, &rebased));
	lp_leave(&lp);
	EXPECT_EQ(0, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased));
	EXPECT_EQ((uint32_t)(PS - FTP_HDR_SIZE), cur.done);
}


/*
 * ftring flags the page it swaps in under a writer still on it (missed events before
 * it) in every commit word the writer publishes. Its first part goes out with the
 * flag at once; what the writer adds after waits until the page is full, left or
 * flushed, as on any live page, not a page a time per read (one piece each 2 ms
 * drain tick, before).
 */
TEST(missed_flag_on_a_live_page)
{
	struct mmap_ring_cursor cur = { .id = 0, .done = 0 };
	static struct live_page lp;
	static struct seen s;
	char out[PS];
	uint32_t seq = 0;
	int rebased, missed = 0;

	lp_init(&lp, ts_of(0));
	s.n = 0;
	for (; seq < 5; seq++)
		ASSERT_EQ(0, lp_add(&lp, ts_of(seq), seq));
	*(uint64_t *)(lp.page + FTP_COMMIT_OFFSET) |= FTP_MISSED_EVENTS;
	ASSERT_EQ(1, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased));
	EXPECT_EQ(0, rebased);
	ASSERT_EQ(5, kb_collect(out, &s, &missed));
	EXPECT_NE(0, missed);
	for (; seq < 10; seq++) {
		ASSERT_EQ(0, lp_add(&lp, ts_of(seq), seq));
		*(uint64_t *)(lp.page + FTP_COMMIT_OFFSET) |= FTP_MISSED_EVENTS;
		EXPECT_EQ(0, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased))
			TH_LOG("a piece of the live page went out after event %u", seq);
	}
	while (!lp_add(&lp, ts_of(seq), seq))
		seq++;
	lp_leave(&lp);
	*(uint64_t *)(lp.page + FTP_COMMIT_OFFSET) |= FTP_MISSED_EVENTS;
	ASSERT_EQ(1, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased));
	EXPECT_EQ(1, rebased);
	ASSERT_LT(0, kb_collect(out, &s, &missed));
	EXPECT_EQ(0, missed);
	check_all_once(_metadata, &s, seq);
}

/*
 * A ring of our own in a memfd, its writer (ftring's meta->writer) on the reader
 * sub-buffer, which is all the ring holds then; every GET_READER (ioctl, wrapped)
 * lets it write one more event there, as a flood does between two of a reader's
 * calls. A flush takes the page once: it used to go on, a GET_READER and a
 * few-event page a round, while the writer kept ahead of it (to @max pages).
 */
static int fake_fd = -1, fake_ioctls;
static struct live_page *fake_lp;
static char *fake_page;
static uint32_t fake_seq;

int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != fake_fd || fd < 0)
		return __real_ioctl(fd, req, arg);
	if (req != MMAP_RING_IOCTL_GET_READER) {
		errno = ENOTTY;
		return -1;
	}
	fake_ioctls++;
	if (!lp_add(fake_lp, ts_of(fake_seq), fake_seq)) {
		fake_seq++;
		memcpy(fake_page, fake_lp->page, PS);
	}
	return 0;
}

/*
 * The fake ring: sub-buffer 1 is the reader's and the writer's (meta->writer), with
 * events 0..4 in it, @lost events missed before it (the swap's count). Returns the
 * ring, @map its mapping (FAKE_LEN bytes).
 */
#define FAKE_LEN	(PS + 3 * PS)

static struct mmap_ring *fake_ring_open(struct __test_metadata *_metadata,
					struct live_page *lp, uint64_t lost, char **map)
{
	struct mmap_ring_meta *m;
	struct mmap_ring *r;
	int err = 0;

	fake_ioctls = 0;
	fake_fd = memfd_create("fake_ring", MFD_CLOEXEC);
	if (fake_fd < 0 || ftruncate(fake_fd, FAKE_LEN))
		return NULL;
	*map = mmap(NULL, FAKE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fake_fd, 0);
	if (*map == MAP_FAILED)
		return NULL;
	m = (struct mmap_ring_meta *)*map;
	m->meta_page_size = PS;
	m->meta_struct_len = sizeof(*m);
	m->subbuf_size = PS;
	m->nr_subbufs = 3;
	m->reader.id = 1;
	m->reader.lost_events = lost;
	m->writer = 1;
	fake_lp = lp;
	fake_page = *map + PS + PS;	/* sub-buffer 1 */
	lp_init(lp, ts_of(0));
	for (fake_seq = 0; fake_seq < 5; fake_seq++)
		lp_add(lp, ts_of(fake_seq), fake_seq);
	memcpy(fake_page, lp->page, PS);
	r = mmap_ring_open(fake_fd, &err);
	if (!r)
		TH_LOG("mmap_ring_open: %s", strerror(-err));
	return r;
}

static void fake_ring_close(struct mmap_ring *r, char *map)
{
	mmap_ring_close(r);
	munmap(map, FAKE_LEN);
	close(fake_fd);
	fake_fd = -1;
}

TEST(flush_takes_the_writers_page_once)
{
	static struct live_page lp;
	static char dst[64 * PS];
	struct mmap_ring *r;
	char *map;
	ssize_t n;

	r = fake_ring_open(_metadata, &lp, 0, &map);
	ASSERT_NE(NULL, r);
	n = mmap_ring_read_pages(r, dst, 64, 1);
	TH_LOG("a flush: %zd pages, %d GET_READER, %u events written", n, fake_ioctls,
	       fake_seq);
	EXPECT_EQ(1, n);
	EXPECT_GE(1, fake_ioctls);
	fake_ring_close(r, map);
}

/*
 * ftring flags the page it swaps in under its writer without the count (the writer
 * goes on after the data); the reader knows it (meta reader.lost_events at that
 * swap) and stores it where the kernel would have: trace-cmd says how many were
 * lost, not "unknown".
 */
TEST(missed_count_stored_for_a_flagged_live_page)
{
	static struct live_page lp;
	static char dst[4 * PS];
	struct seen s = { .n = 0 };
	struct mmap_ring *r;
	int missed = 0;
	char *map;

	r = fake_ring_open(_metadata, &lp, 42, &map);
	ASSERT_NE(NULL, r);
	*(uint64_t *)(fake_page + FTP_COMMIT_OFFSET) |= FTP_MISSED_EVENTS;
	ASSERT_EQ(1, mmap_ring_read_pages(r, dst, 4, 1));
	ASSERT_EQ(5, kb_collect(dst, &s, &missed));
	EXPECT_EQ(42, missed);
	fake_ring_close(r, map);
}

/* Missed-event flags and the stored count go out with the page. */
TEST(missed_events_kept)
{
	struct mmap_ring_cursor cur = { .id = 0, .done = 0 };
	static struct live_page lp;
	static struct seen s;
	char out[PS];
	int rebased, missed = 0;

	lp_init(&lp, ts_of(0));
	s.n = 0;
	for (uint32_t i = 0; i < 5; i++)
		ASSERT_EQ(0, lp_add(&lp, ts_of(i), i));
	ftp_page_set_missed(lp.page, PS, 42);
	ASSERT_EQ(1, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased));
	ASSERT_EQ(5, kb_collect(out, &s, &missed));
	EXPECT_EQ(42, missed);

	/* no room for the count: only the flag */
	cur.done = 0;
	lp_init(&lp, ts_of(0));
	s.n = 0;
	for (uint32_t i = 0; !lp_add(&lp, ts_of(i), i); i++)
		;
	lp_leave(&lp);
	ftp_page_set_missed(lp.page, PS, 42);
	ASSERT_EQ(1, mmap_ring_take(&cur, lp.page, PS, out, 0, &rebased));
	ASSERT_LT(0, kb_collect(out, &s, &missed));
	EXPECT_EQ(-1, missed);
}

TEST(malformed_skipped)
{
	struct mmap_ring_cursor cur = { .id = 0, .done = 8 };
	static struct live_page lp;
	char out[PS];
	int rebased;

	/* a null padding (delta 0) inside the data cannot be walked to @done */
	lp_init(&lp, 1);
	*(uint32_t *)(lp.page + FTP_HDR_SIZE) = FTP_TYPE_PADDING;
	lp.len = 64;
	lp_commit(&lp);
	EXPECT_EQ(-EBADMSG, mmap_ring_take(&cur, lp.page, PS, out, 1, &rebased));
	EXPECT_EQ(64u, cur.done);
	/* a commit past the page */
	cur.done = 0;
	*(uint64_t *)(lp.page + FTP_COMMIT_OFFSET) = PS;
	EXPECT_EQ(-EBADMSG, mmap_ring_take(&cur, lp.page, PS, out, 1, &rebased));
	EXPECT_EQ(0, mmap_ring_take(&cur, lp.page, PS, out, 1, &rebased));
}

/* ---- the real thing: a tracefs instance of our own ---------------------------- */

#define INST	"rec_test_mmap_ring"

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s));
	close(fd);
	return r == (ssize_t)strlen(s) ? 0 : -1;
}

static int count_markers(const char *pages, ssize_t n, const char *prefix, int *order_ok,
			 int *next)
{
	int found = 0;

	for (ssize_t p = 0; p < n; p++) {
		struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
		unsigned long long ts;
		void *d;

		kbuffer_load_subbuffer(kb, (void *)(pages + p * PS));
		for (d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts)) {
			/* ftrace/print: entry(8) ip(8) buf[] */
			const char *text = (const char *)d + 16;
			int k;

			if (strncmp(text, prefix, strlen(prefix)))
				continue;
			k = atoi(text + strlen(prefix));
			if (k != *next)
				*order_ok = 0;
			*next = k + 1;
			found++;
		}
		kbuffer_free(kb);
	}
	return found;
}

FIXTURE(live) {
	char			dir[128];
	char			marker[192];
	int			fd;
	int			made;
	struct mmap_ring	*r;
	char			*pages;
};

FIXTURE_SETUP(live)
{
	char path[256];
	cpu_set_t set;
	int err = 0;

	self->fd = -1;
	self->r = NULL;
	self->made = 0;
	self->pages = malloc(64 * PS);
	ASSERT_NE(NULL, self->pages);
	snprintf(self->dir, sizeof(self->dir), "/sys/kernel/tracing/instances/%s_%d", INST,
		 (int)getpid());
	if (geteuid() || mkdir(self->dir, 0755))
		SKIP(return, "needs root and a writable tracefs");
	self->made = 1;
	/* the markers must land in the ring we read: CPU 0 */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	snprintf(path, sizeof(path), "%s/per_cpu/cpu0/trace_pipe_raw", self->dir);
	snprintf(self->marker, sizeof(self->marker), "%s/trace_marker", self->dir);
	self->fd = open(path, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	self->r = mmap_ring_open(self->fd, &err);
	if (!self->r)
		SKIP(return, "this kernel cannot mmap trace_pipe_raw (%d)", err);
	ASSERT_EQ(PS, mmap_ring_page_size(self->r));
}

FIXTURE_TEARDOWN(live)
{
	mmap_ring_close(self->r);
	if (self->fd >= 0)
		close(self->fd);
	if (self->made)
		rmdir(self->dir);
	free(self->pages);
}

/*
 * The page the kernel still writes to is taken before the next GET_READER could give
 * it back (once per call), and what it gains later comes re-based: every marker once.
 */
TEST_F(live, partial_page_taken_before_next_ioctl)
{
	int order_ok = 1, next = 0;
	char text[32];

	if (setup_skipped(_metadata))
		return;

	for (int i = 0; i < 3; i++) {
		snprintf(text, sizeof(text), "pp %d", i);
		ASSERT_EQ(0, write_str(self->marker, text));
	}
	ASSERT_EQ(1, mmap_ring_read_pages(self->r, self->pages, 64, 0));
	EXPECT_EQ(3, count_markers(self->pages, 1, "pp ", &order_ok, &next));
	EXPECT_EQ(0, mmap_ring_read_pages(self->r, self->pages, 64, 0));
	for (int i = 3; i < 5; i++) {
		snprintf(text, sizeof(text), "pp %d", i);
		ASSERT_EQ(0, write_str(self->marker, text));
	}
	ASSERT_EQ(1, mmap_ring_read_pages(self->r, self->pages, 64, 0));
	EXPECT_EQ(2, count_markers(self->pages, 1, "pp ", &order_ok, &next));
	EXPECT_EQ(1, order_ok);
	EXPECT_EQ(0, mmap_ring_read_pages(self->r, self->pages, 64, 1));
}

/* Flush, write more, flush, write across pages: every marker once, in order. */
TEST_F(live, flushed_page_grows)
{
	struct mmap_ring_stats st;
	int order_ok = 1, next = 0, found = 0;
	char text[64];
	ssize_t n;

	if (setup_skipped(_metadata))
		return;

	for (int round = 0; round < 3; round++) {
		int k = round == 2 ? 400 : 3 + round;	/* the last round spans pages */

		for (int i = 0; i < k; i++) {
			snprintf(text, sizeof(text), "mr %d", found + i);
			ASSERT_EQ(0, write_str(self->marker, text));
		}
		n = mmap_ring_read_pages(self->r, self->pages, 64, 1);
		ASSERT_LE(0, n);
		found += count_markers(self->pages, n, "mr ", &order_ok, &next);
		EXPECT_EQ(next, found);
	}
	mmap_ring_stats(self->r, &st);
	EXPECT_EQ(3 + 4 + 400, found);
	EXPECT_EQ(1, order_ok);
	EXPECT_LE(2u, st.rebased);
	EXPECT_EQ(0, mmap_ring_read_pages(self->r, self->pages, 64, 1));
}

TEST_HARNESS_MAIN
