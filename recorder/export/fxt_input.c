// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the input of the exporter (fxt_export_local.h): the records of every CPU
 * merged in time order through libtracecmd, and the input reopened every reopen_bytes
 * (libtracecmd 1.3.1 never frees zstd chunks: fixed upstream in 1571b67c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxt.h"
#include "fxt_validate.h"
#include "format/v7_decode.h"
#include "fxt_export_local.h"
#include "syscall_names.h"
#include "util/log.h"

/*
 * libtracecmd 1.3.1 never frees the decompressed chunks of a compressed file (its
 * free_zpage() looks them up at the wrong offset; fixed upstream by commit 1571b67c,
 * "libtracecmd: Fix free_zpage() offset", 2024-01), so its memory grows with the trace.
 * To keep the export bounded, the pass closes the handle every reopen_bytes of records
 * and opens the file again, each CPU positioned just after the last record it gave.
 */
static int reopen(struct exporter *x, const char *path)
{
	for (int i = 0; i <= x->max_id; i++) {
		if (x->evs[i]) {
			free(x->evs[i]->name);
			free(x->evs[i]);
			x->evs[i] = NULL;
		}
	}
	tracecmd_close(x->in);
	x->in = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!x->in) {
		log_err("export: cannot open %s again\n", path);
		return -EIO;
	}
	x->tep = tracecmd_get_tep(x->in);
	if (exp_map_bind(x))
		return -EIO;
	x->bytes_since_open = 0;
	log_debug("export: reopened %s at %llu\n", path, (unsigned long long)x->last_ts);
	for (int cpu = 0; cpu < x->ncpus; cpu++) {
		struct cpu_state *c = &x->cpu[cpu];
		struct tep_record *r;
		uint64_t off, ts;

		if (!c->seen)
			continue;
		/* lands at or before the time; then read up to the last record given */
		tracecmd_set_cpu_to_timestamp(x->in, cpu, c->last_ts);
		do {
			r = tracecmd_read_data(x->in, cpu);
			if (!r) {
				log_err("export: %s: CPU %d: record at %llu not found again\n",
					path, cpu, (unsigned long long)c->last_off);
				return -EIO;
			}
			off = r->offset;
			ts = r->ts;
			tracecmd_free_record(r);
		} while (off != c->last_off && ts <= c->last_ts);
		if (off != c->last_off) {
			log_err("export: %s: CPU %d: record at %llu not found again\n", path, cpu,
				(unsigned long long)c->last_off);
			return -EIO;
		}
	}
	return 0;
}

/*
 * The records of all CPUs in timestamp order (ties: lowest CPU first), one record per CPU
 * held at a time. A merge of our own rather than tracecmd_iterate_events(): it must stop
 * and resume across reopen(), and 1.3.1's iterator frees its peeked records wrongly when
 * stopped early.
 */
int exp_merge_pass(struct exporter *x, const char *path)
{
	struct tep_record **head = calloc((size_t)x->ncpus, sizeof(*head));
	int ret = 0;

	if (!head)
		return -ENOMEM;
	for (int cpu = 0; cpu < x->ncpus; cpu++)
		head[cpu] = tracecmd_read_data(x->in, cpu);
	for (;;) {
		int best = -1;

		for (int cpu = 0; cpu < x->ncpus; cpu++)
			if (head[cpu] && (best < 0 || head[cpu]->ts < head[best]->ts))
				best = cpu;
		if (best < 0)
			break;
		ret = exp_on_record(x->in, head[best], best, x);
		tracecmd_free_record(head[best]);
		head[best] = NULL;
		if (!ret) {
			head[best] = tracecmd_read_data(x->in, best);
			continue;
		}
		ret = 0;
		if (!x->reopen)
			break;		/* x->failed or a write error: reported by the caller */
		for (int cpu = 0; cpu < x->ncpus; cpu++) {
			tracecmd_free_record(head[cpu]);
			head[cpu] = NULL;
		}
		x->reopen = 0;
		ret = reopen(x, path);
		if (ret)
			break;
		for (int cpu = 0; cpu < x->ncpus; cpu++)
			head[cpu] = tracecmd_read_data(x->in, cpu);
	}
	for (int cpu = 0; cpu < x->ncpus; cpu++)
		tracecmd_free_record(head[cpu]);
	free(head);
	return ret;
}

/* Unreadable or not a trace.dat: say which, before libtracecmd's generic failure. */
static int option_ok(const struct v7d_option *o, void *arg)
{
	return 0;
}

/*
 * Our own checks before libtracecmd sees the file: the tracing magic, and for version
 * 7 what format/v7_decode.c can prove (header, metadata sections, the tail's options),
 * so that a damaged file gets a reason rather than whatever libtracecmd makes of it.
 */
int exp_check_input(const char *path)
{
	static const char magic[10] = "\x17\x08\x44tracing";
	struct v7_file f;
	char buf[12];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	ssize_t n;

	if (fd < 0) {
		log_err("export: cannot open %s: %s\n", path, strerror(errno));
		return -errno;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	if (n != (ssize_t)sizeof(buf) || memcmp(buf, magic, sizeof(magic))) {
		log_err("export: %s is not a trace.dat file (no tracing magic)\n", path);
		close(fd);
		return -EINVAL;
	}
	if (memcmp(buf + 10, "7", 2)) {
		close(fd);
		return 0;	/* version 6: libtracecmd alone, in its sandbox */
	}
	ret = v7d_open(&f, fd);
	if (!ret && !f.opt_off) {
		ret = -EINVAL;
		snprintf(f.why, sizeof(f.why), "no options: the file was never synced");
	}
	if (!ret)
		ret = v7d_options(&f, f.opt_off, option_ok, NULL);
	if (ret)
		log_err("export: %s: %s (`recorderd recover` may repair it)\n", path, f.why);
	v7d_close(&f);
	close(fd);
	return ret;
}

/*
 * The machine the trace was taken on: the last word of the file's uname ("Linux host
 * 6.18.0 x86_64"). Without one (trace-cmd restore writes none) syscalls keep their
 * numbers: the output depends on the file only, not on where it is exported.
 */
void exp_find_machine(struct exporter *x)
{
	const char *u = tracecmd_get_uname(x->in);
	const char *sp = u ? strrchr(u, ' ') : NULL;

	if (sp && sp[1])
		snprintf(x->machine, sizeof(x->machine), "%s", sp + 1);
	else
		log_debug("export: no uname in the file: syscalls are shown by number\n");
}