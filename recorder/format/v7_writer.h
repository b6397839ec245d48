/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace-cmd trace.dat version 7 writer that streams: metadata first, then one
 * BUFFER flyrecord section in which every CPU owns a reserved (sparse) region that its
 * chunks are appended to while recording, then CMDLINES, one OPTIONS section and
 * STRINGS. See ../shared/docs/formats.md A.2-A.14 for the format.
 *
 * Crash safety: from v7_create() on, and after every v7_sync(), the file on disk is a
 * complete trace.dat holding every chunk written so far (the tail of options/strings
 * is rewritten after the reserved regions, in one of two slots, and the header's
 * options offset flipped to it last), so kill -9 at any moment loses at most the
 * chunks not yet synced (@durable: a power loss too). v7_finish() then moves the tail
 * right behind the data and removes the gaps between regions
 * (FALLOC_FL_COLLAPSE_RANGE, or a copy where the filesystem cannot); it is the one
 * step a kill can leave half done (recorderd recover repairs that).
 * The layout is described at the top of v7_writer.c, the sync protocol at the top of
 * v7_sync.c, finishing at the top of v7_finish.c; the byte layouts are encoded by v7_encode.c.
 *
 * Functions return 0 or -errno (and set errno); they never exit. A write error
 * (ENOSPC, EIO) leaves the file valid up to the last synced chunk; the writer then
 * refuses further data with the same error.
 */
#ifndef REC_V7_WRITER_H
#define REC_V7_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "v7_encode.h"

struct v7_writer;

enum v7_compression {
	V7_COMP_NONE,
	V7_COMP_ZSTD,
};

struct v7_params {
	int			fd;		/* O_RDWR, empty; the writer does not close it */
	unsigned int		page_size;	/* sub-buffer size (tep_get_sub_buffer_size) */
	int			ncpus;		/* CPU ids 0..ncpus-1 */
	enum v7_compression	comp;
	int			zstd_level;	/* 0 = default */
	unsigned int		chunk_pages;	/* pages per compressed chunk, 0 = default */
	uint64_t		region_bytes;	/* per-CPU reserved region, 0 = default */
	const char		*clock;		/* trace clock name for the BUFFER option */
	const char		*buffer_name;	/* "" = top instance */
	int			durable;	/* v7_sync also survives power loss (fdatasync) */
	const char		*path;		/* the file's name: v7_finish() compacts it
						 * beside it and renames; NULL = in place */
	struct chunk_pool	*pool;		/* compressed: v7_pool_new()'s workers
						 * compress the chunks; NULL = this thread */
};

/*
 * A compression pool for writers made with @p (codec level, chunk and page size),
 * @workers threads (0 = one per CPU), spilling to @spool_dir (NULL = never): with it
 * in v7_params.pool, v7_append_pages() never waits for compression (chunk_pool.h).
 * It may serve several writers (a rotation's old and new file) and is freed after
 * them; the caller reaps it (chunk_pool_reap) when chunk_pool_fd() is readable so
 * that compressed chunks reach the file between appends. NULL with *@err = -errno.
 */
struct chunk_pool *v7_pool_new(const struct v7_params *p, unsigned int workers,
			       const char *spool_dir, int *err);

struct chunk_pool;

/* Creates the writer and writes the initial header and the metadata sections. */
struct v7_writer *v7_create(const struct v7_params *p, const struct trace_meta *meta);

/* Adds an option written with the tail (TRACECLOCK, UNAME, VERSION, DATE, ...). */
int v7_add_option(struct v7_writer *w, uint16_t id, const void *data, uint32_t len);

/*
 * Appends @n whole pages of @cpu. Compressed: pages are batched and each full chunk
 * is compressed and written. Returns 0, -ENOSPC when the CPU's region is full (none
 * taken; v7_error() stays 0: the caller rotates to a new file), -EINVAL for a page
 * whose commit length exceeds the page (none taken), or another -errno (sticky).
 */
