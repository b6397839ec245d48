/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracefs state a recording changes, saved first and restored exactly at the end
 * (also on error paths): the instance (created if missing, removed if we created it),
 * tracing_on, buffer_size_kb, buffer_percent, the overwrite option, trace_clock and the
 * enable file of every event we turn on. Never touches ftrace_enabled or set_ftrace_filter.
 * Also small tracefs file helpers used by the tracefs page sources.
 */
#ifndef REC_TRACING_H
#define REC_TRACING_H

#include <stddef.h>

#include "source.h"

struct tracing;

struct tracing_params {
	const char		*instance;	/* NULL = top buffer */
	int			create;		/* create the instance if it does not exist */
	const char *const	*events;	/* "SYSTEM" or "SYSTEM:EVENT" */
	int			nr_events;
	unsigned int		buffer_kb;	/* 0 = leave */
	int			overwrite;	/* -1 = leave, else the option's value */
	const char		*clock;		/* NULL = leave */
	int			buffer_percent;	/* reader wake-up watermark, -1 = leave */
	int			take_over;	/* @instance was left tracing by a recorder
						 * that died: keep tracing on and what its
						 * buffer holds; ours to remove at stop once
						 * tracing_adopt() said the recording is live */
	int			keep;		/* record what the buffer already holds (a
						 * persistent instance after a reboot): no
						 * clear at the start */
};

/**
 * tracing_setup() - save the state, then configure tracing for a recording
 * @p:		settings
 * @err:	set to -errno on failure (message logged, state restored)
 *
 * Leaves tracing off (tracing_on 0) and the buffer cleared; tracing_set_on() starts.
 *
 * Return: the saved state, or NULL.
 */
struct tracing *tracing_setup(const struct tracing_params *p, int *err);

/*
 * The recording is live: a taken-over instance is ours from now on (turned off and
 * removed by tracing_restore()). Before, restoring leaves it tracing, and there.
 */
void tracing_adopt(struct tracing *t);

/*
 * Turns tracing off and leaves the instance and what its buffer holds as they are:
 * tracing_restore() then changes and removes nothing. 0 or -errno.
 */
int tracing_keep(struct tracing *t);

/* Writes tracing_on; 0 or -errno. */
int tracing_set_on(struct tracing *t, int on);

/* The selected trace clock's name (after setup). */
const char *tracing_clock(const struct tracing *t);

/* Restores every saved setting (idempotent); 0 or the first -errno. */
int tracing_restore(struct tracing *t);

/* Restores (if not done) and frees. Accepts NULL. */
void tracing_free(struct tracing *t);

/* Path of @file of @instance (NULL = top), malloc'd; NULL if tracefs is missing. */
char *tracing_path(const char *instance, const char *file);

/*
 * Opens per_cpu/cpu@cpu/trace_pipe_raw of @instance, non-blocking: the fd, or -1 with
 * errno (ENOENT or ENODEV: no such CPU, e.g. offline).
 */
int tracing_open_pipe_raw(const char *instance, int cpu);

/* Writes @val to @file of @instance (NULL = top). 0 or -errno (logged). */
int tracing_write(const char *instance, const char *file, const char *val);

/* Whole content of @file of @instance (tracefs files report st_size 0), malloc'd. */
char *tracing_read(const char *instance, const char *file, size_t *len);

/*
 * Text for the CMDLINES section: every live thread's comm (the first *@live_len
 * bytes), then, with @with_saved, saved_cmdlines as the kernel gives it (the tasks of
 * a tracefs capture that exited). A pid may be in both: the caller keeps one line per
 * pid (libtraceevent finds either of two names), the live name before any other. The
 * kernel keeps an entry from any tracer since boot until its slot is reused, so a pid
 * since reused by a task no ftrace event has fired for (a marker writer) has a stale
 * name there, and pids wrap at pid_max (32768 on a small machine). The module's events
 * never fill it: for them it holds only other tracers' names (and reading 6 552 of
 * them took each walk ~10 ms in a TCG guest). Malloc'd; NULL (and *len = 0) if nothing
 * could be read.
 */
char *tracing_cmdlines(bool with_saved, size_t *len, size_t *live_len);

/* Parses per_cpu/cpu@cpu/stats into @st (entries, overrun, lost, read). 0 or -errno. */
int tracing_cpu_stats(const char *instance, int cpu, struct source_cpu_stats *st);
/* The same from the file's @text (those four fields only). */
void tracing_parse_cpu_stats(const char *text, struct source_cpu_stats *st);

/* "CPU: N\n" + per_cpu/cpuN/stats: the CPUSTAT option text trace-cmd writes. */
char *tracing_cpustat_text(const char *instance, int cpu);

/* Possible CPUs as trace-cmd counts them (per_cpu/cpuN ids are 0..n-1). */
int tracing_ncpus(void);

#endif /* REC_TRACING_H */
