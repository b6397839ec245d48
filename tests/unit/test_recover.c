// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/recover/recover.c on files a crash leaves: data on sparse CPU sets ({0,2}
 * of 4, {3} alone) must come back on the same CPU ids with every event; a file killed
 * before its first sync keeps its chunks; a crash-left file comes back compact; -o
 * leaves the input as it was; a valid file is left alone. Read back with libtracecmd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "format/meta.h"
#include "format/v7_decode.h"
#include "format/v7_writer.h"
#include "recover/recover.h"
#include "../lib/pagegen.h"
#include "../lib/readback.h"

#define PS	4096
#define NCPU	4

struct crashed {
	char			dir[64];
	char			path[128];
	struct trace_meta	m;
	struct pagegen		g[NCPU];
	size_t			want[NCPU];	/* markers written per CPU */
};

static unsigned int extra_formats;	/* one-byte ftrace formats added to the metadata */
static const char *crash_clock = "local";	/* the trace clock of the files made */
static bool more_syncs;		/* two syncs after the first CPU's pages, then the last */

/* Markers "r<cpu>-<i>" on the CPUs of @mask, then a crash: no finish, tail destroyed. */
static int make_crashed(struct crashed *c, enum v7_compression comp, unsigned int mask,
			bool sync, bool kill_tail)
{
	struct v7_params p = { 0 };
	struct v7_writer *w;
	uint64_t zero = 0;
	int fd, cpu;

	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/tmp/recov.XXXXXX");
	if (!mkdtemp(c->dir))
		return -errno;
	snprintf(c->path, sizeof(c->path), "%s/t.dat", c->dir);
	fd = open(c->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || pg_meta(&c->m, PS))
		return -EIO;
	p.fd = fd;
	p.page_size = PS;
	p.ncpus = NCPU;
	p.comp = comp;
	p.chunk_pages = 4;
	p.region_bytes = 4 << 20;
	p.clock = crash_clock;
	p.buffer_name = "";
	p.path = c->path;
	for (unsigned int i = 0; i < extra_formats; i++)
		if (meta_system_add(&c->m.ftrace, "", "x", 1))
			return -ENOMEM;
	w = v7_create(&p, &c->m);
	if (!w)
		return -errno;
	for (cpu = 0; cpu < NCPU; cpu++) {
		char text[64];

		pg_init(&c->g[cpu], PS);
		if (!(mask & (1U << cpu)))
			continue;
		c->want[cpu] = 700 + 100 * cpu;
		for (size_t i = 0; i < c->want[cpu]; i++) {
			snprintf(text, sizeof(text), "r%d-%zu marker text of some length", cpu, i);
			pg_add_print(&c->g[cpu], 1000 + i * 10, 100 + cpu, text);
		}
		pg_close(&c->g[cpu]);
		if (v7_append_pages(w, cpu, c->g[cpu].pages, c->g[cpu].nr))
			return -EIO;
		/*
		 * Each sync names its own task, so which tail a rebuild took shows. Syncs
		 * take the slots in turn, the low one's cutting the high one off: the last
		 * of three is in the high slot, the stale low one still there.
		 */
		if (more_syncs && (v7_set_cmdlines(w, "1 firstsync\n", 12) || v7_sync(w) ||
				   v7_set_cmdlines(w, "2 secondsync\n", 13) || v7_sync(w) ||
				   v7_set_cmdlines(w, "3 lastsync\n", 11)))
			return -EIO;
		more_syncs = false;
	}
	if (sync && v7_sync(w))
		return -EIO;
	if (kill_tail) {
		/* the header's options offset: after magic, version, sizes, two strings */
		char h[64];
		size_t at = 18;

		if (pread(fd, h, sizeof(h), 0) != sizeof(h))
			return -EIO;
		at += strlen(h + at) + 1;
		at += strlen(h + at) + 1;
		if (pwrite(fd, &zero, 8, (off_t)at) != 8)
			return -EIO;
	}
	v7_free(w);
	close(fd);
	return 0;
}

static void crashed_free(struct crashed *c)
{
	char cmd[128];

	for (int i = 0; i < NCPU; i++)
		pg_free(&c->g[i]);
	meta_free(&c->m);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c->dir);
	if (system(cmd))
		return;
}

