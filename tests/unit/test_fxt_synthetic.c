// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter on trace.dat files made here (tests/lib/pagegen + recorder/v7_writer):
 * - repairs of what lost events leave behind: a switch-out never seen, a thread switched
 *   in on a second CPU, irq and syscall entries without exits and exits without entries,
 *   a page after lost events. The FXT must keep Perfetto's invariants (one open sched
 *   slice per thread, one thread per CPU, balanced slices) and say what it repaired;
 * - the module's events: ftring/marker text, and FXT records written from user space
 *   (ftring/fxt, see common/fxt_validate.h), copied when valid, dropped when not.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "fxt.h"
#include "export/fxt_export.h"
#include "fxt_validate.h"
#include "ftrace_page.h"
#include "util/log.h"
#include "format/v7_writer.h"
#include "../lib/fxt_decode.h"
#include "../lib/evformats.h"
#include "../lib/pagegen.h"

#define PS		4096
#define ID_SWITCH	EVF_ID_SWITCH
#define ID_IRQ_ENTRY	EVF_ID_IRQ_ENTRY
#define ID_IRQ_EXIT	EVF_ID_IRQ_EXIT
#define ID_SYS_ENTER	EVF_ID_SYS_ENTER
#define ID_SYS_EXIT	EVF_ID_SYS_EXIT
#define ID_MARKER	EVF_ID_MARKER
#define ID_FXT		EVF_ID_FXT

static void put_common(unsigned char *r, int type, int pid)
{
	struct ftp_entry e = { .type = (unsigned short)type, .pid = pid };

	memcpy(r, &e, 8);
}

static void sw(struct pagegen *g, uint64_t ts, int cpu_pid, int prev, long state, int next)
{
	unsigned char r[64] = { 0 };
	int prio = 120;

	put_common(r, ID_SWITCH, cpu_pid);
	snprintf((char *)r + 8, 16, "t%d", prev);
	memcpy(r + 24, &prev, 4);
	memcpy(r + 28, &prio, 4);
	memcpy(r + 32, &state, 8);
	snprintf((char *)r + 40, 16, "t%d", next);
	memcpy(r + 56, &next, 4);
	memcpy(r + 60, &prio, 4);
	pg_add(g, ts, r, sizeof(r));
}

static void irq(struct pagegen *g, uint64_t ts, int pid, int entry, int nr)
{
	unsigned char r[24] = { 0 };
	uint32_t loc = (4u << 16) | 16;		/* "eth" + NUL at offset 16 */

	put_common(r, entry ? ID_IRQ_ENTRY : ID_IRQ_EXIT, pid);
	memcpy(r + 8, &nr, 4);
	if (entry) {
		memcpy(r + 12, &loc, 4);
		memcpy(r + 16, "eth", 4);
	}
	pg_add(g, ts, r, entry ? 20 : 16);
}

static void sys(struct pagegen *g, uint64_t ts, int pid, int enter, long nr)
{
	unsigned char r[64] = { 0 };
	long ret = 0;

	put_common(r, enter ? ID_SYS_ENTER : ID_SYS_EXIT, pid);
	memcpy(r + 8, &nr, 8);
	if (!enter)
		memcpy(r + 16, &ret, 8);
	pg_add(g, ts, r, enter ? 64 : 24);
}

/* A module event: pid, then a __data_loc byte array at offset 16. */
static void dyn(struct pagegen *g, uint64_t ts, int type, int pid, const void *data,
		uint32_t len)
{
	unsigned char r[1024] = { 0 };
	uint32_t loc = (len << 16) | 16;

	put_common(r, type, pid);
	memcpy(r + 8, &pid, 4);
	memcpy(r + 12, &loc, 4);
	memcpy(r + 16, data, len);
	pg_add(g, ts, r, 16 + len);
}

static int write_dat(const char *path, struct trace_meta *m, struct pagegen *g, int ncpus)
{
	struct v7_params p = { 0 };
	struct v7_writer *w;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), ret = -1;

	if (fd < 0)
		return -1;
	p.fd = fd;
	p.page_size = PS;
	p.ncpus = ncpus;
	p.comp = V7_COMP_NONE;
	p.region_bytes = 1 << 20;
	p.clock = "local";
	p.buffer_name = "";
	w = v7_create(&p, m);
	if (w) {
		ret = 0;
		for (int c = 0; c < ncpus && !ret; c++)
			ret = v7_append_pages(w, c, g[c].pages, g[c].nr);
		if (!ret)
			ret = v7_finish(w, NULL, 0, NULL);
		v7_free(w);
	}
	close(fd);
	return ret;
}

