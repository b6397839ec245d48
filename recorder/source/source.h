/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where pages come from. Every source hands over whole ftrace-format sub-buffers
 * (common/ftrace_page.h) per CPU and never parses events on the way, except to cut
 * a page the kernel was still writing when the recorder caught up with it.
 *
 * Sources:
 *   "mmap"   upstream ftrace ring-buffer mmap (trace_pipe_raw + GET_READER, Linux >= 6.10)
 *   "splice" splice/read from trace_pipe_raw (any kernel)
 *   "kmod"   the ftring module's per-CPU devices (same mmap ABI as "mmap")
 */
#ifndef REC_SOURCE_H
#define REC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct source;

struct source_params {
	const char	*instance;	/* tracefs instance name, NULL = top buffer */
	unsigned int	buffer_kb;	/* per-CPU buffer size to set, 0 = leave as is */
	int		overwrite;	/* flight recorder: kernel overwrites oldest pages */
	/* For sources with events of their own (SOURCE_OWN_EVENTS): what -e named
	 * ("SYSTEM", "SYSTEM:EVENT" or "EVENT"; NULL = the source's defaults) and the
	 * trace clock to use (NULL = the source's default). */
	const char *const *events;
	int		nr_events;
	const char	*clock;
	/* For sources that take it (kmod): wake the reader when this percentage of the
	 * ring is full pages (0 = the source's default, -1 = leave as is). */
	int		watermark_pct;
	/* For sources with a recording that outlives its reader (kmod): only take over
	 * one a dead recorder left; -ENOENT when none is recording (recorderd salvage). */
	int		orphan_only;
};

struct trace_meta;

/* source_ops.flags */
#define SOURCE_OWN_EVENTS	(1U << 0)	/* events are not tracefs's: leave tracefs alone */
/* A reader page swap runs on the ring's CPU (an IPI from elsewhere): read from there. */
#define SOURCE_SWAP_ON_CPU	(1U << 1)

struct source_cpu_stats {
	uint64_t	entries;	/* events written by the producer */
	uint64_t	overrun;	/* events lost to overwrite */
	uint64_t	lost;		/* events dropped (a full buffer, a commit overrun) */
	uint64_t	read;		/* events handed to us */
	uint64_t	pages;		/* pages handed to us */
	uint64_t	bytes;		/* bytes of pages handed to us */
};

struct source_ops {
	const char	*name;
	/* Bytes source_open() allocates (zeroed) for the implementation's struct, which
	 * embeds struct source first; 0 = sizeof(struct source) (then use ->priv). */
	size_t		size;
	/* 0 if this source can work on this machine, else -errno (and why, logged). */
	int	(*probe)(const struct source_params *p);
	/* Fills @s (ncpus, page_size, its own fields); on failure releases everything. */
	int	(*open)(struct source *s, const struct source_params *p);
	/* Fd that polls readable when @cpu has pages (or -1: poll on a timer only). */
	int	(*poll_fd)(struct source *s, int cpu);
	/*
	 * Copies up to @max whole pages of @cpu to @dst (page_size each).
	 * @flush: also take the page the producer is still filling (at stop, snapshot).
	 * Returns the number of pages, 0 when none is ready, -errno on error.
	 */
	ssize_t	(*read_pages)(struct source *s, int cpu, void *dst, size_t max, int flush);
	/*
	 * Optional zero-copy path for uncompressed output: moves up to @max whole pages
	 * of @cpu to @fd at @off (pwrite semantics). Returns pages moved, 0, or -errno.
	 */
	ssize_t	(*splice_pages)(struct source *s, int cpu, int fd, off_t off, size_t max,
				int flush);
	int	(*stats)(struct source *s, int cpu, struct source_cpu_stats *st);
	/* Text for the file's CPUSTAT option of @cpu (malloc'd), or NULL. */
	char	*(*cpustat_text)(struct source *s, int cpu);
	/* Releases what open() acquired; source_close() then frees @s. */
	void	(*close)(struct source *s);
	/* SOURCE_* */
	unsigned int	flags;
	/* Optional: adds the formats of the source's own events to @m (after open). */
	int	(*add_meta)(struct source *s, struct trace_meta *m);
	/* Optional: the trace clock the pages are stamped with (default: tracefs's). */
	const char *(*clock_name)(struct source *s);
	/* Optional: stop producing; called before the final drain so it loses nothing. */
	int	(*stop)(struct source *s);
	/* Optional: the recording is live (source_adopt()). */
	void	(*adopt)(struct source *s);
};

/* Common part of every source; each implementation embeds it first. */
struct source {
	const struct source_ops	*ops;
	int			ncpus;		/* CPU ids 0..ncpus-1 (possible CPUs) */
	unsigned int		page_size;	/* sub-buffer size, header included */
	int			persistent;	/* pages outlive a crash (ftring persist=) */
	void			*priv;		/* free for the implementation */
};

/* The kernel's saved_cmdlines names this source's tasks: tracefs's events fill it. */
static inline bool source_fills_saved_cmdlines(const struct source *s)
{
	return !(s->ops->flags & SOURCE_OWN_EVENTS);
}

/**
 * source_find() - pick a page source by name
 * @name:	"auto" (kmod if /dev/ftring works, then mmap if the kernel maps
 *		trace_pipe_raw, then splice), "tracefs" (auto without kmod), "kmod",
 *		"mmap" or "splice"
 * @p:		what will be opened (probe() checks it can be)
 *
 * Return: the source's ops, or NULL with the reason logged.
 */
const struct source_ops *source_find(const char *name, const struct source_params *p);

/*
 * For @name "auto": the module's source if it works here, else NULL (quietly). The
 * tracefs sources are probed later with source_find(@name = "tracefs"), once the
 * tracefs instance they read exists.
 */
const struct source_ops *source_find_module(const char *name, const struct source_params *p);

/* True when source @name ("kmod", or "auto" with the module there) is the module's. */
int source_is_module(const char *name, const struct source_params *p);

/* What the ftring module is doing (source_kmod_state()). */
enum source_kmod_state {
	SOURCE_KMOD_IDLE,	/* not recording */
	SOURCE_KMOD_ORPHAN,	/* recording, nothing maps its rings: a recorder died */
	SOURCE_KMOD_LIVE,	/* recording for a reader that maps its rings */
};

/* The module's state (enum source_kmod_state), or -errno (not loaded: -ENOENT). */
int source_kmod_state(void);

/* Allocates and opens a source; NULL with *err = -errno (reason logged). */
struct source *source_open(const struct source_ops *ops, const struct source_params *p,
			   int *err);
/* Closes and frees. Accepts NULL. */
void source_close(struct source *s);

/*
 * The recording is live: what the source took over from a dead recorder is its own
 * from now on, stopped at close. Closed before, it is left recording as it was.
 */
void source_adopt(struct source *s);

extern const struct source_ops source_mmap_ops;
extern const struct source_ops source_splice_ops;
extern const struct source_ops source_kmod_ops;

#endif /* REC_SOURCE_H */
