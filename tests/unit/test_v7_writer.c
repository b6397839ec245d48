// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/format/v7_writer.c: byte-exact encoders (formats.md A.2-A.11, checked with the
 * independent parser in tests/lib/dat_parse.c), round trips through libtracecmd,
 * crash states of v7_sync (fault injection at every file update), disk full, region
 * full, the state machine, and what `trace-cmd report`/`dump` print.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "kselftest_harness.h"
#include "../lib/harness_skip.h"
#include "../lib/cpu_pin.h"
#include "ftrace_page.h"
#include "format/chunk_pool.h"
#include "format/meta.h"
#include "format/v7_writer.h"
#include "../lib/dat_parse.h"
#include "../lib/pagegen.h"
#include "../lib/readback.h"

#define PS	4096

struct tw {
	char			dir[64];
	char			path[128];
	int			fd;
	struct trace_meta	m;
	struct v7_writer	*w;
	struct pagegen		g[4];
};

static int tw_durable;		/* v7_params.durable for the next tw_open*() */
static struct chunk_pool *tw_pool;	/* v7_params.pool for the next tw_open*() */

static int tw_open_in(struct tw *t, const char *dir, enum v7_compression comp, int ncpus,
		      unsigned int chunk_pages, uint64_t region)
{
	struct v7_params p = { 0 };
	int i;

	memset(t, 0, sizeof(*t));
	if (dir) {
		snprintf(t->dir, sizeof(t->dir), "%s", dir);
	} else {
		snprintf(t->dir, sizeof(t->dir), "/tmp/v7w.XXXXXX");
		if (!mkdtemp(t->dir))
			return -errno;
	}
	snprintf(t->path, sizeof(t->path), "%s/t.dat", t->dir);
	t->fd = open(t->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (t->fd < 0 || pg_meta(&t->m, PS))
		return -EIO;
	for (i = 0; i < 4; i++)
		pg_init(&t->g[i], PS);
	p.fd = t->fd;
	p.page_size = PS;
	p.ncpus = ncpus;
	p.comp = comp;
	p.zstd_level = 1;
	p.chunk_pages = chunk_pages;
	p.region_bytes = region ? region : 8 << 20;
	p.clock = "local";
	p.buffer_name = "";
	p.durable = tw_durable;
	p.path = t->path;
	p.pool = tw_pool;
	t->w = v7_create(&p, &t->m);
	return t->w ? 0 : -errno;
}

static int tw_open(struct tw *t, enum v7_compression comp, int ncpus,
		   unsigned int chunk_pages)
{
	return tw_open_in(t, NULL, comp, ncpus, chunk_pages, 0);
}

static void tw_close(struct tw *t, bool keep_dir)
{
	int i;

	v7_free(t->w);
	t->w = NULL;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	for (i = 0; i < 4; i++)
		pg_free(&t->g[i]);
	meta_free(&t->m);
	unlink(t->path);
	if (!keep_dir)
		rmdir(t->dir);
}

/* @n markers "c<cpu>-<i>" into the CPU's page generator, closed to whole pages. */
static void gen_markers(struct pagegen *g, int cpu, int first, int n)
{
	char text[96];
	int i;

	for (i = first; i < first + n; i++) {
		snprintf(text, sizeof(text), "c%d-%d padding text to fill pages faster", cpu, i);
		pg_add_print(g, 1000000ULL + (uint64_t)i * 1000, 100 + cpu, text);
	}
	pg_close(g);
}

static const char *page(struct pagegen *g, size_t i)
{
	return g->pages + i * PS;
}

/* Markers of @cpu read back must be c<cpu>-0 .. c<cpu>-(n-1), in order. */
static int markers_ok(const struct rb_summary *s, int cpu, size_t n)
{
	char text[96];
	size_t i;

	if (s->nr_markers[cpu] != n)
		return 0;
	for (i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "c%d-%zu padding text to fill pages faster",
			 cpu, i);
		if (strcmp(s->markers[cpu][i], text))
			return 0;
	}
	return 1;
}

/* Markers held by the first @np pages of a generator. */
static size_t markers_in(struct pagegen *g, size_t np)
{
	size_t i, n = 0;

	for (i = 0; i < np; i++) {
		const char *pg = page(g, i);
		__u64 ts = ftp_page_ts(pg);
		__u32 off = 0;
		struct ftp_event e;

		while (off < ftp_page_len(pg)) {
			off = ftp_next(ftp_page_data(pg), ftp_page_len(pg), off, &ts, &e);
			if (!off)
				break;
			n += e.type_len <= FTP_TYPE_DATA_MAX;
		}
	}
	return n;
}

static uint64_t rd64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void put(unsigned char **p, const void *d, size_t n)
{
	memcpy(*p, d, n);
	*p += n;
}

/* A.2: the initial header, byte for byte. */
TEST(initial_header_zstd)
{
	unsigned char got[64], want[64], *p = want;
	const char *ver = ZSTD_versionString();
	struct tw t;
	uint32_t ps = PS;
	uint64_t opts;
	size_t n;

	ASSERT_EQ(0, tw_open(&t, V7_COMP_ZSTD, 2, 0));
	put(&p, "\x17\x08\x44tracing7\0\0\x08", 14);
	put(&p, &ps, 4);
	put(&p, "zstd", 5);
	put(&p, ver, strlen(ver) + 1);
	n = (size_t)(p - want);
	if (!strcmp(ver, "1.5.4"))
		EXPECT_EQ(29, n);	/* the worked example of A.2 */
	ASSERT_EQ((ssize_t)sizeof(got), pread(t.fd, got, sizeof(got), 0));
	EXPECT_EQ(0, memcmp(want, got, n));
	/* The options offset points at an OPTIONS section; sections start after it. */
	opts = rd64(got + n);
	EXPECT_NE(0, opts);
	EXPECT_EQ(16, got[n + 8]);	/* first section: HEADER_INFO */
	EXPECT_EQ(1, got[n + 10]);	/* compressed */
	tw_close(&t, false);
}

TEST(initial_header_none)
{
	static const unsigned char want[24] = {
		0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', '7', 0, 0, 8,
		0x00, 0x10, 0x00, 0x00, 'n', 'o', 'n', 'e', 0, 0,
	};
	unsigned char got[48];
	struct tw t;

	ASSERT_EQ(0, tw_open(&t, V7_COMP_NONE, 1, 0));
	ASSERT_EQ((ssize_t)sizeof(got), pread(t.fd, got, sizeof(got), 0));
	EXPECT_EQ(0, memcmp(want, got, sizeof(want)));
	/* options offset at byte 24, first section (HEADER_INFO, flags 0) at 32 */
	EXPECT_NE(0, rd64(got + 24));
	EXPECT_EQ(16, got[32]);
	EXPECT_EQ(0, got[34]);
	tw_close(&t, false);
}

/* A.3 + A.6: the HEADER_INFO section header and body. */
TEST(section_header_and_header_info)
{
	unsigned char hdr[16], *body;
	size_t len, want_len;
	char *want, *p;
	struct dp_file f;
	struct tw t;
	uint64_t hp, he;

	ASSERT_EQ(0, tw_open(&t, V7_COMP_ZSTD, 1, 0));
	ASSERT_EQ(16, pread(t.fd, hdr, 16, 37 + strlen(ZSTD_versionString()) - 5));
	EXPECT_EQ(16, hdr[0] | hdr[1] << 8);
	EXPECT_EQ(1, hdr[2] | hdr[3] << 8);
	EXPECT_EQ(0, rd32(hdr + 4));			/* "headers" is string 0 */
	ASSERT_EQ(0, dp_open(t.path, &f));
	ASSERT_EQ(16, f.secs[0].id);
	EXPECT_EQ(rd64(hdr + 8), f.secs[0].size);
	ASSERT_EQ(0, dp_section_body(&f, 0, &body, &len));
	/* size = 8-byte block header + compressed frame */
	EXPECT_EQ(f.secs[0].size, 8 + rd32(f.map + f.secs[0].off + 16));
	hp = t.m.header_page_len;
	he = t.m.header_event_len;
	want_len = 12 + 8 + hp + 13 + 8 + he;
	want = malloc(want_len);
	p = want;
	memcpy(p, "header_page", 12);
	memcpy(p + 12, &hp, 8);
	memcpy(p + 20, t.m.header_page, hp);
	p += 20 + hp;
	memcpy(p, "header_event", 13);
	memcpy(p + 13, &he, 8);
	memcpy(p + 21, t.m.header_event, he);
	ASSERT_EQ(want_len, len);
	EXPECT_EQ(0, memcmp(want, body, len));
	free(want);
	free(body);
	dp_close(&f);
	tw_close(&t, false);
}

static void finish_simple(struct __test_metadata *_metadata, struct tw *t, int ncpus, int n)
{
	int c;

	for (c = 0; c < ncpus; c++) {
		gen_markers(&t->g[c], c, 0, n);
		ASSERT_EQ(0, v7_append_pages(t->w, c, t->g[c].pages, t->g[c].nr));
	}
	ASSERT_EQ(0, v7_add_option(t->w, V7_OPT_TRACECLOCK, t->m.trace_clock,
				   strlen(t->m.trace_clock) + 1));
	ASSERT_EQ(0, v7_finish(t->w, "100 c0\n101 c1\n", 14, NULL));
}