struct seen {
	int	real, synthetic, begins, ends, lost, bad;
	int	cur[2];
	int	run[1000];	/* tid -> cpu + 1 */
	int	depth[1000];	/* tid (cpu-N: 900 + N) -> open slices */
	int64_t	lost_count;
	char	log[1024];
};

static int seen_cb(const struct fxt_dec_rec *r, void *p)
{
	struct seen *s = p;
	char *l = s->log + strlen(s->log);
	size_t room = sizeof(s->log) - (size_t)(l - s->log);

	if (r->type == FXT_REC_SCHED && r->subtype == FXT_SCHED_SWITCH) {
		int out = (int)r->out_tid, in = (int)r->in_tid, c = (int)r->cpu;

		if (fxt_dec_arg(r, "synthetic"))
			s->synthetic++;
		else
			s->real++;
		snprintf(l, room, "%s%llu:%d:%d>%d ", fxt_dec_arg(r, "synthetic") ? "*" : "",
			 (unsigned long long)r->ts, c, out, in);
		if (s->cur[c] > 0 && s->cur[c] != out)
			s->bad++;
		if (out > 0 && s->run[out] && s->run[out] != c + 1)
			s->bad++;
		if (in > 0 && s->run[in])
			s->bad++;
		if (out > 0)
			s->run[out] = 0;
		if (in > 0)
			s->run[in] = c + 1;
		s->cur[c] = in;
	} else if (r->type == FXT_REC_EVENT) {
		int slot = r->tid >= FXT_KOID_CPU_BASE ? 900 + (int)(r->tid - FXT_KOID_CPU_BASE) :
			   (int)r->tid;

		if (r->tid == FXT_KOID_LOST) {
			s->lost++;
			s->lost_count = (int64_t)fxt_dec_arg(r, "count")->u;
		} else if (r->subtype == FXT_EV_DURATION_BEGIN) {
			s->begins++;
			s->depth[slot]++;
		} else if (r->subtype == FXT_EV_DURATION_END) {
			s->ends++;
			if (--s->depth[slot] < 0)
				s->bad++;
		}
	}
	return 0;
}

