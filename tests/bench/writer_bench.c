// SPDX-License-Identifier: GPL-2.0
/*
 * v7 writer benchmark: MB/s of v7_append_pages() and compression ratio for none,
 * zstd -1 and zstd -3, and a chunk-size sweep, on REAL ftrace pages. Every figure is
 * printed next to the zstd command-line tool run in the same process on the same raw
 * pages (the physical reference: one stream, 128 KiB blocks, a long window).
 *
 * Speeds are given per wall second and per CPU second (the latter barely moves with
 * other load on the machine). "read" is how fast libtracecmd (trace-cmd report,
 * KernelShark) reads every record of the finished file back, per CPU second: the
 * reader's side of the chunk-size choice.
 *
 * The size sweep puts each zstd level on the default 32-page chunks against the setting
 * trace-cmd writes its files with (level 3 on 10-page chunks, formats.md "PAGES_IN_CHUNK"):
 * file size and CPU per GB, ours/trace-cmd's, the frontier the size goal sits on.
 *
 * Pages: captured from a private tracefs instance (sched, irq, timer, workqueue,
 * raw_syscalls events while a load runs), or N 64-byte markers written into its
 * trace_marker by vm_load (--markers N: the guest recorder benchmark's stream, built
 * beside this program in build/vm/progs), or read from a file of raw pages
 * (--pages FILE, e.g. a trace_pipe_raw dump). Never a pass/fail test.
 *
 *   build/bench/writer_bench [--pages FILE | --markers N] [--mb N] [--reps N] [--dir DIR]
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trace-cmd.h>
#include <tracefs.h>

#include "ftrace_page.h"
#include "format/meta.h"
#include "format/v7_writer.h"

#define INSTANCE	"writer_bench"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct cpu_pages {
	char	*p;
	size_t	nr;
	size_t	cap;
};

static unsigned int ps = 4096;
static int ncpus;
static struct cpu_pages *cpus;
static size_t total_pages;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of this process: the figure other load on the machine barely moves. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int add_page(int cpu, const char *pg)
{
	struct cpu_pages *c = &cpus[cpu];

	if (ftp_page_len(pg) == 0 || ftp_page_len(pg) > ps - FTP_HDR_SIZE)
		return 0;
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		char *p = realloc(c->p, cap * ps);

		if (!p)
			return -ENOMEM;
		c->p = p;
		c->cap = cap;
	}
	memcpy(c->p + c->nr * ps, pg, ps);
	c->nr++;
	total_pages++;
	return 0;
}

/* A load that fires scheduler, syscall, timer and irq events: fork/exec + I/O. */
static pid_t start_load(void)
{
	pid_t pid = fork();

	if (!pid) {
		execl("/bin/sh", "sh", "-c",
		      "while :; do ls -lR /usr/include >/dev/null 2>&1; cat /proc/stat >/dev/null;"
		      " sleep 0.001; done", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Bytes waiting in the instance's ring buffers (per_cpu/cpuN/stats "bytes:"). */
static size_t buffered(struct tracefs_instance *inst)
{
	size_t sum = 0;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		char path[64], *text, *b;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(inst, path, NULL);
		b = text ? strstr(text, "bytes: ") : NULL;
		if (b)
			sum += strtoul(b + 7, NULL, 10);
		free(text);
	}
	return sum;
}

/* @n markers into @inst's trace_marker by the guest benchmark's writer, vm_load. */
static int write_markers(struct tracefs_instance *inst, const char *vm_load, unsigned long n)
{
	char *path = tracefs_instance_get_file(inst, "trace_marker"), count[32];
	int status = -1;
	pid_t pid;

	snprintf(count, sizeof(count), "%lu", n);
	pid = path ? fork() : -1;
	if (!pid) {
		execl(vm_load, "vm_load", "markers", path, count, "0", "64", (char *)NULL);
		fprintf(stderr, "writer_bench: %s: %s\n", vm_load, strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	tracefs_put_tracing_file(path);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/*
 * Lets the load fill the ring buffers (or writes the markers), stops tracing, then
 * drains them: full pages as a recorder that keeps up with a busy system sees them.
 */
static int capture(size_t want_mb, const char *vm_load, unsigned long markers)
{
	static const char *const systems[] = {
		"sched", "irq", "timer", "workqueue", "raw_syscalls", "signal", "task",
	};
	struct tracefs_instance *inst;
	char kb[32], *buf = malloc(ps);
	size_t i;
	double t0;
	pid_t load;
	int cpu, failed = 0;

	inst = tracefs_instance_create(INSTANCE);
	if (!inst || !buf)
		return -1;
	if (markers)	/* ~88 ring bytes per 64-byte marker, on whichever CPU it ran */
		want_mb = markers * 96 / (1 << 20) * ncpus + 1;
	snprintf(kb, sizeof(kb), "%zu", want_mb * 1024 / ncpus + 256);
	tracefs_instance_file_write(inst, "buffer_size_kb", kb);
	for (i = 0; !markers && i < ARRAY_SIZE(systems); i++)
		tracefs_event_enable(inst, systems[i], NULL);
	tracefs_trace_on(inst);
	if (markers) {
		failed = write_markers(inst, vm_load, markers);
	} else {
		load = start_load();
		t0 = now();
		while (buffered(inst) < want_mb << 20 && now() - t0 < 15)
			usleep(200000);
		kill(load, SIGKILL);
		waitpid(load, NULL, 0);
	}
	tracefs_trace_off(inst);
	for (cpu = 0; !failed && cpu < ncpus; cpu++) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		fd = tracefs_instance_file_open(inst, path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			continue;
		while (read(fd, buf, ps) == (ssize_t)ps)
			if (add_page(cpu, buf))
				break;
		close(fd);
	}
	tracefs_event_disable(inst, NULL, NULL);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	free(buf);
	return !failed && total_pages ? 0 : -1;
}

static int load_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	char *buf = malloc(ps);
	size_t i = 0;

	if (fd < 0 || !buf)
		return -1;
	while (read(fd, buf, ps) == (ssize_t)ps)
		add_page((int)(i++ % ncpus), buf);
	close(fd);
	free(buf);
	return total_pages ? 0 : -1;
}

struct result {
	double	mbps;		/* raw MB/s through v7_append_pages (+ syncs) */
	double	cpu_mbps;	/* the same per CPU second (user + system) */
	double	ratio;		/* raw bytes / data bytes written */
	double	finish_s;
	double	read_mbps;	/* raw MB per CPU second libtracecmd reads records back at */
	double	bytes;		/* data bytes written */
	double	cpu_s;		/* CPU seconds appending them */
};

/* libtracecmd reading every record, CPU by CPU, as report/KernelShark load it. */
static double read_back(const char *path)
{
	struct tracecmd_input *h;
	size_t n = 0;
	double t0 = cpu_now();
	int cpu;

	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h)
		return 0;
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct tep_record *r;

		for (r = tracecmd_read_cpu_first(h, cpu); r; r = tracecmd_read_data(h, cpu)) {
			n++;
			tracecmd_free_record(r);
		}
	}
	tracecmd_close(h);
	return n ? total_pages * (double)ps / (cpu_now() - t0) / 1e6 : 0;
}

/*
 * Feeds every page the way the capture loop does: 8-page batches, CPU by CPU,
 * a v7_sync every 2048 pages.
 */
static int run_writer(const char *dir, const struct trace_meta *m, enum v7_compression comp,
		      int level, unsigned int chunk, struct result *r)
{
	struct v7_params p = { 0 };
	size_t done[256] = { 0 }, left = total_pages, since_sync = 0;
	uint64_t raw, file, file0;
	struct v7_writer *w;
	char path[256];
	double t0, t1, c0, c1;
	int fd, cpu, ret = 0;

	snprintf(path, sizeof(path), "%s/bench.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	p.fd = fd;
	p.page_size = ps;
	p.ncpus = ncpus;
	p.comp = comp;
	p.zstd_level = level;
	p.chunk_pages = chunk;
	p.region_bytes = (uint64_t)(total_pages + 64) * ps;
	p.clock = "local";
	w = v7_create(&p, m);
	if (!w) {
		close(fd);
		return -errno;
	}
	v7_counters(w, NULL, &file0);
	c0 = cpu_now();
	t0 = now();
	while (left && !ret) {
		for (cpu = 0; cpu < ncpus && !ret; cpu++) {
			size_t n = cpus[cpu].nr - done[cpu];

			if (n > 8)
				n = 8;
			if (!n)
				continue;
			ret = v7_append_pages(w, cpu, cpus[cpu].p + done[cpu] * ps, n);
			done[cpu] += n;
			left -= n;
			since_sync += n;
		}
		if (since_sync >= 2048) {
			ret = ret ?: v7_sync(w);
			since_sync = 0;
		}
	}
	ret = ret ?: v7_sync(w);
	t1 = now();
	c1 = cpu_now();
	v7_counters(w, &raw, &file);
	ret = ret ?: v7_finish(w, NULL, 0, NULL);
	r->finish_s = now() - t1;
	r->mbps = raw / (t1 - t0) / 1e6;
	r->cpu_mbps = raw / (c1 - c0) / 1e6;
	/* data bytes: what the file grew by, minus the tails written by the syncs */
	r->ratio = (double)raw / (double)(file - file0);
	r->bytes = (double)(file - file0);
	r->cpu_s = c1 - c0;
	r->read_mbps = ret ? 0 : read_back(path);
	v7_free(w);
	close(fd);
	unlink(path);
	return ret;
}

/* The zstd CLI on the same raw pages, one file: MB/s and ratio. */
static int run_cli(const char *dir, int level, struct result *r)
{
	char raw[256], out[256], lvl[8];
	struct rusage ru;
	struct stat st;
	int fd, cpu, status;
	double t0;
	pid_t pid;

	snprintf(raw, sizeof(raw), "%s/pages.raw", dir);
	snprintf(out, sizeof(out), "%s/pages.zst", dir);
	fd = open(raw, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (cpu = 0; cpu < ncpus; cpu++)
		if (write(fd, cpus[cpu].p, cpus[cpu].nr * ps) != (ssize_t)(cpus[cpu].nr * ps))
			break;
	close(fd);
	snprintf(lvl, sizeof(lvl), "-%d", level);
	t0 = now();
	pid = fork();
	if (!pid) {
		execlp("zstd", "zstd", "-q", "-f", "-T1", lvl, raw, "-o", out, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	r->mbps = total_pages * (double)ps / (now() - t0) / 1e6;
	r->cpu_mbps = total_pages * (double)ps / 1e6 /
		      (ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	if (stat(out, &st))
		return -1;
	r->ratio = total_pages * (double)ps / (double)st.st_size;
	unlink(out);
	unlink(raw);
	return 0;
}

static void best(struct result *acc, const struct result *r, int first)
{
	if (first || r->mbps > acc->mbps)
		acc->mbps = r->mbps;
	if (first || r->cpu_mbps > acc->cpu_mbps)
		acc->cpu_mbps = r->cpu_mbps;
	if (first || r->read_mbps > acc->read_mbps)
		acc->read_mbps = r->read_mbps;
	acc->ratio = r->ratio;
	acc->finish_s = r->finish_s;
}

/* zstd @level on @chunk-page chunks @runs times: *@r of the last, *@cpu the least CPU. */
static int least_cpu(const char *dir, const struct trace_meta *m, int level,
		     unsigned int chunk, int runs, struct result *r, double *cpu)
{
	for (int k = 0; k < runs; k++) {
		if (run_writer(dir, m, V7_COMP_ZSTD, level, chunk, r))
			return -1;
		if (!k || r->cpu_s < *cpu)
			*cpu = r->cpu_s;
	}
	return 0;
}

/*
 * Each zstd level on 32-page chunks against trace-cmd's setting (level 3, 10 pages):
 * bytes and CPU per GB, least CPU of @reps runs (of one run from level 9 up, they are
 * slow). Ours is the "level-1" row.
 */
static int size_sweep(const char *dir, const struct trace_meta *m, int reps)
{
	static const int levels[] = { 1, 2, 3, 9, 16, 19 };
	double gb = total_pages * (double)ps / 1e9, tc_cpu = 0;
	struct result tc = { 0 }, r;
	size_t i;

	if (least_cpu(dir, m, 3, 10, reps, &tc, &tc_cpu))
		return -1;
	printf("# size sweep against trace-cmd's zstd-3 on 10-page chunks: %.0f bytes, %.2f cpu-s/GB\n",
	       tc.bytes, tc_cpu / gb);
	printf("%-7s %5s %10s %8s %9s %7s\n", "size", "chunk", "bytes", "size/tc", "cpu-s/GB",
	       "cpu/tc");
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		double cpu = 0;

		if (least_cpu(dir, m, levels[i], 32, levels[i] < 9 ? reps : 1, &r, &cpu))
			return -1;
		printf("level-%-2d%4u %10.0f %8.3f %9.2f %7.2f\n", levels[i], 32, r.bytes,
		       r.bytes / tc.bytes, cpu / gb, cpu / tc_cpu);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned int chunks[] = { 10, 16, 32, 64 };
	const char *pages_file = NULL, *dir = "/tmp";
	struct result cli[2], r, acc = { 0 };
	char vm_load[PATH_MAX], self[PATH_MAX];
	unsigned long markers = 0;
	double none_read;
	struct trace_meta m;
	size_t mb = 32, i;
	int reps = 3, k, lv, have_meta;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--pages") && k + 1 < argc)
			pages_file = argv[++k];
		else if (!strcmp(argv[k], "--markers") && k + 1 < argc)
			markers = strtoul(argv[++k], NULL, 0);
		else if (!strcmp(argv[k], "--mb") && k + 1 < argc)
			mb = strtoul(argv[++k], NULL, 0);
		else if (!strcmp(argv[k], "--reps") && k + 1 < argc)
			reps = atoi(argv[++k]);
		else if (!strcmp(argv[k], "--dir") && k + 1 < argc)
			dir = argv[++k];
		else {
			fprintf(stderr, "usage: %s [--pages FILE | --markers N] [--mb N] [--reps N] [--dir DIR]\n",
				argv[0]);
			return 2;
		}
	}
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus < 1 || ncpus > 256)
		ncpus = 1;
	cpus = calloc(ncpus, sizeof(*cpus));
	have_meta = !meta_collect(&m, NULL);
	if (have_meta)
		ps = m.page_size;
	if (!have_meta && !pages_file) {
		fprintf(stderr, "writer_bench: no tracefs metadata and no --pages file\n");
		return 1;
	}
	/* build/bench/writer_bench -> build/vm/progs/vm_load */
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(vm_load, sizeof(vm_load), "%s/../vm/progs/vm_load", dirname(self));
	if (pages_file ? load_file(pages_file) : capture(mb, vm_load, markers)) {
		fprintf(stderr, "writer_bench: no pages to measure\n");
		return 1;
	}
	printf("# writer_bench: %zu real pages (%.1f MB) on %d CPUs from %s, page %u, best of %d\n",
	       total_pages, total_pages * (double)ps / 1e6, ncpus,
	       pages_file ? pages_file : markers ?
	       "vm_load's 64-byte markers in a tracefs instance's trace_marker" :
	       "a tracefs instance (sched irq timer workqueue raw_syscalls signal task)",
	       ps, reps);
	for (lv = 0; lv < 2; lv++)
		if (run_cli(dir, lv ? 3 : 1, &cli[lv])) {
			fprintf(stderr, "writer_bench: zstd CLI failed (apt-get install zstd)\n");
			return 1;
		}
	printf("# reference: zstd -1 CLI %.0f MB/s (%.0f MB/cpu-s) ratio %.2f; "
	       "zstd -3 CLI %.0f MB/s (%.0f MB/cpu-s) ratio %.2f\n",
	       cli[0].mbps, cli[0].cpu_mbps, cli[0].ratio,
	       cli[1].mbps, cli[1].cpu_mbps, cli[1].ratio);
	printf("%-7s %5s %7s %9s %9s %7s %9s %9s %8s %9s\n", "mode", "chunk", "MB/s",
	       "MB/cpu-s", "cpu vs CLI", "ratio", "ratio/CLI", "finish s", "read", "read/none");
	for (k = 0; k < reps; k++) {
		if (run_writer(dir, &m, V7_COMP_NONE, 0, 0, &r))
			return 1;
		best(&acc, &r, !k);
	}
	printf("%-7s %5s %7.0f %9.0f %9.2f %7.2f %9s %9.3f %8.0f %9.2f\n", "none", "-",
	       acc.mbps, acc.cpu_mbps, acc.cpu_mbps / cli[0].cpu_mbps, acc.ratio, "-",
	       acc.finish_s, acc.read_mbps, 1.0);
	none_read = acc.read_mbps;
	for (lv = 0; lv < 2; lv++) {
		for (i = 0; i < ARRAY_SIZE(chunks); i++) {
			for (k = 0; k < reps; k++) {
				if (run_writer(dir, &m, V7_COMP_ZSTD, lv ? 3 : 1, chunks[i], &r))
					return 1;
				best(&acc, &r, !k);
			}
			printf("zstd-%d  %5u %7.0f %9.0f %9.2f %7.2f %9.2f %9.3f %8.0f %9.2f\n",
			       lv ? 3 : 1, chunks[i], acc.mbps, acc.cpu_mbps,
			       acc.cpu_mbps / cli[lv].cpu_mbps, acc.ratio,
			       acc.ratio / cli[lv].ratio, acc.finish_s, acc.read_mbps,
			       acc.read_mbps / none_read);
		}
	}
	if (size_sweep(dir, &m, reps))
		return 1;
	if (have_meta)
		meta_free(&m);
	return 0;
}