/* A.11: the STRINGS table and every section's description ID. */
TEST(strings_offsets)
{
	static const char table[] = "headers\0ftrace events\0events format\0kallsyms\0printk\0"
				    "buffer flyrecord \0options\0strings\0command lines";
	static const struct { uint16_t id; int32_t off; } want[] = {
		{ 16, 0 }, { 17, 8 }, { 18, 22 }, { 19, 36 }, { 20, 45 }, { 3, 52 },
		{ 21, 86 }, { 0, 70 }, { 15, 78 },
	};
	struct dp_file f;
	struct tw t;
	size_t i;

	ASSERT_EQ(0, tw_open(&t, V7_COMP_ZSTD, 2, 0));
	finish_simple(_metadata, &t, 2, 100);
	ASSERT_EQ(0, dp_open(t.path, &f));
	ASSERT_EQ(sizeof(table), f.strings_len);
	EXPECT_EQ(0, memcmp(table, f.strings, sizeof(table)));
	EXPECT_TRUE(f.walk_ok);
	ASSERT_EQ(9, f.nr_secs);
	for (i = 0; i < 9; i++) {
		EXPECT_EQ(want[i].id, f.secs[i].id);
		EXPECT_EQ(want[i].off, f.secs[i].desc);
	}
	EXPECT_EQ(1, f.nr_opt_sections);
	dp_close(&f);
	tw_close(&t, false);
}

/* A.4 + A.10: the OPTIONS section, record by record, and the BUFFER option bytes. */
static void check_options(struct __test_metadata *_metadata, enum v7_compression comp)
{
	unsigned char want[4096], *p = want, *bo;
	struct dp_file f;
	struct tw t;
	uint16_t id;
	uint32_t len, u32;
	uint64_t off, next = 0, base0, base1, size0, size1;
	int s, i;

	ASSERT_EQ(0, tw_open(&t, comp, 3, 4));
	finish_simple(_metadata, &t, 2, 300);	/* CPU 2 stays empty */
	ASSERT_EQ(0, dp_open(t.path, &f));
	s = dp_find_section(&f, f.first_opts);
	ASSERT_GE(s, 0);
	/* Section options in order, then the caller's, CMDLINES, CPUCOUNT, BUFFER, DONE. */
	for (i = 0; i < 5; i++) {
		id = 16 + i;
		len = 8;
		off = f.secs[i].off;
		put(&p, &id, 2);
		put(&p, &len, 4);
		put(&p, &off, 8);
	}
	id = V7_OPT_TRACECLOCK;
	len = strlen(t.m.trace_clock) + 1;
	put(&p, &id, 2);
	put(&p, &len, 4);
	put(&p, t.m.trace_clock, len);
	id = V7_SEC_CMDLINES;
	len = 8;
	off = f.secs[dp_find_section(&f, f.first_opts) - 1].off;
	put(&p, &id, 2);
	put(&p, &len, 4);
	put(&p, &off, 8);
	id = V7_OPT_CPUCOUNT;
	len = 4;
	u32 = 3;
	put(&p, &id, 2);
	put(&p, &len, 4);
	put(&p, &u32, 4);
	/*
	 * BUFFER (A.10): CPU 0 at the first page boundary after the section header,
	 * CPU 1 at the next one after CPU 0's data; CPU 2 (empty) left out.
	 */
	base0 = (f.buf_sec + 16 + PS - 1) / PS * PS;
	size0 = f.cpus[0].size;
	base1 = (base0 + size0 + (comp ? 4 : 0) + PS - 1) / PS * PS;
	size1 = f.cpus[1].size;
	id = V7_OPT_BUFFER;
	len = 8 + 1 + 6 + 4 + 4 + 2 * 20;
	put(&p, &id, 2);
	put(&p, &len, 4);
	bo = p;
	put(&p, &f.buf_sec, 8);
	put(&p, "\0local", 7);
	u32 = PS;
	put(&p, &u32, 4);
	u32 = 2;
	put(&p, &u32, 4);
	u32 = 0;
	put(&p, &u32, 4);
	put(&p, &base0, 8);
	put(&p, &size0, 8);
	u32 = 1;
	put(&p, &u32, 4);
	put(&p, &base1, 8);
	put(&p, &size1, 8);
	EXPECT_EQ(len, p - bo);
	id = 0;
	len = 8;
	put(&p, &id, 2);
	put(&p, &len, 4);
	put(&p, &next, 8);
	EXPECT_EQ(f.secs[s].size, (uint64_t)(p - want));
	EXPECT_EQ(0, memcmp(want, f.map + f.secs[s].off + 16, p - want));
	EXPECT_EQ(0, f.map[f.secs[s].off + 2]);	/* OPTIONS never compressed */
	if (comp == V7_COMP_NONE)
		EXPECT_EQ(t.g[0].nr * PS, size0);
	/* The BUFFER section ends where CMDLINES starts. */
	EXPECT_EQ(f.secs[dp_find_section(&f, f.buf_sec) + 1].off,
		  f.buf_sec + 16 + f.secs[dp_find_section(&f, f.buf_sec)].size);
	EXPECT_EQ(comp == V7_COMP_ZSTD, f.buf_compressed);
	dp_close(&f);
	tw_close(&t, false);
}

TEST(options_bytes_zstd)
{
	check_options(_metadata, V7_COMP_ZSTD);
}

TEST(options_bytes_none)
{
	check_options(_metadata, V7_COMP_NONE);
}

/* A.5: chunk count, per-chunk sizes, whole pages, and the data themselves. */
TEST(chunk_framing)
{
	unsigned char *pages;
	struct dp_file f;
	struct tw t;
	uint64_t off, sum = 0;
	uint32_t k, i, nch;
	size_t len;

	ASSERT_EQ(0, tw_open(&t, V7_COMP_ZSTD, 1, 3));
	gen_markers(&t.g[0], 0, 0, 1000);
	ASSERT_GT(t.g[0].nr, 7);
	/* 7 pages then a sync: chunks of 3, 3, 1; then the rest in chunks of 3 */
	ASSERT_EQ(0, v7_append_pages(t.w, 0, t.g[0].pages, 7));
	ASSERT_EQ(0, v7_sync(t.w));
	ASSERT_EQ(0, v7_append_pages(t.w, 0, page(&t.g[0], 7), t.g[0].nr - 7));
	ASSERT_EQ(0, v7_finish(t.w, NULL, 0, NULL));
	ASSERT_EQ(0, dp_open(t.path, &f));
	ASSERT_EQ(1, f.nr_cpus);
	off = f.cpus[0].off;
	k = rd32(f.map + off);
	EXPECT_EQ(3 + (t.g[0].nr - 7 + 2) / 3, k);
	off += 4;
	for (i = 0; i < k; i++) {
		uint32_t c = rd32(f.map + off), u = rd32(f.map + off + 4);
		uint32_t want = i < 2 ? 3 : i == 2 ? 1 : 3;

		if (i == k - 1 && (t.g[0].nr - 7) % 3)
			want = (t.g[0].nr - 7) % 3;
		EXPECT_EQ(want * PS, u);
		EXPECT_EQ(ZSTD_CONTENTSIZE_UNKNOWN, ZSTD_getFrameContentSize(f.map + off + 8, c));
		sum += 8 + c;
		off += 8 + c;
	}
	EXPECT_EQ(sum, f.cpus[0].size);		/* E.1: the count is not in the size */
	ASSERT_EQ(0, dp_cpu_pages(&f, 0, &pages, &len, &nch, NULL));
	ASSERT_EQ(t.g[0].nr * PS, len);
	EXPECT_EQ(0, memcmp(pages, t.g[0].pages, len));
	free(pages);
	dp_close(&f);
	tw_close(&t, false);
}

/* Round trip through libtracecmd: 4 CPUs, one empty, many chunks, missed events. */
static void round_trip(struct __test_metadata *_metadata, enum v7_compression comp,
		       const char *dir)
{
	static const int counts[4] = { 3000, 0, 700, 1 };
	struct rb_summary s;
	struct tw t;
	size_t half;
	int c;

	ASSERT_EQ(0, tw_open_in(&t, dir, comp, 4, 2, 4 << 20));
	for (c = 0; c < 4; c++) {
		if (!counts[c])
			continue;
		gen_markers(&t.g[c], c, 0, counts[c] / 2);
		if (c == 2)
			pg_missed(&t.g[c], 42, true);
		if (c == 0)
			pg_missed(&t.g[c], 7, false);
		gen_markers(&t.g[c], c, counts[c] / 2, counts[c] - counts[c] / 2);
	}
	for (c = 0; c < 4; c++) {
		half = t.g[c].nr / 2;
		ASSERT_EQ(0, v7_append_pages(t.w, c, t.g[c].pages, half));
	}
	ASSERT_EQ(0, v7_sync(t.w));
	for (c = 0; c < 4; c++) {
		half = t.g[c].nr / 2;
		ASSERT_EQ(0, v7_append_pages(t.w, c, page(&t.g[c], half), t.g[c].nr - half));
	}
	ASSERT_EQ(0, v7_finish(t.w, NULL, 0, NULL));
	ASSERT_EQ(0, rb_summarize(t.path, &s));
	EXPECT_EQ(4, s.ncpus);
	EXPECT_EQ(3701, s.total);
	EXPECT_EQ(3701, rb_count(&s, "ftrace/print"));
	for (c = 0; c < 4; c++) {
		EXPECT_EQ((uint64_t)counts[c], s.per_cpu[c]);
		EXPECT_TRUE(markers_ok(&s, c, counts[c]));
	}
	EXPECT_EQ(42, s.missed);
	EXPECT_EQ(1, s.missed_unknown);
	EXPECT_TRUE(s.ts_ordered);
	rb_summary_free(&s);
	tw_close(&t, dir != NULL);
}

