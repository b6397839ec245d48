// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat -> FXT -> strict decoder, compared with what libtracecmd reads from the same
 * trace.dat: counts per kind, the context switch sequence, marker texts, thread names,
 * balanced slices (no dur = -1 in Perfetto), lost-event notices; golden files for fixed
 * inputs (byte for byte; FXT_REGEN=1 rewrites them); the third-party FXT file; errors.
 *
 * Inputs: the shared fixtures (rb_shared_dir(): $FTRING_SHARED, else <repo top>/../shared)
 * and the .dat files in tests/data/fxt. The repo top is found from this binary
 * (build/tests/..).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "kselftest_harness.h"
#include "../lib/harness_skip.h"

#include "fxt.h"
#include "export/fxt_export.h"
#include "util/log.h"
#include "../lib/fxt_decode.h"
#include "../lib/readback.h"

#define MAX_SW	100000
#define MAX_TID	(1 << 22)	/* pid_max limit */

static char top_dir[1024], shared_dir[1100];

static int exists(const char *p)
{
	struct stat sb;

	return !stat(p, &sb);
}

static void find_dirs(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *shared = rb_shared_dir();

	if (n > 0) {
		exe[n] = 0;
		/* build/tests/test_fxt_export -> repo top */
		for (int i = 0; i < 3; i++) {
			char *s = strrchr(exe, '/');

			if (s)
				*s = 0;
		}
		snprintf(top_dir, sizeof(top_dir), "%.1000s", exe);
	}
	/* none found: the fixtures' paths do not exist and their tests skip */
	snprintf(shared_dir, sizeof(shared_dir), "%.1000s", shared ? shared : "/nonexistent");
}

struct sw {
	int	cpu, out, in;
};

/* What libtracecmd reads. */
struct expect {
	struct tep_handle *tep;
	int	switches, wakeups, prints, irqs, softirqs, sys_enters, lost, records;
	struct sw *sw;
	char	**texts;
	char	(*comm)[17];	/* by tid: last comm seen in sched_switch/sched_wakeup */
	uint64_t first_ts;
};

static void set_comm(struct expect *e, int tid, const char *p, int max)
{
	if (tid > 0 && tid < MAX_TID) {
		int n = strnlen(p, max < 16 ? max : 16);

		if (n) {
			memcpy(e->comm[tid], p, n);
			e->comm[tid][n] = 0;
		}
	}
}

static int count_cb(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	struct expect *e = data;
	struct tep_event *ev = tep_find_event(e->tep, tep_data_type(e->tep, r));
	unsigned long long v, w;
	struct tep_format_field *f;

	if (!e->records++)
		e->first_ts = r->ts;
	if (r->missed_events)
		e->lost++;
	if (!ev)
		return 0;
	if (!strcmp(ev->name, "sched_switch")) {
		tep_read_number_field(tep_find_field(ev, "prev_pid"), r->data, &v);
		tep_read_number_field(tep_find_field(ev, "next_pid"), r->data, &w);
		if (e->switches < MAX_SW)
			e->sw[e->switches] = (struct sw){ r->cpu, (int)v, (int)w };
		f = tep_find_field(ev, "prev_comm");
		set_comm(e, (int)v, (char *)r->data + f->offset, f->size);
		f = tep_find_field(ev, "next_comm");
		set_comm(e, (int)w, (char *)r->data + f->offset, f->size);
		e->switches++;
	} else if (!strcmp(ev->name, "sched_wakeup") || !strcmp(ev->name, "sched_wakeup_new")) {
		tep_read_number_field(tep_find_field(ev, "pid"), r->data, &v);
		f = tep_find_field(ev, "comm");
		set_comm(e, (int)v, (char *)r->data + f->offset, f->size);
		e->wakeups += (int)v > 0;
	} else if (!strcmp(ev->system, "ftrace") && !strcmp(ev->name, "print")) {
		int len = 0;
		char *s = tep_get_field_raw(NULL, ev, "buf", r, &len, 0);
		size_t n = s ? strnlen(s, r->size) : 0;

		while (n && s[n - 1] == '\n')
			n--;
		if (e->prints < MAX_SW)
			e->texts[e->prints] = strndup(s ? s : "", n);
		e->prints++;
	} else if (!strcmp(ev->name, "irq_handler_entry")) {
		e->irqs++;
	} else if (!strcmp(ev->name, "softirq_entry")) {
		e->softirqs++;
	} else if (!strcmp(ev->system, "raw_syscalls") && !strcmp(ev->name, "sys_enter")) {
		e->sys_enters += tep_data_pid(e->tep, r) > 0;
	}
	return 0;
}

