// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ftring/watch, in the guest (module loaded, root): one watcher at a time; a
 * marker holding a literal is handed over with its text, pid and CPU, and recorded
 * in the ring as ever; one holding none is not handed over; "" hands over every
 * marker; a bad spec is refused with EINVAL and the one set stays; a full queue
 * counts what it drops in the newest waiting hit's @missed; closing clears the
 * watch. A hit's text ends at its NUL (zeros after it, whatever the slot held
 * before).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "ftring_test.h"
#include "ftring_events.h"
#include "kselftest_harness.h"

static int watch_set(int w, unsigned int nr, const char *const *lits)
{
	struct ftring_watch_spec s;

	memset(&s, 0, sizeof(s));
	s.nr = nr;
	for (unsigned int i = 0; i < nr; i++)
		strcpy(s.lit[i], lits[i]);
	return ioctl(w, FTRING_IOC_WATCH_MARKERS, &s) ? -errno : 0;
}

/* Writes @text as one marker; its length, or -1. */
static ssize_t mark(int mfd, const char *text)
{
	return ft_marker(mfd, text, strlen(text));
}

/* Hits waiting (non-blocking read of up to @max into @h). */
static int hits(int w, struct ftring_watch_hit *h, int max)
{
	ssize_t n = read(w, h, sizeof(*h) * max);

	return n < 0 ? -errno : (int)(n / sizeof(*h));
}

FIXTURE(watch) {
	int ctl, mfd, w;
};

