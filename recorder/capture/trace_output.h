/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One output trace.dat: created with its metadata and the options every file of ours
 * carries (TRACECLOCK, UNAME, VERSION, TRACEID), then finished with CMDLINES and the
 * CPUSTAT of each CPU. The one way a file is begun and ended, for the capture core
 * (capture.c, also across rotations) and for flight snapshots (daemon/snapshot.c).
 */
#ifndef REC_TRACE_OUTPUT_H
#define REC_TRACE_OUTPUT_H

#include <stdint.h>

#include "format/v7_writer.h"
#include "source/source.h"
#include "task_names.h"

struct trace_output {
	char			*path;
	int			fd;		/* -1 when closed */
	struct v7_writer	*w;
	char			*cmdlines;	/* every task seen so far, "PID COMM" lines */
	size_t			cmdlines_len;
	char			*walk;		/* the names walk merged last */
	size_t			walk_len;
	struct task_names	*names;		/* walks /proc for us; NULL: we walk */
	uint64_t		lost_pages;	/* its writers' v7_unkept_pages() at discard */
};

/*
 * The two steps of trace_output_create(), for a caller that checks the path before it
 * changes anything else: open (create or truncate) @path, then write the beginning.
 * Each returns 0 or -errno with a message logged; a failed begin closes and removes.
 */
int trace_output_open(struct trace_output *o, const char *path, int excl, int gid);
/* TRACECLOCK (@clock marked), UNAME, VERSION, TRACEID: what every file of ours carries. */
int trace_output_add_options(struct v7_writer *w, const struct trace_meta *m, const char *clock);
int trace_output_begin(struct trace_output *o, struct v7_params *wp,
		       const struct trace_meta *m);

/**
 * trace_output_create() - create @path and write its metadata and options
 * @o:		filled in
 * @path:	file to create; with @excl it must not exist, else it is truncated
 * @gid:	group the file is given (readable by it: 0640), 0 = the creator's
 * @wp:		writer parameters (->fd is set here)
 * @m:		metadata of the recording
 *
 * Return: 0, or -errno with a message logged and nothing left behind.
 */
int trace_output_create(struct trace_output *o, const char *path, int excl, int gid,
			struct v7_params *wp, const struct trace_meta *m);

/**
 * trace_output_refresh() - refresh what the file's tail names
 * @o:		an output trace_output_create() made
 * @src:	source whose per-CPU stats go into CPUSTAT (may be NULL)
 *
 * The command lines of the tasks alive now, then those of tasks seen by an earlier
 * refresh that have exited since (so the file names every task it saw; bounded), and
 * each CPU's stats. The next v7_sync() writes them. With @o->names, "now" is the last
 * walk its thread finished (its owner asks for walks): this never waits. Return: 0
 * or -errno.
 */
int trace_output_refresh(struct trace_output *o, struct source *src);

/**
 * trace_output_finish() - finish the file and close it
 * @o:		an output trace_output_create() made
 * @src:	source whose per-CPU stats go into CPUSTAT (may be NULL)
 * @raw:	page bytes the file took (may be NULL)
 * @file:	bytes written to it (may be NULL)
 *
 * Refreshes the command lines and stats (trace_output_refresh, with a walk begun
 * now: @o->names' is waited for), finishes the tail, syncs the data, makes the compact
 * copy and closes. On failure the file keeps every chunk up to its last sync. A
 * compact copy that cannot be made is no failure: the file is complete, only sparse
 * (a warning says so).
 *
 * Return: 0 or -errno (logged).
 */
int trace_output_finish(struct trace_output *o, struct source *src, uint64_t *raw,
			uint64_t *file);

/*
 * trace_output_finish() in steps, for a rotation, which does the last two on another
 * thread while its page path goes to the next file: trace_output_seal() refreshes the
 * command lines and stats and hands the last chunks on (the source is not needed
 * after it); once the pool has delivered them all (v7_pending(@o->w) is 0),
 * trace_output_complete() writes the tail and syncs (on failure @o is closed), and
 * trace_output_compact() makes the compact copy, sets @file (may be NULL) to the
 * bytes of the file it leaves, and closes @o. Each returns 0 or -errno (logged).
 */
int trace_output_seal(struct trace_output *o, struct source *src);
int trace_output_complete(struct trace_output *o, uint64_t *raw, uint64_t *file);
int trace_output_compact(struct trace_output *o, uint64_t *file);

/* Closes @o without finishing it; @remove unlinks the file too. Accepts a closed one. */
void trace_output_discard(struct trace_output *o, int remove);

#endif /* REC_TRACE_OUTPUT_H */