static int expect_load(struct expect *e, const char *path)
{
	struct tracecmd_input *in = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);

	memset(e, 0, sizeof(*e));
	if (!in)
		return -1;
	e->tep = tracecmd_get_tep(in);
	e->sw = calloc(MAX_SW, sizeof(*e->sw));
	e->texts = calloc(MAX_SW, sizeof(*e->texts));
	e->comm = calloc(MAX_TID, sizeof(*e->comm));
	tracecmd_iterate_events(in, NULL, 0, count_cb, e);
	tracecmd_close(in);
	e->tep = NULL;
	return 0;
}

static void expect_free(struct expect *e)
{
	for (int i = 0; i < e->prints && i < MAX_SW; i++)
		free(e->texts[i]);
	free(e->texts);
	free(e->sw);
	free(e->comm);
}

/* What the decoder reads back, and the invariants Perfetto needs. */
struct got {
	const struct expect *e;
	int	switches, synthetic, wakeups, prints, irqs, softirqs, syscalls, lost;
	int	bad_seq, bad_text, bad_name, bad_nesting, bad_sched, names, nameless;
	int	*run_cpu;	/* by tid: CPU it runs on + 1 */
	int	*cur;		/* by cpu: running tid */
	signed char *depth;	/* by tid (and cpu pseudo threads): open slices */
	char	(*name)[17];	/* by tid: kernel object name */
	unsigned char *has_name;
	uint64_t first_ts;
	char	msg[256];
};

static int depth_slot(uint64_t tid)
{
	if (tid >= FXT_KOID_CPU_BASE && tid < FXT_KOID_CPU_BASE + 1024)
		return MAX_TID + (int)(tid - FXT_KOID_CPU_BASE);
	return tid < MAX_TID ? (int)tid : -1;
}

