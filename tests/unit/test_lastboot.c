// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/lastboot/lastboot_image.c: the previous-boot image /dev/ftring/lastboot
 * gives is checked field by field before use (every bad field refused, random damage
 * never crashes), and the task names come from the sched events of all CPUs, newest
 * by time (not by CPU order) winning. recorder/lastboot/lastboot.c: the trace file is
 * kept on a disk too full for its compact copy (open() is wrapped: the image comes
 * from a file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/harness_skip.h"
#include "../lib/readback.h"
#include "ftring_abi.h"
#include "ftring_events.h"
#include "lastboot/lastboot.h"
#include "lastboot/lastboot_image.h"
#include "util/log.h"
#include "../lib/pagegen.h"

#define PS		4096
#define SWITCH_ID	300
#define FORK_ID		303

static const char formats[] =
	"system: sched\nname: sched_switch\nID: 300\nformat:\n\tfield:unsigned short "
	"common_type;\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: \"x\"\n"
	"system: sched\nname: sched_process_fork\nID: 303\nformat:\n\tfield:unsigned short "
	"common_type;\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: \"x\"\n";

static void add_switch(struct pagegen *g, uint64_t ts, int prev, const char *pc, int next,
		       const char *nc)
{
	struct ftring_ev_sched_switch e = { 0 };

	e.ent.type = SWITCH_ID;
	e.prev_pid = prev;
	strncpy(e.prev_comm, pc, sizeof(e.prev_comm) - 1);
	e.next_pid = next;
	strncpy(e.next_comm, nc, sizeof(e.next_comm) - 1);
	pg_add(g, ts, &e, sizeof(e));
}

/* The image of @nr CPUs, CPU i's pages @g[i], sealed at a panic. Malloc'd, *@len bytes. */
static char *image_of(const struct pagegen *g, uint32_t nr, size_t *len)
{
	struct ftring_lastboot h = { 0 };
	size_t off_fmt = sizeof(h) + nr * sizeof(struct ftring_lastboot_cpu), off, off_pages;
	char *img;

	h.magic = FTRING_LASTBOOT_MAGIC;
	h.version = FTRING_LASTBOOT_VERSION;
	h.hdr_len = sizeof(h);
	h.page_size = PS;
	h.nr_cpus = nr;
	h.sealed = FTRING_SEAL_PANIC;
	h.fmt_len = sizeof(formats) - 1;
	for (uint32_t i = 0; i < nr; i++)
		h.nr_pages += (uint32_t)g[i].nr;
	off_pages = (off_fmt + h.fmt_len + PS - 1) / PS * PS;
	*len = off_pages + (size_t)h.nr_pages * PS;
	img = calloc(1, *len);
	memcpy(img, &h, sizeof(h));
	memcpy(img + off_fmt, formats, h.fmt_len);
	off = off_pages;
	for (uint32_t i = 0; i < nr; i++) {
		struct ftring_lastboot_cpu c = { .cpu = i, .pages = (uint32_t)g[i].nr };

		memcpy(img + sizeof(h) + i * sizeof(c), &c, sizeof(c));
		memcpy(img + off, g[i].pages, g[i].nr * PS);
		off += g[i].nr * PS;
	}
	return img;
}

/* An image of 2 CPUs: CPU 0 one page, CPU 1 two pages. Malloc'd, *@len bytes. */
static char *make_image(size_t *len)
{
	struct ftring_ev_sched_process_fork f = { 0 };
	struct pagegen g0, g1;
	char *img;

	pg_init(&g0, PS);
	pg_init(&g1, PS);
	/* pid 42 is "old" at t=100 on CPU 1 and "new" at t=200 on CPU 0 */
	add_switch(&g0, 200, 42, "new", 0, "swapper/0");
	pg_close(&g0);
	add_switch(&g1, 100, 42, "old", 7, "seven");
	pg_close(&g1);
	f.ent.type = FORK_ID;
	f.parent_pid = 7;
	strcpy(f.parent_comm, "seven");
	f.child_pid = 8;
	strcpy(f.child_comm, "eight");
	pg_add(&g1, 150, &f, sizeof(f));
	pg_close(&g1);

	img = image_of((struct pagegen[]){ g0, g1 }, 2, len);
	pg_free(&g0);
	pg_free(&g1);
	return img;
}

TEST(valid_image_and_task_names)
{
	struct lastboot_view v;
	const char *why;
	size_t len, clen = 0;
	uint32_t n;
	char *img = make_image(&len), *cmd;

	ASSERT_EQ(0, lastboot_view_init(&v, img, len, &why));
	lastboot_cpu_pages(&v, 0, &n);
	EXPECT_EQ(1, n);
	lastboot_cpu_pages(&v, 1, &n);
	EXPECT_EQ(2, n);
	EXPECT_STREQ(formats, v.formats);
	cmd = lastboot_cmdlines(&v, &clen);
	ASSERT_NE(NULL, cmd);
	EXPECT_EQ(strlen(cmd), clen);
	/* the newest name by time, though CPU 1's pages come after CPU 0's */
	EXPECT_NE(NULL, strstr(cmd, "42 new\n"));
	EXPECT_EQ(NULL, strstr(cmd, "42 old\n"));
	EXPECT_NE(NULL, strstr(cmd, "7 seven\n"));
	EXPECT_NE(NULL, strstr(cmd, "8 eight\n"));
	EXPECT_EQ(NULL, strstr(cmd, "\n0 "));	/* pid 0 is not a task name */
	free(cmd);
	lastboot_view_free(&v);
	free(img);
}

/* Each damaged field alone is refused with a reason. */
TEST(bad_fields_refused)
{
	struct ftring_lastboot *h;
	struct ftring_lastboot_cpu *c;
	struct lastboot_view v;
	const char *why;
	size_t len;
	char *img = make_image(&len), *bad = malloc(len);

	for (int k = 0; k < 11; k++) {
		size_t blen = len;

		memcpy(bad, img, len);
		h = (void *)bad;
		c = (void *)(bad + sizeof(*h));
		switch (k) {
		case 0: h->magic ^= 1; break;
		case 1: h->version = 2; break;
		case 2: h->page_size = 1000; break;
		case 3: h->nr_cpus = 0; break;
		case 4: h->nr_cpus = 100000; break;
		case 5: h->fmt_len = 0; break;
		case 6: h->fmt_len = 1U << 30; break;
		case 7: c[1].pages = 1000; break;
		case 8: h->nr_pages = 4; break;
		case 9: blen = len - PS; break;		/* a page short */
		case 10: c[1].cpu = 5; break;
		}
		EXPECT_EQ(-EINVAL, lastboot_view_init(&v, bad, blen, &why)) {
			TH_LOG("case %d accepted", k);
		}
		EXPECT_NE(NULL, why);
	}
	EXPECT_EQ(-EINVAL, lastboot_view_init(&v, img, sizeof(*h) - 1, &why));
	free(bad);
	free(img);
}

/* Random damage anywhere: refused or read, never a crash (ASan in the fuzz build). */
TEST(random_damage)
{
	struct lastboot_view v;
	const char *why;
	size_t len, clen;
	char *img = make_image(&len), *bad = malloc(len), *cmd;

	srand(1);
	for (int i = 0; i < 20000; i++) {
		memcpy(bad, img, len);
		for (int j = 0; j < 1 + rand() % 8; j++) {
			/* mostly the header and table, sometimes the pages */
			size_t at = rand() % 4 ? (size_t)rand() % 256 : (size_t)rand() % len;

			bad[at] = (char)rand();
		}
		if (lastboot_view_init(&v, bad, len, &why))
			continue;
		cmd = lastboot_cmdlines(&v, &clen);
		free(cmd);
		lastboot_view_free(&v);
	}
	free(bad);
	free(img);
}

TEST(boot_id_text)
{
	static const uint8_t id[16] = { 0x4c, 0xa3, 0xda, 0x25, 0xe9, 0x14, 0x41, 0xc1,
					0xb3, 0x33, 0xab, 0x88, 0x15, 0x2e, 0x7f, 0x6c };
	uint8_t back[16];
	char s[37];

	lastboot_uuid_str(id, s);
	EXPECT_STREQ("4ca3da25-e914-41c1-b333-ab88152e7f6c", s);
	ASSERT_EQ(0, lastboot_uuid_parse("4ca3da25-e914-41c1-b333-ab88152e7f6c\n", back));
	EXPECT_EQ(0, memcmp(id, back, 16));
	EXPECT_EQ(-EINVAL, lastboot_uuid_parse("4ca3da25e914-41c1-b333-ab88152e7f6c", back));
	EXPECT_EQ(-EINVAL, lastboot_uuid_parse("4ca3da25-e914-41c1-b333-ab88152e7f6", back));
	EXPECT_EQ(-EINVAL, lastboot_uuid_parse("4ca3da25-e914-41c1-b333-ab88152e7f6cz", back));
	EXPECT_EQ(-EINVAL, lastboot_uuid_parse("xca3da25-e914-41c1-b333-ab88152e7f6c", back));
	EXPECT_EQ(-EINVAL, lastboot_uuid_parse("", back));
}

/* The image "/dev/ftring/lastboot" gives (lastboot.c opens it by that name). */
static char image_path[128];

int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	/* O_TMPFILE holds O_DIRECTORY: only all of it says a mode follows */
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (image_path[0] && !strcmp(path, FTRING_DEV_LASTBOOT))
		path = image_path;
	return __real_open(path, flags, mode);
}

