// SPDX-License-Identifier: GPL-2.0
/*
 * The compression pool (chunk_pool.h).
 *
 * Jobs sit in a ring in submission order: [head, next_queued) are being compressed or
 * done, [next_queued, tail) wait. Workers take the oldest waiting job, so delivery in
 * ring order waits at most for the jobs the workers hold. A job's input lives in a
 * memory slot (mem_jobs of them, headroom + the codec's bound each: the frame goes
 * back where the input was) or, when all slots are taken, in an extent of the spool
 * file, where its frame is written back too. The submitting thread owns head, tail,
 * the free slots and the spool's end; workers touch only the job they took.
 * The spool is opened at creation (spool_fd -2: none), so spilling never opens files.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "chunk_pool.h"
#include "compress.h"
#include "util/log.h"
#include "util/mono_clock.h"
#include "util/thread.h"

#define DEF_MEM_JOBS	64
#define DEF_MAX_JOBS	16384
#define MAX_WORKERS	8
#define SPOOL_ALIGN	4096
/* Spilling stops while less than this is free: the trace file itself needs the room. */
#define SPOOL_RESERVE	(64ULL << 20)
#define BY_REAPER	(-1)	/* cp_job.by: the reaping thread compresses it */
#define BY_NOBODY	(-2)	/* cp_job.by: queued, not taken yet */
#define BOOST_RETRY_MS	5	/* a wait looks again (and boosts again) this often */
#define DEFER_POLL_MS	10	/* a worker leaving jobs waiting looks again, doubling... */
#define DEFER_POLL_MAX	160	/* ...up to this (ms) */
#define DEFER_REFILL_MS	1000	/* one job of the deferral budget comes back this often */

enum job_state { JOB_FREE, JOB_QUEUED, JOB_BUSY, JOB_DONE };

struct cp_job {
	_Atomic int	state;		/* enum job_state */
	_Atomic int	by;		/* worker index compressing it, or BY_REAPER */
	void		*owner;
	int		tag;
	int		slot;		/* memory slot, or -1: in the spool at @spool_off */
	size_t		ulen;
	ssize_t		clen;		/* frame bytes or -errno, once done */
	uint64_t	spool_off;
	bool		in_reap_buf;	/* its frame is in reap_buf (store_head()) */
};

/* A compressing thread, or the reaping thread when it helps (no thread then). */
struct cp_worker {
	struct chunk_pool	*pool;
	pthread_t		thread;
	_Atomic pid_t		tid;
	atomic_bool		boosted;	/* raised while the reaper waits for it */
	int			load_fd;	/* /proc/loadavg, or -1: never defers */
	struct codec_ctx	*ctx;
	char			*in;	/* a spooled job's input */
	char			*out;	/* headroom + frame */
};

/*
 * No lock: a SCHED_IDLE worker preempted while holding one would stall the page path
 * for as long as the workload keeps the CPU (measured: 76% of a flood lost). Jobs are
 * handed over with a semaphore (one token per queued job) and an atomic index; their
 * state is atomic; the reaper hears of the head job being done through the eventfd.
 */
struct chunk_pool {
	struct chunk_pool_params par;
	sem_t			queued;		/* tokens: jobs queued and not taken */
	bool			sem_ok;
	atomic_bool		quit;
	atomic_bool		notified;	/* efd written since the reaper last looked */
	int			efd;
	struct cp_job		*jobs;
	unsigned int		njobs;
	uint64_t		head, tail;	/* the reaper's */
	_Atomic uint64_t	head_pub;	/* head, for the workers' "is it the next?" */
	_Atomic uint64_t	next_queued;	/* next job to take */
	_Atomic uint64_t	tail_pub;	/* tail, for the workers' "how many wait?" */
	size_t			slot_cap;	/* headroom + max(job_bytes, bound) */
	char			**slots;
	int			*free_slots;	/* stack */
	unsigned int		nfree;
	int			spool_fd;	/* -2: none */
	bool			spool_full;	/* a spill failed: memory only until it empties */
	bool			spool_fd_bad;	/* it could not be emptied: never again */
	uint64_t		spool_end;
	size_t			extent;		/* spool bytes per job */
	unsigned int		spooled;	/* spooled jobs in flight */
	char			*reap_buf;	/* a spooled job's frame on delivery */
	struct cp_worker	*workers;
	unsigned int		nworkers;
	struct cp_worker	self;		/* the reaping thread's tools for helping */
	unsigned int		ncpus;		/* online at creation */
	int			defer_max;	/* the deferral budget's bound, in jobs */
	_Atomic int		defer_budget;	/* jobs that may wait deferred; the reaper's */
	uint64_t		refilled_ms;	/* the budget's last refill (mono_ms) */
	bool			boost_warned;
	struct chunk_pool_stats	st;
};