static int got_cb(const struct fxt_dec_rec *r, void *p)
{
	struct got *g = p;
	const struct expect *e = g->e;
	const struct fxt_dec_arg *a;

	if (r->type == FXT_REC_KERNEL_OBJ && r->subtype == FXT_OBJ_THREAD && r->koid < MAX_TID) {
		snprintf(g->name[r->koid], sizeof(g->name[0]), "%s", r->name);
		a = fxt_dec_arg(r, "process");
		g->has_name[r->koid] = a && a->type == FXT_ARG_KOID;
	}
	if ((r->type == FXT_REC_EVENT || r->type == FXT_REC_SCHED) && !g->first_ts)
		g->first_ts = r->ts;
	if (r->type == FXT_REC_SCHED && r->subtype == FXT_SCHED_SWITCH) {
		int out = (int)r->out_tid, in = (int)r->in_tid, cpu = (int)r->cpu;

		if (fxt_dec_arg(r, "synthetic")) {
			g->synthetic++;
		} else {
			int k = g->switches++;

			if (k < MAX_SW && k < e->switches &&
			    (e->sw[k].cpu != cpu || e->sw[k].out != out || e->sw[k].in != in)) {
				if (!g->bad_seq++)
					snprintf(g->msg, sizeof(g->msg),
						 "switch %d: want %d: %d->%d, got %d: %d->%d",
						 k, e->sw[k].cpu, e->sw[k].out, e->sw[k].in,
						 cpu, out, in);
			}
		}
		/* Perfetto's view: one open sched slice per thread, one thread per CPU. */
		if (cpu >= 1024 || out >= MAX_TID || in >= MAX_TID)
			return g->bad_sched++, 0;
		if (out > 0 && g->run_cpu[out] == cpu + 1)
			g->run_cpu[out] = 0;
		if (out > 0 && g->run_cpu[out] && g->run_cpu[out] != cpu + 1)
			g->bad_sched++;
		if (g->cur[cpu] > 0 && g->cur[cpu] != out)
			g->bad_sched++;
		if (in > 0 && g->run_cpu[in])
			g->bad_sched++;	/* switched in while still running elsewhere */
		if (in > 0)
			g->run_cpu[in] = cpu + 1;
		g->cur[cpu] = in;
		if (in > 0 && !g->has_name[in])
			g->nameless++;
		/* INT32_MIN marks idle, and only idle */
		a = fxt_dec_arg(r, "incoming_weight");
		if (a && (in > 0) != (a->u != 0xffffffff80000000ULL))
			g->bad_sched++;
	} else if (r->type == FXT_REC_SCHED && r->subtype == FXT_SCHED_WAKEUP) {
		g->wakeups++;
		if (!fxt_dec_arg(r, "waker") || !fxt_dec_arg(r, "weight"))
			g->bad_sched++;
	} else if (r->type == FXT_REC_EVENT) {
		int slot = depth_slot(r->tid);

		if (r->subtype == FXT_EV_DURATION_BEGIN || r->subtype == FXT_EV_DURATION_END) {
			if (slot < 0)
				return g->bad_nesting++, 0;
			g->depth[slot] += r->subtype == FXT_EV_DURATION_BEGIN ? 1 : -1;
			if (g->depth[slot] < 0)
				g->bad_nesting++;
		}
		if (r->subtype == FXT_EV_DURATION_BEGIN) {
			g->irqs += !strcmp(r->category, "irq");
			g->softirqs += !strcmp(r->category, "softirq");
			g->syscalls += !strcmp(r->category, "syscall");
		}
		if (r->subtype == FXT_EV_INSTANT && !strcmp(r->category, "ftrace") &&
		    !strcmp(r->name, "print")) {
			a = fxt_dec_arg(r, "text");
			if (!a || a->type != FXT_ARG_STRING ||
			    (g->prints < e->prints && g->prints < MAX_SW &&
			     strcmp(a->str, e->texts[g->prints])))
				g->bad_text++;
			g->prints++;
		}
		if (r->subtype == FXT_EV_INSTANT && r->tid == FXT_KOID_LOST)
			g->lost++;
	}
	return 0;
}