/*
 * One CPU, @pages pages of sched_switch events between random pids below @pids with
 * random names (they compress badly).
 */
static char *big_image(size_t *len, unsigned int pages, int pids, uint64_t *events)
{
	unsigned int seed = 7;
	struct pagegen g;
	char *img;

	pg_init(&g, PS);
	*events = 0;
	for (uint64_t ts = 1000; g.nr < pages; ts += 10) {
		char pc[13], nc[13];

		for (int i = 0; i < 12; i++) {
			pc[i] = (char)('a' + rand_r(&seed) % 26);
			nc[i] = (char)('a' + rand_r(&seed) % 26);
		}
		pc[12] = 0;
		nc[12] = 0;
		add_switch(&g, ts, 1 + rand_r(&seed) % pids, pc, 1 + rand_r(&seed) % pids, nc);
		++*events;
	}
	pg_close(&g);
	img = image_of(&g, 1, len);
	pg_free(&g);
	return img;
}

/* @img in @dir/image, which the wrapped open() gives for the module's device. */
static int put_image(const char *dir, const char *img, size_t len)
{
	int fd;

	snprintf(image_path, sizeof(image_path), "%s/image", dir);
	fd = open(image_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, img, len) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	return close(fd);
}

/*
 * A busy machine's crash: more task names than a file's command lines take. The
 * trace is written with as many as fit; it used to fail (E2BIG) at every try, so the
 * crash's trace was never saved.
 */
