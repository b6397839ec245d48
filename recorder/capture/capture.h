/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture core shared by `recorderd record` and the daemon: tracing state, page
 * source and v7 writer of one recording, driven by the caller's event loop.
 *
 *	c = capture_start(&params, &err);
 *	loop:	poll(capture_fds(c, ...) + signals + ..., capture_timeout_ms(c));
 *		capture_service(c, cpu_that_was_readable_or_-1);
 *		(capture_pump.h does this from an event loop)
 *	capture_rotate(c, next);	at any time while running: the file switch loses nothing
 *	capture_stop(c);	drains every page written before the call, finishes the file
 *	capture_free(c);
 *
 * Pages move in batches (up to batch_pages per CPU per wake), on the source's
 * watermark wake-up or on the timer, never per event. The page path neither
 * allocates nor logs. Errors are -errno; the first one is logged once, where it is
 * detected, and sticks (capture_status().error), except -ENOSPC for a full CPU region
 * of the file, which capture_rotate() clears without losing a page.
 */
#ifndef REC_CAPTURE_H
#define REC_CAPTURE_H

#include <stdint.h>

#include "source/source.h"
#include "format/v7_writer.h"

struct capture;

struct capture_params {
	const char		*source;	/* "auto", "mmap", "splice", "kmod" */
	const char		*instance;	/* tracefs instance, NULL = top buffer */
	int			create_instance; /* create @instance if missing (removed at stop) */
	int			gid;		/* files' group ("group" setting), 0 =
						 * the creator's */
	int			take_over;	/* @instance is a crashed recorder's: keep its
						 * buffer (source/tracing.h) */
	int			keep;		/* record what the buffer holds already */
	int			orphan_only;	/* the module: take over only what a dead
						 * recorder left (source.h) */
	const char *const	*events;	/* "SYSTEM" or "SYSTEM:EVENT", may be NULL */
	int			nr_events;
	const char		*output;	/* file to create (truncated) */
	int			excl;		/* @output must not exist yet (never truncated) */
	enum v7_compression	comp;
	int			zstd_level;	/* 0 = writer default */
	int			compress_threads; /* zstd: 0 = one per CPU (<= 8), -1 = none:
						 * compress on the page path */
	int			drain_threads;	/* stream mode: threads reading the rings,
						 * 0 = drain_threads_auto(), -1 = none */
	unsigned int		chunk_pages;	/* 0 = writer default */
	uint64_t		region_bytes;	/* per-CPU file region, 0 = writer default */
	unsigned int		buffer_kb;	/* per-CPU ring size to set, 0 = leave */
	int			overwrite;	/* flight recorder mode */
	const char		*clock;		/* trace clock to select, NULL = leave */
	unsigned int		period_ms;	/* timer wake-up, 0 = 200 ms */
	unsigned int		sync_ms;	/* v7_sync() interval, 0 = 1000 ms */
	unsigned int		batch_pages;	/* pages per CPU per wake-up, 0 = 256 */
	int			watermark;	/* buffer_percent to wake at, 0 = 10, -1 = leave */
	int			durable;	/* each sync survives a power cut (fdatasync) */
	/*
	 * Called every few ms while a rotation waits for its helper thread (the next
	 * file's header, the old one's sync and compact copy: a slow disk can make that
	 * seconds), with the ms waited so far: the caller's thread is busy, not hung (the
	 * daemon's watchdog). NULL = none.
	 */
	void			(*waiting)(void *arg, uint64_t waited_ms);
	void			*waiting_arg;
};

/* capture_fd.cpu of the compression pool's fd: compressed chunks are ready. */
#define CAPTURE_FD_CHUNKS	(-2)

/*
 * One fd the caller's loop polls for POLLIN; readable means "service @cpu" (a CPU, or
 * CAPTURE_FD_CHUNKS: readiness that servicing always clears, never to be parked).
 */
struct capture_fd {
	int	fd;
	int	cpu;
	int	queued;	/* a drain thread's queue: its thread reads the ring meanwhile */
};

struct capture_cpu_status {
	uint64_t	pages;		/* pages moved to the current file */
	uint64_t	bytes;		/* bytes of those pages */
	uint64_t	entries;	/* events the kernel wrote (source stats) */
	uint64_t	overrun;	/* events lost to overwrite */
	uint64_t	lost;		/* events dropped, buffer full */
};

struct capture_status {
	const char			*source;	/* name of the source in use */
	int				ncpus;
	unsigned int			page_size;
	int				running;	/* between start and stop */
	int				error;		/* first error, -errno, or 0 */
	uint64_t			raw_bytes;	/* page bytes given to the writer */
	uint64_t			file_bytes;	/* bytes in the output file */
	uint64_t			done_raw_bytes;	/* of the files capture_rotate() finished */
	uint64_t			done_file_bytes;
	unsigned int			rotations;	/* files capture_rotate() finished */
	uint64_t			pages;		/* sum over CPUs, this file */
	uint64_t			lost;		/* sum of lost + overrun */
	uint64_t			lost_pages;	/* to write errors (v7_unkept_pages()) */
	double				seconds;	/* since start */
	uint64_t			chunks;		/* given to the compression threads */
	uint64_t			spooled;	/* of those, spilled raw to the spool */
	uint64_t			spool_peak;	/* largest spool, bytes */
	uint64_t			helped;		/* compressed on the page path, waiting */
	uint64_t			stored;		/* uncompressed: a sync could not wait */
	unsigned int			workers;	/* compression threads, 0 = none */
	const struct capture_cpu_status	*cpu;		/* [ncpus], valid until capture_free */
};

