// SPDX-License-Identifier: GPL-2.0
/*
 * Real pages and metadata from trace-cmd 3.1.6 files (shared/fixtures) go through our
 * writer; libtracecmd must read back from our file exactly what it reads from the
 * fixture, record by record (timestamp, CPU, type, payload bytes), and `trace-cmd
 * report` must print the same text. Pages are taken out with the independent parser
 * of tests/lib/dat_parse.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../lib/harness_skip.h"
#include "format/meta.h"
#include "format/v7_writer.h"
#include "../lib/dat_parse.h"
#include "../lib/readback.h"

static const char *const fixtures[] = {
	"host-6.18-zstd.dat", "host-6.18-none.dat", "vm-6.1-zstd.dat",
};

/* Options the recorder would add itself, copied from the fixture. */
static const uint16_t copied_opts[] = {
	V7_OPT_TRACECLOCK, V7_OPT_UNAME, V7_OPT_VERSION, V7_OPT_TRACEID,
};

static int rewrite(struct __test_metadata *_metadata, const char *src, const char *dst,
		   enum v7_compression comp, unsigned int chunk_pages)
{
	char *cpustat[DP_MAX_CPUS] = { 0 };
	struct v7_params p = { 0 };
	struct trace_meta m;
	struct v7_writer *w;
	struct dp_file f;
	const struct dp_option *o;
	unsigned char *cmd = NULL;
	size_t cmd_len = 0, i;
	int fd, ret, k, ncpus, s;

	ret = dp_open(src, &f);
	if (ret)
		return ret;
	ret = dp_meta(&f, &m);
	if (ret)
		goto out_f;
	o = dp_option(&f, V7_OPT_CPUCOUNT);
	ncpus = f.nr_cpus;
	if (o)
		memcpy(&ncpus, o->data, 4);
	fd = open(dst, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		goto out_m;
	}
	p.fd = fd;
	p.page_size = f.page_size;
	p.ncpus = ncpus;
	p.comp = comp;
	p.chunk_pages = chunk_pages;
	p.region_bytes = 16 << 20;
	p.clock = f.clock;
	p.buffer_name = f.buf_name;
	w = v7_create(&p, &m);
	if (!w) {
		ret = -errno;
		goto out_fd;
	}
	for (i = 0; i < ARRAY_SIZE(copied_opts); i++) {
		o = dp_option(&f, copied_opts[i]);
		if (o)
			ret = ret ?: v7_add_option(w, o->id, o->data, o->len);
	}
	for (k = 0, i = 0; k < f.nr_opts && i < DP_MAX_CPUS; k++)
		if (f.opts[k].id == V7_OPT_CPUSTAT)
			cpustat[i++] = strndup((const char *)f.opts[k].data, f.opts[k].len);
	for (k = 0; !ret && k < f.nr_cpus; k++) {
		unsigned char *pages;
		size_t len;
		uint32_t nch;

		ret = dp_cpu_pages(&f, k, &pages, &len, &nch, NULL);
		if (ret)
			break;
		/* one page at a time, with a sync in the middle: the streaming path */
		for (i = 0; !ret && i < len / f.page_size; i++) {
			ret = v7_append_pages(w, (int)f.cpus[k].cpu, pages + i * f.page_size, 1);
			if (!ret && i == 1)
				ret = v7_sync(w);
		}
		free(pages);
	}
	o = dp_option(&f, V7_SEC_CMDLINES);
	s = -1;
	if (o) {
		uint64_t off;

		memcpy(&off, o->data, 8);
		s = dp_find_section(&f, off);
	}
	if (s >= 0 && !dp_section_body(&f, s, &cmd, &cmd_len) && cmd_len >= 8) {
		uint64_t n;

		memcpy(&n, cmd, 8);
		cmd_len = n <= cmd_len - 8 ? n : cmd_len - 8;
		memmove(cmd, cmd + 8, cmd_len);
	}
	ret = ret ?: v7_finish(w, (char *)cmd, cmd_len, cpustat);
	v7_free(w);
	free(cmd);
	for (i = 0; i < DP_MAX_CPUS; i++)
		free(cpustat[i]);
out_fd:
	close(fd);
out_m:
	meta_free(&m);
out_f:
	dp_close(&f);
	return ret;
}

static void compare(struct __test_metadata *_metadata, const char *a, const char *b)
{
	struct rb_record *ra, *rb;
	size_t na, nb, i, diff = 0;

	ASSERT_EQ(0, rb_records(a, &ra, &na));
	ASSERT_EQ(0, rb_records(b, &rb, &nb));
	ASSERT_GT(na, 0);
	ASSERT_EQ(na, nb);
	for (i = 0; i < na; i++) {
		if (ra[i].ts != rb[i].ts || ra[i].cpu != rb[i].cpu || ra[i].type != rb[i].type ||
		    ra[i].size != rb[i].size || ra[i].missed != rb[i].missed ||
		    memcmp(ra[i].data, rb[i].data, ra[i].size)) {
			if (!diff)
				TH_LOG("record %zu differs (ts %llu/%llu cpu %d/%d)", i,
				       ra[i].ts, rb[i].ts, ra[i].cpu, rb[i].cpu);
			diff++;
		}
	}
	EXPECT_EQ(0, diff);
	rb_records_free(ra, na);
	rb_records_free(rb, nb);
}