TEST(round_trip_zstd)
{
	round_trip(_metadata, V7_COMP_ZSTD, NULL);
}

/* The same file when the pool's three workers compress the chunks (no spool here:
 * this test program wraps pwrite to simulate power cuts). */
static struct chunk_pool *test_pool(unsigned int chunk_pages)
{
	struct v7_params p = {
		.page_size = PS, .comp = V7_COMP_ZSTD, .zstd_level = 1,
		.chunk_pages = chunk_pages,
	};
	struct chunk_pool *pool;
	int err = 0;

	pool = v7_pool_new(&p, 3, NULL, &err);
	if (pool) {
		/* the pool's own workers must be real, not a stub */
		struct chunk_pool_stats st;

		chunk_pool_stats(pool, &st);
		if (st.workers != 3) {
			chunk_pool_free(pool);
			return NULL;
		}
	}
	return pool;
}

TEST(round_trip_zstd_pool)
{
	struct chunk_pool_stats st;

	tw_pool = test_pool(2);
	ASSERT_NE(NULL, tw_pool);
	round_trip(_metadata, V7_COMP_ZSTD, NULL);
	chunk_pool_stats(tw_pool, &st);
	EXPECT_GT(st.jobs, 20);
	EXPECT_EQ(0, st.in_flight);
	chunk_pool_free(tw_pool);
	tw_pool = NULL;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *b = NULL;

	if (f) {
		b = malloc(64 << 20);
		*len = b ? fread(b, 1, 64 << 20, f) : 0;
		fclose(f);
	}
	return b;
}

enum sample_mode {
	SAMPLE_INLINE,		/* no pool: compressed on the appending thread */
	SAMPLE_POOL,		/* the pool's workers compress */
	SAMPLE_STORE,		/* every sync takes the pool's chunks at once, stored */
};

static void sample_sync(struct __test_metadata *_metadata, struct tw *t,
			enum sample_mode mode)
{
	struct chunk_pool_stats st;

	if (mode == SAMPLE_STORE) {
		/* the partial chunks too, which the sync would hand on anyway */
		EXPECT_EQ(0, v7_flush(t->w));
		chunk_pool_stats(tw_pool, &st);
		chunk_pool_reap_until(tw_pool, st.jobs);
	}
	EXPECT_EQ(0, v7_sync(t->w));
}

/*
 * 6 000 markers on CPU 0 appended 5 pages at a time with a sync every 20 pages, then
 * 1 500 on CPU 1 and a last sync: every marker is readable before finish, and the
 * finished file's bytes are returned.
 */
static char *sample_file(struct __test_metadata *_metadata, enum sample_mode mode,
			 size_t *len, uint64_t *stored)
{
	struct chunk_pool_stats st = { 0 };
	struct rb_summary s;
	char *bytes = NULL;
	struct tw t;
	size_t done;

	tw_pool = mode != SAMPLE_INLINE ? test_pool(4) : NULL;
	if (mode != SAMPLE_INLINE && !tw_pool)
		return NULL;
	if (tw_open(&t, V7_COMP_ZSTD, 2, 4))
		goto out;
	gen_markers(&t.g[0], 0, 0, 6000);
	gen_markers(&t.g[1], 1, 0, 1500);
	for (done = 0; done < t.g[0].nr; done += 5) {
		size_t n = t.g[0].nr - done < 5 ? t.g[0].nr - done : 5;

		EXPECT_EQ(0, v7_append_pages(t.w, 0, page(&t.g[0], done), n));
		if (done % 20 == 0)
			sample_sync(_metadata, &t, mode);
	}
	EXPECT_EQ(0, v7_append_pages(t.w, 1, t.g[1].pages, t.g[1].nr));
	sample_sync(_metadata, &t, mode);
	if (mode == SAMPLE_POOL) {
		/* all compressed by now: one more sync has every marker */
		chunk_pool_reap(tw_pool, CHUNK_POOL_ALL);
		EXPECT_EQ(0, v7_sync(t.w));
	}
	EXPECT_EQ(0, rb_summarize(t.path, &s));
	EXPECT_EQ(7500, s.total);
	EXPECT_TRUE(markers_ok(&s, 0, 6000));
	EXPECT_TRUE(markers_ok(&s, 1, 1500));
	rb_summary_free(&s);
	EXPECT_EQ(0, v7_finish(t.w, NULL, 0, NULL));
	bytes = slurp(t.path, len);
	tw_close(&t, false);
out:
	if (tw_pool)
		chunk_pool_stats(tw_pool, &st);
	*stored = st.stored;
	chunk_pool_free(tw_pool);
	tw_pool = NULL;
	return bytes;
}

/* Byte for byte, the finished file of @mode is the inline writer's. */
static void same_file(struct __test_metadata *_metadata, enum sample_mode mode,
		      uint64_t *stored)
{
	size_t len[2] = { 0, 0 };
	char *bytes[2];
	uint64_t none;

	bytes[0] = sample_file(_metadata, SAMPLE_INLINE, &len[0], &none);
	bytes[1] = sample_file(_metadata, mode, &len[1], stored);
	ASSERT_NE(NULL, bytes[0]);
	ASSERT_NE(NULL, bytes[1]);
	EXPECT_EQ(len[0], len[1]);
	EXPECT_EQ(0, memcmp(bytes[0], bytes[1], len[0] < len[1] ? len[0] : len[1]));
	free(bytes[0]);
	free(bytes[1]);
}

/*
 * The pool changes where chunks are compressed, not what is written: the finished
 * file is the inline writer's, byte for byte, syncs in between or not. A sync covers
 * the chunks already compressed; the ones in the pool come with a later sync.
 */
TEST(pool_writes_the_same_file)
{
	uint64_t stored;

	same_file(_metadata, SAMPLE_POOL, &stored);
	EXPECT_EQ(0, stored);
}

/*
 * Chunks a sync stored uncompressed (chunk_pool_reap_until(): the workers had no CPU,
 * here on one CPU with this thread busy) are readable at once and compressed when the
 * file is finished: it is again the inline writer's, byte for byte.
 */
TEST(stored_chunks_compressed_at_finish)
{
	cpu_set_t old;
	uint64_t stored;

	ASSERT_EQ(0, cpu_pin_here(&old));
	same_file(_metadata, SAMPLE_STORE, &stored);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(old), &old));
	TH_LOG("%llu chunks stored", (unsigned long long)stored);
	EXPECT_GE(stored, 10);
}

TEST(round_trip_none)
{
	round_trip(_metadata, V7_COMP_NONE, NULL);
}

/* /dev/shm is tmpfs: no FALLOC_FL_COLLAPSE_RANGE, so finish copies data down. */
TEST(round_trip_tmpfs_copy_compaction)
{
	char dir[] = "/dev/shm/v7w.XXXXXX";

	if (!mkdtemp(dir))
		SKIP(return, "no /dev/shm");
	round_trip(_metadata, V7_COMP_ZSTD, dir);
	round_trip(_metadata, V7_COMP_NONE, dir);
	rmdir(dir);
}

/*
 * Copy compaction (tmpfs) cut after every file update: the file reads back either as
 * the last sync left it or finished, never broken.
 */
TEST(crash_in_finish_copy)
{
	char dir[] = "/dev/shm/v7wf.XXXXXX";
	bool done = false;
	long n;

	if (!mkdtemp(dir))
		SKIP(return, "no /dev/shm");
	for (n = 0; !done && n < 64; n++) {
		struct rb_summary s;
		struct tw t;
		size_t synced;
		int ret;

		ASSERT_EQ(0, tw_open_in(&t, dir, V7_COMP_ZSTD, 3, 4, 1 << 20));
		gen_markers(&t.g[0], 0, 0, 1000);
		gen_markers(&t.g[2], 2, 0, 500);
		ASSERT_EQ(0, v7_append_pages(t.w, 0, t.g[0].pages, t.g[0].nr));
		ASSERT_EQ(0, v7_append_pages(t.w, 2, t.g[2].pages, t.g[2].nr - 1));
		ASSERT_EQ(0, v7_sync(t.w));
		synced = 1000 + markers_in(&t.g[2], t.g[2].nr - 1);
		ASSERT_EQ(0, v7_append_pages(t.w, 2, page(&t.g[2], t.g[2].nr - 1), 1));
		v7_fail_after(t.w, n);
		ret = v7_finish(t.w, NULL, 0, NULL);
		done = !ret;
		ASSERT_EQ(0, rb_summarize(t.path, &s));
		if (s.total != synced && s.total != 1500)
			TH_LOG("finish cut after %ld updates: %llu events", n,
			       (unsigned long long)s.total);
		EXPECT_TRUE(s.total == synced || s.total == 1500);
		EXPECT_TRUE(markers_ok(&s, 0, s.per_cpu[0]));
		EXPECT_TRUE(markers_ok(&s, 2, s.per_cpu[2]));
		if (done)
			EXPECT_EQ(1500, s.total);
		rb_summary_free(&s);
		tw_close(&t, true);
	}
	EXPECT_TRUE(done);
	rmdir(dir);
}

