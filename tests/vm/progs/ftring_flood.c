// SPDX-License-Identifier: GPL-2.0
/*
 * Flood accounting test for ftring, run in the guest. Per online CPU: a pinned marker
 * writer ("fl <cpu> <seq>"), a pinned ticker whose 1 ms hrtimer wakes it from hard
 * IRQ context (sched_wakeup, irq and softirq events nest into the writer on that CPU),
 * and a reader draining the CPU's buffer through the mmap ABI (deliberately slow, and
 * first reading once its writer has overfilled the ring, so a small ring overflows).
 * After the writers stop, recording stops and every buffer is drained; then, per CPU,
 * exactly:
 *   entries == read + overrun, events decoded == read, lost == sum of its causes,
 *   pages well formed with time never going backwards, missed counts stored in pages
 *   == reader.lost_events at that swap;
 * per writer: its markers come back in order, intact, from its own pid on its CPU;
 *   discard mode: exactly the markers whose write() succeeded, no overrun;
 *   overwrite mode: its last marker is there (the newest data is kept);
 * and ENOSPC returns <= lost, with a loss actually provoked.
 *
 * With -b N, N tickers per CPU sleep to one shared absolute deadline, so a single
 * hrtimer interrupt wakes them all: N sched_wakeup events in a row from hard IRQ
 * context, nested into the marker writer, enough to go round a small ring under a
 * writer the interrupt cut off. The longest such run is checked to be there in a
 * discard ring (see report() for why not in an overwrite one): in the middle of the
 * flood the writers pause for a quiet window while the readers drain at full speed,
 * so that bursts land in an emptied ring even on a slow TCG vCPU. In that window the
 * crowd sleeps QUIET_STRETCH periods, time for all of it to be asleep again when its
 * vCPU gets a share of a loaded host, and the window stays open until a reader has
 * seen the burst (at most until shortly before the crowd stops).
 *
 *   ftring_flood -m discard|overwrite [-n NR_SUBBUFS] [-d SECONDS] [-r READER_SLEEP_US]
 *                [-b TICKERS_PER_CPU [-p PERIOD_US]]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include "ftring_test.h"
#include "ftring_events.h"
#include "kselftest.h"

#define MAX_CPUS	64
#define MAX_SEQ		(2L << 20)	/* markers per writer; a TCG guest writes far fewer */
#define EV_BIT(e)	(1ULL << FTRING_EV_##e)
#define EV_ID(e)	FT_ID(e)
#define QUIET_STRETCH	4	/* a crowd's period in the quiet window, in periods */

static int mode = -1;
static unsigned int nr_subbufs = 4;
static double duration = 3.0;
static unsigned int reader_sleep_us = 2000;
static unsigned int nr_tickers = 1;
static long crowd_period_us = 10000;
static double tickers_end;	/* a crowd stops first: the writer's last marker is newest */
static atomic_int writers_stop, readers_stop;
static atomic_int quiet;	/* writers pause, readers drain without pausing */
static atomic_int burst_seen;	/* a reader found a run of nr_tickers / 4 */
static pthread_barrier_t start_line;	/* writers and tickers, then main() */

struct cpu_ctx {
	int			cpu;
	pthread_t		writer, reader, *tickers;
	pid_t			writer_tid;
	atomic_int		writer_done;
	/* writer */
	long			attempts, ok, nospc, other;
	atomic_long		progress;	/* attempts, for the reader's gate */
	unsigned char		*succeeded;	/* per seq: write() returned the length */
	long			cap;		/* room in succeeded[] and found[] */
	/* reader */
	int			fd;
	struct ftring_meta	*meta;
	char			*data;
	size_t			data_len;
	long			events, by_type[FTRING_NR_EVENTS];
	long			markers, marker_bad, marker_order, last_seq;
	long			irq_events;
	long			irq_run, max_irq_run;	/* hard IRQ events in a row */
	long			bad_pages, backwards, unknown_type, reader_errs;
	long			missed_mismatch, swaps;
	long			regrown;	/* events found in a reader page re-read grown */
	uint64_t		lost_events, last_ts;
	uint64_t		tail_bytes;	/* decoded since its last marker or gap */
	int			gap_after_marker;	/* events lost since its last marker */
	unsigned char		*found;		/* per seq: seen in the buffer */
};

static struct cpu_ctx cpus[MAX_CPUS];
static int ncpus;
static int ctl, mfd;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	double d = t - now();

	if (d > 0)
		usleep((useconds_t)(d * 1e6));
}

