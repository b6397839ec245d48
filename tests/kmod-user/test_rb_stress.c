// SPDX-License-Identifier: GPL-2.0
/*
 * The module's ring buffer (kmod/rb_*.c, the same sources) under stress in user
 * space.
 *
 * Each writer thread plays one CPU: it writes records into its own buffer, and
 * two per-thread timers interrupt it with signals whose handlers write into the
 * same buffer: SIGALRM plays a hardirq, SIGPROF an NMI (it also interrupts the
 * SIGALRM handler and the reader swap). The reader thread plays the GET_READER
 * ioctl: it sends SIGUSR1 (the IPI) to the writer thread, whose handler runs
 * rb_reader_swap() with SIGALRM blocked (interrupts off) and SIGPROF not (NMIs
 * still come). The reader then decodes the new data of the reader page with
 * common/ftrace_page.h AND libtraceevent's kbuffer. In the "live" variants it reads the
 * reader page as an mmap reader does: up to the commit length loaded once after the
 * swap, which is past reader.read when the writer (or a signal nesting into it) still
 * appends to the page it was handed; the appended events must be counted in read at
 * the next swap. It checks:
 *  - both decoders agree on every event and timestamp;
 *  - timestamps never go backwards on a CPU; every payload pattern is intact;
 *    sequence numbers per source only grow;
 *  - at every swap, the events of the reader page up to reader.read = the
 *    entries the swap counted for it;
 *  - attempts = entries + lost; after draining, entries = read + overrun, and
 *    the events decoded = read;
 *  - the missed counts handed out (+ drops after the last page switch) equal
 *    lost + overrun.
 *  - the meta page's writer id names the writer's page, while another thread keeps
 *    refreshing the meta page as GET_READER does from another CPU.
 * Variants: discard and overwrite mode, on a small ring so both wrap often; in the
 * nested_bursts ones each "interrupt" writes up to 400 events, and now and then the
 * task writer is held between reserve and commit on the page the reader holds while
 * the bursts go round the ring. The nested_lap tests do that deterministically.
 */
#include <signal.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <kbuffer.h>

#include "kselftest_harness.h"
#include "rb_write.h"

int rb_shim_warnings;
__thread unsigned int rb_shim_ctx;
void (*rb_shim_point)(void *buf);
void (*rb_shim_relax)(void);
u64 (*rb_shim_wait_clock)(void);

#define NR_WRITERS	2
#define RUN_SECONDS	2
#define SRC_TASK	0
#define SRC_IRQ		1
#define SRC_NMI		2
#define NR_SRC		3
#define REC_MAGIC	0x46545247U

struct rec {
	struct ftp_entry ent;
	__u32	magic;
	__u32	src;
	__u32	len;
	__u32	pad;
	__u64	seq;
	__u8	pattern[];
};

struct writer {
	struct rb_cpu	*buf;
	pthread_t	th;
	pid_t		tid;
	int		stop;
	int		ready;
	/* swap request from the reader (the IPI) */
	int		swap_req;
	int		swap_done;
	int		swap_ret;
	/* per source: attempts and next sequence number */
	__u64		attempts[NR_SRC];
	__u64		next_seq[NR_SRC];
	unsigned int	rnd;
	/* reader side */
	__u64		last_seq[NR_SRC];
	__u64		last_ts;
	__u32		last_id;
	__u32		last_read;
	bool		live_commit;	/* read up to the page's commit, not reader.read */
	bool		remote;		/* swap from the reader's thread when it may */
	__u64		remote_swaps;	/* GET_READERs that needed no "IPI" */
	__u64		remote_live;	/* of them, while the writer ran */
	bool		pauses;		/* the task writer idles now and then */
	unsigned int	irq_burst;	/* an "interrupt" writes up to this many events */
	long		irq_ns;		/* "interrupt" period */
	__u64		laps;		/* slow writes the "interrupts" went past */
	__u64		stale_writer;	/* meta->writer seen naming another page */
	__u64		regrown;	/* events read past reader.read */
	__u64		decoded;
	__u64		missed_reported;
	__u64		bad;
	char		why[160];
};

static __thread struct writer *self_w;

static unsigned int rnd_next(unsigned int *r)
{
	*r = *r * 1103515245U + 12345U;
	return *r >> 8;
}

/* Reserves and fills one record of @src; the caller commits it. NULL: dropped. */
static struct rec *begin_one(struct writer *w, __u32 src, __u32 size)
{
	struct rec *r;
	__u64 seq = w->next_seq[src]++;
	__u32 i;

	w->attempts[src]++;
	r = rb_reserve(w->buf, size);
	if (!r)
		return NULL;
	r->ent.type = 1;
	r->ent.flags = 0;
	r->ent.preempt_count = 0;
	r->ent.pid = (int)src;
	r->magic = REC_MAGIC;
	r->src = src;
	r->len = size;
	r->seq = seq;
	for (i = 0; i < size - sizeof(*r); i++)
		r->pattern[i] = (__u8)(seq + i);
	return r;
}

static void write_one(struct writer *w, __u32 src, __u32 size)
{
	if (begin_one(w, src, size))
		rb_commit(w->buf);
}

static __u32 pick_size(struct writer *w)
{
	/* mostly small events, some large ones (> 112 bytes: type_len 0) */
	return sizeof(struct rec) + (rnd_next(&w->rnd) % 8 ? rnd_next(&w->rnd) % 64 :
				     rnd_next(&w->rnd) % 600);
}