/* Chunks of @path stored uncompressed, all CPUs; -1 if it does not parse. */
static long stored_chunks(const char *path)
{
	uint64_t chunks, stored;
	struct dp_file f;
	int ret;

	if (dp_open(path, &f))
		return -1;
	ret = dp_count_chunks(&f, &chunks, &stored);
	dp_close(&f);
	return ret ? -1 : (long)stored;
}

/*
 * A writer in @dir whose last sync stored chunks: CPU 0 and 2 markers, the pool's
 * chunks taken at once. Whether the workers took some first is the scheduler's (they
 * share this thread's CPU at idle priority): tried again while none was stored.
 * Return: chunks stored (0: never, or the writer failed).
 */
static uint64_t open_stored(struct __test_metadata *_metadata, const char *dir, struct tw *t)
{
	struct chunk_pool_stats st = { 0 };

	for (int tries = 0; tries < 20 && !st.stored; tries++) {
		if (tries) {
			tw_close(t, true);
			chunk_pool_free(tw_pool);
		}
		tw_pool = test_pool(4);
		if (!tw_pool || tw_open_in(t, dir, V7_COMP_ZSTD, 3, 4, 1 << 20))
			return 0;
		gen_markers(&t->g[0], 0, 0, 1000);
		gen_markers(&t->g[2], 2, 0, 500);
		if (v7_append_pages(t->w, 0, t->g[0].pages, t->g[0].nr) ||
		    v7_append_pages(t->w, 2, t->g[2].pages, t->g[2].nr) || v7_flush(t->w))
			return 0;
		chunk_pool_stats(tw_pool, &st);
		chunk_pool_reap_until(tw_pool, st.jobs);
		if (v7_sync(t->w))
			return 0;
		chunk_pool_stats(tw_pool, &st);
	}
	return st.stored;
}

TEST(crash_in_finish_compressing_stored)
{
	char dir[] = "/dev/shm/v7ws.XXXXXX";
	bool done = false;
	cpu_set_t old;
	long n;

	if (!mkdtemp(dir))
		SKIP(return, "no /dev/shm");
	ASSERT_EQ(0, cpu_pin_here(&old));
	for (n = 0; !done && n < 64; n++) {
		struct rb_summary s;
		struct tw t;
		int ret;

		ASSERT_GE(open_stored(_metadata, dir, &t), 1);
		v7_fail_after(t.w, n);
		ret = v7_finish(t.w, NULL, 0, NULL);
		done = !ret;
		ASSERT_EQ(0, rb_summarize(t.path, &s));
		EXPECT_EQ(1500, s.total);
		EXPECT_TRUE(markers_ok(&s, 0, s.per_cpu[0]));
		EXPECT_TRUE(markers_ok(&s, 2, s.per_cpu[2]));
		rb_summary_free(&s);
		/* finished: none left; cut: the synced file, as it was */
		EXPECT_EQ(done, stored_chunks(t.path) == 0);
		tw_close(&t, true);
		chunk_pool_free(tw_pool);
		tw_pool = NULL;
	}
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(old), &old));
	EXPECT_TRUE(done);
	TH_LOG("finished after %ld cuts", n - 1);
	rmdir(dir);
}

/*
 * The same where a CPU's data move down by less than their own size: CPU 1's region
 * is full (16 raw pages of 64 KiB) and CPU 0 holds one page, so compacting in place
 * would write CPU 1's pages over the region the live tail still names. A cut after any
 * update must leave the synced file or the finished one, every marker on its CPU.
 */
TEST(crash_in_finish_overlapping_move)
{
	char dir[] = "/dev/shm/v7wo.XXXXXX";
	bool done = false;
	long n;

	if (!mkdtemp(dir))
		SKIP(return, "no /dev/shm");
	for (n = 0; !done && n < 64; n++) {
		struct rb_summary s;
		struct tw t;
		size_t m0, m1;
		int ret;

		ASSERT_EQ(0, tw_open_in(&t, dir, V7_COMP_NONE, 2, 0, 64 << 10));
		gen_markers(&t.g[0], 0, 0, 20);
		gen_markers(&t.g[1], 1, 0, 2000);
		ASSERT_GE(t.g[1].nr, 16);
		ASSERT_EQ(0, v7_append_pages(t.w, 0, t.g[0].pages, 1));
		ASSERT_EQ(0, v7_append_pages(t.w, 1, t.g[1].pages, 16));
		ASSERT_EQ(0, v7_sync(t.w));
		m0 = markers_in(&t.g[0], 1);
		m1 = markers_in(&t.g[1], 16);
		v7_fail_after(t.w, n);
		ret = v7_finish(t.w, NULL, 0, NULL);
		done = !ret;
		ASSERT_EQ(0, rb_summarize(t.path, &s));
		if (s.per_cpu[0] != m0 || s.per_cpu[1] != m1)
			TH_LOG("finish cut after %ld updates: %llu + %llu events, want %zu + %zu", n,
			       (unsigned long long)s.per_cpu[0], (unsigned long long)s.per_cpu[1],
			       m0, m1);
		EXPECT_EQ(m0, s.per_cpu[0]);
		EXPECT_EQ(m1, s.per_cpu[1]);
		EXPECT_TRUE(markers_ok(&s, 0, s.per_cpu[0]));
		EXPECT_TRUE(markers_ok(&s, 1, s.per_cpu[1]));
		rb_summary_free(&s);
		tw_close(&t, true);
	}
	EXPECT_TRUE(done);
	rmdir(dir);
}

/* After finish the file is compact: no holes left from the reserved regions. */
TEST(finish_is_compact)
{
	struct dp_file f;
	struct stat st;
	struct tw t;

	ASSERT_EQ(0, tw_open_in(&t, NULL, V7_COMP_NONE, 2, 0, 64 << 20));
	finish_simple(_metadata, &t, 2, 500);
	/* The compact file was built beside and renamed over: t.fd is the old one. */
	ASSERT_EQ(0, stat(t.path, &st));
	ASSERT_EQ(0, dp_open(t.path, &f));
	EXPECT_TRUE(f.walk_ok);
	/* metadata + 2 CPUs of pages + at most a page of padding each + the tail */
	EXPECT_LT((uint64_t)st.st_size, f.cpus[1].off + f.cpus[1].size + 4096);
	EXPECT_EQ(f.cpus[0].off + f.cpus[0].size, f.cpus[1].off);
	dp_close(&f);
	tw_close(&t, false);
}

/* Readable before finish: exactly what the last v7_sync covered. */
static void sync_visibility(struct __test_metadata *_metadata, enum v7_compression comp)
{
	struct rb_summary s;
	struct dp_file f;
	struct tw t;
	size_t a;

	ASSERT_EQ(0, tw_open(&t, comp, 2, 4));
	/* Right after create: a valid, empty trace.dat. */
	ASSERT_EQ(0, rb_summarize(t.path, &s));
	EXPECT_EQ(0, s.total);
	rb_summary_free(&s);
	gen_markers(&t.g[0], 0, 0, 2000);
	a = 9;
	ASSERT_EQ(0, v7_append_pages(t.w, 0, t.g[0].pages, a));
	ASSERT_EQ(0, v7_sync(t.w));
	ASSERT_EQ(0, v7_append_pages(t.w, 0, page(&t.g[0], a), t.g[0].nr - a));
	/* Pages after the sync (even full chunks already in the file) are not visible. */
	ASSERT_EQ(0, rb_summarize(t.path, &s));
	EXPECT_EQ(markers_in(&t.g[0], a), s.total);
	EXPECT_TRUE(markers_ok(&s, 0, s.total));
	rb_summary_free(&s);
	ASSERT_EQ(0, dp_open(t.path, &f));
	EXPECT_TRUE(f.walk_ok);
	dp_close(&f);
	ASSERT_EQ(0, v7_sync(t.w));
	ASSERT_EQ(0, rb_summarize(t.path, &s));
	EXPECT_EQ(2000, s.total);
	rb_summary_free(&s);
	ASSERT_EQ(0, dp_open(t.path, &f));
	EXPECT_TRUE(f.walk_ok);
	dp_close(&f);
	tw_close(&t, false);
}

TEST(sync_visibility_zstd)
{
	sync_visibility(_metadata, V7_COMP_ZSTD);
}

TEST(sync_visibility_none)
{
	sync_visibility(_metadata, V7_COMP_NONE);
}

/* Idle, a sync writes nothing (no wake-up of the disk for nothing); new pages, it does. */
TEST(idle_sync_writes_nothing)
{
	struct tw t;

	ASSERT_EQ(0, tw_open(&t, V7_COMP_ZSTD, 1, 4));
	gen_markers(&t.g[0], 0, 0, 300);
	ASSERT_EQ(0, v7_append_pages(t.w, 0, t.g[0].pages, t.g[0].nr - 1));
	EXPECT_TRUE(v7_unsynced(t.w));
	ASSERT_EQ(0, v7_sync(t.w));
	EXPECT_FALSE(v7_unsynced(t.w));
	v7_fail_after(t.w, 0);		/* any file update from here fails */
	EXPECT_EQ(0, v7_sync(t.w));
	EXPECT_EQ(0, v7_sync(t.w));
	ASSERT_EQ(0, v7_append_pages(t.w, 0, page(&t.g[0], t.g[0].nr - 1), 1));
	EXPECT_TRUE(v7_unsynced(t.w));
	EXPECT_EQ(-EIO, v7_sync(t.w));
	tw_close(&t, false);
}