static int check_export(struct __test_metadata *_metadata, const char *in, const char *out,
			const struct fxt_export_opts *o)
{
	struct fxt_export_stats st;
	struct fxt_dec_summary sum;
	struct expect e;
	struct got g = { .e = &e };
	char err[256];
	int ret;

	ret = fxt_export(in, out, o, &st);
	EXPECT_EQ(0, ret);
	if (ret)
		return ret;
	EXPECT_EQ(0, expect_load(&e, in));
	g.run_cpu = calloc(MAX_TID, sizeof(int));
	g.cur = calloc(1024, sizeof(int));
	g.depth = calloc(MAX_TID + 1024, 1);
	g.name = calloc(MAX_TID, sizeof(*g.name));
	g.has_name = calloc(MAX_TID, 1);
	ret = fxt_decode_file(out, FXT_DEC_OURS, got_cb, &g, &sum, err, sizeof(err));
	EXPECT_EQ(0, ret) TH_LOG("decoder: %s", err);

	TH_LOG("%s: %d records: %d switches (+%d repaired), %d wakeups, %d prints, %d irq, "
	       "%d softirq, %d syscalls, %d lost", in, e.records, g.switches, g.synthetic,
	       g.wakeups, g.prints, g.irqs, g.softirqs, g.syscalls, g.lost);
	EXPECT_EQ((uint64_t)e.records, st.records_in);
	EXPECT_EQ(e.switches, g.switches);
	EXPECT_EQ(0, g.bad_seq) TH_LOG("%s", g.msg);
	EXPECT_EQ(e.wakeups, g.wakeups);
	EXPECT_EQ(e.prints, g.prints);
	EXPECT_EQ(0, g.bad_text);
	EXPECT_EQ(e.irqs, g.irqs);
	EXPECT_EQ(e.softirqs, g.softirqs);
	EXPECT_EQ(e.sys_enters, g.syscalls);
	EXPECT_EQ(e.lost, g.lost);
	EXPECT_EQ(e.first_ts, g.first_ts);
	EXPECT_EQ(1000000000ULL, sum.ticks_per_second);
	/* Perfetto invariants: no sched or thread slice left open or overwritten */
	EXPECT_EQ(0, g.bad_sched);
	EXPECT_EQ(0, g.bad_nesting);
	for (int cpu = 0; cpu < 1024; cpu++)
		if (g.cur[cpu] > 0)
			g.bad_sched++;
	for (int i = 0; i < MAX_TID + 1024; i++)
		if (g.depth[i])
			g.bad_nesting++;
	EXPECT_EQ(0, g.bad_sched) TH_LOG("a CPU still runs a thread at the end");
	EXPECT_EQ(0, g.bad_nesting) TH_LOG("a slice is still open at the end");
	/* every scheduled thread is named as libtracecmd names it, with its process */
	EXPECT_EQ(0, g.nameless);
	for (int i = 0; i < e.switches && i < MAX_SW; i++) {
		int t = e.sw[i].in;

		if (t > 0 && strcmp(g.name[t], e.comm[t]) && !g.bad_name++)
			TH_LOG("thread %d: name '%s', libtracecmd says '%s'", t, g.name[t],
			       e.comm[t]);
	}
	EXPECT_EQ(0, g.bad_name);
	/* + "kernel"; + one "cpu-N" per CPU and "lost events" */
	EXPECT_EQ(st.processes + 1, sum.kobj_process);
	EXPECT_LT(st.threads + 2, sum.kobj_thread + 1);

	free(g.run_cpu);
	free(g.cur);
	free(g.depth);
	free(g.name);
	free(g.has_name);
	expect_free(&e);
	return 0;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	const char *t = getenv("TMPDIR");

	snprintf(buf, len, "%s/test_fxt_export.%d.%s", t && *t ? t : "/tmp", (int)getpid(), name);
}

FIXTURE(input) {
	char	in[PATH_MAX];
	char	out[PATH_MAX];
	char	golden[PATH_MAX];
};

FIXTURE_VARIANT(input) {
	const char	*file;		/* under shared/fixtures or tests/data/fxt */
	int		shared;
	const char	*golden;	/* tests/data/fxt/NAME.fxt */
};

FIXTURE_VARIANT_ADD(input, host_zstd) {
	.file = "host-6.18-zstd.dat", .shared = 1, .golden = "host-6.18-zstd.fxt",
};

FIXTURE_VARIANT_ADD(input, host_none) {
	.file = "host-6.18-none.dat", .shared = 1, .golden = "host-6.18-zstd.fxt",
};

FIXTURE_VARIANT_ADD(input, vm_6_1) {
	.file = "vm-6.1-zstd.dat", .shared = 1, .golden = "vm-6.1-zstd.fxt",
};

FIXTURE_VARIANT_ADD(input, irq_syscalls_lost) {
	.file = "host-irq-syscalls.dat", .shared = 0, .golden = "host-irq-syscalls.fxt",
};