static void on_irq(int sig)
{
	struct writer *w = self_w;
	unsigned int i, n;

	unsigned int ctx = rb_shim_ctx;

	if (!w)
		return;
	rb_shim_ctx = 2;	/* hardirq */
	/* bursty "interrupts" write many events each: enough to go round a small ring */
	n = w->irq_burst ? 1 + w->next_seq[SRC_IRQ] % w->irq_burst : 1;
	for (i = 0; i < n; i++)
		write_one(w, SRC_IRQ, sizeof(struct rec) + 8 * (w->next_seq[SRC_IRQ] % 5));
	rb_shim_ctx = ctx;
}

static void on_nmi(int sig)
{
	struct writer *w = self_w;
	unsigned int ctx = rb_shim_ctx;

	rb_shim_ctx = 3;	/* NMI */
	if (w)
		write_one(w, SRC_NMI, sizeof(struct rec) + 4);
	rb_shim_ctx = ctx;
}

static void on_ipi(int sig)
{
	struct writer *w = self_w;

	if (!w || !__atomic_load_n(&w->swap_req, __ATOMIC_ACQUIRE))
		return;
	w->swap_req = 0;
	w->swap_ret = rb_reader_swap(w->buf);
	__atomic_store_n(&w->swap_done, 1, __ATOMIC_RELEASE);
}

static timer_t arm_timer(pid_t tid, int sig, long ns)
{
	struct sigevent sev = { 0 };
	struct itimerspec its = { 0 };
	timer_t t;

	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sig;
	sev._sigev_un._tid = tid;
	if (timer_create(CLOCK_MONOTONIC, &sev, &t))
		abort();
	its.it_value.tv_nsec = ns;
	its.it_interval.tv_nsec = ns;
	timer_settime(t, 0, &its, NULL);
	return t;
}

/*
 * The task writer idles (its "interrupts" do not) until the reader holds the page
 * the writer is on, then a little longer: appends after the swap, as at the end of
 * a capture when only interrupts still trace.
 */
static void pause_writer(struct writer *w)
{
	struct timespec ts = { 0, 100000 };
	int i;

	for (i = 0; i < 200; i++) {
		if (READ_ONCE(w->buf->reader_id) == RB_TAIL_ID(rb_tail_read(w->buf)))
			break;
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < 10; i++)
		nanosleep(&ts, NULL);
}

/*
 * The meta page's writer field names the page the writer is on, whoever refreshed the
 * meta page last (the reader does, from "another CPU"): a stale id would make a mapping
 * reader wait for data that is already there until the next page switch.
 */
static void check_meta_writer(struct writer *w)
{
	struct ftring_meta *meta = w->buf->meta;
	unsigned long t = rb_tail_read(w->buf);
	__u32 id = READ_ONCE(meta->writer);

	barrier();
	if (rb_tail_read(w->buf) == t && id != RB_TAIL_ID(t))
		w->stale_writer++;
}

/*
 * A task writer held up between its reserve and its commit (a long copy from user
 * space, say) on the page the reader holds: the bursts of the "interrupts" that land
 * meanwhile go round the ring while its record keeps the commit page back.
 */
static void slow_write(struct writer *w)
{
	struct timespec t0, t;

	bool on_reader;

	if (!begin_one(w, SRC_TASK, sizeof(struct rec) + 8))
		return;
	on_reader = READ_ONCE(w->buf->reader_id) == RB_TAIL_ID(rb_tail_read(w->buf));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 6000000L);
	if (on_reader && READ_ONCE(w->buf->reader_id) != RB_TAIL_ID(rb_tail_read(w->buf)))
		w->laps++;
	rb_commit(w->buf);
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	timer_t irq, nmi;

	self_w = w;
	w->tid = (pid_t)syscall(SYS_gettid);
	irq = arm_timer(w->tid, SIGALRM, w->irq_ns ? w->irq_ns : 20000);
	nmi = arm_timer(w->tid, SIGPROF, 70000);
	__atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		write_one(w, SRC_TASK, pick_size(w));
		check_meta_writer(w);
		/*
		 * Idle now and then, like a CPU whose task stopped tracing: the reader
		 * catches up and takes the page the "interrupts" keep appending to.
		 */
		if (w->pauses && !(w->attempts[SRC_TASK] % 256)) {
			pause_writer(w);
			if (w->irq_burst) {
				/* and the reader drains what the bursts left */
				slow_write(w);
				pause_writer(w);
			}
		}
	}
	timer_delete(irq);
	timer_delete(nmi);
	/* a signal already queued may still run: detach it from the buffer last */
	__atomic_store_n(&w->ready, 2, __ATOMIC_RELEASE);
	return NULL;
}

static void fail(struct writer *w, const char *why, __u64 a, __u64 b)
{
	if (!w->bad++)
		snprintf(w->why, sizeof(w->why), "%s (%llu vs %llu)", why,
			 (unsigned long long)a, (unsigned long long)b);
}

/* Checks one record decoded from the reader page. */
static void check_rec(struct writer *w, const struct ftp_event *ev)
{
	const struct rec *r = ev->payload;
	__u32 i;

	if (ev->payload_len < sizeof(*r) || r->magic != REC_MAGIC || r->src >= NR_SRC) {
		fail(w, "bad record header", ev->payload_len, r->magic);
		return;
	}
	if (ftp_align4(r->len) != ev->payload_len)
		fail(w, "record length", r->len, ev->payload_len);
	for (i = 0; i < r->len - sizeof(*r); i++)
		if (r->pattern[i] != (__u8)(r->seq + i)) {
			fail(w, "payload pattern", r->seq, i);
			break;
		}
	if (w->last_seq[r->src] && r->seq + 1 <= w->last_seq[r->src])
		fail(w, "sequence went back", r->seq, w->last_seq[r->src] - 1);
	w->last_seq[r->src] = r->seq + 1;
	w->decoded++;
}