/* The CMDLINES a file read now holds, as trace-cmd dump prints them (malloc'd). */
static char *dumped_cmdlines(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "trace-cmd dump --cmd-lines -i %s 2>&1 | grep -v '^\\s*\\['",
		 path);
	return rb_run(cmd, NULL);
}

/*
 * Each tail carries the command lines last set: a sync after new ones writes them,
 * not the section built for the tail before (it is reused while the text is the
 * same); setting the same text again leaves nothing to sync.
 */
TEST(cmdlines_each_sync)
{
	static const char a[] = "100 writer0\n101 writer1\n", b[] = "100 writer0\n102 other\n";
	char *out;
	struct tw t;
	int comp;

	if (access("/usr/bin/trace-cmd", X_OK))
		SKIP(return, "trace-cmd not installed");
	for (comp = 0; comp < 2; comp++) {
		ASSERT_EQ(0, tw_open(&t, comp, 1, 4));
		gen_markers(&t.g[0], 0, 0, 300);
		ASSERT_EQ(0, v7_append_pages(t.w, 0, t.g[0].pages, t.g[0].nr));
		ASSERT_EQ(0, v7_set_cmdlines(t.w, a, strlen(a)));
		ASSERT_EQ(0, v7_sync(t.w));
		ASSERT_EQ(0, v7_sync(t.w));
		out = dumped_cmdlines(t.path);
		ASSERT_NE(NULL, out);
		EXPECT_NE(NULL, strstr(out, "101 writer1"));
		free(out);
		EXPECT_EQ(0, v7_set_cmdlines(t.w, a, strlen(a)));
		EXPECT_FALSE(v7_unsynced(t.w));
		ASSERT_EQ(0, v7_set_cmdlines(t.w, b, strlen(b)));
		EXPECT_TRUE(v7_unsynced(t.w));
		ASSERT_EQ(0, v7_sync(t.w));
		out = dumped_cmdlines(t.path);
		ASSERT_NE(NULL, out);
		EXPECT_NE(NULL, strstr(out, "102 other"));
		EXPECT_EQ(NULL, strstr(out, "101 writer1"));
		free(out);
		ASSERT_EQ(0, v7_set_cmdlines(t.w, a, strlen(a)));
		ASSERT_EQ(0, v7_finish(t.w, NULL, 0, NULL));
		out = dumped_cmdlines(t.path);
		ASSERT_NE(NULL, out);
		EXPECT_NE(NULL, strstr(out, "101 writer1"));
		EXPECT_EQ(NULL, strstr(out, "102 other"));
		free(out);
		tw_close(&t, false);
	}
}

/* Many syncs alternate the tail slots: each state reads back whole and walks cleanly. */
TEST(many_syncs)
{
	struct rb_summary s;
	struct dp_file f;
	char cmd[256], *out;
	struct tw t;
	size_t per, done = 0;
	int i, comp;

	for (comp = 0; comp < 2; comp++) {
		tw_durable = comp;	/* the fdatasync barriers change nothing visible */
		ASSERT_EQ(0, tw_open(&t, comp, 2, 0));
		tw_durable = 0;
		gen_markers(&t.g[0], 0, 0, 4000);
		per = t.g[0].nr / 12;
		done = 0;
		for (i = 0; i < 12; i++) {
			ASSERT_EQ(0, v7_append_pages(t.w, 0, page(&t.g[0], done), per));
			done += per;
			ASSERT_EQ(0, v7_sync(t.w));
			ASSERT_EQ(0, rb_summarize(t.path, &s));
			EXPECT_EQ(markers_in(&t.g[0], done), s.total);
			EXPECT_TRUE(markers_ok(&s, 0, s.total));
			rb_summary_free(&s);
			ASSERT_EQ(0, dp_open(t.path, &f));
			EXPECT_TRUE(f.walk_ok);
			EXPECT_EQ(1, f.nr_opt_sections);
			dp_close(&f);
			if (i < 2 && !access("/usr/bin/trace-cmd", X_OK)) {
				/* trace-cmd's own section walk on a file still being written */
				snprintf(cmd, sizeof(cmd), "trace-cmd dump --sections -i %s 2>&1",
					 t.path);
				out = rb_run(cmd, NULL);
				ASSERT_NE(NULL, out);
				EXPECT_EQ(NULL, strstr(out, "Unknown"));
				EXPECT_NE(NULL, strstr(out, "\"strings\""));
				free(out);
			}
		}
		tw_close(&t, false);
	}
}

/* The first pages of @g holding @events events (of markers_in()), or -1. */
static long pages_holding(struct pagegen *g, size_t events)
{
	for (size_t p = 0; p <= g->nr; p++)
		if (markers_in(g, p) == events)
			return (long)p;
	return -1;
}

/*
 * Kill -9 at every file update of a v7_sync, in both slot directions: the file must
 * read back either the previous sync's events or the new ones, never fail, and the
 * section walk must stay sane. The writer's count of pages the file does not hold
 * (v7_unkept_pages()) is what does not read back.
 */
static void crash_in_sync(struct __test_metadata *_metadata, enum v7_compression comp)
{
	long n;
	int which;

	for (which = 2; which <= 3; which++) {
		bool done = false;

		for (n = 0; !done && n < 64; n++) {
			struct rb_summary s;
			struct dp_file f;
			struct tw t;
			size_t before, after;
			int k;

			ASSERT_EQ(0, tw_open(&t, comp, 2, 4));
			gen_markers(&t.g[0], 0, 0, 1500);
			gen_markers(&t.g[1], 1, 0, 300);
			/* syncs 1..which-1 complete; sync number @which is cut after n updates */
			for (k = 1; k <= which; k++) {
				size_t lo = (k - 1) * t.g[0].nr / which, hi = k * t.g[0].nr / which;

				ASSERT_EQ(0, v7_append_pages(t.w, 0, page(&t.g[0], lo), hi - lo));
				if (k == 2)
					ASSERT_EQ(0, v7_append_pages(t.w, 1, t.g[1].pages,
								     t.g[1].nr));
				if (k == which)
					v7_fail_after(t.w, n);
				if (v7_sync(t.w)) {
					ASSERT_EQ(which, k);
					EXPECT_EQ(-EIO, v7_error(t.w));
				} else if (k == which) {
					done = true;
				}
			}
			before = markers_in(&t.g[0], (which - 1) * t.g[0].nr / which) +
				 (which > 2 ? 300 : 0);
			after = markers_in(&t.g[0], t.g[0].nr) + 300;
			ASSERT_EQ(0, rb_summarize(t.path, &s));
			/*
			 * Everything of the previous sync, at most everything appended.
			 * Compressed, a raised chunk count can show a CPU's new chunks
			 * before the tail is switched: more data, all of it valid.
			 */
			if (s.total < before || s.total > after ||
			    (comp == V7_COMP_NONE && s.total != before && s.total != after))
				TH_LOG("sync %d cut after %ld updates: %llu events", which, n,
				       (unsigned long long)s.total);
			EXPECT_GE(s.total, before);
			EXPECT_LE(s.total, after);
			if (comp == V7_COMP_NONE)
				EXPECT_TRUE(s.total == before || s.total == after);
			EXPECT_TRUE(markers_ok(&s, 0, s.per_cpu[0]));
			EXPECT_TRUE(markers_ok(&s, 1, s.per_cpu[1]));
			if (done)
				EXPECT_EQ(after, s.total);
			EXPECT_EQ(t.g[0].nr + t.g[1].nr - pages_holding(&t.g[0], s.per_cpu[0]) -
				  pages_holding(&t.g[1], s.per_cpu[1]), v7_unkept_pages(t.w)) {
				TH_LOG("sync %d cut after %ld updates: %llu + %llu events read",
				       which, n, (unsigned long long)s.per_cpu[0],
				       (unsigned long long)s.per_cpu[1]);
			}
			rb_summary_free(&s);
			ASSERT_EQ(0, dp_open(t.path, &f));
			EXPECT_TRUE(f.walk_ok);
			if (!f.walk_ok)
				TH_LOG("sync %d cut after %ld updates: section walk broken", which, n);
			dp_close(&f);
			/* Refuses more data after the failure, with the same error. */
			if (!done)
				EXPECT_EQ(-EIO, v7_append_pages(t.w, 0, t.g[0].pages, 1));
			tw_close(&t, false);
		}
		EXPECT_TRUE(done);
	}
}

TEST(crash_in_sync_zstd)
{
	crash_in_sync(_metadata, V7_COMP_ZSTD);
}

TEST(crash_in_sync_none)
{
	crash_in_sync(_metadata, V7_COMP_NONE);
}

/*
 * A real kill -9 at random moments of a writer that appends and syncs: the file
 * always opens, and each CPU reads back a gap-free prefix of what was written.
 */