/*
 * Every writer and ticker is pinned before the clock starts: creating 130 threads a
 * CPU takes seconds on a TCG guest of a loaded host, which would leave the quiet
 * window and the crowd's end behind the threads still starting. The second wait is
 * for main() to set t0 and tickers_end.
 */
static void wait_start(void)
{
	pthread_barrier_wait(&start_line);
	pthread_barrier_wait(&start_line);
}

/* One numbered marker; which attempts succeeded is what the reader is checked against. */
static void write_marker(struct cpu_ctx *c)
{
	char buf[64];
	int len = snprintf(buf, sizeof(buf), "fl %d %ld", c->cpu, c->attempts);
	ssize_t ret = ft_marker(mfd, buf, len + 1);

	if (ret == len + 1) {
		c->ok++;
		c->succeeded[c->attempts] = 1;
	} else if (ret == -ENOSPC) {
		c->nospc++;
	} else {
		c->other++;
	}
	c->attempts++;
	atomic_store_explicit(&c->progress, c->attempts, memory_order_relaxed);
}

static void *writer(void *arg)
{
	struct cpu_ctx *c = arg;
	unsigned int t;
	double end;

	ft_pin(c->cpu);
	c->writer_tid = (pid_t)syscall(SYS_gettid);
	wait_start();
	end = now() + duration;
	while (!atomic_load(&writers_stop) && now() < end && c->attempts < c->cap - 1) {
		if (atomic_load_explicit(&quiet, memory_order_relaxed))
			usleep(1000);
		else
			write_marker(c);
	}
	/*
	 * A crowd (stopped half a second before) has exited before the last marker: the
	 * switches and exits of a late one would fill the small ring after it, and
	 * overwrite mode must keep it.
	 */
	if (nr_tickers > 1) {
		for (t = 0; t < nr_tickers; t++)
			pthread_join(c->tickers[t], NULL);
		write_marker(c);
	}
	atomic_store(&c->writer_done, 1);
	return NULL;
}

/*
 * Sleeps to the next multiple of the period: every ticker of the CPU to the same
 * instant, which one hrtimer interrupt serves. 1 ms alone (a TCG vCPU keeps up);
 * 10 ms (-p) for a crowd, so that all of it is asleep again by the next one: a
 * ticker still running at the deadline splits the burst. The quiet window's period
 * is a multiple of it, so the crowd stays on common deadlines across the switch.
 */
