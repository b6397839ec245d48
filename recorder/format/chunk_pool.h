/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compression off the page path: worker threads at idle priority compress the chunks
 * a writer submits, and the thread that drives the writers gets them back, compressed,
 * in the order they were submitted (so each CPU's chunks stay in order in the file).
 *
 *	p = chunk_pool_new(&params, &err);
 *	chunk_pool_submit(p, owner, tag, pages, len);	a copy is queued; never waits
 *	chunk_pool_reap(p, CHUNK_POOL_NOWAIT);		params.deliver(owner, tag, ...)
 *							for each job done, in order
 *	poll chunk_pool_fd(p) for POLLIN: jobs are ready to be reaped (CHUNK_POOL_FD)
 *	chunk_pool_reap(p, CHUNK_POOL_ALL);		all of them (the caller helps)
 *	chunk_pool_reap_until(p, jobs);			the first @jobs ever submitted,
 *							now: stored if not compressed yet
 *	chunk_pool_free(p);
 *
 * Bounds: mem_jobs chunks wait in memory; past that, input is spilled raw to a spool
 * file (O_TMPFILE in spool_dir: nothing is left behind by a crash; each chunk takes
 * the room of its largest frame at once) and compressed from there, up to max_jobs
 * chunks in flight and while 64 MiB stay free on its filesystem (the trace file needs
 * the room more). Only then does submit say -EAGAIN: the caller reaps with
 * CHUNK_POOL_ROOM, compressing the oldest queued chunk itself, which is what inline
 * compression costs; nothing is dropped here (what the caller cannot move meanwhile
 * the kernel ring counts).
 *
 * While more tasks are runnable than CPUs are online, the workers leave jobs to
 * chunk_pool_reap_until(), which stores them: a burst of work on a saturated machine
 * does not pay for compression (the file's finish does). At most mem_jobs jobs wait
 * so; each stored job spends one of that budget, which comes back at one a second.
 *
 * One thread submits and reaps; the workers only compress. Jobs keep their input
 * until they are delivered; delivery is the only place a job's result is seen.
 */
#ifndef REC_CHUNK_POOL_H
#define REC_CHUNK_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct codec;
struct chunk_pool;

/*
 * A job done: @buf holds @headroom bytes the receiver may fill (a chunk header) and
 * then the frame of @clen bytes, compressed from @ulen input bytes; @clen < 0 is the
 * -errno the job failed with. @buf is the pool's until the call returns.
 */
typedef void (*chunk_pool_deliver_fn)(void *owner, int tag, char *buf, ssize_t clen,
				      size_t ulen);

struct chunk_pool_params {
	const struct codec	*codec;
	int			level;		/* 0 = the codec's default */
	size_t			job_bytes;	/* largest input of one job */
	size_t			headroom;	/* bytes before each frame for the receiver */
	unsigned int		workers;	/* compressing threads, 0 = one per CPU (<= 8) */
	unsigned int		mem_jobs;	/* inputs held in memory, 0 = 64 */
	unsigned int		max_jobs;	/* jobs in flight in all, 0 = 16384 */
	const char		*spool_dir;	/* where to spill, NULL = never spill */
	bool			no_defer;	/* compress on a busy machine too */
	chunk_pool_deliver_fn	deliver;
};

enum chunk_pool_wait {
	CHUNK_POOL_NOWAIT,	/* deliver what is done, return */
	CHUNK_POOL_FD,		/* the same, when chunk_pool_fd() was readable: clears it */
	CHUNK_POOL_ROOM,	/* until a submit would be taken */
	CHUNK_POOL_ONE,		/* until at least one job was delivered (if any is in flight) */
	CHUNK_POOL_ALL,		/* until nothing is in flight */
};

struct chunk_pool_stats {
	uint64_t	jobs;		/* submitted */
	uint64_t	spooled;	/* of those, spilled to the spool file */
	uint64_t	helped;		/* compressed by the reaping thread while it waited */
	uint64_t	stored;		/* stored uncompressed by chunk_pool_reap_until() */
	uint64_t	full;		/* submits refused: memory, spool and slots full */
	uint64_t	spool_peak;	/* largest spool file size, bytes */
	unsigned int	in_flight;	/* submitted, not delivered */
	unsigned int	workers;
};

/* The pool with its workers started; NULL with *@err = -errno. */
struct chunk_pool *chunk_pool_new(const struct chunk_pool_params *p, int *err);

/* Delivers what is in flight (CHUNK_POOL_ALL), stops the workers, frees. Accepts NULL. */
void chunk_pool_free(struct chunk_pool *p);

/*
 * Queues a copy of @len bytes (at most job_bytes) at @in for @owner/@tag.
 * Return: 0; -EAGAIN when memory, spool and job slots are all full (reap with
 * CHUNK_POOL_ROOM, then submit again); -EINVAL for a @len that is too big.
 */
int chunk_pool_submit(struct chunk_pool *p, void *owner, int tag, const void *in,
		      size_t len);

/* Delivers the jobs done, in submission order, waiting as @wait says. Return: count. */
long chunk_pool_reap(struct chunk_pool *p, enum chunk_pool_wait wait);

/*
 * Delivers, in order, every job of the first @jobs submitted (chunk_pool_stats().jobs
 * at some earlier time), now: one no worker has taken yet is stored (codec_store():
 * framed as it is, a copy's cost), one a worker holds is waited for at the caller's
 * priority. For a sync that cannot wait for workers the workload leaves no CPU to.
 * Return: jobs delivered.
 */
long chunk_pool_reap_until(struct chunk_pool *p, uint64_t jobs);

/* Readable (POLLIN) when a job is ready to be delivered; reaping clears it. */
int chunk_pool_fd(const struct chunk_pool *p);

void chunk_pool_stats(struct chunk_pool *p, struct chunk_pool_stats *st);

#endif /* REC_CHUNK_POOL_H */