TEST(kill9_random)
{
	unsigned int seed = (unsigned int)time(NULL);
	int round;

	for (round = 0; round < 12; round++) {
		struct rb_summary s;
		struct dp_file f;
		struct tw t;
		pid_t pid;
		int comp = round % 2;

		ASSERT_EQ(0, tw_open(&t, comp, 2, 4));
		gen_markers(&t.g[0], 0, 0, 6000);
		gen_markers(&t.g[1], 1, 0, 2000);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid) {
			size_t i;

			for (i = 0; i < t.g[0].nr; i++) {
				if (v7_append_pages(t.w, 0, page(&t.g[0], i), 1))
					_exit(1);
				if (i % 3 == 0 && i / 3 < t.g[1].nr &&
				    v7_append_pages(t.w, 1, page(&t.g[1], i / 3), 1))
					_exit(1);
				if (i % 5 == 4 && v7_sync(t.w))
					_exit(1);
				usleep(100);
			}
			_exit(0);
		}
		usleep(1000 + rand_r(&seed) % 20000);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		ASSERT_EQ(0, rb_summarize(t.path, &s));
		EXPECT_TRUE(markers_ok(&s, 0, s.per_cpu[0]));
		EXPECT_TRUE(markers_ok(&s, 1, s.per_cpu[1]));
		TH_LOG("%s kill %d: %llu + %llu events survive", comp ? "zstd" : "none", round,
		       (unsigned long long)s.per_cpu[0], (unsigned long long)s.per_cpu[1]);
		rb_summary_free(&s);
		ASSERT_EQ(0, dp_open(t.path, &f));
		EXPECT_TRUE(f.walk_ok);
		dp_close(&f);
		tw_close(&t, false);
	}
}

/*
 * A real full filesystem (a 2 MiB tmpfs): the error comes back and the file keeps
 * every event of the last sync. The fixture unmounts whatever the test does.
 */
FIXTURE(full) {
	char		dir[32];
	bool		mounted;
	struct tw	t;
};

FIXTURE_VARIANT(full) {
	enum v7_compression	comp;
};

FIXTURE_VARIANT_ADD(full, zstd) { .comp = V7_COMP_ZSTD };
FIXTURE_VARIANT_ADD(full, none) { .comp = V7_COMP_NONE };

FIXTURE_SETUP(full)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/v7full.XXXXXX");
	self->mounted = false;
	self->t.w = NULL;
	ASSERT_NE(NULL, mkdtemp(self->dir));
	if (mount("v7full", self->dir, "tmpfs", 0, "size=2m"))
		SKIP(return, "cannot mount a tmpfs (not root?)");
	self->mounted = true;
}

FIXTURE_TEARDOWN(full)
{
	if (self->t.w)
		tw_close(&self->t, true);
	if (self->mounted)
		umount(self->dir);
	rmdir(self->dir);
}

TEST_F(full, enospc_keeps_last_sync)
{
	struct tw *t = &self->t;
	struct rb_summary s;
	size_t i, synced = 0, pages = 0;
	unsigned int seed = 1;
	int ret = 0;

	if (setup_skipped(_metadata))
		return;

	ASSERT_EQ(0, tw_open_in(t, self->dir, variant->comp, 1, 4, 64 << 20));
	/* Incompressible payloads so the chunks really take space. */
	for (i = 0; i < 20000; i++) {
		unsigned char blob[200];
		size_t j;

		for (j = 0; j < sizeof(blob); j++)
			blob[j] = (unsigned char)rand_r(&seed);
		memcpy(blob, &(struct ftp_entry){ .type = PG_BLOB_ID, .pid = 1 }, 8);
		memcpy(blob + 8, &i, 4);
		pg_add(&t->g[0], 1000 + i, blob, sizeof(blob));
	}
	pg_close(&t->g[0]);
	while (pages + 8 <= t->g[0].nr) {
		ret = v7_append_pages(t->w, 0, page(&t->g[0], pages), 8);
		if (ret)
			break;
		pages += 8;
		if (pages % 64 == 0) {
			ret = v7_sync(t->w);
			if (ret)
				break;
			synced = pages;
		}
	}
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(-ENOSPC, v7_error(t->w));
	/* what came after the last sync is lost, and counted: the refused batch too */
	EXPECT_EQ(pages + 8 - synced, v7_unkept_pages(t->w));
	/* refused at the door once failed: not taken (the caller keeps them) */
	EXPECT_EQ(-ENOSPC, v7_append_pages(t->w, 0, t->g[0].pages, 1));
	EXPECT_EQ(pages + 8 - synced, v7_unkept_pages(t->w));
	EXPECT_EQ(-ENOSPC, v7_sync(t->w));
	EXPECT_EQ(-ENOSPC, v7_finish(t->w, NULL, 0, NULL));
	EXPECT_GT(synced, 0);
	ASSERT_EQ(0, rb_summarize(t->path, &s));
	EXPECT_EQ(markers_in(&t->g[0], synced), s.total);
	EXPECT_EQ(s.total, rb_count(&s, "test/blob"));
	rb_summary_free(&s);
}

/* A full region is -ENOSPC without failing the writer: the caller rotates. */
TEST(region_full)
{
	struct rb_summary s;
	struct tw t;
	size_t n = 0;
	int ret = 0, comp;

	for (comp = 0; comp < 2; comp++) {
		ASSERT_EQ(0, tw_open_in(&t, NULL, comp, 2, 4, 64 << 10));
		gen_markers(&t.g[0], 0, 0, 30000);	/* ~90 KiB even compressed */
		for (n = 0; n < t.g[0].nr; n++) {
			ret = v7_append_pages(t.w, 0, page(&t.g[0], n), 1);
			if (ret)
				break;
		}
		EXPECT_EQ(-ENOSPC, ret);
		EXPECT_EQ(0, v7_error(t.w));
		EXPECT_GT(n, 4);
		ASSERT_EQ(0, v7_finish(t.w, NULL, 0, NULL));
		ASSERT_EQ(0, rb_summarize(t.path, &s));
		EXPECT_EQ(markers_in(&t.g[0], n), s.total);
		rb_summary_free(&s);
		tw_close(&t, false);
	}
}

/*
 * v7_room_pages() says how many pages the region takes: that many always go in; when
 * it says 0, a page more is refused. Per CPU; a CPU out of range is -EINVAL.
 */
TEST(room_pages)
{
	struct rb_summary s;
	size_t room, n = 0;
	struct tw t;
	int comp;

	for (comp = 0; comp < 2; comp++) {
		ASSERT_EQ(0, tw_open_in(&t, NULL, comp, 2, 4, 64 << 10));
		gen_markers(&t.g[0], 0, 0, 30000);
		for (n = 0; n < t.g[0].nr; n += room) {
			ASSERT_EQ(0, v7_room_pages(t.w, 0, 3, &room));
			if (!room)
				break;
			EXPECT_GE(3, room);
			if (n + room > t.g[0].nr)
				room = t.g[0].nr - n;
			ASSERT_EQ(0, v7_append_pages(t.w, 0, page(&t.g[0], n), room));
		}
		ASSERT_LT(n, t.g[0].nr) TH_LOG("the region never filled");
		EXPECT_EQ(-ENOSPC, v7_append_pages(t.w, 0, page(&t.g[0], n), 1));
		EXPECT_EQ(0, v7_error(t.w));
		/* the other CPU's region is another one */
		ASSERT_EQ(0, v7_room_pages(t.w, 1, 3, &room));
		EXPECT_EQ(3, room);
		EXPECT_EQ(-EINVAL, v7_room_pages(t.w, 2, 3, &room));
		ASSERT_EQ(0, v7_finish(t.w, NULL, 0, NULL));
		ASSERT_EQ(0, rb_summarize(t.path, &s));
		EXPECT_EQ(markers_in(&t.g[0], n), s.total);
		rb_summary_free(&s);
		tw_close(&t, false);
	}
}

/* Uncompressed zero-copy path: the caller writes pages where reserve says. */
TEST(reserve_commit)
{
	struct rb_summary s;
	struct tw t;
	size_t max;
	off_t off;

	ASSERT_EQ(0, tw_open(&t, V7_COMP_NONE, 1, 0));
	gen_markers(&t.g[0], 0, 0, 500);
	ASSERT_EQ(0, v7_reserve_pages(t.w, 0, &off, &max));
	EXPECT_EQ(0, off % PS);
	ASSERT_GE(max, t.g[0].nr);
	ASSERT_EQ((ssize_t)(t.g[0].nr * PS), pwrite(t.fd, t.g[0].pages, t.g[0].nr * PS, off));
	EXPECT_EQ(-EINVAL, v7_commit_pages(t.w, 0, max + 1));
	ASSERT_EQ(0, v7_commit_pages(t.w, 0, t.g[0].nr));
	ASSERT_EQ(0, v7_sync(t.w));
	ASSERT_EQ(0, rb_summarize(t.path, &s));
	EXPECT_EQ(500, s.total);
	rb_summary_free(&s);
	ASSERT_EQ(0, v7_finish(t.w, NULL, 0, NULL));
	ASSERT_EQ(0, rb_summarize(t.path, &s));
	EXPECT_EQ(500, s.total);
	EXPECT_TRUE(markers_ok(&s, 0, 500));
	rb_summary_free(&s);
	tw_close(&t, false);
}

