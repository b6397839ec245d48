// SPDX-License-Identifier: GPL-2.0
/*
 * The capture core (see capture.h): tracing state (tracing.c) + page source
 * (source_*.c) + v7 writer, moved by the caller's loop.
 *
 * Page path: per wake-up and CPU, up to a few batches of batch_pages pages go from the
 * source into one preallocated buffer and from there to the writer (compressed), or
 * straight from the source into the file at the writer's reserved offset (splice,
 * uncompressed). Nothing allocates or logs there; an error is logged once and sticks.
 * Compressed, the writer hands full chunks to the capture's compression pool
 * (format/chunk_pool.h): idle-priority workers compress them and the loop puts them
 * in the file when the pool's fd says so, so moving pages never waits for zstd.
 *
 * A full CPU region is not an error of the capture: no more of that CPU's pages are
 * read than its region takes (v7_room_pages, v7_reserve_pages), so what does not fit
 * stays in the kernel's ring for the next file, and the per-CPU page stream goes on
 * across files without a gap or a duplicate. capture_service() returns -ENOSPC until
 * the caller rotates, having served the other CPUs and the sync all the same: a
 * rotation (seconds, the metadata read again) neither stops the other rings draining
 * nor leaves the old file unsynced.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "trace_output.h"
#include "util/bg_call.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/mono_clock.h"
#include "format/chunk_pool.h"
#include "format/meta.h"
#include "lastboot/boot_record.h"
#include "source/drain_threads.h"
#include "source/tracing.h"

#define DEF_PERIOD_MS	200
#define DEF_SYNC_MS	1000
#define DEF_BATCH	256
#define DEF_WATERMARK	10	/* buffer_percent: see tracing.c */
#define ROUNDS_PER_WAKE	4	/* batches per CPU per wake-up, so that no CPU starves */
/*
 * Batches per CPU drained at a rotation while tracing runs: bounds the drain against a
 * producer as fast as we are; what is left goes to the next file.
 */
#define ROTATE_ROUNDS	1024
#define PUMP_WHILE_MS	2	/* see pump_while() */
#define REAP_OLD_HELP_MS 500	/* see reap_old() */

struct capture {
	struct trace_output		out;		/* the file being written */
	char				*instance;
	struct tracing			*tr;
	struct trace_meta		meta;
	int				meta_ok;
	struct source			*src;
	const char			*source_name;	/* static, outlives the source */
	unsigned int			page_size;
	struct v7_params		wp;		/* kept for the files of rotations */
	struct chunk_pool		*pool;		/* compresses for every file, or NULL */
	struct task_names		*names;		/* names tasks for every file, or NULL */
	char				*clock;		/* wp.clock */
	int				zero_copy;	/* splice pages into the file */
	char				*buf;		/* batch buffer */
	size_t				batch;
	int				full_logged;	/* "region full" said for this file */
	int				ncpus;
	struct capture_cpu_status	*cpu;
	unsigned int			period_ms;
	unsigned int			sync_ms;
	uint64_t			t0_ns;
	uint64_t			next_tick_ns;
	uint64_t			next_sync_ns;
	uint64_t			raw_bytes;	/* kept after the writer is gone */
	uint64_t			file_bytes;
	uint64_t			done_raw;	/* files finished by capture_rotate */
	uint64_t			done_file;
	uint64_t			lost_pages;	/* finished files' v7_unkept_pages() */
	unsigned int			rotations;
	int				moved;		/* pages moved since the last sync */
	uint64_t			resync_at;	/* sync again once the pool delivered
							 * this many jobs (0: no) */
	void				(*waiting)(void *arg, uint64_t waited_ms);
	void				*waiting_arg;
	int				excl;		/* files must not exist yet */
	int				gid;		/* their group, 0 = ours */
	double				seconds;
	int				running;
	int				paused;		/* capture_drain() turned tracing off */
	int				drained;	/* c->src is drain threads' queues */
	int				stopped;
	int				error;
	int				src_error;	/* a read of the source failed */
};

int capture_error(const struct capture *c)
{
	return c->error;
}

