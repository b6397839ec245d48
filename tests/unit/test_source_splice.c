// SPDX-License-Identifier: GPL-2.0
/*
 * The splice source's zero-copy path (host tracefs, an instance of our own). At a
 * flush the page the kernel is still filling is copied out with read(), which the
 * kernel counts as read: when the file then refuses it (a full disk), the page must
 * wait for the next file, not go; so must a whole page the file took part of.
 * pwrite() and splice() fail on demand (--wrap, rules.mk).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "kselftest_harness.h"
#include "../lib/harness_skip.h"
#include "source/source.h"
#include "util/log.h"

ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __real_splice(int in, loff_t *in_off, int out, loff_t *out_off, size_t n,
		      unsigned int flags);
static size_t splice_cut;	/* a splice to a file moves this much, the next fails */
static int pwrite_fails;	/* pwrite()s to fail with ENOSPC from now on */

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (pwrite_fails) {
		pwrite_fails--;
		errno = ENOSPC;
		return -1;
	}
	return __real_pwrite(fd, buf, n, off);
}

ssize_t __wrap_splice(int in, loff_t *in_off, int out, loff_t *out_off, size_t n,
		      unsigned int flags)
{
	if (out_off && splice_cut) {
		if (splice_cut == (size_t)-1) {
			splice_cut = 0;
			errno = ENOSPC;
			return -1;
		}
		n = n < splice_cut ? n : splice_cut;
		splice_cut = (size_t)-1;
	}
	return __real_splice(in, in_off, out, out_off, n, flags);
}

FIXTURE(spl) {
	struct tracefs_instance	*inst;
	char			name[64];
	char			file[PATH_MAX];
	int			fd;
};

FIXTURE_SETUP(spl)
{
	cpu_set_t set;

	self->fd = -1;
	self->inst = NULL;
	if (geteuid() || !tracefs_tracing_dir())
		SKIP(return, "needs root and tracefs");
	snprintf(self->name, sizeof(self->name), "test_splice_%d", (int)getpid());
	self->inst = tracefs_instance_create(self->name);
	if (!self->inst)
		SKIP(return, "cannot create a tracefs instance");
	/* the markers go to CPU 0's ring */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	snprintf(self->file, sizeof(self->file), "/tmp/test_source_splice.%d", (int)getpid());
	self->fd = open(self->file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(spl)
{
	if (self->fd >= 0) {
		close(self->fd);
		unlink(self->file);
	}
	if (self->inst) {
		tracefs_instance_destroy(self->inst);
		tracefs_instance_free(self->inst);
	}
}

static int write_marker(struct tracefs_instance *inst, const char *text)
{
	char *path = tracefs_instance_get_file(inst, "trace_marker");
	int fd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	ssize_t r = fd >= 0 ? write(fd, text, strlen(text)) : -1;

	if (fd >= 0)
		close(fd);
	tracefs_put_tracing_file(path);
	return r == (ssize_t)strlen(text) ? 0 : -1;
}

/* Whether the file's page @i holds @text. */
static int page_holds(int fd, unsigned int page_size, int i, const char *text)
{
	char *page = malloc(page_size);
	int found;

	if (!page)
		return 0;
	found = pread(fd, page, page_size, (off_t)i * page_size) == (ssize_t)page_size &&
		memmem(page, page_size, text, strlen(text));
	free(page);
	return found;
}

TEST_F(spl, refused_partial_page_goes_to_the_next_file)
{
	struct source_params p = { .instance = self->name };
	struct source *s;
	int err = 0;
	ssize_t r;

	if (setup_skipped(_metadata))
		return;
	s = source_open(&source_splice_ops, &p, &err);
	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, s->ops->splice_pages);
	ASSERT_EQ(0, write_marker(self->inst, "refused-then-kept"));

	/* the flush copies the writer's page out; the file refuses it */
	log_max_level = LOG_LVL_ERR;
	pwrite_fails = 1;
	r = s->ops->splice_pages(s, 0, self->fd, 0, 16, 1);
	EXPECT_EQ(-ENOSPC, r);
	EXPECT_EQ(0, pwrite_fails);

	/* the next file (here the same one, with room again) gets it, and only once */
	r = s->ops->splice_pages(s, 0, self->fd, 0, 16, 1);
	EXPECT_EQ(1, r);
	EXPECT_TRUE(page_holds(self->fd, s->page_size, 0, "refused-then-kept"));
	r = s->ops->splice_pages(s, 0, self->fd, s->page_size, 16, 1);
	EXPECT_EQ(0, r);

	/* a refused page goes before what the ring has since */
	ASSERT_EQ(0, write_marker(self->inst, "older"));
	pwrite_fails = 1;
	EXPECT_EQ(-ENOSPC, s->ops->splice_pages(s, 0, self->fd, 0, 16, 1));
	ASSERT_EQ(0, write_marker(self->inst, "newer"));
	r = s->ops->splice_pages(s, 0, self->fd, 0, 16, 1);
	EXPECT_EQ(2, r);
	EXPECT_TRUE(page_holds(self->fd, s->page_size, 0, "older"));
	EXPECT_TRUE(page_holds(self->fd, s->page_size, 1, "newer"));
	source_close(s);
}

TEST_F(spl, torn_page_goes_whole_to_the_next_file)
{
	struct source_params p = { .instance = self->name };
	char text[32], *data;
	size_t len, at = 0;
	struct source *s;
	int err = 0, i;
	ssize_t r;

	if (setup_skipped(_metadata))
		return;
	s = source_open(&source_splice_ops, &p, &err);
	ASSERT_NE(NULL, s);
	/* some whole pages for splice to move, the writer on the last */
	for (i = 0; i < 400; i++) {
		snprintf(text, sizeof(text), "torn-%04d.", i);
		ASSERT_EQ(0, write_marker(self->inst, text));
	}

	/* the file takes half of the first page, then is full */
	log_max_level = LOG_LVL_ERR;
	splice_cut = s->page_size / 2;
	r = s->ops->splice_pages(s, 0, self->fd, 0, 64, 0);
	EXPECT_EQ(-ENOSPC, r);
	EXPECT_EQ(0, splice_cut);

	/* the next file gets every page whole, the torn one first */
	r = s->ops->splice_pages(s, 0, self->fd, 0, 64, 1);
	ASSERT_LE(3, r);
	len = (size_t)r * s->page_size;
	data = malloc(len);
	ASSERT_NE(NULL, data);
	ASSERT_EQ((ssize_t)len, pread(self->fd, data, len, 0));
	for (i = 0; i < 400; i++) {
		char *hit;

		snprintf(text, sizeof(text), "torn-%04d.", i);
		hit = memmem(data + at, len - at, text, strlen(text));
		EXPECT_NE(NULL, hit) {
			TH_LOG("marker %d missing or out of order", i);
			break;
		}
		at = (size_t)(hit - data);
	}
	free(data);
	source_close(s);
}

TEST_HARNESS_MAIN