/* Every CPU holds exactly its markers, in order, and no other CPU has any. */
static void check_cpus(struct __test_metadata *_metadata, const char *path,
		       const struct crashed *c)
{
	struct rb_summary s;

	ASSERT_EQ(0, rb_summarize(path, &s));
	for (int cpu = 0; cpu < NCPU; cpu++) {
		EXPECT_EQ(c->want[cpu], s.per_cpu[cpu]);
		EXPECT_EQ(c->want[cpu], s.nr_markers[cpu]);
		for (size_t i = 0; i < s.nr_markers[cpu] && i < c->want[cpu]; i++) {
			char text[64];

			snprintf(text, sizeof(text), "r%d-%zu marker text of some length", cpu, i);
			if (strcmp(s.markers[cpu][i], text)) {
				TH_LOG("CPU %d marker %zu: '%s'", cpu, i, s.markers[cpu][i]);
				EXPECT_TRUE(false);
				break;
			}
		}
	}
	rb_summary_free(&s);
}

FIXTURE(rec) {
	struct crashed c;
};

FIXTURE_VARIANT(rec) {
	enum v7_compression	comp;
	unsigned int		mask;
};

FIXTURE_VARIANT_ADD(rec, zstd_cpus_0_2) { .comp = V7_COMP_ZSTD, .mask = 0x5 };
FIXTURE_VARIANT_ADD(rec, zstd_cpu_3) { .comp = V7_COMP_ZSTD, .mask = 0x8 };
FIXTURE_VARIANT_ADD(rec, none_cpus_0_2) { .comp = V7_COMP_NONE, .mask = 0x5 };
FIXTURE_VARIANT_ADD(rec, none_cpu_3) { .comp = V7_COMP_NONE, .mask = 0x8 };

FIXTURE_SETUP(rec)
{
}

FIXTURE_TEARDOWN(rec)
{
	crashed_free(&self->c);
}

/* The tail is gone: CPU ids come from the layout record, every event is kept. */
TEST_F(rec, tail_lost)
{
	struct stat st;

	ASSERT_EQ(0, make_crashed(&self->c, variant->comp, variant->mask, true, true));
	EXPECT_EQ(1, recover_file(self->c.path, NULL, 0));
	check_cpus(_metadata, self->c.path, &self->c);
	/* compacted: no 4 MiB sparse regions left */
	ASSERT_EQ(0, stat(self->c.path, &st));
	EXPECT_LT(st.st_size, 1 << 20);
	EXPECT_EQ(0, recover_file(self->c.path, NULL, 0));
}

static int buffer_clock(const struct v7d_option *o, void *arg)
{
	struct v7_file *f = ((void **)arg)[0];
	char *clock = ((void **)arg)[1];
	struct v7d_buffer b;

	if (o->id != V7_OPT_BUFFER || v7d_buffer_option(f, o, &b))
		return 0;
	snprintf(clock, 64, "%s", b.clock);
	free(b.cpus);
	return 0;
}

/* The clock in @path's BUFFER option, "" when there is none. */
static void file_clock(const char *path, char clock[64])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct v7_file f = { 0 };
	void *arg[2] = { &f, clock };

	clock[0] = 0;
	if (fd >= 0 && !v7d_open(&f, fd))
		v7d_options(&f, f.opt_off, buffer_clock, arg);
	v7d_close(&f);
	if (fd >= 0)
		close(fd);
}

/*
 * The header's tail torn: the streams come from the layout, the rest from a tail
 * slot, the trace clock too. It used to become "local", so trace-cmd labelled boot or
 * mono timestamps with the wrong clock.
 */
TEST_F(rec, torn_tail_keeps_the_clock)
{
	char clock[64];

	crash_clock = "mono";
	ASSERT_EQ(0, make_crashed(&self->c, variant->comp, variant->mask, true, true));
	crash_clock = "local";
	EXPECT_EQ(1, recover_file(self->c.path, NULL, 0));
	check_cpus(_metadata, self->c.path, &self->c);
	file_clock(self->c.path, clock);
	EXPECT_STREQ("mono", clock);
}

/*
 * Three syncs, the header's tail torn: the rest comes from the last sync's tail slot
 * (its command lines here), not the older one's, which used to win when both slots
 * counted the same CPUs.
 */
