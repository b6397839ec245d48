// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/export/fxt_export.c - trace.dat -> FXT, for the Perfetto UI.
 *
 * One streaming pass over the records in global timestamp order (a merge of the per-CPU
 * streams libtracecmd reads; memory: one record per CPU, one entry per thread seen, and
 * libtracecmd's own buffers, bounded by reopen()). Lost-event damage is repaired so that
 * Perfetto never gets an overwritten or unterminated slice (dur = -1): switch-outs that
 * were lost are written as switches to idle marked "synthetic", exits without entries are
 * dropped, entries without exits are ended, and everything open is closed at the end.
 * Mapping (shared docs/fxt-perfetto.md section 3.4 explains why):
 *   sched_switch            -> context switch record (subtype 1), int32 weights = prio,
 *                              INT32_MIN for the idle task (pid 0)
 *   sched_wakeup[_new]      -> thread wakeup record (subtype 2) with a koid "waker"
 *   irq / softirq           -> duration begin/end on the per-CPU thread "cpu-N"
 *   raw_syscalls, syscalls  -> duration begin/end on the calling thread
 *   ftrace/print, ftring/marker -> instant event, the text as string argument "text"
 *   lost events             -> instant event on the "lost events" thread
 *   anything else           -> instant event named after the event, fields as arguments
 * Thread and process names are kernel-object records, which Perfetto applies when it
 * tokenizes, before the sorted events: they must come first in the file, yet they are
 * only known after the pass. So the events go to a temporary file and the archive is
 * written as: magic, provider, init, kernel objects, then the events copied in.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxt.h"
#include "fxt_export_local.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/sandbox.h"

/*
 * Limits of the child that runs libtracecmd. Its memory is bounded by reopening the
 * input every 16 MiB of records (fxt_input.c): 2 GiB of address space is far above
 * what a real file needs, and far below what a hostile one could take.
 */
#define EXPORT_AS_LIMIT		(2ULL << 30)
#define EXPORT_CPU_BASE_S	10
#define EXPORT_CPU_S_PER_MIB	4

/* ---- archive ------------------------------------------------------------------- */

static uint64_t ticks_for_clock(const char *clock, const struct fxt_export_opts *o)
{
	static const char *const ns_clocks[] = { "local", "global", "perf", "mono", "mono_raw",
						 "boot", "tai", "uptime", "tsc2nsec" };

	if (o->ticks_per_second)
		return o->ticks_per_second;
	if (!clock)
		clock = "local";	/* files without a TRACECLOCK option */
	for (size_t i = 0; i < sizeof(ns_clocks) / sizeof(ns_clocks[0]); i++)
		if (!strcmp(clock, ns_clocks[i]))
			return 1000000000ULL;
	if (!strcmp(clock, "counter"))
		log_warn("trace clock 'counter' counts events, not time: 1 count is shown as 1 ns\n");
	else
		log_warn("trace clock '%s' has no known rate: timestamps are shown as ns "
			 "(libtracecmd already converts x86-tsc when the file has TSC2NSEC); "
			 "use --ticks-per-second to set it\n", clock);
	return 1000000000ULL;
}

/* Process and thread names first: Perfetto applies them when it tokenizes. */
static int cmp_int(const void *a, const void *b)
{
	int l = *(const int *)a, r = *(const int *)b;

	return (l > r) - (l < r);
}

static void write_prologue(struct exporter *x, struct fxtw *w)
{
	char name[32];
	int *tgids, *tids;
	size_t n = 0;

	fxtw_magic(w);
	fxtw_provider_info(w, FXT_PROVIDER_ID, FXT_PROVIDER_NAME);
	fxtw_init(w, x->st->ticks_per_second);

	fxtw_args(w);
	fxtw_kobj(w, FXT_OBJ_PROCESS, 0, "kernel");
	for (int cpu = 0; cpu < x->ncpus; cpu++) {
		snprintf(name, sizeof(name), "cpu-%d", cpu);
		fxtw_args(w);
		fxtw_arg_koid(w, "process", 0);
		fxtw_kobj(w, FXT_OBJ_THREAD, FXT_KOID_CPU_BASE + (unsigned int)cpu, name);
	}
	fxtw_args(w);
	fxtw_arg_koid(w, "process", 0);
	fxtw_kobj(w, FXT_OBJ_THREAD, FXT_KOID_LOST, "lost events");

	/* processes: every tgid once, named after its leader; then threads; in pid order */
	tgids = malloc((x->ntasks + 1) * sizeof(*tgids));
	tids = malloc((x->ntasks + 1) * sizeof(*tids));
	if (!tgids || !tids) {
		free(tgids);
		free(tids);
		x->failed = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < x->cap; i++) {
		if (x->tasks[i].tid <= 0)
			continue;
		tgids[n] = x->tasks[i].tgid;
		tids[n++] = x->tasks[i].tid;
	}
	qsort(tgids, n, sizeof(*tgids), cmp_int);
	qsort(tids, n, sizeof(*tids), cmp_int);
	for (size_t i = 0; i < n; i++) {
		if (i && tgids[i] == tgids[i - 1])
			continue;
		fxtw_args(w);
		fxtw_kobj(w, FXT_OBJ_PROCESS, (uint64_t)tgids[i], exp_process_name(x, tgids[i]));
		x->st->processes++;
	}
	for (size_t i = 0; i < n; i++) {
		struct task *t = exp_task_find(x, tids[i]);
		const char *c;

		c = t->named ? NULL : tep_data_comm_from_pid(x->tep, t->tid);
		if (c && strcmp(c, "<...>"))
			exp_task_set_comm(t, c, strlen(c));
		fxtw_args(w);
		fxtw_arg_koid(w, "process", (uint64_t)t->tgid);
		fxtw_kobj(w, FXT_OBJ_THREAD, (uint64_t)t->tid, t->comm);
		x->st->threads++;
	}
	free(tgids);
	free(tids);
}

void exp_free(struct exporter *x)
{
	if (x->evs)
		for (int i = 0; i <= x->max_id; i++)
			if (x->evs[i]) {
				free(x->evs[i]->name);
				free(x->evs[i]);
			}
	free(x->evs);
	free(x->tasks);
	free(x->cpu);
	fxtw_free(x->w);
	if (x->in)
		tracecmd_close(x->in);
}

/*
 * The archive of @in_path into @out (empty, read-write; its events first go to a
 * temporary file beside @out_path): the work done in the sandbox.
 */
static int export_to_fd(const char *in_path, const char *out_path, int out,
			const struct fxt_export_opts *opts, struct fxt_export_stats *stats)
{
	struct exporter x = { .opts = opts, .st = stats };
	struct fxtw *head = NULL;
	int tmp = -1, ret;
	struct tep_event *sw;

	x.in = tracecmd_open(in_path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!x.in) {
		log_err("export: libtracecmd cannot read %s (damaged or unsupported trace.dat)\n",
			in_path);
		return -EINVAL;
	}
	x.tep = tracecmd_get_tep(x.in);
	x.ncpus = tep_get_cpus(x.tep);
	if (x.ncpus <= 0 || x.ncpus > 65536) {
		log_err("export: %s: bad CPU count %d\n", in_path, x.ncpus);
		ret = -EINVAL;
		goto out;
	}
	stats->ticks_per_second = ticks_for_clock(tracecmd_get_trace_clock(x.in), opts);
	exp_find_machine(&x);

	/* The events' temporary file: beside the output, else in /tmp. */
	tmp = fio_open_tmp_beside(out_path, 0600);
	if (tmp < 0) {
		tmp = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (tmp < 0)
			tmp = -errno;
	}
	if (tmp < 0) {
		ret = tmp;
		log_err("export: no temporary file: %s\n", strerror(-tmp));
		goto out;
	}
	ret = exp_map_init(&x);
	if (ret)
		goto out;
	x.w = fxtw_new(tmp);
	head = fxtw_new(out);
	if (!x.w || !head) {
		ret = -ENOMEM;
		log_err("export: out of memory\n");
		goto out;
	}
	if (opts->max_strings || opts->max_threads)
		fxtw_set_table_limits(x.w, opts->max_strings ? opts->max_strings : 32767,
				      opts->max_threads);
	sw = tep_find_event_by_name(x.tep, "sched", "sched_switch");
	exp_load_state_flags(&x, sw);

	x.reopen_bytes = opts->reopen_bytes ? opts->reopen_bytes : 16ULL << 20;
	ret = exp_merge_pass(&x, in_path);
	if (ret)
		goto out;
	if (!x.failed && !fxtw_error(x.w))
		exp_close_all(&x);
	ret = x.failed ? x.failed : fxtw_finish(x.w);
	if (ret) {
		log_err("export: writing events: %s\n", strerror(-ret));
		goto out;
	}
	write_prologue(&x, head);
	ret = fxtw_finish(head);
	if (!ret)
		ret = fio_copy_fd(tmp, out);
	if (ret) {
		log_err("export: writing the archive: %s\n", strerror(-ret));
		goto out;
	}
	stats->bytes_out = fxtw_bytes(head) + fxtw_bytes(x.w);
out:
	fxtw_free(head);
	if (tmp >= 0)
		close(tmp);
	exp_free(&x);
	return ret;
}

struct export_job {
	const char			*in_path;
	const char			*out_path;
	int				out;
	const struct fxt_export_opts	*opts;
};

static int export_in_child(void *arg, void *result)
{
	const struct export_job *j = arg;

	return export_to_fd(j->in_path, j->out_path, j->out, j->opts, result);
}

/**
 * fxt_export() - write the FXT archive of a trace.dat file.
 * @in_path: trace.dat, any version and compression libtracecmd reads
 * @out_path: FXT file to create (replaced if it exists, only once complete)
 * @opts: options, all zero for the defaults
 * @stats: filled with what was read, written, repaired and dropped
 *
 * The file is checked by our own reader first (format/v7_decode.c, for v7 files);
 * libtracecmd, which a damaged file can crash or make leak, then reads it in a child
 * process with limits on memory and CPU time (util/sandbox.c). The archive is built in
 * an unnamed file beside @out_path and renamed into place when complete, so a failure
 * at any point leaves no partial output and an existing @out_path untouched.
 * Errors are logged here, where they are found.
 * Return: 0, or a negative errno.
 */
int fxt_export(const char *in_path, const char *out_path, const struct fxt_export_opts *opts,
	       struct fxt_export_stats *stats)
{
	struct export_job job = { .in_path = in_path, .out_path = out_path, .opts = opts };
	struct sandbox_limits lim = { .as_bytes = EXPORT_AS_LIMIT };
	char why[128], tmp_name[PATH_MAX] = "";
	struct stat in_sb, out_sb;
	int ret;

	memset(stats, 0, sizeof(*stats));
	ret = exp_check_input(in_path);
	if (ret)
		return ret;
	if (stat(in_path, &in_sb))
		return -errno;
	if (!stat(out_path, &out_sb) && in_sb.st_dev == out_sb.st_dev &&
	    in_sb.st_ino == out_sb.st_ino) {
		log_err("export: %s is the input: not overwriting it\n", out_path);
		return -EINVAL;
	}
	/* unnamed until complete (a hidden name without O_TMPFILE) */
	job.out = fio_create_beside(out_path, 0644, tmp_name, sizeof(tmp_name));
	if (job.out < 0) {
		log_err("export: cannot create %s: %s\n", out_path, strerror(-job.out));
		return job.out;
	}
	/* Generous for any real file: export reads ~50 MiB/s; a loop ends here. */
	lim.cpu_seconds = EXPORT_CPU_BASE_S + EXPORT_CPU_S_PER_MIB * ((uint64_t)in_sb.st_size >> 20);
	ret = sandbox_run(export_in_child, &job, stats, sizeof(*stats), &lim, why, sizeof(why));
	if (ret == -ECHILD)
		log_err("export: reading %s failed: libtracecmd was %s; the file is damaged "
			"(`recorderd recover` may repair it)\n", in_path, why);
	if (!ret) {
		ret = fio_publish_fd(job.out, tmp_name, out_path);
		if (ret)
			log_err("export: cannot write %s: %s\n", out_path, strerror(-ret));
	}
	if (ret && tmp_name[0])
		unlink(tmp_name);
	close(job.out);
	return ret;
}