FIXTURE_SETUP(watch)
{
	self->ctl = ft_ctl_open();
	ASSERT_GE(self->ctl, 0);
	ASSERT_EQ(0, ft_setup(self->ctl, 64, FTRING_MODE_OVERWRITE));
	ASSERT_EQ(0, ft_set_events(self->ctl, 1ULL << FTRING_EV_marker));
	ASSERT_EQ(0, ft_start(self->ctl));
	self->mfd = open(FTRING_DEV_MARKER, O_WRONLY);
	ASSERT_GE(self->mfd, 0);
	self->w = open(FTRING_DEV_WATCH, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(self->w, 0);
}

FIXTURE_TEARDOWN(watch)
{
	close(self->w);
	close(self->mfd);
	ft_stop(self->ctl);
	close(self->ctl);
}

TEST_F(watch, one_watcher)
{
	EXPECT_EQ(-1, open(FTRING_DEV_WATCH, O_RDONLY));
	EXPECT_EQ(EBUSY, errno);
}

TEST_F(watch, literal_hits_and_misses)
{
	static const char *const lits[] = { "fatal", "oops" };
	struct ftring_watch_hit h[4];
	struct ftring_cpu_stats st;
	struct pollfd p = { .fd = self->w, .events = POLLIN };
	uint64_t before = 0, after = 0;
	int cpus = sysconf(_SC_NPROCESSORS_CONF);

	for (int c = 0; c < cpus; c++)
		if (!ft_get_stats(self->ctl, c, &st))
			before += st.entries;
	ASSERT_EQ(0, watch_set(self->w, 2, lits));
	EXPECT_EQ(-EAGAIN, hits(self->w, h, 4));
	EXPECT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(13, mark(self->mfd, "all is well 1"));
	ASSERT_EQ(13, mark(self->mfd, "a fatal error"));
	ASSERT_EQ(9, mark(self->mfd, "oops here"));
	EXPECT_EQ(1, poll(&p, 1, 1000));
	ASSERT_EQ(2, hits(self->w, h, 4));
	EXPECT_STREQ("a fatal error", h[0].text);
	EXPECT_EQ(13, h[0].len);
	EXPECT_EQ(getpid(), (pid_t)h[0].pid);
	EXPECT_EQ(0, h[0].missed);
	EXPECT_STREQ("oops here", h[1].text);
	EXPECT_EQ(-EAGAIN, hits(self->w, h, 4));
	/* every marker was recorded, watched or not */
	for (int c = 0; c < cpus; c++)
		if (!ft_get_stats(self->ctl, c, &st))
			after += st.entries;
	EXPECT_EQ(before + 3, after);
	/* a buffer too small for one hit */
	EXPECT_EQ(-1, read(self->w, h, sizeof(h[0]) - 1));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * Found wherever it is, across word boundaries and at the end, not where only its
 * first byte is; a prefix literal only at the start.
 */
TEST_F(watch, where_literals_are_found)
{
	static const char *const lits[] = { "needle", "app:" };
	struct ftring_watch_spec s = { .nr = 2, .prefix = 2 };
	struct ftring_watch_hit h[8];
	static const char *const in[] = {
		"needle", "xneedle", "0123456needle", "0123456789abcdeneedle",
		"app: at start", "nneedl nee needl", "x app: not at start", "app",
	};
	int n;

	strcpy(s.lit[0], lits[0]);
	strcpy(s.lit[1], lits[1]);
	ASSERT_EQ(0, ioctl(self->w, FTRING_IOC_WATCH_MARKERS, &s));
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		ASSERT_EQ((ssize_t)strlen(in[i]), mark(self->mfd, in[i]));
	n = hits(self->w, h, 8);
	ASSERT_EQ(5, n);
	for (int i = 0; i < n; i++)
		EXPECT_STREQ(in[i], h[i].text);
}

TEST_F(watch, empty_literal_hands_over_all)
{
	static const char *const all[] = { "" };
	struct ftring_watch_hit h[2];

	ASSERT_EQ(0, watch_set(self->w, 1, all));
	ASSERT_EQ(3, mark(self->mfd, "abc"));
	ASSERT_EQ(1, hits(self->w, h, 2));
	EXPECT_STREQ("abc", h[0].text);
}

TEST_F(watch, bad_spec_keeps_the_old_one)
{
	static const char *const lits[] = { "keep" };
	struct ftring_watch_spec s;
	struct ftring_watch_hit h[2];

	ASSERT_EQ(0, watch_set(self->w, 1, lits));
	memset(&s, 0, sizeof(s));
	s.nr = FTRING_WATCH_NR + 1;
	EXPECT_EQ(-1, ioctl(self->w, FTRING_IOC_WATCH_MARKERS, &s));
	EXPECT_EQ(EINVAL, errno);
	s.nr = 1;
	s.prefix = 2;	/* a literal it does not have */
	EXPECT_EQ(-1, ioctl(self->w, FTRING_IOC_WATCH_MARKERS, &s));
	EXPECT_EQ(EINVAL, errno);
	s.prefix = 0;
	memset(s.lit[0], 'x', FTRING_WATCH_LIT_MAX);	/* no NUL */
	EXPECT_EQ(-1, ioctl(self->w, FTRING_IOC_WATCH_MARKERS, &s));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->w, FTRING_IOC_WATCH_MARKERS, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(9, mark(self->mfd, "keep this"));
	ASSERT_EQ(1, hits(self->w, h, 2));
	EXPECT_STREQ("keep this", h[0].text);
}

TEST_F(watch, full_queue_counts_missed)
{
	static const char *const lits[] = { "q" };
	struct ftring_watch_hit h[FTRING_WATCH_QUEUE];
	char text[16];
	int n;

	ASSERT_EQ(0, watch_set(self->w, 1, lits));
	for (int i = 0; i < FTRING_WATCH_QUEUE + 5; i++) {
		n = snprintf(text, sizeof(text), "q %d", i);
		ASSERT_EQ(n, ft_marker(self->mfd, text, n));
	}
	ASSERT_EQ(FTRING_WATCH_QUEUE, hits(self->w, h, FTRING_WATCH_QUEUE));
	EXPECT_STREQ("q 0", h[0].text);
	EXPECT_STREQ("q 63", h[FTRING_WATCH_QUEUE - 1].text);
	/* told with the newest hit that waited, not held back for a later one */
	EXPECT_EQ(0, h[0].missed);
	EXPECT_EQ(5, h[FTRING_WATCH_QUEUE - 1].missed);
	ASSERT_EQ(2, mark(self->mfd, "qq"));
	ASSERT_EQ(1, hits(self->w, h, 1));
	EXPECT_STREQ("qq", h[0].text);
	EXPECT_EQ(0, h[0].missed);
}

/* The longest marker comes whole, the literal at its very end found. */
TEST_F(watch, longest_marker_whole)
{
	static const char *const lits[] = { "needle" };
	struct ftring_watch_hit h[1];
	char text[FTRING_MARKER_MAX];

	memset(text, 'n', sizeof(text));
	memcpy(text + sizeof(text) - 6, "needle", 6);
	ASSERT_EQ(0, watch_set(self->w, 1, lits));
	ASSERT_EQ((ssize_t)sizeof(text), ft_marker(self->mfd, text, sizeof(text)));
	ASSERT_EQ(1, hits(self->w, h, 1));
	EXPECT_EQ(sizeof(text), h[0].len);
	EXPECT_EQ(sizeof(text), strlen(h[0].text));
	EXPECT_EQ(0, memcmp(text, h[0].text, sizeof(text)));
}

/* A short hit in the slot a long one had: nothing of the long one after its NUL. */
TEST_F(watch, text_ends_at_its_nul)
{
	static const char *const all[] = { "" };
	static struct ftring_watch_hit h[1];
	char text[3000];

	memset(text, 'L', sizeof(text) - 1);
	text[sizeof(text) - 1] = 0;
	ASSERT_EQ(0, watch_set(self->w, 1, all));
	ASSERT_EQ((ssize_t)strlen(text), mark(self->mfd, text));
	ASSERT_EQ(1, hits(self->w, h, 1));
	/* round the queue: the last of these takes the long one's slot */
	for (int i = 0; i < FTRING_WATCH_QUEUE; i++) {
		ASSERT_EQ(2, mark(self->mfd, "ab"));
		ASSERT_EQ(1, hits(self->w, h, 1));
		EXPECT_STREQ("ab", h[0].text);
		for (size_t b = 3; b < sizeof(h[0].text); b++)
			if (h[0].text[b]) {
				EXPECT_EQ(0, h[0].text[b]) {
					TH_LOG("hit %d: byte %zu after the NUL", i, b);
				}
				break;
			}
	}
}

/* Closing clears the watch: the next watcher starts with none set. */
TEST_F(watch, close_clears)
{
	static const char *const lits[] = { "x" };
	struct ftring_watch_hit h[1];

	ASSERT_EQ(0, watch_set(self->w, 1, lits));
	close(self->w);
	self->w = open(FTRING_DEV_WATCH, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(self->w, 0);
	ASSERT_EQ(1, mark(self->mfd, "x"));
	EXPECT_EQ(-EAGAIN, hits(self->w, h, 1));
}

TEST_HARNESS_MAIN