/* An error of the file system the file is on: a new file may get past it. */
static bool disk_error(long err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

/* Records the first error and says, once, what it means for the file. */
static int fail(struct capture *c, int err, int cpu)
{
	if (c->error)
		return c->error;
	c->error = err;
	if (disk_error(err))
		log_err("writing %s: %s; the file keeps every chunk up to the last sync",
			c->out.path, strerror(-err));
	else
		log_err("moving pages of CPU %d to %s: %s", cpu, c->out.path, strerror(-err));
	return err;
}

/*
 * A full CPU region: not sticky, the caller rotates (capture_rotate) or stops. Said
 * once per file, as the caller may take a while to react. A region of a new file
 * that cannot take one page never will: an error then, or rotations would not end.
 */
static int region_full(struct capture *c, int cpu)
{
	if (!c->cpu[cpu].pages) {
		log_err("%s: a CPU region cannot take one %u-byte page", c->out.path, c->page_size);
		return fail(c, -EFBIG, cpu);
	}
	if (!c->full_logged)
		log_warn("CPU %d's region of %s is full: rotate to a new file or give a larger region",
			 cpu, c->out.path);
	c->full_logged = 1;
	return -ENOSPC;
}

/* @r, a return of the page path, says only that a CPU region is full. */
static bool region_only(const struct capture *c, long r)
{
	return r == -ENOSPC && !c->error;
}

static void account(struct capture *c, int cpu, size_t n)
{
	/* the first pages since the last sync: the names walk begins now, not before */
	if (n && !c->moved && c->names)
		task_names_want(c->names);
	c->moved |= n > 0;
	c->cpu[cpu].pages += n;
	c->cpu[cpu].bytes += (uint64_t)n * c->page_size;
}

/* Up to @rounds batches of @cpu to the writer. Return: pages moved, or -errno. */
static long move_cpu(struct capture *c, int cpu, int flush, int rounds)
{
	const struct source_ops *ops = c->src->ops;
	long total = 0;
	size_t want = c->batch;
	int ret;
	ssize_t r;

	while (rounds--) {
		if (c->zero_copy) {
			size_t max;
			off_t off;

			ret = v7_reserve_pages(c->out.w, cpu, &off, &max);
			if (ret == -ENOSPC)
				return region_full(c, cpu);
			if (ret)
				return fail(c, ret, cpu);
			/* Up to the region's end: the next round then says it is full. */
			want = max < c->batch ? max : c->batch;
			r = ops->splice_pages(c->src, cpu, c->out.fd, off, want, flush);
			if (r > 0) {
				ret = v7_commit_pages(c->out.w, cpu, (size_t)r);
				if (ret)
					return fail(c, ret, cpu);
			} else if (disk_error(r)) {
				/* the file's error, as the writer's own: rotation passes it */
				v7_fail_pages(c->out.w, (int)r);
			}
		} else {
			/* No more than the region takes: the rest waits in the ring. */
			ret = v7_room_pages(c->out.w, cpu, c->batch, &want);
			if (ret)
				return fail(c, ret, cpu);
			if (!want)
				return region_full(c, cpu);
			r = ops->read_pages(c->src, cpu, c->buf, want, flush);
			if (r > 0) {
				ret = v7_append_pages(c->out.w, cpu, c->buf, (size_t)r);
				if (ret)
					return fail(c, ret, cpu);
			}
		}
		if (r < 0) {
			/* not the file's error (that one is the writer's, above) */
			if (!c->src_error && !(c->zero_copy && disk_error(r)))
				c->src_error = (int)r;
			return fail(c, (int)r, cpu);
		}
		account(c, cpu, (size_t)r);
		total += r;
		if ((size_t)r < want)
			break;
	}
	return total;
}

/* Frees what a capture owns once its source, writer and file are closed. */
static void capture_release(struct capture *c)
{
	if (c->meta_ok)
		meta_free(&c->meta);
	tracing_free(c->tr);
	chunk_pool_free(c->pool);	/* after the writers: they reaped what was theirs */
	task_names_stop(c->names);
	free(c->buf);
	free(c->cpu);
	free(c->clock);
	free(c->instance);
	free(c);
}

/*
 * Rings that outlive a crash: keep this boot's metadata (kallsyms above all) where the
 * next boot's `recorderd lastboot` finds it. A failure costs the symbols only.
 */
static void save_boot_record(const struct trace_meta *m)
{
	uint8_t id[16];
	int ret = boot_id_current(id);

	ret = ret ?: boot_record_save(m, id);
	if (ret)
		log_warn("boot record in %s/boots: %s; a previous-boot trace of this boot will "
			 "have no kallsyms", boot_state_dir(), strerror(-ret));
}

/*
 * The compression workers of a zstd capture; they spill what they cannot keep up with
 * to a spool beside the output (same filesystem, counted in its free space).
 */
static int start_pool(struct capture *c, const struct capture_params *p)
{
	char *dir;
	int ret = 0;

	if (p->comp != V7_COMP_ZSTD || p->compress_threads < 0)
		return 0;
	dir = strdup(c->out.path);
	if (!dir)
		return -ENOMEM;
	c->pool = v7_pool_new(&c->wp, (unsigned int)p->compress_threads, dirname(dir), &ret);
	free(dir);
	if (!c->pool) {
		log_err("cannot start the compression threads: %s", strerror(-ret));
		return ret;
	}
	c->wp.pool = c->pool;
	return 0;
}

/*
 * Many CPUs: their rings are read over threads (source/drain_threads.h), as many as
 * asked or one per online CPU. Not in flight mode, whose rings are read at a snapshot
 * only. Return: the number of threads the capture will have.
 */
static unsigned int drain_threads(const struct capture_params *p)
{
	if (p->overwrite || p->drain_threads < 0)
		return 0;
	if (p->drain_threads)
		return (unsigned int)p->drain_threads;
	return drain_threads_auto((int)sysconf(_SC_NPROCESSORS_ONLN));
}

/*
 * Started once tracing is on and nothing else can fail: a thread takes pages out of
 * the ring at once, and a capture that fails after that would lose them (a dead
 * recorder's ring taken over is left as it was until then).
 */
static int start_drain_threads(struct capture *c, unsigned int n)
{
	struct source *s;
	int ret;

	if (!n)
		return 0;
	s = drain_threads_wrap(c->src, n, &ret);
	if (!s)
		return ret;
	c->src = s;
	c->drained = 1;
	return 0;
}

/*
 * Open files a capture may need: per CPU, splice holds trace_pipe_raw and a pipe's two
 * ends, its drain thread an epoll and its queue's eventfd; the rest (tracefs files,
 * the output, the pool's spool and eventfd, the loop's fds) fits in the base. The
 * usual soft limit of 1024 is too small past ~330 CPUs.
 */
#define FDS_PER_CPU	6
#define FDS_BASE	64

struct capture *capture_start(const struct capture_params *p, int *err)
{
	struct capture *c = calloc(1, sizeof(*c));
	int watermark = p->watermark ? p->watermark : DEF_WATERMARK;
	const struct source_ops *ops;
	struct tracing_params tp = {
		.instance = p->instance,
		.create = p->create_instance,
		.events = p->events,
		.nr_events = p->nr_events,
		.buffer_kb = p->buffer_kb,
		.overwrite = p->overwrite ? 1 : -1,
		.clock = p->clock,
		.buffer_percent = watermark,
		.take_over = p->take_over,
		.keep = p->keep,
	};
	struct source_params sp = {
		.instance = p->instance,
		.buffer_kb = p->buffer_kb,
		.overwrite = p->overwrite,
		.events = p->events,
		.nr_events = p->nr_events,
		.clock = p->clock,
		.watermark_pct = watermark,
		.orphan_only = p->orphan_only,
	};
	struct v7_params *wp;
	const char *name;
	/* once: zero copy depends on it, and the online CPUs may change meanwhile */
	unsigned int drain = drain_threads(p);
	unsigned long nfds;
	int ret;

	if (!c) {
		*err = -ENOMEM;
		return NULL;
	}
	/* Before anything is opened; where it cannot be had, EMFILE later names it. */
	nfds = FDS_PER_CPU * (unsigned long)tracing_ncpus() + FDS_BASE;
	if (fio_reserve_fds(nfds))
		log_warn("RLIMIT_NOFILE is below the %lu files %d CPUs may need", nfds,
			 tracing_ncpus());
	wp = &c->wp;
	c->out.fd = -1;
	c->instance = p->instance ? strdup(p->instance) : NULL;
	if (p->instance && !c->instance) {
		ret = -ENOMEM;
		goto fail;
	}
	/* The output first: a bad path must not change any tracing state. */
	c->excl = p->excl;
	c->gid = p->gid;
	c->waiting = p->waiting;
	c->waiting_arg = p->waiting_arg;
	ret = trace_output_open(&c->out, p->output ? p->output : "trace.dat", p->excl, c->gid);
	if (ret)
		goto fail;
	/*
	 * A source with events of its own (the module) leaves tracefs alone; the tracefs
	 * sources are probed once tracing_setup() made their instance.
	 */
	name = p->source ? p->source : "auto";
	ops = strcmp(name, "auto") ? NULL : source_find_module(name, &sp);
	if (!ops && strcmp(name, "mmap") && strcmp(name, "splice") && strcmp(name, "auto")) {
		ops = source_find(name, &sp);
		if (!ops) {
			ret = -ENODEV;
			goto fail;
		}
	}
	if (ops && (ops->flags & SOURCE_OWN_EVENTS)) {
		/* The source (the module) records its own events: tracefs stays as it is. */
		tp.events = NULL;
		tp.nr_events = 0;
		tp.buffer_kb = 0;
		tp.overwrite = -1;
		tp.clock = NULL;
		tp.buffer_percent = -1;
	}
	c->tr = tracing_setup(&tp, &ret);
	if (!c->tr)
		goto fail;
	if (!ops) {
		ops = source_find(strcmp(name, "auto") ? name : "tracefs", &sp);
		if (!ops) {
			ret = -ENODEV;
			goto fail;
		}
	}
	ret = meta_collect(&c->meta, p->instance);
	if (ret)
		goto fail;
	c->meta_ok = 1;
	c->src = source_open(ops, &sp, &ret);
	if (!c->src)
		goto fail;
	if (ops->add_meta) {
		ret = ops->add_meta(c->src, &c->meta);
		if (ret)
			goto fail;
	}
	if (c->src->persistent)
		save_boot_record(&c->meta);
	if (c->src->page_size != c->meta.page_size) {
		log_err("source %s gives %u-byte pages but events/header_page says %u",
			ops->name, c->src->page_size, c->meta.page_size);
		ret = -EPROTO;
		goto fail;
	}
	c->ncpus = c->src->ncpus;
	c->source_name = ops->name;
	c->page_size = c->src->page_size;
	c->cpu = calloc((size_t)c->ncpus, sizeof(*c->cpu));
	c->batch = p->batch_pages ? p->batch_pages : DEF_BATCH;
	/* the drain threads queue copies: no splice into the file with them */
	c->zero_copy = p->comp == V7_COMP_NONE && ops->splice_pages && !drain;
	c->buf = c->zero_copy ? NULL : malloc(c->batch * c->src->page_size);
	if (!c->cpu || (!c->zero_copy && !c->buf)) {
		ret = -ENOMEM;
		goto fail;
	}
	name = ops->clock_name ? ops->clock_name(c->src) : tracing_clock(c->tr);
	c->clock = strdup(name ? name : "local");
	if (!c->clock) {
		ret = -ENOMEM;
		goto fail;
	}
	wp->page_size = c->src->page_size;
	wp->ncpus = c->ncpus;
	wp->comp = p->comp;
	wp->zstd_level = p->zstd_level;
	wp->chunk_pages = p->chunk_pages;
	wp->region_bytes = p->region_bytes;
	wp->clock = c->clock;
	wp->buffer_name = "";
	wp->durable = p->durable;
	ret = start_pool(c, p);
	if (!ret) {
		int nerr;

		c->names = task_names_start(source_fills_saved_cmdlines(c->src), &nerr);
		if (!c->names)
			log_warn("no thread for task names (%s): the syncs walk /proc themselves",
				 strerror(-nerr));
		c->out.names = c->names;
	}
	ret = ret ?: trace_output_begin(&c->out, wp, &c->meta);
	if (ret)
		goto fail;
	c->period_ms = p->period_ms ? p->period_ms : DEF_PERIOD_MS;
	c->sync_ms = p->sync_ms ? p->sync_ms : DEF_SYNC_MS;
	c->t0_ns = mono_ns();
	c->next_tick_ns = c->t0_ns + c->period_ms * 1000000ULL;
	c->next_sync_ns = c->t0_ns + c->sync_ms * 1000000ULL;
	ret = tracing_set_on(c->tr, 1);
	ret = ret ?: start_drain_threads(c, drain);
	if (ret)
		goto fail;
	/* Live: what was taken over is ours; any failure before left it as it was. */
	tracing_adopt(c->tr);
	source_adopt(c->src);
	c->running = 1;
	log_debug("recording %s with source %s, %d CPUs, %u-byte pages, to %s",
		  c->instance ? c->instance : "the top buffer", ops->name, c->ncpus,
		  c->src->page_size, c->out.path);
	return c;
fail:
	trace_output_discard(&c->out, 1);
	source_close(c->src);
	capture_release(c);
	*err = ret ? ret : -EIO;
	return NULL;
}

int capture_fds(struct capture *c, struct capture_fd *fds, int max)
{
	int n = 0;

	if (!c->running)
		return 0;
	if (c->pool && n < max) {
		fds[n].fd = chunk_pool_fd(c->pool);
		fds[n].cpu = CAPTURE_FD_CHUNKS;
		fds[n].queued = 0;
		n++;
	}
	for (int i = 0; i < c->ncpus && n < max; i++) {
		int fd = c->src->ops->poll_fd ? c->src->ops->poll_fd(c->src, i) : -1;

		if (fd < 0)
			continue;
		fds[n].fd = fd;
		fds[n].cpu = i;
		fds[n].queued = c->drained;
		n++;
	}
	return n;
}

int capture_timeout_ms(struct capture *c)
{
	uint64_t now = mono_ns();

	if (!c->running || now >= c->next_tick_ns)
		return 0;
	return (int)((c->next_tick_ns - now + 999999) / 1000000);
}

/* Refreshes the kernel's per-CPU counters from the source (when it is open). */
void capture_refresh_stats(struct capture *c)
{
	for (int i = 0; c->src && c->src->ops->stats && i < c->ncpus; i++) {
		struct source_cpu_stats st = { 0 };

		if (!c->src->ops->stats(c->src, i, &st)) {
			c->cpu[i].entries = st.entries;
			c->cpu[i].overrun = st.overrun;
			c->cpu[i].lost = st.lost;
		}
	}
}

/*
 * What a sync promises: every event written before it began is in the file. So the
 * pages the kernel is still filling are taken first (each source cuts them so that
 * the page format holds), and the tail's command lines and CPU stats are refreshed
 * when pages moved: a file a crash leaves names its tasks (as the names thread found
 * them at its last walk: the walk is never made here). Idle, none of it runs.
 */
static int sync_file(struct capture *c)
{
	long r;
	int ret;

	/*
	 * The chunks of the sync before are not all compressed yet, a whole sync_ms later:
	 * the workload leaves the compression threads no CPU. They go in as they are
	 * (stored zstd frames, a copy each) rather than wait in memory or the spool, where
	 * a crash would take them: the promise holds on a saturated machine too.
	 */
	if (c->pool && c->resync_at) {
		chunk_pool_reap_until(c->pool, c->resync_at);
		if (v7_error(c->out.w))
			return fail(c, v7_error(c->out.w), -1);
	}
	/* A full region's CPU waits for the next file; the others and the sync do not. */
	for (int i = 0; i < c->ncpus; i++) {
		r = move_cpu(c, i, 1, ROUNDS_PER_WAKE);
		if (r < 0 && !region_only(c, r))
			return (int)r;
	}
	if (c->moved) {
		c->moved = 0;
		capture_refresh_stats(c);
		trace_output_refresh(&c->out, c->src);
	}
	ret = v7_sync(c->out.w);
	if (ret)
		return fail(c, ret, -1);
	/*
	 * The chunks this sync handed to the pool (the partly written pages among them)
	 * are synced as soon as they are compressed, not a whole sync_ms later: so the
	 * promise stays "what was written sync_ms + period_ms ago is on disk".
	 */
	if (c->pool) {
		struct chunk_pool_stats st;

		chunk_pool_stats(c->pool, &st);
		c->resync_at = st.in_flight ? st.jobs : 0;
	}
	return 0;
}

/* The follow-up of a sync, once the pool delivered every chunk the sync submitted. */
static int resync(struct capture *c)
{
	struct chunk_pool_stats st;
	int ret;

	chunk_pool_stats(c->pool, &st);
	if (!c->resync_at || st.jobs - st.in_flight < c->resync_at)
		return 0;
	c->resync_at = 0;
	ret = v7_sync(c->out.w);
	return ret ? fail(c, ret, -1) : 0;
}

unsigned int capture_period_ms(const struct capture *c)
{
	return c->period_ms;
}

unsigned int capture_ms_to_sync(const struct capture *c)
{
	uint64_t now = mono_ns();

	if (now >= c->next_sync_ns)
		return 1;
	return (unsigned int)((c->next_sync_ns - now + 999999) / 1000000);
}

int capture_unsynced(const struct capture *c)
{
	return c->running && c->out.w && v7_unsynced(c->out.w);
}

long capture_service(struct capture *c, int cpu)
{
	bool full = false;
	uint64_t now;
	long total = 0, r;
	int ret;

	if (c->error)
		return c->error;
	if (!c->running)
		return 0;
	/* Chunks compressed meanwhile go in first: the pool's memory is bounded. */
	if (c->pool) {
		r = chunk_pool_reap(c->pool, cpu == CAPTURE_FD_CHUNKS ? CHUNK_POOL_FD :
				    CHUNK_POOL_NOWAIT);
		if (v7_error(c->out.w))
			return fail(c, v7_error(c->out.w), -1);
		ret = resync(c);
		if (ret)
			return ret;
		if (cpu == CAPTURE_FD_CHUNKS)
			return r;
	}
	if (cpu >= c->ncpus)
		return -EINVAL;
	/* A full region stops its CPU alone: the caller hears of it once all were served. */
	for (int i = cpu >= 0 ? cpu : 0; i < (cpu >= 0 ? cpu + 1 : c->ncpus); i++) {
		r = move_cpu(c, i, 0, ROUNDS_PER_WAKE);
		if (r < 0 && !region_only(c, r))
			return r;
		full |= r < 0;
		total += r < 0 ? 0 : r;
	}
	now = mono_ns();
	if (cpu < 0)
		c->next_tick_ns = now + c->period_ms * 1000000ULL;
	if (now >= c->next_sync_ns) {
		c->next_sync_ns = now + c->sync_ms * 1000000ULL;
		ret = sync_file(c);
		if (ret)
			return ret;
	}
	return full ? -ENOSPC : total;
}

/* Finishes the current file (trace_output_finish); the writer is gone afterwards. */
static int finish_file(struct capture *c)
{
	int ret;

	capture_refresh_stats(c);
	ret = trace_output_finish(&c->out, c->src, &c->raw_bytes, &c->file_bytes);
	c->lost_pages += c->out.lost_pages;
	c->out.lost_pages = 0;
	return ret;
}

/* Nothing new from here on; everything already written gets drained. */
static void pause_capture(struct capture *c)
{
	if (c->paused)
		return;
	c->paused = 1;
	tracing_set_on(c->tr, 0);
	if (c->src->ops->stop)
		c->src->ops->stop(c->src);
}

int capture_drain(struct capture *c)
{
	long r;

	if (!c->running || c->stopped)
		return -EINVAL;
	if (c->error)
		return c->error;
	pause_capture(c);
	for (int i = 0; i < c->ncpus; i++) {
		r = move_cpu(c, i, 1, INT_MAX);
		if (r < 0)
			return (int)r;
	}
	return 0;
}

int capture_stop(struct capture *c)
{
	int ret;

	if (c->stopped)
		return c->error;
	c->stopped = 1;
	pause_capture(c);
	/* At stop there is no next file for what a full region leaves in a ring: say so. */
	for (int i = 0; i < c->ncpus && !c->error; i++)
		if (region_only(c, move_cpu(c, i, 1, INT_MAX)))
			log_err("CPU %d's region of %s is full: what its ring still holds is lost",
				i, c->out.path);
	c->running = 0;
	c->seconds = (double)(mono_ns() - c->t0_ns) / 1e9;
	ret = finish_file(c);
	if (ret && !c->error)
		c->error = ret;
	source_close(c->src);
	c->src = NULL;
	ret = tracing_restore(c->tr);
	if (ret && !c->error)
		c->error = ret;
	return c->error;
}

/* The caller's hook (capture_params.waiting), with the ms since @t0_ns. */
static void waiting(struct capture *c, uint64_t t0_ns)
{
	if (c->waiting)
		c->waiting(c->waiting_arg, (mono_ns() - t0_ns) / 1000000ULL);
}

/*
 * Runs @fn(@arg) on a thread of its own (util/bg_call.h) while this one goes on moving
 * pages into the current file, and syncing it when due, every PUMP_WHILE_MS as
 * trace-cmd's readers poll; a full region stops its CPU only. The writer's error
 * stops that: the rotation sees to it. Without a thread, runs it here.
 */
static void pump_while(struct capture *c, void (*fn)(void *), void *arg)
{
	struct pollfd pfd = { .events = POLLIN };
	uint64_t t0 = mono_ns();
	struct bg_call *b;
	int pumping = 1, err;
	long r;

	b = bg_call_start(fn, arg, "recorderd-rotate", &err);
	if (!b) {
		fn(arg);
		return;
	}
	pfd.fd = bg_call_fd(b);
	while (!bg_call_done(b)) {
		r = pumping ? capture_service(c, -1) : 0;
		if (r < 0 && !region_only(c, r))
			pumping = 0;
		poll(&pfd, 1, pumping ? PUMP_WHILE_MS : 100);
		waiting(c, t0);
	}
	bg_call_finish(b);
}

/*
 * The slow steps of a rotation, for pump_while(): nothing there touches the source or
 * the file the page path writes to.
 */
struct rotate_job {
	struct capture		*c;
	struct trace_meta	meta;
	struct trace_output	next;
	struct trace_output	old;		/* sealed (@sealed), to finish */
	int			sealed;
	uint64_t		raw, file;	/* the old file's counters */
	const char		*output;
	int			ret;
};

static void collect_job(void *arg)
{
	struct rotate_job *j = arg;

	/* the page path only reads c->meta meanwhile */
	j->ret = meta_collect_since(&j->meta, j->c->instance, &j->c->meta);
}

/* The old file, its last chunks delivered: its tail, sync and compact copy. */
static void finish_job(void *arg)
{
	struct rotate_job *j = arg;

	if (j->sealed && !trace_output_complete(&j->old, &j->raw, &j->file))
		trace_output_compact(&j->old, &j->file);
	if (j->old.w)
		v7_counters(j->old.w, &j->raw, &j->file);
	trace_output_discard(&j->old, 0);
}

/*
 * The old file's chunks still compressing reach it as the pool delivers them: reaped
 * here, between pages for the new file. The workers (idle priority) get the CPU the
 * workload leaves; when that was too little for REAP_OLD_HELP_MS, this thread
 * compresses a chunk itself between page moves, as a full pool makes it do. Only this
 * thread reaps the pool; after this nothing of the old file is in it.
 */
static void reap_old(struct capture *c, struct trace_output *old)
{
	struct pollfd pfd = { .events = POLLIN };
	uint64_t t0 = mono_ns();
	long ret = 0;

	if (!old->w || !v7_pending(old->w))
		return;
	pfd.fd = chunk_pool_fd(c->pool);
	while (v7_pending(old->w) && ret >= 0) {
		if (mono_ns() - t0 >= REAP_OLD_HELP_MS * 1000000ULL)
			chunk_pool_reap(c->pool, CHUNK_POOL_ONE);
		else if (poll(&pfd, 1, PUMP_WHILE_MS) > 0)
			ret = capture_service(c, CAPTURE_FD_CHUNKS);
		ret = ret < 0 ? ret : capture_service(c, -1);
		if (region_only(c, ret))
			ret = 0;	/* a CPU of the new file waits for the next one */
		waiting(c, t0);
	}
	/* the new file's error: the old file's chunks all the same */
	if (v7_pending(old->w))
		chunk_pool_reap(c->pool, CHUNK_POOL_ALL);
}

static void create_job(void *arg)
{
	struct rotate_job *j = arg;
	struct capture *c = j->c;

	j->ret = trace_output_create(&j->next, j->output, c->excl, c->gid, &c->wp, &c->meta);
}

/*
 * Each file carries the metadata of its own start: kallsyms with the modules loaded
 * since, event formats of events created since (read again only then). When they
 * cannot be read, the previous ones serve (said once in the log). Reading all of
 * tracefs' formats and kallsyms took 1.5 s in a 2-vCPU TCG guest: the pages go on
 * moving meanwhile.
 */
static void refresh_meta(struct capture *c, struct rotate_job *j)
{
	pump_while(c, collect_job, j);
	if (j->ret) {
		log_warn("%s: the metadata of the previous file are reused", c->out.path);
		return;
	}
	if ((c->src->ops->add_meta && c->src->ops->add_meta(c->src, &j->meta)) ||
	    j->meta.page_size != c->page_size) {
		log_warn("%s: the metadata of the previous file are reused", c->out.path);
		meta_free(&j->meta);
		return;
	}
	meta_free(&c->meta);
	c->meta = j->meta;
}

int capture_rotate(struct capture *c, const char *output)
{
	struct rotate_job job = { .c = c };
	struct trace_output next;

	if (!c->running || c->stopped || !output)
		return -EINVAL;
	/* A full disk (the writer's error) is what a new file can get past; nothing else. */
	if (c->error && c->error != v7_error(c->out.w))
		return c->error;
	/*
	 * The new file is made complete (metadata, options) before the old one is touched:
	 * a failure here leaves the capture as it was. Pages go on moving to the old file
	 * meanwhile.
	 */
	refresh_meta(c, &job);
	job.output = output;
	pump_while(c, create_job, &job);	/* its header: ~7 MB, kallsyms most of it */
	if (job.ret)
		return job.ret;
	/* the pages moved meanwhile may have met the source's error: no new file then */
	if (c->error && c->error != v7_error(c->out.w)) {
		trace_output_discard(&job.next, 1);
		return c->error;
	}
	next = job.next;
	next.names = c->names;

	/* Everything written so far goes to the old file, as far as its regions take it. */
	for (int i = 0; i < c->ncpus && !c->error; i++)
		move_cpu(c, i, 1, ROTATE_ROUNDS);
	/*
	 * A source that failed in that drain cannot feed a new file: the capture stays
	 * as it is, failed, and its stop finishes the old file.
	 */
	if (c->src_error) {
		trace_output_discard(&job.next, 1);
		return c->src_error;
	}
	/* The old file's errors stay with it: valid up to its last sync (logged). */
	capture_refresh_stats(c);
	job.sealed = !trace_output_seal(&c->out, c->src);
	job.old = c->out;
	c->out = next;
	c->error = 0;
	c->full_logged = 0;
	c->raw_bytes = 0;
	c->file_bytes = 0;
	for (int i = 0; i < c->ncpus; i++) {
		c->cpu[i].pages = 0;
		c->cpu[i].bytes = 0;
	}
	c->next_sync_ns = mono_ns() + c->sync_ms * 1000000ULL;
	c->resync_at = 0;
	/*
	 * The old file is finished while the pages go to the new one: its last chunks
	 * (this thread reaps), then its tail, sync and compact copy (the whole file
	 * copied and synced), on the helper thread.
	 */
	reap_old(c, &job.old);
	pump_while(c, finish_job, &job);
	c->lost_pages += job.old.lost_pages;
	c->done_raw += job.raw;
	c->done_file += job.file;
	c->rotations++;
	return 0;
}

void capture_status(struct capture *c, struct capture_status *st)
{
	memset(st, 0, sizeof(*st));
	st->source = c->source_name;
	st->page_size = c->page_size;
	if (c->out.w)
		v7_counters(c->out.w, &c->raw_bytes, &c->file_bytes);
	st->ncpus = c->ncpus;
	st->running = c->running;
	st->error = c->error;
	st->raw_bytes = c->raw_bytes;
	st->file_bytes = c->file_bytes;
	st->done_raw_bytes = c->done_raw;
	st->done_file_bytes = c->done_file;
	/* the current file's, once a write error made them lost */
	st->lost_pages = c->lost_pages +
			 (c->out.w && v7_error(c->out.w) ? v7_unkept_pages(c->out.w) : 0);
	st->rotations = c->rotations;
	for (int i = 0; i < c->ncpus; i++) {
		st->pages += c->cpu[i].pages;
		st->lost += c->cpu[i].lost + c->cpu[i].overrun;
	}
	st->seconds = c->running ? (double)(mono_ns() - c->t0_ns) / 1e9 : c->seconds;
	if (c->pool) {
		struct chunk_pool_stats ps;

		chunk_pool_stats(c->pool, &ps);
		st->chunks = ps.jobs;
		st->spooled = ps.spooled;
		st->spool_peak = ps.spool_peak;
		st->helped = ps.helped;
		st->stored = ps.stored;
		st->workers = ps.workers;
	}
	st->cpu = c->cpu;
}

void capture_free(struct capture *c)
{
	if (!c)
		return;
	if (!c->stopped)
		capture_stop(c);
	capture_release(c);
}