TEST(repairs)
{
	char dir[] = "/tmp/fxt_repair.XXXXXX", in[64], out[64], err[256];
	struct fxt_export_opts o = { 0 };
	struct fxt_export_stats st;
	struct trace_meta m;
	struct pagegen g[2];
	struct seen *s = calloc(1, sizeof(*s));

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/in.dat", dir);
	snprintf(out, sizeof(out), "%s/out.fxt", dir);
	ASSERT_EQ(0, pg_meta(&m, PS));
	ASSERT_EQ(0, evf_add_all(&m));
	pg_init(&g[0], PS);
	pg_init(&g[1], PS);

	/* CPU 0 */
	sw(&g[0], 1000, 0, 0, 0, 100);
	sys(&g[0], 1050, 100, 1, 0);		/* read ... */
	sys(&g[0], 1060, 100, 1, 1);		/* write: read's exit lost -> end it here */
	sys(&g[0], 1070, 100, 0, 1);
	sys(&g[0], 1080, 100, 0, 1);		/* exit without entry -> dropped */
	irq(&g[0], 1100, 100, 1, 5);
	irq(&g[0], 1200, 100, 1, 6);		/* irq 5's exit lost -> end it here */
	irq(&g[0], 1300, 100, 0, 6);
	irq(&g[0], 1400, 100, 0, 6);		/* exit without entry -> dropped */
	sw(&g[0], 2000, 0, 0, 0, 200);		/* prev 0, but 100 ran: its switch-out lost */
	irq(&g[0], 2100, 200, 1, 7);		/* open when events are lost below */
	pg_missed(&g[0], 10, true);
	sw(&g[0], 3500, 400, 400, 1, 0);	/* 10 lost, CPU 0's thread unknown: accepted */
	pg_close(&g[0]);
	/* CPU 1 */
	sw(&g[1], 1500, 0, 0, 0, 300);
	sw(&g[1], 2500, 0, 0, 0, 200);		/* 300's switch-out lost; 200 still on CPU 0 */
	sw(&g[1], 3000, 200, 200, 1, 0);
	sw(&g[1], 3600, 0, 0, 0, 500);		/* still running at the end: switched out */
	pg_close(&g[1]);

	ASSERT_EQ(0, write_dat(in, &m, g, 2));

	log_max_level = LOG_LVL_ERR;
	ASSERT_EQ(0, fxt_export(in, out, &o, &st));
	ASSERT_EQ(0, fxt_decode_file(out, FXT_DEC_OURS, seen_cb, s, NULL, err, sizeof(err)))
		TH_LOG("%s", err);
	TH_LOG("switches: %s", s->log);
	EXPECT_EQ(7, s->real);
	/* 100 on CPU 0 (2000); 300 on CPU 1 and 200 on CPU 0 (2500); 500 at the end */
	EXPECT_EQ(4, s->synthetic);
	EXPECT_EQ(0, s->bad);
	EXPECT_EQ(0, s->cur[0]);
	EXPECT_EQ(0, s->cur[1]);
	for (int i = 0; i < 1000; i++) {
		EXPECT_EQ(0, s->depth[i]) TH_LOG("slot %d left open", i);
	}
	/* syscalls 0, 1; irqs 5, 6, 7 begin; every one ends */
	EXPECT_EQ(5, s->begins);
	EXPECT_EQ(5, s->ends);
	EXPECT_EQ(1, s->lost);
	EXPECT_EQ(10, s->lost_count);
	EXPECT_EQ(2ULL, st.dropped);	/* the two exits without an entry */
	EXPECT_EQ(1ULL, st.lost_ranges);

	meta_free(&m);
	pg_free(&g[0]);
	pg_free(&g[1]);
	if (getenv("FXT_KEEP")) {
		TH_LOG("kept %s", dir);
	} else {
		unlink(in);
		unlink(out);
		rmdir(dir);
	}
	free(s);
}

struct carried {
	int	markers, fxt, other;
	char	text[64];
	uint64_t ts, end, pid, tid;
	char	name[32], arg[32];
};

static int carried_cb(const struct fxt_dec_rec *r, void *p)
{
	struct carried *c = p;
	const struct fxt_dec_arg *a;

	if (r->type != FXT_REC_EVENT)
		return 0;
	if (!strcmp(r->category, "ftring") && !strcmp(r->name, "marker")) {
		a = fxt_dec_arg(r, "text");
		snprintf(c->text, sizeof(c->text), "%s", a ? a->str : "?");
		c->markers++;
	} else if (!strcmp(r->category, "app")) {
		c->fxt++;
		c->ts = r->ts;
		c->end = r->extra;
		c->pid = r->pid;
		c->tid = r->tid;
		snprintf(c->name, sizeof(c->name), "%s", r->name);
		a = fxt_dec_arg(r, "k");
		snprintf(c->arg, sizeof(c->arg), "%s", a && a->str ? a->str : "?");
	} else {
		c->other++;
	}
	return 0;
}