/*
 * Decodes a copy of reader page @id cut at @len bytes (a commit length loaded before
 * the copy) with both decoders and checks the events at offsets >= @start; the events
 * before @rd (reader.read) must be the entries the swap counted.
 */
static void check_page(struct writer *w, struct kbuffer *kb, __u32 id, __u32 start,
		       __u32 rd, __u32 len)
{
	static __thread char copy[4096];
	struct rb_cpu *buf = w->buf;
	unsigned long long kts;
	__u64 ts, commit;
	struct ftp_event ev;
	void *krec;
	__u32 off = 0, nr;

	memcpy(copy, buf->pages[id].addr, sizeof(copy));
	commit = ftp_page_commit(copy);
	if ((commit & FTP_COMMIT_MASK) < len) {
		fail(w, "commit below reader.read", commit & FTP_COMMIT_MASK, len);
		return;
	}
	commit = (commit & ~(__u64)FTP_COMMIT_MASK) | len;
	memcpy(copy + FTP_COMMIT_OFFSET, &commit, sizeof(commit));
	ts = ftp_page_ts(copy);
	if (kbuffer_load_subbuffer(kb, copy)) {
		fail(w, "kbuffer_load_subbuffer", id, len);
		return;
	}
	krec = kbuffer_read_event(kb, &kts);
	nr = 0;
	while (off < len) {
		__u32 next = ftp_next(copy + FTP_HDR_SIZE, len, off, &ts, &ev);

		if (!next) {
			fail(w, "malformed page", id, off);
			return;
		}
		off = next;
		if (!ev.payload)
			continue;
		if (ev.offset < rd)
			nr++;
		if (krec != ev.payload || kts != ev.ts) {
			fail(w, "kbuffer disagrees", kts, ev.ts);
			return;
		}
		krec = kbuffer_next_event(kb, &kts);
		if (ev.offset < start)
			continue;
		if (ev.ts < w->last_ts)
			fail(w, "time went back", ev.ts, w->last_ts);
		w->last_ts = ev.ts;
		if (ev.offset >= rd)
			w->regrown++;
		check_rec(w, &ev);
	}
	if (krec)
		fail(w, "kbuffer has more events", id, len);
	/* at the swap every writer was done: the page's count is its events */
	if (nr != buf->reader_counted)
		fail(w, "events in page != entries counted", nr, buf->reader_counted);
}

/*
 * One GET_READER: swap (by "IPI" while the writer runs, directly once it is gone;
 * from the reader's thread first when it may, with @w->remote).
 * Returns 1 if the swap moved the reader (another page, or reader.read grew), 0 if
 * the buffer had nothing new, -1 on error. In the live variants a move may bring no
 * new bytes to decode (they were read past reader.read already): that is still
 * progress, and a drain that stopped there would leave the ring's later pages unread.
 */
static int get_reader(struct writer *w, struct kbuffer *kb, bool live)
{
	struct rb_cpu *buf = w->buf;
	__u32 id, rd, start, len;
	__u32 old_id = buf->reader_id, old_rd = buf->reader_read;
	int tries;

	for (tries = 0; tries < 100000; tries++) {
		if (w->remote) {
			/* as GET_READER: from the reader's CPU first, under reader_lock */
			mutex_lock(&buf->reader_lock);
			w->swap_ret = rb_reader_swap_remote(buf);
			mutex_unlock(&buf->reader_lock);
			if (!w->swap_ret) {
				w->remote_swaps++;
				break;
			}
		}
		if (live) {
			__atomic_store_n(&w->swap_done, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&w->swap_req, 1, __ATOMIC_RELEASE);
			pthread_kill(w->th, SIGUSR1);
			while (!__atomic_load_n(&w->swap_done, __ATOMIC_ACQUIRE) &&
			       __atomic_load_n(&w->ready, __ATOMIC_ACQUIRE) == 1)
				sched_yield();
			if (!__atomic_load_n(&w->swap_done, __ATOMIC_ACQUIRE))
				return -1;	/* the writer left: drain directly */
		} else {
			w->swap_ret = rb_reader_swap(buf);
		}
		if (w->swap_ret != -EAGAIN)
			break;
	}
	if (w->swap_ret)
		return -1;
	/* as GET_READER does after the swap, in process context on another CPU */
	if (live)
		rb_update_meta(buf);
	id = buf->reader_id;
	rd = buf->reader_read;
	len = rd;
	if (w->live_commit) {
		/* one snapshot, as an mmap reader takes it: the writer may still append */
		len = __atomic_load_n(rb_page_commit(buf, id), __ATOMIC_ACQUIRE) &
		      FTP_COMMIT_MASK;
		if (len < rd) {
			fail(w, "commit below reader.read", len, rd);
			return -1;
		}
	}
	if (id == w->last_id && len == w->last_read)
		return id != old_id || rd != old_rd;
	start = id == w->last_id ? w->last_read : 0;
	if (id != w->last_id)
		w->missed_reported += buf->lost_events;
	check_page(w, kb, id, start, rd, len);
	w->last_id = id;
	w->last_read = len;
	return 1;
}