static void compare_report(struct __test_metadata *_metadata, const char *a, const char *b)
{
	char cmd[4400], *oa, *ob;

	if (access("/usr/bin/trace-cmd", X_OK))
		return;
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i '%s' 2>&1", a);
	oa = rb_run(cmd, NULL);
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i '%s' 2>&1", b);
	ob = rb_run(cmd, NULL);
	ASSERT_NE(NULL, oa);
	ASSERT_NE(NULL, ob);
	EXPECT_GT(strlen(oa), 1000);
	EXPECT_STREQ(oa, ob);
	free(oa);
	free(ob);
}

FIXTURE(fx) {
	char	dir[64];
	char	out[128];
	char	src[4200];
};

FIXTURE_VARIANT(fx) {
	int			idx;
	enum v7_compression	comp;
	unsigned int		chunk_pages;
};

FIXTURE_VARIANT_ADD(fx, host_zstd_to_zstd) { .idx = 0, .comp = V7_COMP_ZSTD, .chunk_pages = 0 };
FIXTURE_VARIANT_ADD(fx, host_zstd_to_none) { .idx = 0, .comp = V7_COMP_NONE, .chunk_pages = 0 };
FIXTURE_VARIANT_ADD(fx, host_none_to_zstd_1page) { .idx = 1, .comp = V7_COMP_ZSTD, .chunk_pages = 1 };
FIXTURE_VARIANT_ADD(fx, vm_zstd_to_zstd) { .idx = 2, .comp = V7_COMP_ZSTD, .chunk_pages = 0 };
FIXTURE_VARIANT_ADD(fx, vm_zstd_to_none) { .idx = 2, .comp = V7_COMP_NONE, .chunk_pages = 0 };

FIXTURE_SETUP(fx)
{
	const char *shared = rb_shared_dir();

	self->dir[0] = '\0';
	if (!shared)
		SKIP(return, "shared/ not found (set FTRING_SHARED)");
	snprintf(self->src, sizeof(self->src), "%s/fixtures/%s", shared, fixtures[variant->idx]);
	if (access(self->src, R_OK))
		SKIP(return, "fixture %s missing", fixtures[variant->idx]);
	snprintf(self->dir, sizeof(self->dir), "/tmp/v7fx.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->out, sizeof(self->out), "%s/out.dat", self->dir);
}

FIXTURE_TEARDOWN(fx)
{
	if (!self->dir[0])
		return;
	unlink(self->out);
	rmdir(self->dir);
}

TEST_F(fx, same_records_and_report)
{
	struct dp_file f;

	if (setup_skipped(_metadata))
		return;

	ASSERT_EQ(0, rewrite(_metadata, self->src, self->out, variant->comp,
			     variant->chunk_pages));
	ASSERT_EQ(0, dp_open(self->out, &f));
	EXPECT_TRUE(f.walk_ok);
	EXPECT_EQ(variant->comp == V7_COMP_ZSTD, f.buf_compressed);
	dp_close(&f);
	compare(_metadata, self->src, self->out);
	compare_report(_metadata, self->src, self->out);
}

/* The event counts the fixtures' README gives. */
TEST(fixture_counts)
{
	static const struct { int idx; const char *ev; uint64_t n; } want[] = {
		{ 0, "sched/sched_switch", 51 }, { 0, "sched/sched_wakeup", 40 },
		{ 0, "ftrace/print", 200 }, { 2, "sched/sched_switch", 8 },
		{ 2, "ftrace/print", 100 },
	};
	const char *shared = rb_shared_dir();
	char src[4200], out[] = "/tmp/v7fxc.XXXXXX";
	struct rb_summary s;
	size_t i;
	int fd;

	if (!shared)
		SKIP(return, "shared/ not found (set FTRING_SHARED)");
	fd = mkstemp(out);
	ASSERT_GE(fd, 0);
	close(fd);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		snprintf(src, sizeof(src), "%s/fixtures/%s", shared, fixtures[want[i].idx]);
		if (access(src, R_OK))
			continue;
		ASSERT_EQ(0, rewrite(_metadata, src, out, V7_COMP_ZSTD, 0));
		ASSERT_EQ(0, rb_summarize(out, &s));
		EXPECT_EQ(want[i].n, rb_count(&s, want[i].ev));
		rb_summary_free(&s);
	}
	unlink(out);
}

TEST_HARNESS_MAIN