TEST(module_events)
{
	char dir[] = "/tmp/fxt_module.XXXXXX", in[64], out[64], err[256];
	struct fxt_export_opts o = { 0 };
	struct fxt_export_stats st;
	struct carried c = { 0 };
	struct trace_meta m;
	struct pagegen g[1];
	uint64_t rec[10];

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/in.dat", dir);
	snprintf(out, sizeof(out), "%s/out.fxt", dir);
	ASSERT_EQ(0, pg_meta(&m, PS));
	ASSERT_EQ(0, evf_add_all(&m));
	pg_init(&g[0], PS);
	dyn(&g[0], 5000, ID_MARKER, 42, "hello from ftring\n", 19);
	/* complete event app/op, 100..130 in the writer's clock, thread words left zero */
	rec[0] = fxt_event_hdr(10, FXT_EV_DURATION_COMPLETE, 1, 0, 0x8003, 0x8002);
	rec[1] = 100;
	rec[2] = 0;
	rec[3] = 0;
	rec[4] = 0x707061;				/* "app" */
	rec[5] = 0x706f;				/* "op" */
	rec[6] = fxt_arg_hdr(FXT_ARG_STRING, 3, 0x8001, 0x8001);
	rec[7] = 'k';
	rec[8] = 'v';
	rec[9] = 130;
	ASSERT_EQ(FXT_V_OK, fxt_validate(rec, sizeof(rec), NULL));
	dyn(&g[0], 6000, ID_FXT, 42, rec, sizeof(rec));
	rec[0] |= 1ULL << 24;				/* thread index 1: not ours */
	dyn(&g[0], 7000, ID_FXT, 42, rec, sizeof(rec));
	pg_close(&g[0]);
	ASSERT_EQ(0, write_dat(in, &m, g, 1));

	log_max_level = LOG_LVL_ERR;
	ASSERT_EQ(0, fxt_export(in, out, &o, &st));
	ASSERT_EQ(0, fxt_decode_file(out, FXT_DEC_OURS, carried_cb, &c, NULL, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(1, c.markers);
	EXPECT_STREQ("hello from ftring", c.text);
	EXPECT_EQ(1, c.fxt);
	EXPECT_EQ(1ULL, st.fxt_passthrough);
	EXPECT_EQ(1ULL, st.dropped);
	/* re-stamped with the ring buffer's time, its length kept */
	EXPECT_EQ(6000ULL, c.ts);
	EXPECT_EQ(6030ULL, c.end);
	/* attributed to the writer */
	EXPECT_EQ(42ULL, c.pid);
	EXPECT_EQ(42ULL, c.tid);
	EXPECT_STREQ("op", c.name);
	EXPECT_STREQ("v", c.arg);
	EXPECT_EQ(0, c.other);

	meta_free(&m);
	pg_free(&g[0]);
	unlink(in);
	unlink(out);
	rmdir(dir);
}

struct texts {
	int	n;
	char	t[4][64];
};

static int texts_cb(const struct fxt_dec_rec *r, void *p)
{
	struct texts *x = p;
	const struct fxt_dec_arg *a;

	if (r->type != FXT_REC_EVENT || strcmp(r->name, "marker") || x->n >= 4)
		return 0;
	a = fxt_dec_arg(r, "text");
	snprintf(x->t[x->n++], sizeof(x->t[0]), "%s", a && a->str ? a->str : "?");
	return 0;
}

/*
 * A record whose __data_loc word points past its own end (a damaged or hostile file):
 * the field is not read (empty text), and nothing beyond the record leaks into the
 * output. The next record of the page holds the bytes an unchecked read would take.
 */
TEST(data_loc_outside_record)
{
	char dir[] = "/tmp/fxt_dataloc.XXXXXX", in[64], out[64], err[256];
	struct fxt_export_opts o = { 0 };
	struct fxt_export_stats st;
	struct texts t = { 0 };
	unsigned char r[24] = { 0 };
	uint32_t loc = (200u << 16) | 16;	/* 200 bytes at 16, in a 24-byte record */
	int pid = 42;
	struct trace_meta m;
	struct pagegen g[1];

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/in.dat", dir);
	snprintf(out, sizeof(out), "%s/out.fxt", dir);
	ASSERT_EQ(0, pg_meta(&m, PS));
	ASSERT_EQ(0, evf_add_all(&m));
	pg_init(&g[0], PS);
	put_common(r, ID_MARKER, pid);
	memcpy(r + 8, &pid, 4);
	memcpy(r + 12, &loc, 4);
	memcpy(r + 16, "AAAAAAAA", 8);		/* no NUL inside the record */
	pg_add(&g[0], 5000, r, sizeof(r));
	dyn(&g[0], 6000, ID_MARKER, 42, "second\n", 8);
	pg_close(&g[0]);
	ASSERT_EQ(0, write_dat(in, &m, g, 1));

	log_max_level = LOG_LVL_ERR;
	ASSERT_EQ(0, fxt_export(in, out, &o, &st));
	ASSERT_EQ(0, fxt_decode_file(out, FXT_DEC_OURS, texts_cb, &t, NULL, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(2, t.n);
	EXPECT_STREQ("", t.t[0]);
	EXPECT_STREQ("second", t.t[1]);

	meta_free(&m);
	pg_free(&g[0]);
	unlink(in);
	unlink(out);
	rmdir(dir);
}

TEST_HARNESS_MAIN