FIXTURE(rb) {
	struct writer w[NR_WRITERS];
};

FIXTURE_VARIANT(rb) {
	bool overwrite;
	__u32 nr_pages;
	bool fast_reader;	/* never pauses: the reader often takes the writer's page */
	bool live_commit;	/* reads past reader.read while the writer appends */
	unsigned int irq_burst;	/* events per "interrupt": up to this many */
	long irq_ns;		/* "interrupt" period (default 20 us) */
	bool remote;		/* GET_READER swaps from the reader's thread when it may */
};

FIXTURE_VARIANT_ADD(rb, discard) { .overwrite = false, .nr_pages = 8 };
FIXTURE_VARIANT_ADD(rb, overwrite) { .overwrite = true, .nr_pages = 8 };
FIXTURE_VARIANT_ADD(rb, discard_big) { .overwrite = false, .nr_pages = 64 };
FIXTURE_VARIANT_ADD(rb, discard_fast) { .overwrite = false, .nr_pages = 4, .fast_reader = true };
FIXTURE_VARIANT_ADD(rb, overwrite_fast) { .overwrite = true, .nr_pages = 4, .fast_reader = true };
FIXTURE_VARIANT_ADD(rb, discard_live) {
	.overwrite = false, .nr_pages = 4, .fast_reader = true, .live_commit = true };
FIXTURE_VARIANT_ADD(rb, overwrite_live) {
	.overwrite = true, .nr_pages = 4, .fast_reader = true, .live_commit = true };
/* nested writers that each write many events: they lap the ring under one outer one */
FIXTURE_VARIANT_ADD(rb, overwrite_nested_bursts) {
	.overwrite = true, .nr_pages = 4, .fast_reader = true, .irq_burst = 400,
	.irq_ns = 2000000 };
FIXTURE_VARIANT_ADD(rb, discard_nested_bursts) {
	.overwrite = false, .nr_pages = 4, .fast_reader = true, .irq_burst = 400,
	.irq_ns = 2000000 };
/* the reader swaps from its own thread while page switches wait (discard mode) */
FIXTURE_VARIANT_ADD(rb, discard_remote) { .overwrite = false, .nr_pages = 8, .remote = true };
FIXTURE_VARIANT_ADD(rb, discard_remote_fast) {
	.overwrite = false, .nr_pages = 4, .fast_reader = true, .remote = true };
FIXTURE_VARIANT_ADD(rb, discard_remote_live) {
	.overwrite = false, .nr_pages = 4, .fast_reader = true, .live_commit = true,
	.remote = true };
FIXTURE_VARIANT_ADD(rb, discard_remote_nested_bursts) {
	.overwrite = false, .nr_pages = 4, .fast_reader = true, .irq_burst = 400,
	.irq_ns = 2000000, .remote = true };
/* overwrite mode: never from the reader's thread */
FIXTURE_VARIANT_ADD(rb, overwrite_remote) {
	.overwrite = true, .nr_pages = 4, .fast_reader = true, .remote = true };

FIXTURE_SETUP(rb)
{
	struct sigaction sa = { 0 };
	int i;

	sa.sa_handler = on_irq;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	sa.sa_handler = on_nmi;
	ASSERT_EQ(0, sigaction(SIGPROF, &sa, NULL));
	/* the "IPI" runs with "interrupts" (SIGALRM) off; "NMIs" still come */
	sa.sa_handler = on_ipi;
	sigaddset(&sa.sa_mask, SIGALRM);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));

	memset(self->w, 0, sizeof(self->w));
	for (i = 0; i < NR_WRITERS; i++) {
		self->w[i].buf = rb_cpu_alloc(i, variant->nr_pages);
		ASSERT_NE(NULL, self->w[i].buf);
		self->w[i].buf->overwrite = variant->overwrite;
		self->w[i].rnd = 1234 + i;
		self->w[i].last_id = ~0U;
		self->w[i].live_commit = variant->live_commit;
		self->w[i].remote = variant->remote;
		self->w[i].pauses = variant->live_commit || variant->irq_burst;
		self->w[i].irq_burst = variant->irq_burst;
		self->w[i].irq_ns = variant->irq_ns;
	}
}

FIXTURE_TEARDOWN(rb)
{
	int i;

	for (i = 0; i < NR_WRITERS; i++)
		rb_cpu_free(self->w[i].buf);
}

/* The end-of-run checks of the stress test, for one buffer drained of everything. */
static void check_accounting(struct __test_metadata *_metadata, struct writer *w)
{
	struct rb_cpu *buf = w->buf;
	__u64 attempts = 0, entries, lost, overrun;
	int s;

	for (s = 0; s < NR_SRC; s++)
		attempts += w->attempts[s];
	entries = local_read(&buf->entries);
	lost = rb_lost(buf);
	overrun = local_read(&buf->overrun);
	TH_LOG("attempts %llu entries %llu read %llu decoded %llu lost %llu overrun %llu",
	       (unsigned long long)attempts, (unsigned long long)entries,
	       (unsigned long long)buf->read, (unsigned long long)w->decoded,
	       (unsigned long long)lost, (unsigned long long)overrun);
	EXPECT_EQ(0ULL, w->bad) TH_LOG("%s", w->why);
	EXPECT_EQ(attempts, entries + lost);
	EXPECT_EQ(entries, buf->read + overrun);
	EXPECT_EQ(buf->read, w->decoded);
	/* drops since the last page the reader took are reported with the next one */
	EXPECT_EQ(lost + overrun,
		  w->missed_reported + (__u64)local_read(&buf->drops) - buf->last_drops);
	EXPECT_EQ(0, buf->disabled);
}