static struct cp_job *job_at(struct chunk_pool *p, uint64_t i)
{
	return &p->jobs[i % p->njobs];
}

/* pread/pwrite of all @len bytes at @off. 0 or -errno. */
static int spool_io(int fd, void *buf, size_t len, uint64_t off, bool write)
{
	char *b = buf;

	while (len) {
		ssize_t r = write ? pwrite(fd, b, len, (off_t)off) : pread(fd, b, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		b += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/*
 * Compresses @j into @w->out (+ headroom), or frames it uncompressed (@store), and puts
 * the frame where the input was.
 */
static void run_job(struct chunk_pool *p, struct cp_worker *w, struct cp_job *j, bool store)
{
	size_t hr = p->par.headroom;
	const char *in;
	ssize_t clen;
	int ret = 0;

	if (j->slot >= 0) {
		in = p->slots[j->slot] + hr;
	} else {
		ret = spool_io(p->spool_fd, w->in, j->ulen, j->spool_off, false);
		if (ret) {
			j->clen = ret;
			return;
		}
		in = w->in;
	}
	clen = store ? codec_store(p->par.codec, in, j->ulen, w->out + hr, p->slot_cap - hr) :
		codec_compress(w->ctx, in, j->ulen, w->out + hr, p->slot_cap - hr);
	if (clen >= 0) {
		if (j->slot >= 0)
			memcpy(p->slots[j->slot] + hr, w->out + hr, (size_t)clen);
		else
			ret = spool_io(p->spool_fd, w->out + hr, (size_t)clen, j->spool_off, true);
		if (j->slot < 0 && ret)
			clen = ret;
	}
	j->clen = clen;
}

/*
 * The head job, taken by the reaper to store: framed from its slot or the spool
 * straight into reap_buf, where deliver_head() takes it (no copy back to the slot,
 * no round trip through the spool).
 */
static void store_head(struct chunk_pool *p, struct cp_job *j)
{
	size_t hr = p->par.headroom;
	const char *in = p->self.in;
	int ret = 0;

	if (j->slot >= 0)
		in = p->slots[j->slot] + hr;
	else
		ret = spool_io(p->spool_fd, p->self.in, j->ulen, j->spool_off, false);
	j->clen = ret ? ret : codec_store(p->par.codec, in, j->ulen, p->reap_buf + hr,
					  p->slot_cap - hr);
	j->in_reap_buf = true;
}

/*
 * Job @i is done; the reaper hears of it when it is the next to deliver. Sequentially
 * consistent with the reaper's "publish head, then look at its state": one of the two
 * sees the other, so no completion goes unheard.
 */
static void job_done(struct chunk_pool *p, uint64_t i)
{
	uint64_t one = 1;

	atomic_store(&job_at(p, i)->state, JOB_DONE);
	if (atomic_load(&p->head_pub) == i && !atomic_exchange(&p->notified, true)) {
		if (write(p->efd, &one, sizeof(one)) < 0) {
			/* cannot overflow: the reaper reads it */
		}
	}
}

/* Takes the next queued job for @by (one token is ours); returns its index. */
static uint64_t take_job(struct chunk_pool *p, int by)
{
	uint64_t i = atomic_fetch_add(&p->next_queued, 1);
	struct cp_job *j = job_at(p, i);

	atomic_store(&j->by, by);
	atomic_store(&j->state, JOB_BUSY);
	return i;
}

/*
 * Idle priority: the workers use what CPU the traced workload leaves. SCHED_IDLE
 * where allowed, else the lowest nice value.
 */
static void set_idle_priority(void)
{
	struct sched_param sp = { 0 };

	if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp))
		setpriority(PRIO_PROCESS, (id_t)gettid(), 19);
}

/* Back to idle priority if the reaper raised @w (boost_worker()). */
static void unboost(struct cp_worker *w)
{
	if (atomic_exchange(&w->boosted, false))
		set_idle_priority();
}

/*
 * More tasks are runnable than CPUs are online: /proc/loadavg's fourth field counts
 * nr_running() of all CPUs, this thread included.
 */
static bool cpus_busy(struct chunk_pool *p, struct cp_worker *w)
{
	char buf[128];
	unsigned int running;
	ssize_t n = pread(w->load_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return false;
	buf[n] = 0;
	return sscanf(buf, "%*s %*s %*s %u/", &running) == 1 && running > p->ncpus;
}

/*
 * Jobs queued that no thread has taken. next_queued first: a job taken was published
 * in tail_pub before its token was posted, so the difference cannot go below 0.
 */
static uint64_t untaken(struct chunk_pool *p)
{
	uint64_t taken = atomic_load(&p->next_queued);

	return atomic_load(&p->tail_pub) - taken;
}

/*
 * Leave jobs to the sync while the CPUs are busy: SCHED_IDLE alone does not keep a
 * worker off them (woken with a sleeper's credit, it is picked ahead of the workload
 * at the next switch). The sync after next stores what nobody took, the file's finish
 * compresses it. At most defer_budget jobs wait so; each stored one spends one.
 */
static bool defer_job(struct chunk_pool *p, struct cp_worker *w)
{
	int budget = atomic_load(&p->defer_budget);

	return w->load_fd >= 0 && budget > 0 && untaken(p) <= (uint64_t)budget &&
	       cpus_busy(p, w);
}

/* The reaper's: a stored job spends one of the budget (a starved worker's too). */
static void spend_defer(struct chunk_pool *p)
{
	int b = atomic_load(&p->defer_budget);

	if (b > 0)
		atomic_store(&p->defer_budget, b - 1);
}

/* The reaper's: one job of the budget back every DEFER_REFILL_MS, up to defer_max. */
static void refill_defer(struct chunk_pool *p)
{
	uint64_t n = (mono_ms() - p->refilled_ms) / DEFER_REFILL_MS;
	int b = atomic_load(&p->defer_budget);

	if (!n)
		return;
	p->refilled_ms += n * DEFER_REFILL_MS;
	if (b < p->defer_max)
		atomic_store(&p->defer_budget,
			     n >= (uint64_t)(p->defer_max - b) ? p->defer_max : b + (int)n);
}

/*
 * A worker that gave its token back sleeps while jobs wait deferred, looking again
 * without a token (a sync finding none to take would raise every worker). True when
 * a job waits that it should take now.
 */
static bool wait_deferred(struct chunk_pool *p, struct cp_worker *w)
{
	for (int ms = DEFER_POLL_MS; !atomic_load(&p->quit);
	     ms = ms < DEFER_POLL_MAX ? ms * 2 : ms) {
		/* a reaper that raised us meanwhile took the job itself */
		unboost(w);
		poll(NULL, 0, ms);
		if (!untaken(p))
			return false;
		if (!defer_job(p, w))
			return true;
	}
	return false;
}

static void *worker_main(void *arg)
{
	struct cp_worker *w = arg;
	struct chunk_pool *p = w->pool;
	uint64_t i;

	atomic_store(&w->tid, gettid());
	set_idle_priority();
	for (;;) {
		if (sem_wait(&p->queued)) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (atomic_load(&p->quit))
			break;
		if (defer_job(p, w)) {
			sem_post(&p->queued);
			if (!wait_deferred(p, w) || sem_trywait(&p->queued)) {
				/* no job held: a raise that came meanwhile is undone */
				unboost(w);
				continue;
			}
			if (atomic_load(&p->quit))
				break;
		}
		i = take_job(p, (int)(w - p->workers));
		run_job(p, w, job_at(p, i), false);
		job_done(p, i);
		/* The reaper raised us while it waited for that job: back to idle. */
		unboost(w);
	}
	return NULL;
}

/*
 * The reaper waits for a job a worker has: the worker runs at normal priority until it
 * is done with it, or a busy workload would keep the reaper (the page path) waiting.
 */
static void boost_worker(struct chunk_pool *p, struct cp_worker *w)
{
	struct sched_param sp = { 0 };
	pid_t tid;

	tid = atomic_load(&w->tid);
	if (!tid)
		return;
	/* Needs RLIMIT_NICE >= 20 or CAP_SYS_NICE: chunk_pool_new() raises the limit. */
	if ((sched_setscheduler(tid, SCHED_OTHER, &sp) ||
	     setpriority(PRIO_PROCESS, (id_t)tid, 0)) && !p->boost_warned) {
		p->boost_warned = true;
		log_warn("cannot raise a compression thread's priority (%s): waiting for it can take long on a busy CPU",
			 strerror(errno));
	}
	/*
	 * After the raise: a worker that ends its job in between keeps the flag and goes
	 * back to idle after its next one, never stays raised with the flag cleared.
	 */
	atomic_store(&w->boosted, true);
}

/*
 * The same for the head job @j, whoever holds it. Not taken yet, with no token left to
 * take it by: a worker has the token and has not run since (SCHED_IDLE on a busy CPU,
 * between sem_wait() and take_job()). Which one is not known: all of them are raised,
 * each for one job.
 */
static void boost(struct chunk_pool *p, struct cp_job *j)
{
	int by = atomic_load(&j->by);

	if (by == BY_NOBODY && atomic_load(&j->state) == JOB_QUEUED) {
		for (unsigned int i = 0; i < p->nworkers; i++)
			boost_worker(p, &p->workers[i]);
	} else if (by >= 0 && (unsigned int)by < p->nworkers) {
		boost_worker(p, &p->workers[by]);
	}
}

static int worker_tools(struct chunk_pool *p, struct cp_worker *w)
{
	w->pool = p;
	w->ctx = codec_ctx_new(p->par.codec, p->par.level);
	w->in = malloc(p->par.job_bytes);
	w->out = malloc(p->slot_cap);
	return w->ctx && w->in && w->out ? 0 : -ENOMEM;
}

static void worker_tools_free(struct cp_worker *w)
{
	if (w->load_fd >= 0)
		close(w->load_fd);
	codec_ctx_free(w->ctx);
	free(w->in);
	free(w->out);
}

/* Starts the workers (with every signal blocked: signals are the main loop's). */
static int start_workers(struct chunk_pool *p, unsigned int n)
{
	int ret = 0;

	p->workers = calloc(n, sizeof(*p->workers));
	if (!p->workers)
		return -ENOMEM;
	for (; p->nworkers < n && !ret; p->nworkers++) {
		struct cp_worker *w = &p->workers[p->nworkers];

		ret = worker_tools(p, w);
		w->load_fd = -1;
		if (!ret && !p->par.no_defer)
			w->load_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
		if (!ret && !p->par.no_defer && w->load_fd < 0 && !p->nworkers)
			log_warn("cannot read /proc/loadavg (%s): compression threads will not leave a busy CPU to the workload",
				 strerror(errno));
		if (!ret)
			ret = thread_start(&w->thread, worker_main, w, "recorderd-zstd");
		if (ret) {
			worker_tools_free(w);
			break;
		}
	}
	return ret;
}

/*
 * Leaving SCHED_IDLE for SCHED_OTHER at nice 0 needs RLIMIT_NICE 20 (or CAP_SYS_NICE):
 * raised when allowed (root, CAP_SYS_RESOURCE), so that boost() works.
 */
static void allow_boost(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NICE, &rl) || rl.rlim_cur >= 20)
		return;
	rl.rlim_cur = 20;
	if (rl.rlim_max < 20)
		rl.rlim_max = 20;
	setrlimit(RLIMIT_NICE, &rl);
}