/* Sub-buffers of 8 KiB (buffer_subbuf_size_kb): the page size follows header_page. */
TEST(page_size_8k)
{
	char path[] = "/tmp/v7w8k.XXXXXX";
	struct v7_params p = { 0 };
	struct rb_summary s;
	struct trace_meta m;
	struct pagegen g;
	struct v7_writer *w;
	int fd, comp, i;

	for (comp = 0; comp < 2; comp++) {
		fd = mkstemp(path);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, pg_meta(&m, 8192));
		pg_init(&g, 8192);
		for (i = 0; i < 3000; i++) {
			char text[64];

			snprintf(text, sizeof(text), "c0-%d padding text to fill pages faster", i);
			ASSERT_EQ(0, pg_add_print(&g, 1000 + i, 100, text));
		}
		pg_close(&g);
		p.fd = fd;
		p.ncpus = 1;		/* page size from the metadata */
		p.comp = comp;
		p.region_bytes = 4 << 20;
		w = v7_create(&p, &m);
		ASSERT_NE(NULL, w);
		ASSERT_EQ(0, v7_append_pages(w, 0, g.pages, g.nr));
		ASSERT_EQ(0, v7_finish(w, NULL, 0, NULL));
		ASSERT_EQ(0, rb_summarize(path, &s));
		EXPECT_EQ(3000, s.total);
		rb_summary_free(&s);
		v7_free(w);
		pg_free(&g);
		meta_free(&m);
		close(fd);
		unlink(path);
		strcpy(path, "/tmp/v7w8k.XXXXXX");
	}
}

/* No page at all: still a valid file, for the reader and for trace-cmd. */
TEST(empty_capture)
{
	struct rb_summary s;
	struct dp_file f;
	char cmd[256], *out;
	struct tw t;
	int comp;

	for (comp = 0; comp < 2; comp++) {
		ASSERT_EQ(0, tw_open(&t, comp, 3, 0));
		ASSERT_EQ(0, v7_sync(t.w));
		ASSERT_EQ(0, v7_finish(t.w, NULL, 0, NULL));
		ASSERT_EQ(0, dp_open(t.path, &f));
		EXPECT_TRUE(f.walk_ok);
		EXPECT_EQ(0, f.nr_cpus);
		EXPECT_EQ(0, f.secs[dp_find_section(&f, f.buf_sec)].size);
		dp_close(&f);
		ASSERT_EQ(0, rb_summarize(t.path, &s));
		EXPECT_EQ(0, s.total);
		rb_summary_free(&s);
		if (!access("/usr/bin/trace-cmd", X_OK)) {
			snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s 2>&1", t.path);
			out = rb_run(cmd, NULL);
			ASSERT_NE(NULL, out);
			EXPECT_NE(NULL, strstr(out, "cpus=3"));
			EXPECT_EQ(NULL, strstr(out, "rror"));
			free(out);
		}
		tw_close(&t, false);
	}
}

TEST(state_machine_and_bad_input)
{
	struct v7_params p = { .fd = -1, .page_size = PS, .ncpus = 1 };
	char bad[PS] = { 0 };
	uint64_t commit = PS, raw, file;
	struct tw t;
	size_t max;
	off_t off;

	v7_free(NULL);
	errno = 0;
	EXPECT_EQ(NULL, v7_create(&p, NULL));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, tw_open(&t, V7_COMP_ZSTD, 2, 0));
	gen_markers(&t.g[0], 0, 0, 10);
	EXPECT_EQ(-EINVAL, v7_append_pages(t.w, 2, t.g[0].pages, 1));
	EXPECT_EQ(-EINVAL, v7_append_pages(t.w, -1, t.g[0].pages, 1));
	EXPECT_EQ(-EINVAL, v7_reserve_pages(t.w, 0, &off, &max));
	EXPECT_EQ(-EINVAL, v7_commit_pages(t.w, 0, 1));
	EXPECT_EQ(-EINVAL, v7_add_option(t.w, V7_OPT_BUFFER, "x", 2));
	EXPECT_EQ(-EINVAL, v7_add_option(t.w, V7_OPT_DONE, "x", 2));
	EXPECT_EQ(-EINVAL, v7_add_option(t.w, V7_SEC_KALLSYMS, "x", 2));
	/* A page whose commit runs past the page is refused, nothing taken. */
	memcpy(bad + 8, &commit, 8);
	EXPECT_EQ(-EINVAL, v7_append_pages(t.w, 0, bad, 1));
	v7_counters(t.w, &raw, &file);
	EXPECT_EQ(0, raw);
	EXPECT_EQ(0, v7_append_pages(t.w, 0, t.g[0].pages, 1));
	v7_counters(t.w, &raw, &file);
	EXPECT_EQ(PS, raw);
	EXPECT_EQ(0, v7_finish(t.w, NULL, 0, NULL));
	EXPECT_EQ(-EINVAL, v7_finish(t.w, NULL, 0, NULL));
	EXPECT_EQ(-EINVAL, v7_sync(t.w));
	EXPECT_EQ(-EINVAL, v7_append_pages(t.w, 0, t.g[0].pages, 1));
	EXPECT_EQ(-EINVAL, v7_add_option(t.w, V7_OPT_UNAME, "x", 2));
	EXPECT_EQ(0, v7_error(t.w));
	tw_close(&t, false);
}

/* Sizes whose products would wrap: refused, not written with offsets gone round. */
TEST(sizes_that_would_wrap)
{
	struct v7_params p = { .page_size = 1U << 20, .ncpus = 1, .comp = V7_COMP_ZSTD,
			       .chunk_pages = 4096, .clock = "local", .buffer_name = "" };
	struct tw t;

	ASSERT_EQ(0, tw_open(&t, V7_COMP_NONE, 1, 0));
	p.fd = t.fd;
	/* a chunk of 4 GiB: its u32 sizes would wrap */
	errno = 0;
	EXPECT_EQ(NULL, v7_create(&p, &t.m));
	EXPECT_EQ(EINVAL, errno);
	p.page_size = 1U << 27;
	p.chunk_pages = 32;
	errno = 0;
	EXPECT_EQ(NULL, v7_create(&p, &t.m));
	EXPECT_EQ(EINVAL, errno);
	/* 4096 regions of 2^62 bytes: the 64-bit offsets would wrap */
	p.page_size = PS;
	p.chunk_pages = 0;
	p.ncpus = 4096;
	p.region_bytes = 1ULL << 62;
	errno = 0;
	EXPECT_EQ(NULL, v7_create(&p, &t.m));
	EXPECT_EQ(EFBIG, errno);
	/* a region that rounds up past 2^64 */
	p.ncpus = 1;
	p.region_bytes = UINT64_MAX - 1;
	errno = 0;
	EXPECT_EQ(NULL, v7_create(&p, &t.m));
	EXPECT_EQ(EFBIG, errno);
	tw_close(&t, false);
}

/* What the reader of truth prints: `trace-cmd report` and `trace-cmd dump`. */
TEST(trace_cmd_report_and_dump)
{
	char cmd[512], *out, *line;
	char *cpustat[2] = { "entries: 10\n", "entries: 20\n" };
	int st, comp, drops, markers, sections;
	struct tw t;

	if (access("/usr/bin/trace-cmd", X_OK))
		SKIP(return, "trace-cmd not installed");
	for (comp = 0; comp < 2; comp++) {
		ASSERT_EQ(0, tw_open(&t, comp, 2, 0));
		gen_markers(&t.g[0], 0, 0, 100);
		pg_missed(&t.g[0], 42, true);
		gen_markers(&t.g[0], 0, 100, 100);
		gen_markers(&t.g[1], 1, 0, 50);
		ASSERT_EQ(0, v7_append_pages(t.w, 0, t.g[0].pages, t.g[0].nr));
		ASSERT_EQ(0, v7_append_pages(t.w, 1, t.g[1].pages, t.g[1].nr));
		ASSERT_EQ(0, v7_add_option(t.w, V7_OPT_TRACECLOCK, t.m.trace_clock,
					   strlen(t.m.trace_clock) + 1));
		ASSERT_EQ(0, v7_add_option(t.w, V7_OPT_UNAME, "Linux h 6.18 x86_64", 20));
		ASSERT_EQ(0, v7_sync(t.w));
		ASSERT_EQ(0, v7_finish(t.w, "100 writer0\n101 writer1\n", 24, cpustat));
		snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s 2>&1", t.path);
		out = rb_run(cmd, &st);
		ASSERT_NE(NULL, out);
		markers = drops = 0;
		for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
			if (strstr(line, "padding text to fill"))
				markers++;
			if (strstr(line, "[42 EVENTS DROPPED]"))
				drops++;
			if (strstr(line, "c0-0 ") && !strstr(line, "writer0"))
				TH_LOG("comm not resolved: %s", line);
		}
		EXPECT_EQ(250, markers);
		EXPECT_EQ(1, drops);
		free(out);
		snprintf(cmd, sizeof(cmd),
			 "trace-cmd dump --summary --sections --options --flyrecord --strings -i %s 2>&1",
			 t.path);
		out = rb_run(cmd, &st);
		ASSERT_NE(NULL, out);
		EXPECT_EQ(0, WEXITSTATUS(st));
		EXPECT_EQ(NULL, strstr(out, "Unknown"));
		EXPECT_NE(NULL, strstr(out, "[9 sections]"));
		EXPECT_NE(NULL, strstr(out, "\"buffer flyrecord \""));
		EXPECT_NE(NULL, strstr(out, "[Option CPUSTAT"));
		sections = 0;
		for (line = strstr(out, "[Section "); line; line = strstr(line + 1, "[Section "))
			sections++;
		EXPECT_GE(sections, 9);
		free(out);
		tw_close(&t, false);
	}
}