static int meta_stop;

/*
 * Another process calling GET_READER over and over: each call refreshes the meta
 * page from a CPU that is not the writer's.
 */
static void *meta_fn(void *arg)
{
	struct writer *w = arg;

	struct timespec ts = { 0, 10000 };

	while (!__atomic_load_n(&meta_stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < NR_WRITERS; i++) {
			mutex_lock(&w[i].buf->reader_lock);
			rb_update_meta(w[i].buf);
			mutex_unlock(&w[i].buf->reader_lock);
		}
		/* a stale writer id would stay until the writer's next page switch */
		nanosleep(&ts, NULL);
	}
	return NULL;
}

TEST_F(rb, stress)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct timespec t0, t;
	__u64 total_read = 0, regrown, laps = 0;
	pthread_t meta_th;
	int i;

	ASSERT_NE(NULL, kb);
	for (i = 0; i < NR_WRITERS; i++) {
		ASSERT_EQ(0, pthread_create(&self->w[i].th, NULL, writer_fn, &self->w[i]));
		while (!__atomic_load_n(&self->w[i].ready, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	__atomic_store_n(&meta_stop, 0, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_create(&meta_th, NULL, meta_fn, self->w));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < NR_WRITERS; i++)
			get_reader(&self->w[i], kb, true);
		/* let the ring fill now and then: drops and overwrites */
		if ((total_read++ & 255) == 0 && !variant->fast_reader)
			usleep(2000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < RUN_SECONDS);

	__atomic_store_n(&meta_stop, 1, __ATOMIC_RELEASE);
	pthread_join(meta_th, NULL);
	for (i = 0; i < NR_WRITERS; i++)
		self->w[i].remote_live = self->w[i].remote_swaps;
	for (i = 0; i < NR_WRITERS; i++) {
		__atomic_store_n(&self->w[i].stop, 1, __ATOMIC_RELEASE);
		pthread_join(self->w[i].th, NULL);
	}
	regrown = 0;
	for (i = 0; i < NR_WRITERS; i++) {
		struct writer *w = &self->w[i];
		struct rb_cpu *buf = w->buf;
		int n;

		/* the "CPU" is offline now: drain without IPIs */
		for (n = 0; n < 1000000 && get_reader(w, kb, false) > 0; n++)
			;
		TH_LOG("cpu%d: irq %llu nmi %llu, lost full %ld busy %ld, missed-reported %llu",
		       i, (unsigned long long)w->attempts[SRC_IRQ],
		       (unsigned long long)w->attempts[SRC_NMI], local_read(&buf->lost_full),
		       local_read(&buf->lost_busy), (unsigned long long)w->missed_reported);
		check_accounting(_metadata, w);
		EXPECT_EQ(0ULL, w->stale_writer);
		EXPECT_LT(1000ULL, w->attempts[SRC_IRQ] + w->attempts[SRC_NMI]);
		if (variant->overwrite)
			EXPECT_LT(0ULL, (__u64)local_read(&buf->overrun));
		if (variant->irq_burst)
			TH_LOG("cpu%d: slow writes on the reader page that interrupts left: %llu",
			       i, (unsigned long long)w->laps);
		if (variant->live_commit)
			TH_LOG("cpu%d: events read past reader.read %llu", i,
			       (unsigned long long)w->regrown);
		if (variant->remote)
			TH_LOG("cpu%d: swaps from the reader's thread %llu, %llu of them live", i,
			       (unsigned long long)w->remote_swaps,
			       (unsigned long long)w->remote_live);
		/* the remote swap really ran against a running writer; never in overwrite */
		if (variant->remote && !variant->overwrite)
			EXPECT_LT(0ULL, w->remote_live);
		if (variant->overwrite)
			EXPECT_EQ(0ULL, w->remote_swaps);
		regrown += w->regrown;
		laps += w->laps;
	}
	/* the burst variants must really have had bursts go past a held outer writer */
	if (variant->irq_burst)
		EXPECT_LT(0ULL, laps);
	/*
	 * The live variants must really read pages the writer still appends to: on
	 * some CPU at least (one CPU alone may miss the window on a loaded machine).
	 */
	if (variant->live_commit)
		EXPECT_LT(0ULL, regrown);
	EXPECT_EQ(0, rb_shim_warnings);
	kbuffer_free(kb);
}

/*
 * Nested writers that go round the whole ring while the outer writer, interrupted
 * between its reserve and its commit, holds a record on the reader page. The pages
 * of their first lap are not published until the outer writer leaves, so they may
 * not be overwritten: before the fix they were, and the pages they pushed the head
 * past were never published (commit 0): counted as read, never readable.
 */
static void nested_lap(struct __test_metadata *_metadata, bool overwrite)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct writer w = { 0 };
	int i, n;

	ASSERT_NE(NULL, kb);
	w.buf = rb_cpu_alloc(0, 4);
	ASSERT_NE(NULL, w.buf);
	w.buf->overwrite = overwrite;
	w.last_id = ~0U;
	for (i = 0; i < 5; i++)
		write_one(&w, SRC_TASK, sizeof(struct rec) + 8);
	/* the reader takes the page the writer is on */
	ASSERT_EQ(1, get_reader(&w, kb, false));
	ASSERT_EQ(w.buf->reader_id, RB_TAIL_ID(rb_tail_read(w.buf)));
	ASSERT_NE(NULL, begin_one(&w, SRC_TASK, sizeof(struct rec) + 8));
	/* an "interrupt" writing 3 rings' worth of events */
	for (i = 0; i < 900; i++)
		write_one(&w, SRC_IRQ, sizeof(struct rec) + 16);
	rb_commit(w.buf);
	for (n = 0; n < 1000 && get_reader(&w, kb, false) > 0; n++)
		;
	check_accounting(_metadata, &w);
	EXPECT_LT(0ULL, w.decoded);
	EXPECT_EQ(0, rb_shim_warnings);
	rb_cpu_free(w.buf);
	kbuffer_free(kb);
}