TEST_F(rec, torn_tail_takes_the_newer_slot)
{
	char cmd[300];

	more_syncs = true;
	ASSERT_EQ(0, make_crashed(&self->c, variant->comp, variant->mask, true, true));
	EXPECT_EQ(1, recover_file(self->c.path, NULL, 0));
	check_cpus(_metadata, self->c.path, &self->c);
	snprintf(cmd, sizeof(cmd), "trace-cmd dump --cmd-lines %s 2>/dev/null | grep -q lastsync",
		 self->c.path);
	EXPECT_EQ(0, system(cmd));
}

/*
 * A damaged chunk (or raw page) amid whole ones, a bad sector say: recover leaves it
 * out, says so, and keeps every chunk after it. The stream used to end there, and
 * the events after it went with it.
 */
TEST_F(rec, damaged_chunk_skipped)
{
	int cpu = __builtin_ctz(variant->mask), fd, n;
	uint8_t junk[16];
	struct v7_file f = { 0 };
	struct rb_summary s;
	uint64_t pos;
	uint32_t c;
	char last[64];

	ASSERT_EQ(0, make_crashed(&self->c, variant->comp, variant->mask, true, false));
	fd = open(self->c.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, v7d_open(&f, fd));
	ASSERT_TRUE(f.has_layout);
	pos = f.layout.data_base + (uint64_t)cpu * f.layout.region_bytes;
	memset(junk, 0xff, sizeof(junk));
	if (variant->comp == V7_COMP_ZSTD) {
		/* past the count and the first chunk: the middle of the second */
		ASSERT_EQ(4, pread(fd, &c, 4, (off_t)pos + 4));
		pos += 4 + 8 + c;
		ASSERT_EQ(4, pread(fd, &c, 4, (off_t)pos));
		pos += 8 + c / 2;
	} else {
		/* the second page's commit length */
		pos += PS + 8;
	}
	ASSERT_EQ((ssize_t)sizeof(junk), pwrite(fd, junk, sizeof(junk), (off_t)pos));
	v7d_close(&f);
	close(fd);

	EXPECT_EQ(1, recover_file(self->c.path, NULL, 0));
	ASSERT_EQ(0, rb_summarize(self->c.path, &s));
	n = (int)s.nr_markers[cpu];
	EXPECT_LT(n, (int)self->c.want[cpu]);
	EXPECT_GT(n, (int)self->c.want[cpu] / 2);
	/* the chunks after the damaged one are there, the last marker with them */
	snprintf(last, sizeof(last), "r%d-%zu marker text of some length", cpu,
		 self->c.want[cpu] - 1);
	if (n)
		EXPECT_STREQ(last, s.markers[cpu][n - 1]);
	rb_summary_free(&s);
	/* the rebuilt file is whole */
	EXPECT_EQ(0, recover_file(self->c.path, NULL, 0));
}

/* -o writes the repaired file elsewhere and leaves the input byte for byte. */
TEST_F(rec, output_elsewhere)
{
	char out[160], cmd[400];

	ASSERT_EQ(0, make_crashed(&self->c, variant->comp, variant->mask, true, true));
	snprintf(out, sizeof(out), "%s/out.dat", self->c.dir);
	snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s.orig", self->c.path,
		 self->c.path);
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(1, recover_file(self->c.path, out, 0));
	check_cpus(_metadata, out, &self->c);
	snprintf(cmd, sizeof(cmd), "cmp -s %s %s.orig", self->c.path, self->c.path);
	EXPECT_EQ(0, system(cmd));
}