static unsigned int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (unsigned int)n;
}

static unsigned int default_workers(void)
{
	unsigned int n = online_cpus();

	return n > MAX_WORKERS ? MAX_WORKERS : n;
}

struct chunk_pool *chunk_pool_new(const struct chunk_pool_params *par, int *err)
{
	struct chunk_pool *p = calloc(1, sizeof(*p));
	size_t bound;
	int ret = -ENOMEM;

	if (!p)
		goto fail;
	p->efd = -1;
	p->spool_fd = -2;
	p->self.load_fd = -1;	/* the reaper never defers */
	ret = -EINVAL;
	if (!par->codec || !par->deliver || !par->job_bytes || par->headroom > 4096)
		goto fail;
	p->par = *par;
	p->par.spool_dir = NULL;	/* not kept: the caller's string */
	if (sem_init(&p->queued, 0, 0))
		goto fail;
	p->sem_ok = true;
	bound = codec_bound(par->codec, par->job_bytes);
	if (bound < par->job_bytes)
		bound = par->job_bytes;
	p->slot_cap = par->headroom + bound;
	p->extent = (bound + SPOOL_ALIGN - 1) / SPOOL_ALIGN * SPOOL_ALIGN;
	p->njobs = par->max_jobs ? par->max_jobs : DEF_MAX_JOBS;
	p->par.mem_jobs = par->mem_jobs ? par->mem_jobs : DEF_MEM_JOBS;
	if (p->par.mem_jobs > p->njobs)
		p->par.mem_jobs = p->njobs;
	ret = -ENOMEM;
	p->jobs = calloc(p->njobs, sizeof(*p->jobs));
	p->slots = calloc(p->par.mem_jobs, sizeof(*p->slots));
	p->free_slots = calloc(p->par.mem_jobs, sizeof(*p->free_slots));
	p->reap_buf = malloc(p->slot_cap);
	if (!p->jobs || !p->slots || !p->free_slots || !p->reap_buf)
		goto fail;
	/* Untouched until used: big allocations are mapped lazily. */
	for (unsigned int i = 0; i < p->par.mem_jobs; i++) {
		p->slots[i] = malloc(p->slot_cap);
		if (!p->slots[i])
			goto fail;
		p->free_slots[p->nfree++] = (int)(p->par.mem_jobs - 1 - i);
	}
	p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (p->efd < 0) {
		ret = -errno;
		goto fail;
	}
	allow_boost();
	p->ncpus = online_cpus();
	p->defer_max = (int)p->par.mem_jobs;
	p->defer_budget = p->defer_max;
	p->refilled_ms = mono_ms();
	ret = worker_tools(p, &p->self);
	ret = ret ?: start_workers(p, par->workers ? par->workers : default_workers());
	if (ret)
		goto fail;
	p->st.workers = p->nworkers;
	if (par->spool_dir) {
		/* Opened now, not on the page path; O_TMPFILE: a crash leaves nothing. */
		p->spool_fd = open(par->spool_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (p->spool_fd < 0) {
			log_warn("no spool file in %s (%s): compression that falls behind %u chunks waits",
				 par->spool_dir, strerror(errno), p->par.mem_jobs);
			p->spool_fd = -2;
		}
	}
	return p;
fail:
	chunk_pool_free(p);
	*err = ret;
	return NULL;
}

void chunk_pool_free(struct chunk_pool *p)
{
	if (!p)
		return;
	if (p->nworkers)
		chunk_pool_reap(p, CHUNK_POOL_ALL);
	atomic_store(&p->quit, true);
	for (unsigned int i = 0; i < p->nworkers; i++)
		sem_post(&p->queued);
	for (unsigned int i = 0; i < p->nworkers; i++) {
		pthread_join(p->workers[i].thread, NULL);
		worker_tools_free(&p->workers[i]);
	}
	worker_tools_free(&p->self);
	for (unsigned int i = 0; p->slots && i < p->par.mem_jobs; i++)
		free(p->slots[i]);
	if (p->spool_fd >= 0)
		close(p->spool_fd);
	if (p->efd >= 0)
		close(p->efd);
	if (p->sem_ok)
		sem_destroy(&p->queued);
	free(p->workers);
	free(p->slots);
	free(p->free_slots);
	free(p->reap_buf);
	free(p->jobs);
	free(p);
}

static bool spool_usable(const struct chunk_pool *p)
{
	return p->spool_fd >= 0 && !p->spool_full;
}

/* A submit would be taken. */
static bool has_room(const struct chunk_pool *p)
{
	return p->tail - p->head < p->njobs && (p->nfree || spool_usable(p));
}

/* Room on the spool's filesystem for one more extent, SPOOL_RESERVE left over. */
static bool spool_room(struct chunk_pool *p)
{
	struct statvfs sv;

	return !fstatvfs(p->spool_fd, &sv) &&
	       (uint64_t)sv.f_bavail * sv.f_frsize >= SPOOL_RESERVE + p->extent;
}

/*
 * Spills @len bytes at @in to the extent at @off. The whole extent is allocated first:
 * the frame goes back over the input and may be longer (incompressible pages), and a
 * disk that filled meanwhile (the trace file grows into SPOOL_RESERVE) must not fail
 * that write, which would lose the chunk. That holds where files are overwritten in
 * place (ext4, xfs, tmpfs), not on copy-on-write ones (btrfs), nor where fallocate()
 * is not supported. 0 or -errno.
 */
static int spool_spill(struct chunk_pool *p, const void *in, size_t len, uint64_t off)
{
	int ret;

	if (fallocate(p->spool_fd, 0, (off_t)off, (off_t)p->extent) && errno != EOPNOTSUPP)
		return -errno;
	ret = spool_io(p->spool_fd, (void *)in, len, off, true);
	if (ret)	/* the room goes back: the extent is not the spool's */
		fallocate(p->spool_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			  (off_t)p->extent);
	return ret;
}

int chunk_pool_submit(struct chunk_pool *p, void *owner, int tag, const void *in,
		      size_t len)
{
	struct cp_job *j;

	if (len > p->par.job_bytes || !len)
		return -EINVAL;
	refill_defer(p);
	if (!has_room(p)) {
		p->st.full++;
		return -EAGAIN;
	}
	/* No worker looks at it before its token is posted. */
	j = job_at(p, p->tail);
	atomic_store(&j->by, BY_NOBODY);
	j->owner = owner;
	j->tag = tag;
	j->ulen = len;
	j->clen = 0;
	j->in_reap_buf = false;
	if (p->nfree) {
		j->slot = p->free_slots[--p->nfree];
		memcpy(p->slots[j->slot] + p->par.headroom, in, len);
	} else {
		j->slot = -1;
		j->spool_off = p->spool_end;
		if (!spool_room(p) || spool_spill(p, in, len, j->spool_off)) {
			/* The disk is full: no spilling until the spool empties. */
			p->spool_full = true;
			p->st.full++;
			return -EAGAIN;
		}
		p->spool_end += p->extent;
		p->spooled++;
		p->st.spooled++;
		if (p->spool_end > p->st.spool_peak)
			p->st.spool_peak = p->spool_end;
	}
	atomic_store(&j->state, JOB_QUEUED);
	p->tail++;
	atomic_store(&p->tail_pub, p->tail);
	p->st.jobs++;
	sem_post(&p->queued);
	return 0;
}

/* Hands the done job at head to its owner and frees what it held. */
static void deliver_head(struct chunk_pool *p)
{
	struct cp_job *j = job_at(p, p->head);
	char *buf = j->slot >= 0 && !j->in_reap_buf ? p->slots[j->slot] : p->reap_buf;
	ssize_t clen = j->clen;

	if (j->slot < 0 && clen > 0 && !j->in_reap_buf) {
		int ret = spool_io(p->spool_fd, p->reap_buf + p->par.headroom, (size_t)clen,
				   j->spool_off, false);

		if (ret)
			clen = ret;
	}
	p->par.deliver(j->owner, j->tag, buf, clen, j->ulen);
	if (j->slot >= 0) {
		p->free_slots[p->nfree++] = j->slot;
	} else if (--p->spooled == 0) {
		/* Empty again: the disk space goes back. */
		if (ftruncate(p->spool_fd, 0))
			p->spool_fd_bad = true;
		p->spool_end = 0;
	} else {
		fallocate(p->spool_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)j->spool_off, (off_t)p->extent);
	}
	/* A refused spill is tried again once the spool is empty (the disk may have room). */
	if (!p->spooled && !p->spool_fd_bad)
		p->spool_full = false;
	atomic_store(&j->state, JOB_FREE);
	p->head++;
	atomic_store(&p->head_pub, p->head);
}