TEST(nested_lap_from_reader_page_overwrite)
{
	nested_lap(_metadata, true);
}

TEST(nested_lap_from_reader_page_discard)
{
	nested_lap(_metadata, false);
}

/*
 * An interrupt at every step of a page switch. The task writer fills pages; at the
 * k-th RB_TEST_POINT() of the ring buffer's slow path an "irq" writes a burst that
 * crosses pages itself, and at the first point inside that burst an "NMI" writes a
 * few events too. Every event is kept (no drop: the ring has room) and accounted;
 * before the fix, a writer interrupting the switch's page reset dropped its event.
 */
static struct {
	struct writer	*w;
	int		target;
	int		calls;
	int		depth;
	int		fired;
} pt;

static void pt_burst(unsigned int ctx, __u32 src, int n)
{
	unsigned int saved = rb_shim_ctx;
	int i;

	pt.depth++;
	pt.fired++;
	rb_shim_ctx = ctx;
	for (i = 0; i < n; i++)
		write_one(pt.w, src, sizeof(struct rec) + 8 + 8 * (i % 4));
	rb_shim_ctx = saved;
	pt.depth--;
}

static void pt_point(void *buf)
{
	pt.calls++;
	if (pt.depth == 0 && pt.calls == pt.target)
		pt_burst(2, SRC_IRQ, 150);
	else if (pt.depth == 1 && pt.fired == 1)
		pt_burst(3, SRC_NMI, 20);
}

static void switch_interrupted(struct __test_metadata *_metadata, bool overwrite)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	/* discard: less than the ring, bursts included; overwrite: laps it */
	int task_events = overwrite ? 1200 : 250, points = 0, k, i, n;

	ASSERT_NE(NULL, kb);
	/* run 0 is not interrupted: it counts the points the task's switches pass */
	for (k = 0; k == 0 || k <= points; k++) {
		struct writer w = { 0 };

		w.buf = rb_cpu_alloc(0, 8);
		ASSERT_NE(NULL, w.buf);
		w.buf->overwrite = overwrite;
		w.last_id = ~0U;
		memset(&pt, 0, sizeof(pt));
		pt.w = &w;
		pt.target = k;
		rb_shim_point = pt_point;
		for (i = 0; i < task_events; i++) {
			write_one(&w, SRC_TASK, sizeof(struct rec) + 8 * (i % 7));
			check_meta_writer(&w);
		}
		rb_shim_point = NULL;
		/* whoever stored it last, the meta page named the page the writer was on */
		EXPECT_EQ(0ULL, w.stale_writer) TH_LOG("point %d of %d", k, points);
		if (!k) {
			points = pt.calls;
			ASSERT_LT(8, points);
		}
		for (n = 0; n < 1000 && get_reader(&w, kb, false) > 0; n++)
			;
		EXPECT_EQ(k ? 2 : 0, pt.fired) TH_LOG("point %d of %d", k, points);
		EXPECT_EQ(0ULL, rb_lost(w.buf)) TH_LOG("point %d of %d: lost_busy %ld",
						      k, points, local_read(&w.buf->lost_busy));
		check_accounting(_metadata, &w);
		EXPECT_EQ(0U, w.buf->ctx);
		rb_cpu_free(w.buf);
		if (_metadata->passed == 0)
			break;
	}
	TH_LOG("%d points of a page switch interrupted", points);
	EXPECT_EQ(0, rb_shim_warnings);
	kbuffer_free(kb);
}

TEST(page_switch_interrupted_overwrite)
{
	switch_interrupted(_metadata, true);
}

TEST(page_switch_interrupted_discard)
{
	switch_interrupted(_metadata, false);
}

/*
 * The swap from the reader's CPU against a page switch, deterministically: at each
 * point of a switch a remote swap is tried and must give up (the switch reads the
 * links and head it would change); outside one it must swap. And a page switch
 * that finds a remote swap in progress waits for it to end, or drops its event
 * (lost_busy) if it never does.
 */
static struct {
	struct rb_cpu	*buf;
	int		inside, refused, spins, release_at;
	u64		now, step;	/* the wait's clock: @step ns a turn */
} rs;

static void rs_point(void *buf)
{
	if (!local_read(&rs.buf->switching))
		return;
	rs.inside++;
	mutex_lock(&rs.buf->reader_lock);
	if (rb_reader_swap_remote(rs.buf) == -EAGAIN)
		rs.refused++;
	mutex_unlock(&rs.buf->reader_lock);
}

static u64 rs_clock(void)
{
	return rs.now;
}

static void rs_relax(void)
{
	rs.now += rs.step;
	if (++rs.spins != rs.release_at)
		return;
	/* the "reader" ends its swap: even again, as rb_reader_swap_remote() leaves it */
	smp_store_release(&rs.buf->remote_seq, rs.buf->remote_seq + 1);
}