int v7_append_pages(struct v7_writer *w, int cpu, const void *pages, size_t n);
/*
 * How many pages, up to @max, v7_append_pages() takes whole for @cpu now (@room; 0:
 * the region is full). Returns 0 or the writer's -errno.
 */
int v7_room_pages(struct v7_writer *w, int cpu, size_t max, size_t *room);

/*
 * Uncompressed only: where the next pages of @cpu go (for splice/pwrite straight to
 * the fd), and how many fit. After moving them, v7_commit_pages() accounts for them.
 */
int v7_reserve_pages(struct v7_writer *w, int cpu, off_t *off, size_t *max);
int v7_commit_pages(struct v7_writer *w, int cpu, size_t n);
/*
 * Uncompressed only: moving pages to the reserved place failed with @err (a full
 * disk, say). Sticky, as a failed write of the writer's own: the file keeps its
 * last sync, and v7_error() says why. Returns @err.
 */
int v7_fail_pages(struct v7_writer *w, int err);

/*
 * Writes the partial chunk of every CPU and a valid tail; the file is then readable.
 * With a pool, chunks still being compressed are not in it yet: the next sync has
 * them (a chunk counts as synced once it is in the file).
 * With @durable the order is data, fdatasync, counts and tail, fdatasync, the header
 * flip, fdatasync: after a power cut at any instant the file reads back what the last
 * completed sync covered.
 */
int v7_sync(struct v7_writer *w);

/*
 * A sync would change the file: pages or chunks came since the last one, chunks are in
 * the pool, or the tail's texts changed. v7_sync() without it writes nothing (idle).
 */
bool v7_unsynced(const struct v7_writer *w);

/*
 * What every tail from now on carries: the CMDLINES text (copied; NULL clears it) and
 * the CPUSTAT text of @cpu. So a file a crash leaves behind names its tasks.
 * 0 or -errno.
 */
int v7_set_cmdlines(struct v7_writer *w, const char *text, size_t len);
int v7_set_cpustat(struct v7_writer *w, int cpu, const char *text);

/*
 * Finishes the file: pending chunks, CMDLINES (@cmdlines, or the last one set),
 * CPUSTAT per CPU (@cpustat[cpu], or the last set), the options, STRINGS; then the
 * compact file is built beside it and renamed over it (v7_finish.c). The file stays
 * valid at every instant; where the compact copy cannot be made it stays as the last
 * sync left it (complete, not compacted) and a warning says so.
 */
int v7_finish(struct v7_writer *w, const char *cmdlines, size_t cmdlines_len,
	      char *const *cpustat);

/*
 * v7_finish() in two steps: v7_complete() finishes the file in place (pending chunks
 * through the pool, the tail, the sync), v7_compact() then builds the compact copy and
 * renames it over the file; only @w is touched there, so another thread may do it
 * while the caller goes on with the next file.
 */
int v7_complete(struct v7_writer *w, const char *cmdlines, size_t cmdlines_len,
		char *const *cpustat);
int v7_compact(struct v7_writer *w);

/*
 * For a rotation that completes the old file elsewhere: v7_flush() hands on its
 * partly filled chunks; once the reaping thread has seen v7_pending() fall to 0,
 * v7_complete() touches nothing but @w (no pool) and another thread may call it.
 */
int v7_flush(struct v7_writer *w);
unsigned int v7_pending(const struct v7_writer *w);

/* Bytes of pages accepted and bytes written to the file so far (for status/bench). */
void v7_counters(const struct v7_writer *w, uint64_t *raw_bytes, uint64_t *file_bytes);
/* Pages accepted that the file does not hold as it stands (since its last sync). */
uint64_t v7_unkept_pages(const struct v7_writer *w);

/*
 * The sticky write error (-errno) that made the writer refuse data, or 0. It tells a
 * full disk (sticky) apart from a full CPU region (-ENOSPC, not sticky: rotate).
 */
int v7_error(const struct v7_writer *w);

void v7_free(struct v7_writer *w);

/* Tests only: let @n more file updates happen, then fail as a kill -9 would (-1 = off). */
void v7_fail_after(struct v7_writer *w, long n);

#endif /* REC_V7_WRITER_H */