FIXTURE_SETUP(input)
{
	find_dirs();
	if (variant->shared)
		snprintf(self->in, sizeof(self->in), "%s/fixtures/%s", shared_dir, variant->file);
	else
		snprintf(self->in, sizeof(self->in), "%s/tests/data/fxt/%s", top_dir,
			 variant->file);
	snprintf(self->golden, sizeof(self->golden), "%s/tests/data/fxt/%s", top_dir,
		 variant->golden);
	tmp_path(self->out, sizeof(self->out), variant->golden);
	log_max_level = LOG_LVL_ERR;
	if (!exists(self->in))
		SKIP(return, "%s missing (set FTRING_SHARED to the shared/ directory)",
		     variant->file);
}

FIXTURE_TEARDOWN(input)
{
	unlink(self->out);
}

/* Round trip against libtracecmd's own reading of the file. */
TEST_F(input, round_trip)
{
	struct fxt_export_opts o = { 0 };

	if (setup_skipped(_metadata))
		return;

	check_export(_metadata, self->in, self->out, &o);
}

/* Tiny tables: every string and thread index is reused many times on real data. */
TEST_F(input, small_tables)
{
	struct fxt_export_opts o = { .max_strings = 32, .max_threads = 3 };

	if (setup_skipped(_metadata))
		return;

	check_export(_metadata, self->in, self->out, &o);
}

static int read_all(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*buf = malloc(n + 1);
	*len = fread(*buf, 1, n, f);
	fclose(f);
	return *len == (size_t)n ? 0 : -1;
}

/* Fixed input, fixed output. FXT_REGEN=1 rewrites the golden file instead. */
TEST_F(input, golden)
{
	struct fxt_export_opts o = { 0 };
	struct fxt_export_stats st;
	char *got, *want;
	size_t glen, wlen;
	const char *regen = getenv("FXT_REGEN");

	if (setup_skipped(_metadata))
		return;

	ASSERT_EQ(0, fxt_export(self->in, self->out, &o, &st));
	if (regen && !strcmp(regen, "1")) {
		ASSERT_EQ(0, fxt_export(self->in, self->golden, &o, &st));
		TH_LOG("rewrote %s", self->golden);
		return;
	}
	ASSERT_TRUE(exists(self->golden)) TH_LOG("%s missing: run tests/data/fxt/regen",
						  self->golden);
	ASSERT_EQ(0, read_all(self->out, &got, &glen));
	ASSERT_EQ(0, read_all(self->golden, &want, &wlen));
	EXPECT_EQ(wlen, glen);
	EXPECT_EQ(0, memcmp(got, want, glen < wlen ? glen : wlen))
		TH_LOG("%s differs from %s", self->out, self->golden);
	free(got);
	free(want);
}

/* Reopening the input every few KiB (see reopen()) changes nothing in the output. */
TEST_F(input, reopen_same_bytes)
{
	struct fxt_export_opts o = { .reopen_bytes = 8192 };
	struct fxt_export_stats st;
	char *got, *want;
	size_t glen, wlen;

	if (setup_skipped(_metadata))
		return;

	if (!exists(self->golden))
		SKIP(return, "no golden file yet");
	ASSERT_EQ(0, fxt_export(self->in, self->out, &o, &st));
	ASSERT_EQ(0, read_all(self->out, &got, &glen));
	ASSERT_EQ(0, read_all(self->golden, &want, &wlen));
	EXPECT_EQ(wlen, glen);
	EXPECT_EQ(0, memcmp(got, want, glen < wlen ? glen : wlen));
	free(got);
	free(want);
}