/*
 * Power cut simulation. The binary is linked with --wrap for pwrite, fdatasync,
 * ftruncate and fallocate (tests/unit/rules.mk): every update of the traced file is
 * recorded with the bytes it replaced and the bytes it wrote. A power cut after
 * update k keeps what the last fdatasync before k made durable, and of the updates
 * since then any subset (the page cache writes back in any order): none, all, each
 * one alone, all but each one. Every such image must read with libtracecmd and hold,
 * on each CPU, a gap-free prefix at least as long as what the last completed durable
 * v7_sync covered.
 */
struct pc_op {
	int		trunc;		/* ftruncate, else pwrite */
	uint64_t	off;		/* pwrite: offset; ftruncate: new size */
	size_t		len;
	char		*old;		/* bytes replaced (within the old size) */
	size_t		old_len;
	char		*new;
	uint64_t	old_size;	/* file size before */
	int		barrier;	/* an fdatasync came right after this update */
};

static struct {
	int		fd;		/* the traced file, -1 = off */
	struct pc_op	*ops;
	size_t		n, cap;
	size_t		sync_end[64];	/* ops done when each v7_sync returned */
	size_t		nsync;
} pc = { .fd = -1 };

ssize_t __real_pwrite(int fd, const void *buf, size_t len, off_t off);
int __real_fdatasync(int fd);
int __real_ftruncate(int fd, off_t len);
int __real_fallocate(int fd, int mode, off_t off, off_t len);

static uint64_t pc_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : (uint64_t)st.st_size;
}

static struct pc_op *pc_add(int fd, uint64_t off, size_t len, int trunc)
{
	struct pc_op *o;
	uint64_t size = pc_size(fd), from = trunc ? off : off, to = trunc ? size : off + len;

	if (pc.n == pc.cap) {
		pc.cap = pc.cap ? pc.cap * 2 : 256;
		pc.ops = realloc(pc.ops, pc.cap * sizeof(*pc.ops));
	}
	o = &pc.ops[pc.n++];
	memset(o, 0, sizeof(*o));
	o->trunc = trunc;
	o->off = off;
	o->len = len;
	o->old_size = size;
	if (from < size) {
		o->old_len = (size_t)((to < size ? to : size) - from);
		o->old = malloc(o->old_len);
		if (pread(fd, o->old, o->old_len, (off_t)from) != (ssize_t)o->old_len)
			o->old_len = 0;
	}
	return o;
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t r;

	if (fd == pc.fd) {
		struct pc_op *o = pc_add(fd, (uint64_t)off, len, 0);

		o->new = malloc(len ? len : 1);
		memcpy(o->new, buf, len);
	}
	r = __real_pwrite(fd, buf, len, off);
	if (fd == pc.fd && r != (ssize_t)len)
		abort();	/* the model needs whole writes */
	return r;
}

int __wrap_fdatasync(int fd)
{
	if (fd == pc.fd && pc.n)
		pc.ops[pc.n - 1].barrier = 1;
	return __real_fdatasync(fd);
}

int __wrap_ftruncate(int fd, off_t len)
{
	if (fd == pc.fd)
		pc_add(fd, (uint64_t)len, 0, 1);
	return __real_ftruncate(fd, len);
}

int __wrap_fallocate(int fd, int mode, off_t off, off_t len)
{
	/* Holes are punched as zeros written, which the model can replay. */
	if (fd == pc.fd) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return __real_fallocate(fd, mode, off, len);
}

static void pc_undo(int fd, const struct pc_op *o)
{
	if (o->old_len)
		__real_pwrite(fd, o->old, o->old_len, (off_t)o->off);
	if (o->trunc || o->off + o->len > o->old_size)
		__real_ftruncate(fd, (off_t)o->old_size);
}

static void pc_redo(int fd, const struct pc_op *o)
{
	if (o->trunc)
		__real_ftruncate(fd, (off_t)o->off);
	else
		__real_pwrite(fd, o->new, o->len, (off_t)o->off);
}

/*
 * The image of a cut after update @k with @keep deciding which of the updates since
 * the last barrier reached the disk. @final is the file after every update.
 */
static void pc_image(const char *final, const char *img, size_t k,
		     int (*keep)(size_t i, size_t first, size_t k, size_t which), size_t which)
{
	size_t durable = 0, i;
	char cmd[512];
	int fd;

	snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s", final, img);
	if (system(cmd))
		abort();
	/* The fdatasync behind update k - 1 had not returned yet at this cut. */
	for (i = 0; i + 1 < k; i++)
		if (pc.ops[i].barrier)
			durable = i + 1;
	fd = open(img, O_RDWR);
	for (i = pc.n; i > durable; i--)
		pc_undo(fd, &pc.ops[i - 1]);
	for (i = durable; i < k; i++)
		if (keep(i, durable, k, which))
			pc_redo(fd, &pc.ops[i]);
	close(fd);
}

static int keep_none(size_t i, size_t first, size_t k, size_t which) { return 0; }
static int keep_all(size_t i, size_t first, size_t k, size_t which) { return 1; }
static int keep_one(size_t i, size_t first, size_t k, size_t which)
{
	return i == first + which;
}
static int keep_but_one(size_t i, size_t first, size_t k, size_t which)
{
	return i != first + which;
}

static void power_cuts(struct __test_metadata *_metadata, enum v7_compression comp)
{
	int (*const keeps[])(size_t, size_t, size_t, size_t) = {
		keep_none, keep_all, keep_one, keep_but_one,
	};
	size_t want[2][64] = { { 0 } }, k, images = 0, bad = 0;
	char img[160];
	struct tw t;
	size_t a[2] = { 0, 0 };

	tw_durable = 1;
	ASSERT_EQ(0, tw_open(&t, comp, 2, 3));
	tw_durable = 0;
	gen_markers(&t.g[0], 0, 0, 900);
	gen_markers(&t.g[1], 1, 0, 300);
	pc.fd = t.fd;
	pc.n = 0;
	pc.nsync = 0;
	/* Appends and syncs, each sync covering what was appended before it. */
	for (int round = 0; round < 6; round++) {
		for (int c = 0; c < 2; c++) {
			size_t n = (t.g[c].nr * (round + 1)) / 6 - a[c];

			ASSERT_EQ(0, v7_append_pages(t.w, c, page(&t.g[c], a[c]), n));
			a[c] += n;
		}
		ASSERT_EQ(0, v7_sync(t.w));
		want[0][pc.nsync] = markers_in(&t.g[0], a[0]);
		want[1][pc.nsync] = markers_in(&t.g[1], a[1]);
		pc.sync_end[pc.nsync++] = pc.n;
	}
	pc.fd = -1;
	snprintf(img, sizeof(img), "%s/img.dat", t.dir);
	for (k = 0; k <= pc.n; k++) {
		size_t first = 0, s_done = 0, i;

		for (i = 0; i + 1 < k; i++)
			if (pc.ops[i].barrier)
				first = i + 1;
		/* the syncs that had returned by update k */
		while (s_done < pc.nsync && pc.sync_end[s_done] <= k)
			s_done++;
		for (size_t m = 0; m < 4; m++) {
			size_t variants = m < 2 ? 1 : k - first;

			for (size_t v = 0; v < variants; v++) {
				struct rb_summary s;
				bool ok;

				pc_image(t.path, img, k, keeps[m], v);
				images++;
				memset(&s, 0, sizeof(s));
				ok = !rb_summarize(img, &s);
				for (int c = 0; ok && c < 2; c++)
					ok = markers_ok(&s, c, s.per_cpu[c]) &&
					     (!s_done || s.per_cpu[c] >= want[c][s_done - 1]);
				if (!ok && bad++ < 5)
					TH_LOG("%s: cut after update %zu of %zu (keep %zu/%zu): "
					       "%llu + %llu events, the last sync done had %zu + %zu",
					       comp ? "zstd" : "none", k, pc.n, m, v,
					       ok ? (unsigned long long)s.per_cpu[0] : 0ULL,
					       ok ? (unsigned long long)s.per_cpu[1] : 0ULL,
					       s_done ? want[0][s_done - 1] : 0,
					       s_done ? want[1][s_done - 1] : 0);
				rb_summary_free(&s);
			}
		}
	}
	TH_LOG("%s: %zu power-cut images of %zu file updates, %zu bad", comp ? "zstd" : "none",
	       images, pc.n, bad);
	EXPECT_EQ(0, bad);
	unlink(img);
	for (k = 0; k < pc.n; k++) {
		free(pc.ops[k].old);
		free(pc.ops[k].new);
	}
	free(pc.ops);
	memset(&pc, 0, sizeof(pc));
	pc.fd = -1;
	tw_close(&t, false);
}

TEST(power_cut_zstd)
{
	power_cuts(_metadata, V7_COMP_ZSTD);
}

TEST(power_cut_none)
{
	power_cuts(_metadata, V7_COMP_NONE);
}

TEST_HARNESS_MAIN