/* Task events until the writer enters another page; returns the events written. */
static int write_to_next_page(struct writer *w, __u32 size)
{
	__u32 id = RB_TAIL_ID(rb_tail_read(w->buf));
	int n = 0;

	while (RB_TAIL_ID(rb_tail_read(w->buf)) == id && n < 1000) {
		write_one(w, SRC_TASK, size);
		n++;
	}
	return n;
}

TEST(remote_swap_and_page_switch)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	__u32 size = sizeof(struct rec) + 24;
	struct writer w = { 0 };
	int i, n;

	ASSERT_NE(NULL, kb);
	w.buf = rb_cpu_alloc(0, 8);
	ASSERT_NE(NULL, w.buf);
	w.last_id = ~0U;
	memset(&rs, 0, sizeof(rs));
	rs.buf = w.buf;
	/* the head page full and published, the writer two pages on */
	for (i = 0; i < 2; i++)
		write_to_next_page(&w, size);
	/* a switch, tried at each of its points */
	rb_shim_point = rs_point;
	write_to_next_page(&w, size);
	rb_shim_point = NULL;
	EXPECT_LT(0, rs.inside);
	EXPECT_EQ(rs.inside, rs.refused);
	EXPECT_EQ(0U, w.buf->reader_id) TH_LOG("swapped during a page switch");
	/* no switch now: the head page goes to the reader from here */
	w.remote = true;
	ASSERT_EQ(1, get_reader(&w, kb, false));
	EXPECT_EQ(1ULL, w.remote_swaps);
	EXPECT_EQ(1U, w.buf->reader_id);

	/* a remote swap in progress (odd): the switch waits for its end */
	rs.release_at = 5;
	rs.step = 1000;
	w.buf->remote_seq++;
	rb_shim_relax = rs_relax;
	rb_shim_wait_clock = rs_clock;
	n = write_to_next_page(&w, size);
	EXPECT_EQ(5, rs.spins);
	EXPECT_EQ(0, local_read(&w.buf->lost_busy));
	/*
	 * Turns much shorter than RB_REMOTE_WAIT_NS / RB_MAX_RETRIES (arm64's yield):
	 * a swap that outlasts RB_MAX_RETRIES turns but not the time is waited for,
	 * one that outlasts both costs the event that needed a new page.
	 */
	rs.step = 5;
	rs.spins = 0;
	rs.release_at = 2 * RB_MAX_RETRIES;
	w.buf->remote_seq++;
	n = write_to_next_page(&w, size);
	EXPECT_EQ(2 * RB_MAX_RETRIES, rs.spins);
	EXPECT_EQ(0, local_read(&w.buf->lost_busy));
	rs.spins = 0;
	rs.release_at = 0;
	w.buf->remote_seq++;
	for (i = 0; i < n && !local_read(&w.buf->lost_busy); i++)
		write_one(&w, SRC_TASK, size);
	EXPECT_EQ(1, local_read(&w.buf->lost_busy));
	EXPECT_EQ(RB_REMOTE_WAIT_NS / rs.step + 1, (u64)rs.spins);
	w.buf->remote_seq++;
	/* a clock that stands still (jiffies-based): RB_REMOTE_MAX_TURNS turns */
	rs.step = 0;
	rs.spins = 0;
	w.buf->remote_seq++;
	write_one(&w, SRC_TASK, size);
	EXPECT_EQ(2, local_read(&w.buf->lost_busy));
	EXPECT_EQ(RB_REMOTE_MAX_TURNS, rs.spins);
	w.buf->remote_seq++;
	/* room for the pages to come (discard mode) */
	for (i = 0; i < 1000 && get_reader(&w, kb, false) > 0; i++)
		;
	/* turns longer than that: RB_MAX_RETRIES of them, as long as they take */
	rs.step = 1000;
	write_to_next_page(&w, size);
	rs.release_at = 0;
	rs.spins = 0;
	w.buf->remote_seq++;
	for (i = 0; i < n && local_read(&w.buf->lost_busy) < 3; i++)
		write_one(&w, SRC_TASK, size);
	EXPECT_EQ(3, local_read(&w.buf->lost_busy));
	EXPECT_EQ(RB_MAX_RETRIES, rs.spins);
	/* and the next one at once: no second wait on the same swap */
	write_one(&w, SRC_TASK, size);
	EXPECT_EQ(4, local_read(&w.buf->lost_busy));
	EXPECT_EQ(RB_MAX_RETRIES, rs.spins);
	EXPECT_EQ(0, local_read(&w.buf->switching));
	/* the swap ends: the next one is waited for again */
	w.buf->remote_seq++;
	rs.release_at = RB_MAX_RETRIES + 3;
	w.buf->remote_seq++;
	write_one(&w, SRC_TASK, size);
	EXPECT_EQ(4, local_read(&w.buf->lost_busy));
	EXPECT_EQ(RB_MAX_RETRIES + 3, rs.spins);
	rb_shim_relax = NULL;
	rb_shim_wait_clock = NULL;
	write_to_next_page(&w, size);

	for (n = 0; n < 1000 && get_reader(&w, kb, false) > 0; n++)
		;
	check_accounting(_metadata, &w);
	EXPECT_EQ(0, rb_shim_warnings);
	rb_cpu_free(w.buf);
	kbuffer_free(kb);
}