/* Chunks after the last sync (none at all here) are counted in. */
TEST_F(rec, killed_before_first_sync)
{
	struct crashed *c = &self->c;
	struct v7_params p = { 0 };
	struct v7_writer *w;
	int fd, cpu;

	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/tmp/recov.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(c->dir));
	snprintf(c->path, sizeof(c->path), "%s/t.dat", c->dir);
	fd = open(c->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, pg_meta(&c->m, PS));
	p.fd = fd;
	p.page_size = PS;
	p.ncpus = NCPU;
	p.comp = variant->comp;
	p.chunk_pages = 4;
	p.region_bytes = 4 << 20;
	p.clock = "local";
	p.buffer_name = "";
	w = v7_create(&p, &c->m);
	ASSERT_NE(NULL, w);
	for (cpu = 0; cpu < NCPU; cpu++) {
		char text[64];
		size_t whole;

		pg_init(&c->g[cpu], PS);
		if (!(variant->mask & (1U << cpu)))
			continue;
		for (size_t i = 0; i < 800; i++) {
			snprintf(text, sizeof(text), "r%d-%zu marker text of some length", cpu, i);
			pg_add_print(&c->g[cpu], 1000 + i * 10, 100 + cpu, text);
		}
		pg_close(&c->g[cpu]);
		/* compressed, only whole chunks reach the file before a sync */
		whole = variant->comp == V7_COMP_ZSTD ? c->g[cpu].nr / 4 * 4 : c->g[cpu].nr;
		ASSERT_EQ(0, v7_append_pages(w, cpu, c->g[cpu].pages, c->g[cpu].nr));
		for (size_t i = 0; i < whole; i++)
			c->want[cpu] += (size_t)v7d_page_events(c->g[cpu].pages + i * PS, PS);
	}
	/* killed here: the writer is dropped without a sync */
	v7_free(w);
	close(fd);
	EXPECT_EQ(1, recover_file(c->path, NULL, 0));
	check_cpus(_metadata, c->path, c);
}

/* A file system without O_TMPFILE (--wrap=open): open(2) says EOPNOTSUPP for it. */
static bool no_tmpfile;

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
	if (no_tmpfile && (flags & O_TMPFILE) == O_TMPFILE) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return __real_open(path, flags, mode);
}

/*
 * Without O_TMPFILE (NFS before 4.2, 9p, FUSE) the rebuild works in a hidden file it
 * removes at once: recover used to fail there, "cannot write beside".
 */
TEST_F(rec, no_tmpfile_on_this_file_system)
{
	char cmd[200];

	ASSERT_EQ(0, make_crashed(&self->c, variant->comp, variant->mask, true, true));
	no_tmpfile = true;
	EXPECT_EQ(1, recover_file(self->c.path, NULL, 0));
	no_tmpfile = false;
	check_cpus(_metadata, self->c.path, &self->c);
	/* nothing left beside it */
	snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) -eq 1", self->c.dir);
	EXPECT_EQ(0, system(cmd));
}

/* -o never replaces a file: the one there and the input stay as they were. */
TEST_F(rec, output_exists_kept)
{
	char out[160], cmd[400], buf[16] = "";
	int fd;

	ASSERT_EQ(0, make_crashed(&self->c, variant->comp, variant->mask, true, true));
	snprintf(out, sizeof(out), "%s/out.dat", self->c.dir);
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "keep\n", 5));
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s.orig", self->c.path,
		 self->c.path);
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(-EEXIST, recover_file(self->c.path, out, 0));
	fd = open(out, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(5, read(fd, buf, sizeof(buf) - 1));
	close(fd);
	EXPECT_STREQ("keep\n", buf);
	snprintf(cmd, sizeof(cmd), "cmp -s %s %s.orig", self->c.path, self->c.path);
	EXPECT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "%s/.out.dat.recovering", self->c.dir);
	EXPECT_NE(0, access(cmd, F_OK));
}

/*
 * The rebuild's read of the streams stops half-way (an EIO in the middle of a chunk
 * read is taken for the end of the stream): the copy lacks events, and the input
 * must not be replaced by it. It was, with "repaired".
 */
static int cut_rebuild_streams;

int __real_v7d_stream(struct v7_file *f, uint64_t off, uint64_t limit, bool compressed,
		      uint32_t max_chunks, struct v7d_stream *st,
		      int (*page_fn)(const void *page, void *arg), void *arg);
int __wrap_v7d_stream(struct v7_file *f, uint64_t off, uint64_t limit, bool compressed,
		      uint32_t max_chunks, struct v7d_stream *st,
		      int (*page_fn)(const void *page, void *arg), void *arg);

int __wrap_v7d_stream(struct v7_file *f, uint64_t off, uint64_t limit, bool compressed,
		      uint32_t max_chunks, struct v7d_stream *st,
		      int (*page_fn)(const void *page, void *arg), void *arg)
{
	/* the rebuild is the walk that hands pages on */
	if (cut_rebuild_streams && page_fn)
		max_chunks /= 2;
	return __real_v7d_stream(f, off, limit, compressed, max_chunks, st, page_fn, arg);
}