static void *ticker(void *arg)
{
	struct cpu_ctx *c = arg;
	long base = nr_tickers > 1 ? crowd_period_us * 1000L : 1000000L;
	struct timespec ts;

	ft_pin(c->cpu);
	wait_start();
	while (!atomic_load(&writers_stop) && now() < tickers_end) {
		long period = atomic_load(&quiet) ? base * QUIET_STRETCH : base;
		long long t;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		t = ((long long)ts.tv_sec * 1000000000LL + ts.tv_nsec) / period * period + period;
		ts.tv_sec = t / 1000000000LL;
		ts.tv_nsec = t % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

static void check_event(const struct ftp_event *ev, void *arg)
{
	struct cpu_ctx *c = arg;
	const struct ftp_entry *e = ev->payload;
	int idx = ft_ev_index(e->type);

	c->events++;
	c->tail_bytes += ev->len;
	if (e->flags & 0x08 /* TRACE_FLAG_HARDIRQ */) {
		if (++c->irq_run > c->max_irq_run)
			c->max_irq_run = c->irq_run;
		if (nr_tickers > 1 && c->irq_run >= nr_tickers / 4)
			atomic_store(&burst_seen, 1);
	} else {
		c->irq_run = 0;
	}
	if (idx < 0 || idx >= FTRING_NR_EVENTS) {
		c->unknown_type++;
		return;
	}
	c->by_type[idx]++;
	if (idx == FTRING_EV_irq_handler_entry || idx == FTRING_EV_softirq_entry ||
	    (idx == FTRING_EV_sched_wakeup && (e->flags & 0x08 /* TRACE_FLAG_HARDIRQ */)))
		c->irq_events++;
	if (idx == FTRING_EV_marker) {
		const struct ftring_ev_marker *m = ev->payload;
		uint32_t off = m->buf & 0xffff, len = m->buf >> 16;
		const char *txt = (const char *)m + off;
		int cpu;
		long seq;
		char tail;

		c->markers++;
		if (off < sizeof(*m) || !len || off + len > ev->payload_len ||
		    txt[len - 1] || sscanf(txt, "fl %d %ld%c", &cpu, &seq, &tail) != 2 ||
		    cpu != c->cpu || m->pid != e->pid || e->pid != c->writer_tid ||
		    seq < 0 || seq >= c->cap) {
			c->marker_bad++;
			return;
		}
		if (seq <= c->last_seq)
			c->marker_order++;
		c->last_seq = seq;
		c->found[seq] = 1;
		c->tail_bytes = 0;
		c->gap_after_marker = 0;
	}
}

/* Walks @page of @c from data offset @from to @to; page-level checks included. */
static void walk(struct cpu_ctx *c, const void *page, uint32_t from, uint32_t to)
{
	int ret;

	if (!from && to && ftp_page_ts(page) < c->last_ts)
		c->backwards++;
	ret = ft_walk_page_range(page, c->meta->subbuf_size, from, to, check_event, c);
	if (ret == -ERANGE)
		c->backwards++;
	else if (ret < 0)
		c->bad_pages++;
	/* Clock at the end of what was walked, for the next page's check. */
	if (ret >= 0 && to) {
		int64_t end = ftp_ts_before(page, to);

		if (end > 0)
			c->last_ts = (uint64_t)end;
	}
}

/* One GET_READER and the walk of what it made readable. Returns 1 if empty. */
static int read_once(struct cpu_ctx *c, uint32_t *id, uint32_t *done)
{
	const void *page;
	uint32_t len;

	if (ft_ioctl(c->fd, FTRING_IOC_GET_READER, NULL)) {
		c->reader_errs++;
		return 1;
	}
	page = c->data + (size_t)c->meta->reader.id * c->meta->subbuf_size;
	if (c->meta->reader.id != *id) {
		int64_t missed = ft_page_missed(page, c->meta->subbuf_size);

		c->swaps++;
		*id = c->meta->reader.id;
		*done = 0;
		c->lost_events += c->meta->reader.lost_events;
		/*
		 * Events lost in between: a run of hard IRQ events does not go on across,
		 * and what follows is newer than anything lost.
		 */
		if (c->meta->reader.lost_events) {
			c->irq_run = 0;
			c->tail_bytes = 0;
			c->gap_after_marker = 1;
		}
		if (missed > 0 && (uint64_t)missed != c->meta->reader.lost_events)
			c->missed_mismatch++;
		if (!missed && c->meta->reader.lost_events)
			c->missed_mismatch++;
	}
	/*
	 * The writer may still append to the reader page: walk up to this one snapshot
	 * and resume from it, or the events committed meanwhile are decoded twice.
	 */
	len = ft_page_len_acquire(page);
	if (len == *done)
		return 1;
	if (*done) {
		long before = c->events;

		walk(c, page, *done, len);
		c->regrown += c->events - before;
	} else {
		walk(c, page, 0, len);
	}
	*done = len;
	return 0;
}

/*
 * Markers that surely overfill the ring and its reader page: no record is under 16
 * bytes. The reader waits for that many before its first read, so a loss is provoked
 * whatever the vCPU's speed (an arm64 TCG vCPU could keep pace with a pausing reader).
 */
static long overfill_markers(const struct cpu_ctx *c)
{
	return (long)c->meta->subbuf_size * (c->meta->nr_subbufs + 1) / 16;
}

static void *reader(void *arg)
{
	struct cpu_ctx *c = arg;
	uint32_t id = c->meta->reader.id, done = 0;
	int idle = 0;

	c->last_seq = -1;
	/* the quiet window opens the gate too: its writer no longer writes then */
	while (atomic_load_explicit(&c->progress, memory_order_relaxed) < overfill_markers(c) &&
	       !atomic_load(&c->writer_done) && !atomic_load(&readers_stop) &&
	       !atomic_load(&quiet))
		usleep(reader_sleep_us);
	while (!atomic_load(&readers_stop)) {
		if (read_once(c, &id, &done) || !atomic_load(&quiet))
			usleep(reader_sleep_us);
	}
	/* Recording stopped: drain until two empty rounds in a row. */
	while (idle < 2)
		idle = read_once(c, &id, &done) ? idle + 1 : 0;
	return NULL;
}

static int setup(void)
{
	struct ftring_config cfg;
	int i, ret;

	ret = ft_setup(ctl, nr_subbufs, mode);
	if (ret)
		return ret;
	ret = ft_get_config(ctl, &cfg);
	if (ret)
		return ret;
	ksft_print_msg("ring %u sub-buffers of %u bytes, mode %s, %d CPUs, %.1f s\n",
		       cfg.nr_subbufs, cfg.subbuf_size, mode ? "overwrite" : "discard",
		       ncpus, duration);
	ret = ft_set_events(ctl, EV_BIT(marker) | EV_BIT(irq_handler_entry) |
			    EV_BIT(irq_handler_exit) | EV_BIT(softirq_entry) |
			    EV_BIT(softirq_exit) | EV_BIT(sched_switch) | EV_BIT(sched_wakeup));
	if (ret)
		return ret;
	for (i = 0; i < ncpus; i++) {
		struct cpu_ctx *c = &cpus[i];

		c->cpu = i;
		c->cap = MAX_SEQ;
		c->succeeded = calloc(MAX_SEQ, 1);
		c->found = calloc(MAX_SEQ, 1);
		if (!c->succeeded || !c->found)
			return -ENOMEM;
		c->fd = ft_cpu_open(i, O_RDONLY | O_NONBLOCK);
		if (c->fd < 0)
			return c->fd;
		c->meta = mmap(NULL, 4096, PROT_READ, MAP_SHARED, c->fd, 0);
		if (c->meta == MAP_FAILED)
			return -errno;
		c->data_len = (size_t)c->meta->subbuf_size * c->meta->nr_subbufs;
		c->data = mmap(NULL, c->data_len, PROT_READ, MAP_SHARED, c->fd,
			       c->meta->meta_page_size);
		if (c->data == MAP_FAILED)
			return -errno;
	}
	return 0;
}

static void report(void)
{
	long tot_nospc = 0, tot_irq = 0, max_run = 0;
	uint64_t tot_lost = 0, tot_busy = 0;
	int i;

	for (i = 0; i < ncpus; i++) {
		struct cpu_ctx *c = &cpus[i];
		struct ftring_cpu_stats st;
		long lost_seq = 0, missing = 0, extra = 0, s;

		if (ft_get_stats(ctl, i, &st)) {
			ksft_test_result_fail("cpu%d.stats\n", i);
			continue;
		}
		for (s = 0; s < c->attempts; s++) {
			if (c->succeeded[s] && !c->found[s])
				missing++;
			if (!c->succeeded[s] && c->found[s])
				extra++;
			if (!c->succeeded[s])
				lost_seq++;
		}
		ksft_print_msg("cpu%d: markers %ld ok %ld enospc %ld other %ld | entries %llu "
			       "read %llu overrun %llu lost %llu (full %llu busy %llu big %llu) | "
			       "decoded %ld "
			       "(markers %ld, irq-context %ld, sched_switch %ld) swaps %ld "
			       "lost_events %llu regrown %ld irq-run %ld\n", i, c->attempts, c->ok, c->nospc, c->other,
			       st.entries, st.read, st.overrun, st.lost, st.lost_full,
			       st.lost_busy, st.lost_too_big, c->events, c->markers, c->irq_events,
			       c->by_type[FTRING_EV_sched_switch], c->swaps,
			       (unsigned long long)c->lost_events, c->regrown, c->max_irq_run);
		if ((uint64_t)c->events != st.read) {
			char types[512];
			int t, n = 0;

			/* Which kind of event the counts disagree on: for the module's authors. */
			for (t = 0; t < FTRING_NR_EVENTS; t++)
				n += snprintf(types + n, sizeof(types) - n, " %d:%ld", t,
					      c->by_type[t]);
			ksft_print_msg("cpu%d: decoded by event index:%s; %ld events were found in"
				       " reader pages that grew after GET_READER handed them out\n",
				       i, types, c->regrown);
		}
		ksft_test_result(st.entries == st.read + st.overrun,
				 "cpu%d.entries_eq_read_plus_overrun\n", i);
		ksft_test_result((uint64_t)c->events == st.read, "cpu%d.decoded_eq_read\n", i);
		ksft_test_result(st.lost == st.lost_full + st.lost_busy + st.lost_too_big &&
				 !st.lost_too_big, "cpu%d.lost_causes\n", i);
		ksft_test_result(!c->bad_pages && !c->unknown_type && !c->reader_errs,
				 "cpu%d.pages_well_formed\n", i);
		ksft_test_result(!c->backwards, "cpu%d.time_monotonic\n", i);
		ksft_test_result(!c->missed_mismatch, "cpu%d.missed_count_in_page\n", i);
		ksft_test_result(c->lost_events <= st.lost + st.overrun,
				 "cpu%d.lost_events_bounded\n", i);
		ksft_test_result(!c->marker_bad && !c->marker_order && !c->other,
				 "cpu%d.markers_intact_in_order\n", i);
		ksft_test_result(!extra, "cpu%d.no_marker_from_failed_write\n", i);
		if (mode == FTRING_MODE_DISCARD) {
			ksft_test_result(!missing && !st.overrun,
					 "cpu%d.discard_keeps_every_written_marker\n", i);
		} else {
			uint64_t ring = (uint64_t)(c->meta->nr_subbufs - 2) *
					(c->meta->subbuf_size - FTP_HDR_SIZE);
			long last = c->attempts - 1;

			while (last >= 0 && !c->succeeded[last])
				last--;
			/*
			 * The writer's last marker must be there, unless events of the CPU
			 * after it (interrupts, the reader's wake-ups while main() joins the
			 * other writers: more on a starved vCPU) went round the ring over
			 * it. Then events were lost after the last marker read (a gap),
			 * everything read after the last gap is newer than the marker, and
			 * it fills the ring's other pages (less a record's room at a page
			 * end).
			 */
			if (last >= 0 && !c->found[last])
				ksft_print_msg("cpu%d: last marker %ld overwritten; %llu bytes of "
					       "events after the last gap, ring %llu\n", i, last,
					       (unsigned long long)c->tail_bytes,
					       (unsigned long long)ring);
			ksft_test_result(last >= 0 && (c->found[last] ||
						       (c->gap_after_marker &&
							c->tail_bytes + 256 >= ring)),
					 "cpu%d.overwrite_keeps_newest\n", i);
		}
		ksft_test_result((uint64_t)c->nospc <= st.lost, "cpu%d.enospc_counted_lost\n", i);
		tot_nospc += c->nospc;
		tot_lost += st.lost + st.overrun;
		tot_irq += c->irq_events;
		tot_busy += st.lost_busy;
		if (c->max_irq_run > max_run)
			max_run = c->max_irq_run;
	}
	ksft_test_result(tot_lost > 0, "overflow_provoked (lost+overrun %llu)\n",
			 (unsigned long long)tot_lost);
	ksft_test_result(tot_irq > 0, "irq_context_events (%ld)\n", tot_irq);
	/*
	 * A writer that interrupts another, even mid page switch, writes (the guest has
	 * no NMI to land in a reader swap): only a full ring drops.
	 */
	ksft_test_result(!tot_busy, "no_busy_drops (%llu)\n", (unsigned long long)tot_busy);
	ksft_print_msg("longest run of hard IRQ events: %ld\n", max_run);
	/*
	 * A crowd's wake-ups came as one burst (some tickers may lag a period). A run is
	 * cut wherever events were lost, and the flood keeps the ring full, so the run
	 * read back is often at most a page of them (62 on arm64 in a discard ring, where
	 * half the crowd failed this): a quarter of the crowd still proves the burst.
	 * A discard ring keeps a burst once written (what comes after it is dropped). In
	 * an overwrite ring the woken tickers' switches go round the two pages over it
	 * unless the reader takes them first, a race a TCG reader loses now and then
	 * (longest runs of 3-6 on every CPU in some runs, 56-128 in others, a reader at
	 * SCHED_FIFO on the CPU no better): there the run is only reported, and the
	 * discard run of the same crowd proves the bursts.
	 */
	if (nr_tickers > 1 && mode == FTRING_MODE_DISCARD)
		ksft_test_result(max_run >= nr_tickers / 4, "irq_burst_of_%u_nested (%ld)\n",
				 nr_tickers / 4, max_run);
	ksft_print_msg("write() returned ENOSPC %ld times\n", tot_nospc);
}

int main(int argc, char **argv)
{
	pthread_attr_t small;
	unsigned int t;
	double t0;
	int opt, i, ret, strict;

	while ((opt = getopt(argc, argv, "m:n:d:r:b:p:")) != -1) {
		switch (opt) {
		case 'm':
			mode = !strcmp(optarg, "overwrite") ? FTRING_MODE_OVERWRITE :
			       !strcmp(optarg, "discard") ? FTRING_MODE_DISCARD : -1;
			break;
		case 'n':
			nr_subbufs = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 'r':
			reader_sleep_us = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			nr_tickers = strtoul(optarg, NULL, 0);
			if (!nr_tickers || nr_tickers > 1024)
				mode = -1;
			break;
		case 'p':
			crowd_period_us = strtol(optarg, NULL, 0);
			if (crowd_period_us < 1000)
				mode = -1;
			break;
		default:
			mode = -1;
		}
	}
	if (mode < 0 || optind != argc) {
		fprintf(stderr, "usage: %s -m discard|overwrite [-n NR_SUBBUFS] [-d SECONDS] "
			"[-r READER_SLEEP_US] [-b TICKERS_PER_CPU [-p PERIOD_US]]\n", argv[0]);
		return 2;
	}
	ksft_print_header();
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	ctl = ft_ctl_open();
	mfd = open(FTRING_DEV_MARKER, O_WRONLY | O_CLOEXEC);
	if (ctl < 0 || mfd < 0)
		ksft_exit_fail_msg("cannot open the ftring devices\n");
	/* which writes succeeded is what discard mode is checked against */
	strict = ft_strict_writes(1);
	if (strict < 0)
		ksft_exit_fail_msg("strict_writes: %s\n", strerror(-strict));
	ret = setup();
	if (ret)
		ksft_exit_fail_msg("setup: %s\n", strerror(-ret));
	if (ft_start(ctl))
		ksft_exit_fail_msg("start: %s\n", strerror(errno));
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 << 10);
	if (pthread_barrier_init(&start_line, NULL, ncpus * (nr_tickers + 1) + 1))
		ksft_exit_fail_msg("pthread_barrier_init failed\n");
	for (i = 0; i < ncpus; i++) {
		cpus[i].tickers = calloc(nr_tickers, sizeof(pthread_t));
		if (!cpus[i].tickers)
			ksft_exit_fail_msg("no memory for %u tickers\n", nr_tickers);
		if (pthread_create(&cpus[i].reader, NULL, reader, &cpus[i]))
			ksft_exit_fail_msg("cannot start a reader\n");
		for (t = 0; t < nr_tickers; t++)
			if (pthread_create(&cpus[i].tickers[t], &small, ticker, &cpus[i]))
				ksft_exit_fail_msg("cannot start ticker %u\n", t);
		if (pthread_create(&cpus[i].writer, NULL, writer, &cpus[i]))
			ksft_exit_fail_msg("cannot start a writer\n");
	}
	pthread_barrier_wait(&start_line);
	t0 = now();
	tickers_end = nr_tickers > 1 ? t0 + duration - 0.5 : t0 + 1e9;
	pthread_barrier_wait(&start_line);
	if (nr_tickers > 1) {
		/*
		 * The quiet window, mid flood: 0.4 s, longer until a burst is read back.
		 * At SCHED_FIFO, or a crowd that a loaded vCPU runs late would delay it.
		 */
		double open = t0 + duration / 2 - 0.2, last = tickers_end - 0.2;
		struct sched_param fifo = { .sched_priority = 1 };

		ret = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo);
		if (ret)
			ksft_print_msg("quiet window not at SCHED_FIFO: %s\n", strerror(ret));
		sleep_until(open);
		atomic_store(&quiet, 1);
		sleep_until(open + 0.4);
		while (!atomic_load(&burst_seen) && now() < last)
			usleep(10000);
		ksft_print_msg("quiet window %.2f s\n", now() - open);
		atomic_store(&quiet, 0);
	}
	for (i = 0; i < ncpus; i++)
		pthread_join(cpus[i].writer, NULL);
	atomic_store(&writers_stop, 1);
	if (nr_tickers == 1)	/* a crowd is joined by its writer */
		for (i = 0; i < ncpus; i++)
			pthread_join(cpus[i].tickers[0], NULL);
	ret = ft_ioctl(ctl, FTRING_IOC_STOP, NULL);
	atomic_store(&readers_stop, 1);
	for (i = 0; i < ncpus; i++)
		pthread_join(cpus[i].reader, NULL);
	ksft_print_msg("flood ran %.2f s\n", now() - t0);
	ksft_test_result(!ret, "stop\n");
	report();
	ft_set_events(ctl, FTRING_EVENTS_DEFAULT);
	for (i = 0; i < ncpus; i++) {
		munmap(cpus[i].data, cpus[i].data_len);
		munmap(cpus[i].meta, 4096);
		close(cpus[i].fd);
	}
	ft_reset(ctl);
	ft_strict_writes(strict);
	if (ksft_get_fail_cnt())
		ksft_exit_fail();
	ksft_exit_pass();
}