/**
 * capture_start() - set tracing up and start recording
 * @p:		what to record and where
 * @err:	set to -errno on failure (a message has been logged)
 *
 * Enables the events, collects the metadata, opens the source and creates the file.
 * On failure, every tracing setting changed so far is restored.
 *
 * Return: the capture, or NULL.
 */
struct capture *capture_start(const struct capture_params *p, int *err);

/**
 * capture_fds() - fds to poll for POLLIN
 * @c:		capture
 * @fds:	filled with up to @max entries
 * @max:	room in @fds
 *
 * Return: number of entries (0 when the source has none: the timer does everything).
 */
int capture_fds(struct capture *c, struct capture_fd *fds, int max);

/* Milliseconds until capture_service(c, -1) should run again (the timer). */
int capture_timeout_ms(struct capture *c);

/* The timer's period: how often capture_service(c, -1) should run. */
unsigned int capture_period_ms(const struct capture *c);

/* Milliseconds until the next sync is due (>= 1), and whether a sync now would write
 * anything (v7_unsynced). */
unsigned int capture_ms_to_sync(const struct capture *c);
int capture_unsynced(const struct capture *c);

/**
 * capture_service() - move the ready pages
 * @c:		capture
 * @cpu:	the CPU whose fd was readable, -1 for all CPUs (timer), or
 *		CAPTURE_FD_CHUNKS: only put the chunks compressed so far in the file
 *
 * Moves up to batch_pages whole pages per CPU to the writer, and syncs the file
 * when sync_ms has passed: then the pages the kernel is still filling are taken too,
 * and the command lines and per-CPU stats refreshed when pages moved since the last
 * sync, so the synced file holds every event written before the sync began.
 *
 * A full CPU region of the file returns -ENOSPC without making it sticky, once every
 * CPU was served and the file synced when due: that CPU's pages are read no further
 * and wait in its ring for the next file (until capture_rotate() every call returns
 * -ENOSPC). Without a rotation, capture_stop() loses them, and says so.
 *
 * A readable fd whose service moved nothing (the kernel's wake-up watermark counts a
 * page the writer is still on) should be left out of the poll set until the next
 * timer run, or a level-triggered loop spins.
 *
 * Return: pages moved (>= 0), -ENOSPC for a full region (rotate, or stop) or the
 * sticky -errno (the capture should be stopped).
 */
long capture_service(struct capture *c, int cpu);

/**
 * capture_rotate() - finish the file and go on in a new one, losing nothing
 * @c:		a running capture
 * @output:	the next file (created, truncated; with the capture's excl it must
 *		not exist yet)
 *
 * Tracing and the source are left running. The new file is written up to its
 * metadata (collected again: kallsyms and event formats as of now) and options first,
 * meanwhile (seconds) the page path goes on serving the CPUs whose regions have room
 * and syncing the old file. Then every CPU is drained (including partly written
 * pages) into the old file, which gets CMDLINES and CPUSTAT and is finished and
 * synced. A full region's pages, left in its ring, go to the new file. Per-file
 * counters restart; capture_status() sums the finished files in
 * done_raw_bytes/done_file_bytes.
 *
 * Also the way on after a full disk (v7_error()), once room was made: the old file is
 * then valid up to its last synced chunk.
 *
 * Return: 0; -errno with the capture unchanged when the new file cannot be made, or
 * the capture's sticky error (a source error) when rotating cannot help: then too
 * the capture is unchanged (the old file current, finished by capture_stop()).
 */
int capture_rotate(struct capture *c, const char *output);

/*
 * The capture's sticky error (the first one), 0 when there is none: -ENOSPC from
 * capture_service() with capture_error() 0 is a full CPU region of the file, not a
 * full disk (which is sticky: -ENOSPC, -EDQUOT or -EFBIG here).
 */
int capture_error(const struct capture *c);

/**
 * capture_drain() - turn tracing off and move every page written so far
 * @c:	capture
 *
 * The first step of capture_stop(), for callers that can rotate: a full region
 * returns -ENOSPC with its pages left in the ring; after capture_rotate(), call it again.
 * Once it returned 0, capture_stop() has nothing left that a full region could lose.
 *
 * Return: 0, -ENOSPC (rotate, then call again), or the capture's sticky -errno.
 */
int capture_drain(struct capture *c);

/**
 * capture_stop() - drain, finish the file, restore tracing
 * @c:	capture
 *
 * Turns tracing off, moves every page written before the call (including partly
 * written ones), adds CMDLINES and CPUSTAT, finishes the file and restores every
 * tracing setting capture_start() changed. Safe to call after an error: the file is
 * then left valid up to the last synced chunk.
 *
 * Return: 0, or the first -errno of the capture.
 */
int capture_stop(struct capture *c);

/*
 * Fills @st. The kernel's per-CPU counters (entries, lost, overrun) are those of the
 * last capture_refresh_stats(), done at each sync that moved pages and at the end:
 * reading them costs a file read per CPU, not for every caller's tick.
 */
void capture_status(struct capture *c, struct capture_status *st);

/* Reads the kernel's per-CPU counters now (for a status reply). */
void capture_refresh_stats(struct capture *c);

/* Frees the capture; stops it first if capture_stop() was not called. Accepts NULL. */
void capture_free(struct capture *c);

#endif /* REC_CAPTURE_H */