TEST_F(rec, short_rebuild_refused)
{
	char cmd[400];

	ASSERT_EQ(0, make_crashed(&self->c, variant->comp, variant->mask, true, true));
	snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s.orig", self->c.path,
		 self->c.path);
	ASSERT_EQ(0, system(cmd));
	cut_rebuild_streams = 1;
	EXPECT_EQ(-EIO, recover_file(self->c.path, NULL, 0));
	cut_rebuild_streams = 0;
	snprintf(cmd, sizeof(cmd), "cmp -s %s %s.orig", self->c.path, self->c.path);
	EXPECT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "%s/.t.dat.recovering", self->c.dir);
	EXPECT_NE(0, access(cmd, F_OK));
	/* the same file repairs whole once the reads go through */
	EXPECT_EQ(1, recover_file(self->c.path, NULL, 0));
	check_cpus(_metadata, self->c.path, &self->c);
}

/*
 * Metadata that names more event formats than any kernel has (a few kilobytes of
 * compressed section can name millions, each an allocation: gigabytes) is refused
 * before they are made, and the file is left as it is.
 */
TEST(too_many_formats_refused)
{
	struct crashed c;
	struct trace_meta m;
	struct v7_file f;
	char cmd[400];
	int fd;

	extra_formats = V7D_MAX_FORMATS;
	ASSERT_EQ(0, make_crashed(&c, V7_COMP_ZSTD, 0x1, true, true));
	extra_formats = 0;
	fd = open(c.path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, v7d_open(&f, fd));
	EXPECT_EQ(-EINVAL, v7d_meta(&f, &m));
	meta_free(&m);
	v7d_close(&f);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s.orig", c.path, c.path);
	ASSERT_EQ(0, system(cmd));
	EXPECT_GT(0, recover_file(c.path, NULL, 0));
	snprintf(cmd, sizeof(cmd), "cmp -s %s %s.orig", c.path, c.path);
	EXPECT_EQ(0, system(cmd));
	crashed_free(&c);
}

/*
 * What a kill leaves beside a file (a finish's compact copy; recover's own copy not
 * yet checked, and the compact copy of that) is removed, and the file left as it is.
 */
TEST(strays_removed)
{
	static const char *const stray[] = {
		".t.dat.finishing", ".t.dat.recovering", "..t.dat.recovering.finishing",
	};
	struct crashed c;
	char name[200];
	int fd;

	ASSERT_EQ(0, make_crashed(&c, V7_COMP_ZSTD, 0x3, true, false));
	for (size_t i = 0; i < sizeof(stray) / sizeof(stray[0]); i++) {
		snprintf(name, sizeof(name), "%s/%s", c.dir, stray[i]);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		ASSERT_LE(0, fd);
		close(fd);
	}
	EXPECT_EQ(0, recover_file(c.path, NULL, RECOVER_CHECK));
	for (size_t i = 0; i < sizeof(stray) / sizeof(stray[0]); i++) {
		snprintf(name, sizeof(name), "%s/%s", c.dir, stray[i]);
		EXPECT_EQ(0, access(name, F_OK)) TH_LOG("--check removed %s", stray[i]);
	}
	EXPECT_EQ(0, recover_file(c.path, NULL, 0));
	for (size_t i = 0; i < sizeof(stray) / sizeof(stray[0]); i++) {
		snprintf(name, sizeof(name), "%s/%s", c.dir, stray[i]);
		EXPECT_NE(0, access(name, F_OK)) TH_LOG("%s left", stray[i]);
	}
	crashed_free(&c);
}

/* A finished, valid file is left as it is. */
TEST(valid_untouched)
{
	struct crashed c;
	char cmd[400];

	ASSERT_EQ(0, make_crashed(&c, V7_COMP_ZSTD, 0x3, true, false));
	snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s.orig", c.path, c.path);
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(0, recover_file(c.path, NULL, 0));
	snprintf(cmd, sizeof(cmd), "cmp -s %s %s.orig", c.path, c.path);
	EXPECT_EQ(0, system(cmd));
	crashed_free(&c);
}

TEST_HARNESS_MAIN