/*
 * A remote swap stamps and counts the page it took after it let page switches go
 * on: a writer that meanwhile moves into the page the reader gave back, fills it
 * and drops (ring full) must leave the taken page's count and stamp as they were,
 * and its drops reported with the next page.
 */
static struct {
	struct writer	*w;
	bool		armed;
	int		ran, switched;
} ra;

/* Task events until @n more are dropped for a full ring. */
static void fill_and_drop(struct writer *w, long n)
{
	long lost = local_read(&w->buf->lost_full);
	int i;

	for (i = 0; i < 10000 && local_read(&w->buf->lost_full) < lost + n; i++)
		write_one(w, SRC_TASK, sizeof(struct rec) + 40);
}

static void ra_point(void *buf)
{
	__u32 id = RB_TAIL_ID(rb_tail_read(ra.w->buf));

	if (!ra.armed || local_read(&ra.w->buf->nest))
		return;
	ra.armed = false;
	ra.ran++;
	fill_and_drop(ra.w, 3);
	ra.switched += RB_TAIL_ID(rb_tail_read(ra.w->buf)) != id;
}

TEST(remote_swap_accounts_after_release)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct writer w = { 0 };
	int round, n;

	ASSERT_NE(NULL, kb);
	w.buf = rb_cpu_alloc(0, 4);
	ASSERT_NE(NULL, w.buf);
	w.last_id = ~0U;
	w.remote = true;
	ra.w = &w;
	ra.ran = 0;
	ra.switched = 0;
	rb_shim_point = ra_point;
	for (round = 0; round < 20; round++) {
		/* the ring full, and drops before the page the reader takes */
		fill_and_drop(&w, 3);
		ra.armed = true;
		ASSERT_EQ(1, get_reader(&w, kb, false));
		EXPECT_FALSE(ra.armed);
	}
	rb_shim_point = NULL;
	EXPECT_EQ(20, ra.ran);
	/* the writer went on into the page given back, every time */
	EXPECT_EQ(20, ra.switched);
	EXPECT_EQ(20ULL, w.remote_swaps);
	w.remote = false;
	for (n = 0; n < 1000 && get_reader(&w, kb, false) > 0; n++)
		;
	check_accounting(_metadata, &w);
	EXPECT_EQ(0, rb_shim_warnings);
	rb_cpu_free(w.buf);
	kbuffer_free(kb);
}

/*
 * A writer that starts while one of its own context level is in progress did not
 * interrupt it: it recursed (the probe traced something it called). One level is let
 * through (an interrupt not yet in the preempt count looks the same); the next is
 * dropped and counted, also after an interrupt came and went on top of the transition
 * writer (its exit must clear its own level, not the transition), and the guard is
 * released with the writers.
 */
TEST(recursion_guard)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	__u32 size = sizeof(struct rec) + 8;
	struct writer w = { 0 };
	int n;

	ASSERT_NE(NULL, kb);
	w.buf = rb_cpu_alloc(0, 4);
	ASSERT_NE(NULL, w.buf);
	w.last_id = ~0U;
	rb_shim_ctx = 0;
	ASSERT_NE(NULL, begin_one(&w, SRC_TASK, size));
	/* the same level again: the transition one, let through */
	ASSERT_NE(NULL, begin_one(&w, SRC_IRQ, size));
	/* and again: recursion, dropped */
	EXPECT_EQ(NULL, begin_one(&w, SRC_IRQ, size));
	EXPECT_EQ(1, local_read(&w.buf->lost_busy));
	EXPECT_EQ(2, local_read(&w.buf->nest));
	/* a real interrupt of the recursing writer still writes */
	rb_shim_ctx = 3;
	write_one(&w, SRC_NMI, size);
	rb_shim_ctx = 0;
	/* and leaves the transition to the writer it interrupted: still no third */
	EXPECT_EQ(NULL, begin_one(&w, SRC_IRQ, size));
	EXPECT_EQ(2, local_read(&w.buf->lost_busy));
	rb_commit(w.buf);
	rb_commit(w.buf);
	EXPECT_EQ(0U, w.buf->ctx);
	/* the guard is released: the next writer writes */
	write_one(&w, SRC_TASK, size);
	EXPECT_EQ(4, local_read(&w.buf->entries));
	for (n = 0; n < 1000 && get_reader(&w, kb, false) > 0; n++)
		;
	check_accounting(_metadata, &w);
	EXPECT_EQ(0, rb_shim_warnings);
	rb_cpu_free(w.buf);
	kbuffer_free(kb);
}

/* rb_max_payload() is what rb_reserve() takes, in an empty page and after an event. */
TEST(largest_record)
{
	struct writer w = { 0 };
	__u32 max;

	w.buf = rb_cpu_alloc(0, 4);
	ASSERT_NE(NULL, w.buf);
	w.last_id = ~0U;
	max = rb_max_payload(w.buf->data_size);
	EXPECT_EQ(NULL, begin_one(&w, SRC_TASK, max + 1));
	EXPECT_EQ(1, local_read(&w.buf->lost_too_big));
	ASSERT_NE(NULL, begin_one(&w, SRC_TASK, max));
	rb_commit(w.buf);
	write_one(&w, SRC_TASK, sizeof(struct rec) + 8);
	ASSERT_NE(NULL, begin_one(&w, SRC_TASK, max));
	rb_commit(w.buf);
	EXPECT_EQ(3, local_read(&w.buf->entries));
	EXPECT_EQ(0, rb_shim_warnings);
	rb_cpu_free(w.buf);
}

TEST_HARNESS_MAIN