TEST(more_task_names_than_a_file_takes)
{
	char dir[] = "/tmp/test_lb.XXXXXX", path[128], cmd[128];
	struct lastboot_result res;
	struct rb_summary s = { 0 };
	uint64_t events;
	size_t len;
	char *img = big_image(&len, 400, 60000, &events);

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, put_image(dir, img, len));
	free(img);
	log_max_level = LOG_LVL_ERR;	/* no boot record, names left out: said */
	snprintf(path, sizeof(path), "%s/last.dat", dir);
	EXPECT_EQ(0, lastboot_write(path, 0, 0, &res)) TH_LOG("%s", res.why);
	ASSERT_EQ(0, rb_summarize(path, &s));
	EXPECT_EQ(events, s.total);
	rb_summary_free(&s);
	image_path[0] = 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * A disk with room for the trace but not for its compact copy: the complete file is
 * named as it is (sparse). It used to go with its unnamed fd (O_TMPFILE): no file, and
 * a reboot before the next try took the only other copy, the module's.
 */
TEST(complete_file_named_when_its_compact_copy_does_not_fit)
{
	char dir[] = "/tmp/test_lb.XXXXXX", small[64], path[128], opt[64], cmd[128];
	struct lastboot_result res;
	struct rb_summary s = { 0 };
	struct stat roomy, tight;
	uint64_t events;
	size_t len;
	char *img = big_image(&len, 800, 500, &events);

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, put_image(dir, img, len));
	free(img);
	log_max_level = LOG_LVL_ERR;	/* no boot record, not compacted: said */
	/* where there is room: compact */
	snprintf(path, sizeof(path), "%s/roomy.dat", dir);
	ASSERT_EQ(0, lastboot_write(path, 0, 0, &res)) TH_LOG("%s", res.why);
	ASSERT_EQ(0, stat(path, &roomy));
	/* room for it and half of it again: not for its compact copy too */
	snprintf(small, sizeof(small), "%s/small", dir);
	ASSERT_EQ(0, mkdir(small, 0700));
	snprintf(opt, sizeof(opt), "size=%llu",
		 (unsigned long long)(roomy.st_blocks * 512 * 3 / 2 + 4095) / 4096 * 4096);
	if (mount("test_lb", small, "tmpfs", 0, opt)) {
		image_path[0] = 0;
		SKIP(return, "cannot mount a tmpfs here");
	}
	snprintf(path, sizeof(path), "%s/last.dat", small);
	EXPECT_EQ(0, lastboot_write(path, 0, 0, &res)) TH_LOG("%s", res.why);
	/* no ASSERT with the tmpfs mounted */
	if (!stat(path, &tight)) {
		/* not compacted: its CPU region's room is still there (sparse) */
		EXPECT_LT(roomy.st_size, tight.st_size);
		EXPECT_EQ(0, rb_summarize(path, &s));
		EXPECT_EQ(events, s.total);
		rb_summary_free(&s);
	} else {
		TH_LOG("no %s", path);
		EXPECT_TRUE(0);
	}
	umount(small);
	image_path[0] = 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