/* A v6 file (trace-cmd convert) exports to the same bytes as its v7 original. */
TEST(v6_same_as_v7)
{
	char in[PATH_MAX], v6[PATH_MAX], a[PATH_MAX], b[PATH_MAX], cmd[4 * PATH_MAX];
	struct fxt_export_opts o = { 0 };
	struct fxt_export_stats st;
	char *x, *y;
	size_t xl, yl;

	find_dirs();
	log_max_level = LOG_LVL_ERR;
	snprintf(in, sizeof(in), "%s/fixtures/host-6.18-zstd.dat", shared_dir);
	if (!exists(in))
		SKIP(return, "shared fixtures missing (set FTRING_SHARED)");
	if (system("command -v trace-cmd >/dev/null 2>&1"))
		SKIP(return, "no trace-cmd to write a v6 file");
	tmp_path(v6, sizeof(v6), "v6.dat");
	tmp_path(a, sizeof(a), "a.fxt");
	tmp_path(b, sizeof(b), "b.fxt");
	snprintf(cmd, sizeof(cmd), "trace-cmd convert --file-version 6 -i '%s' -o '%s' "
		 ">/dev/null 2>&1", in, v6);
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(0, fxt_export(in, a, &o, &st));
	EXPECT_EQ(0, fxt_export(v6, b, &o, &st));
	ASSERT_EQ(0, read_all(a, &x, &xl));
	ASSERT_EQ(0, read_all(b, &y, &yl));
	EXPECT_EQ(xl, yl);
	EXPECT_EQ(0, memcmp(x, y, xl < yl ? xl : yl));
	free(x);
	free(y);
	unlink(v6);
	unlink(a);
	unlink(b);
}

/* A file written by somebody else's FXT writer walks cleanly. */
TEST(third_party_fxt)
{
	char in[PATH_MAX], err[256];
	struct fxt_dec_summary s;

	find_dirs();
	snprintf(in, sizeof(in), "%s/fixtures/third-party-janestreet.fxt", shared_dir);
	if (!exists(in))
		SKIP(return, "shared fixtures missing (set FTRING_SHARED)");
	ASSERT_EQ(0, fxt_decode_file(in, 0, NULL, NULL, &s, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(35463ULL, s.records);
	EXPECT_EQ(1ULL, s.by_type[FXT_REC_INIT]);
	EXPECT_EQ(864ULL, s.by_type[FXT_REC_STRING]);
	EXPECT_EQ(1ULL, s.by_type[FXT_REC_THREAD]);
	EXPECT_EQ(s.events[FXT_EV_DURATION_BEGIN], s.events[FXT_EV_DURATION_END]);
	EXPECT_LT(34000ULL, s.events[FXT_EV_DURATION_BEGIN] + s.events[FXT_EV_DURATION_END]);
	/* but it is not ours: its initialization record has extra words */
	EXPECT_NE(0, fxt_decode_file(in, FXT_DEC_OURS, NULL, NULL, &s, err, sizeof(err)));
}

/* Bad input: a clear error, and no output file left behind. */
TEST(errors)
{
	char in[PATH_MAX], out[PATH_MAX], bad[PATH_MAX];
	struct fxt_export_opts o = { 0 };
	struct fxt_export_stats st;
	FILE *f;

	find_dirs();
	log_max_level = -1;	/* the messages are the point, but not in the test log */
	tmp_path(out, sizeof(out), "err.fxt");
	tmp_path(bad, sizeof(bad), "notdat");
	EXPECT_EQ(-ENOENT, fxt_export("/nonexistent/in.dat", out, &o, &st));
	EXPECT_FALSE(exists(out));
	f = fopen(bad, "w");
	ASSERT_NE(NULL, f);
	fputs("this is not a trace.dat file at all\n", f);
	fclose(f);
	EXPECT_EQ(-EINVAL, fxt_export(bad, out, &o, &st));
	EXPECT_FALSE(exists(out));
	/* right magic, truncated right after it */
	f = fopen(bad, "w");
	fwrite("\x17\x08\x44tracing6\0\0", 1, 13, f);
	fclose(f);
	EXPECT_EQ(-EINVAL, fxt_export(bad, out, &o, &st));
	EXPECT_FALSE(exists(out));
	unlink(bad);
	snprintf(in, sizeof(in), "%s/tests/data/fxt/host-irq-syscalls.dat", top_dir);
	if (exists(in))
		EXPECT_EQ(-ENOENT, fxt_export(in, "/nonexistent/dir/out.fxt", &o, &st));
	log_max_level = LOG_LVL_INFO;
}

TEST_HARNESS_MAIN