/* Forgets past notifications; true when the head job is done already. */
static bool rearm(struct chunk_pool *p)
{
	uint64_t v;

	/* Read, then forget: a completion in between is written again, not swallowed. */
	if (read(p->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing was signalled */
	}
	atomic_store(&p->notified, false);
	return p->head != p->tail && atomic_load(&job_at(p, p->head)->state) == JOB_DONE;
}

/*
 * Delivers what is done, then waits as @wait says, or (@until) until the jobs before
 * index @until are delivered; those the reaper takes itself are stored, not compressed.
 */
static long reap(struct chunk_pool *p, enum chunk_pool_wait wait, uint64_t until)
{
	struct pollfd pfd = { .fd = p->efd, .events = POLLIN };
	long n = 0;

	/* No syscall unless a worker signalled; the fd's own wake-up always reads it. */
	if (wait == CHUNK_POOL_FD || atomic_load(&p->notified))
		rearm(p);
	for (;;) {
		while (p->head != p->tail &&
		       atomic_load(&job_at(p, p->head)->state) == JOB_DONE) {
			deliver_head(p);
			n++;
		}
		if (until ? p->head >= until :
		    wait == CHUNK_POOL_NOWAIT || wait == CHUNK_POOL_FD ||
		    (wait == CHUNK_POOL_ROOM && has_room(p)) || (wait == CHUNK_POOL_ONE && n))
			break;
		if (p->head == p->tail)
			break;
		/* Waiting: compress the next queued job here rather than sleep. */
		if ((!until || atomic_load(&p->next_queued) < until) && !sem_trywait(&p->queued)) {
			uint64_t i = take_job(p, BY_REAPER);
			/* past @until only when a worker took ours meanwhile: stored all the same */
			bool store = until;

			if (store && i == p->head)
				store_head(p, job_at(p, i));
			else
				run_job(p, &p->self, job_at(p, i), store);
			job_done(p, i);
			if (store) {
				p->st.stored++;
				spend_defer(p);
			} else {
				p->st.helped++;
			}
			continue;
		}
		/*
		 * All taken: the head is a worker's, or about to be; it runs at our priority
		 * meanwhile (again at each pass: it may have taken the job after we looked).
		 */
		boost(p, job_at(p, p->head));
		if (!rearm(p))
			poll(&pfd, 1, BOOST_RETRY_MS);
	}
	return n;
}

long chunk_pool_reap(struct chunk_pool *p, enum chunk_pool_wait wait)
{
	return reap(p, wait, 0);
}

long chunk_pool_reap_until(struct chunk_pool *p, uint64_t jobs)
{
	return jobs > p->head ? reap(p, CHUNK_POOL_ALL, jobs < p->tail ? jobs : p->tail) : 0;
}
int chunk_pool_fd(const struct chunk_pool *p)
{
	return p->efd;
}

void chunk_pool_stats(struct chunk_pool *p, struct chunk_pool_stats *st)
{
	*st = p->st;
	st->in_flight = (unsigned int)(p->tail - p->head);
}
