// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ftring/fxt, in the guest: writes of whole FXT event records of every kind
 * (instant, counter, duration begin/end/complete, async, flow; inline and empty
 * strings; every argument type up to bool) are stored as one ftring/fxt event each,
 * byte for byte, with the writer's pid and tid; malformed writes (bad sizes, other
 * record types, table references, reserved bits, truncation) are refused with EINVAL
 * and leave nothing in the ring, checked by the per-CPU counters and by reading the
 * pages back through the mapping. A thread rewriting the buffer during write() can
 * never get bytes stored that the module did not check.
 *
 *   ftring_fxt_test [harness options]   the kselftests (module loaded, root)
 *   ftring_fxt_test emit                writes one record of each kind (category
 *                                       "fxt-test", names "fxt-<kind>") and one bad
 *                                       write, for a recording made around it;
 *                                       prints "emit pid=P tid=T writes=N records=M"
 *
 * Only the fxt event is enabled during the kselftests, so every count is exact.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "ftring_test.h"
#include "ftring_events.h"
#include "fxt.h"
#include "fxt_validate.h"
#include "kselftest_harness.h"

#define FXT_ID		FT_ID(fxt)
#define FXT_BIT		(1ULL << FTRING_EV_fxt)
#define CAT		"fxt-test"
#define MAX_WORDS	(FTRING_FXT_MAX / 8 + 8)
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ---- building records ------------------------------------------------------------ */

/* One or more FXT records under construction. */
struct fxb {
	uint64_t	w[MAX_WORDS];
	unsigned int	n;		/* words used */
	unsigned int	start;		/* first word of the record being built */
	unsigned int	evtype, nargs;
	const char	*cat, *name;
};

static __u16 sref(const char *s)
{
	return s && *s ? fxt_strref_inline(strlen(s)) : 0;
}

static unsigned int swords(const char *s)
{
	return s ? fxt_stream_words(strlen(s)) : 0;
}

static void put_str(struct fxb *b, const char *s)
{
	unsigned int n = swords(s);

	memset(&b->w[b->n], 0, n * 8);
	if (n)
		memcpy(&b->w[b->n], s, strlen(s));
	b->n += n;
}

static void ev_begin(struct fxb *b, unsigned int evtype, const char *cat, const char *name,
		     uint64_t ts)
{
	b->start = b->n;
	b->evtype = evtype;
	b->nargs = 0;
	b->cat = cat;
	b->name = name;
	b->w[b->n++] = 0;	/* header, set by ev_end() */
	b->w[b->n++] = ts;
	b->w[b->n++] = 0;	/* process and thread: the exporter fills them in */
	b->w[b->n++] = 0;
	put_str(b, cat);
	put_str(b, name);
}

/* Ends the record; @extra: the type-specific last word, for the types that have one. */
static void ev_end(struct fxb *b, uint64_t extra)
{
	if (b->evtype != FXT_EV_INSTANT && b->evtype != FXT_EV_DURATION_BEGIN &&
	    b->evtype != FXT_EV_DURATION_END)
		b->w[b->n++] = extra;
	b->w[b->start] = fxt_event_hdr(b->n - b->start, b->evtype, b->nargs, 0, sref(b->cat),
				       sref(b->name));
}

static void arg32(struct fxb *b, unsigned int type, const char *name, uint32_t v)
{
	b->w[b->n++] = fxt_arg_hdr(type, 1 + swords(name), sref(name), v);
	put_str(b, name);
	b->nargs++;
}

static void arg64(struct fxb *b, unsigned int type, const char *name, uint64_t v)
{
	b->w[b->n++] = fxt_arg_hdr(type, 2 + swords(name), sref(name), 0);
	put_str(b, name);
	b->w[b->n++] = v;
	b->nargs++;
}

static void arg_str(struct fxb *b, const char *name, const char *v)
{
	b->w[b->n++] = fxt_arg_hdr(FXT_ARG_STRING, 1 + swords(name) + swords(v), sref(name),
				   sref(v));
	put_str(b, name);
	put_str(b, v);
	b->nargs++;
}

enum kind {
	K_INSTANT, K_COUNTER, K_BEGIN, K_END, K_COMPLETE, K_ASYNC_BEGIN, K_ASYNC_INSTANT,
	K_ASYNC_END, K_FLOW_BEGIN, K_FLOW_STEP, K_FLOW_END, K_NOCAT, NR_KINDS
};

static const struct {
	const char	*name;
	unsigned int	evtype;
} kinds[NR_KINDS] = {
	[K_INSTANT]	  = { "fxt-instant", FXT_EV_INSTANT },
	[K_COUNTER]	  = { "fxt-counter", FXT_EV_COUNTER },
	[K_BEGIN]	  = { "fxt-slice", FXT_EV_DURATION_BEGIN },
	[K_END]		  = { "fxt-slice", FXT_EV_DURATION_END },
	[K_COMPLETE]	  = { "fxt-complete", FXT_EV_DURATION_COMPLETE },
	[K_ASYNC_BEGIN]	  = { "fxt-async", FXT_EV_ASYNC_BEGIN },
	[K_ASYNC_INSTANT] = { "fxt-async", FXT_EV_ASYNC_INSTANT },
	[K_ASYNC_END]	  = { "fxt-async", FXT_EV_ASYNC_END },
	[K_FLOW_BEGIN]	  = { "fxt-flow", FXT_EV_FLOW_BEGIN },
	[K_FLOW_STEP]	  = { "fxt-flow", FXT_EV_FLOW_STEP },
	[K_FLOW_END]	  = { "fxt-flow", FXT_EV_FLOW_END },
	[K_NOCAT]	  = { "fxt-nocat", FXT_EV_INSTANT },
};

/* Appends one valid record of kind @k to @b. */
static void build(struct fxb *b, enum kind k, uint64_t ts)
{
	ev_begin(b, kinds[k].evtype, k == K_NOCAT ? NULL : CAT, kinds[k].name, ts);
	switch (k) {
	case K_INSTANT:	/* every argument type the validator allows */
		arg32(b, FXT_ARG_NULL, "null", 0);
		arg32(b, FXT_ARG_I32, "i32", (uint32_t)-32);
		arg32(b, FXT_ARG_U32, "u32", 32);
		arg64(b, FXT_ARG_I64, "i64", (uint64_t)-64);
		arg64(b, FXT_ARG_U64, "u64", 64);
		arg64(b, FXT_ARG_DOUBLE, "double", 0x3ff8000000000000ULL);	/* 1.5 */
		arg_str(b, "str", "hello from user space");
		arg_str(b, "empty", NULL);
		arg64(b, FXT_ARG_POINTER, "ptr", 0xdeadbeef);
		arg64(b, FXT_ARG_KOID, "koid", 42);
		arg32(b, FXT_ARG_BOOL, "bool", 1);
		break;
	case K_COUNTER:
		arg64(b, FXT_ARG_I64, "value", 12345);
		break;
	case K_BEGIN:
	case K_COMPLETE:
		arg32(b, FXT_ARG_U32, "step", 1);
		break;
	default:
		break;
	}
	ev_end(b, k == K_COMPLETE ? ts + 1000 : k >= K_FLOW_BEGIN ? 9 : 7);
}

static size_t fxb_len(const struct fxb *b)
{
	return (size_t)b->n * 8;
}

/* ---- reading back what the module stored ------------------------------------------ */

struct stored {
	unsigned char	*data[64];	/* copies of each event's data, in ring order */
	size_t		len[64];
	int		n;
	int		bad;		/* wrong type, pid, or layout */
	int		unchecked;	/* data fxt_validate() refuses */
	pid_t		pid, tid;
	bool		keep;		/* keep copies (else only count and check) */
	long		total;
};

static void collect(const struct ftp_event *ev, void *arg)
{
	const struct ftring_ev_fxt *e = ev->payload;
	struct stored *s = arg;
	uint32_t off = e->data & 0xffff, len = e->data >> 16;

	s->total++;
	if (e->ent.type != FXT_ID || e->ent.pid != s->tid || e->pid != s->pid ||
	    off != sizeof(*e) || off + len > ev->payload_len) {
		s->bad++;
		return;
	}
	if (fxt_validate((const char *)e + off, len, NULL))
		s->unchecked++;
	if (!s->keep)
		return;
	if (s->n >= 64) {
		s->bad++;
		return;
	}
	s->data[s->n] = malloc(len);
	memcpy(s->data[s->n], (const char *)e + off, len);
	s->len[s->n++] = len;
}

static void stored_free(struct stored *s)
{
	while (s->n)
		free(s->data[--s->n]);
}

/* Events written and dropped on all CPUs since the last reset. */
static int totals(int ctl, uint64_t *entries, uint64_t *lost)
{
	struct ftring_cpu_stats st;
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int ret;

	*entries = *lost = 0;
	for (cpu = 0; cpu < ncpu; cpu++) {
		ret = ft_get_stats(ctl, (int)cpu, &st);
		if (ret == -ENODEV)
			continue;
		if (ret)
			return ret;
		*entries += st.entries;
		*lost += st.lost;
	}
	return 0;
}

/* Maps @cpu's buffer and walks every page GET_READER hands out until it is empty. */
static int read_cpu(int cpu, struct stored *s)
{
	struct ftring_meta *m;
	uint32_t id, done = 0;
	long page = ft_page_size();
	size_t data_len;
	char *data;
	int fd, ret = -ELOOP, loops;

	fd = ft_cpu_open(cpu, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	m = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return -errno;
	}
	data_len = (size_t)m->subbuf_size * m->nr_subbufs;
	data = mmap(NULL, data_len, PROT_READ, MAP_SHARED, fd, m->meta_page_size);
	if (data == MAP_FAILED) {
		munmap(m, page);
		close(fd);
		return -errno;
	}
	id = m->reader.id;
	for (loops = 0; loops < 100000; loops++) {
		const char *p;
		uint32_t len;
		int n;

		ret = ft_ioctl(fd, FTRING_IOC_GET_READER, NULL);
		if (ret)
			break;
		p = data + (size_t)m->reader.id * m->subbuf_size;
		/* one reading of the commit: the writer may still append to this page */
		len = ft_page_len_acquire(p);
		if (m->reader.id == id && len == done)
			break;	/* empty */
		if (m->reader.id != id) {
			id = m->reader.id;
			done = 0;
		}
		n = ft_walk_page_range(p, m->subbuf_size, done, len, collect, s);
		if (n < 0) {
			ret = n;
			break;
		}
		done = len;
	}
	munmap(data, data_len);
	munmap(m, page);
	close(fd);
	return ret;
}

/* ---- the fixture ----------------------------------------------------------------- */

FIXTURE(fxt) {
	int			ctl, fd;
	struct ftring_config	saved;
	int			skipped;
};

FIXTURE_SETUP(fxt)
{
	self->ctl = -1;
	self->fd = -1;
	self->skipped = 1;
	if (getuid())
		SKIP(return, "not root");
	self->ctl = ft_ctl_open();
	if (self->ctl == -ENOENT)
		SKIP(return, "module not loaded");
	self->skipped = 0;
	ASSERT_LE(0, self->ctl) TH_LOG("open %s: %s", FTRING_DEV_CTL, strerror(-self->ctl));
	ASSERT_EQ(0, ft_pin(0));
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, ft_get_config(self->ctl, &self->saved));
	ASSERT_EQ(0, ft_setup(self->ctl, 0, FTRING_MODE_DISCARD));
	ASSERT_EQ(0, ft_set_events(self->ctl, FXT_BIT));
	self->fd = open(FTRING_DEV_FXT, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", FTRING_DEV_FXT, strerror(errno));
	ASSERT_EQ(0, ft_start(self->ctl));
}

FIXTURE_TEARDOWN(fxt)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->ctl >= 0) {
		ft_stop(self->ctl);
		ft_set_config(self->ctl, &self->saved);
		ft_reset(self->ctl);
		ft_set_events(self->ctl, FTRING_EVENTS_DEFAULT);
		close(self->ctl);
	}
}

#define FXT_SKIP_IF_NEEDED()						\
	do {								\
		if (self->skipped)					\
			SKIP(return, "setup skipped");			\
	} while (0)

static ssize_t fxt_write(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : n;
}

/* Each kind alone, then all in one write: stored byte for byte, one event per write. */
TEST_F(fxt, every_kind_stored)
{
	static struct fxb one[NR_KINDS], all;
	struct stored s = { .pid = getpid(), .tid = gettid_(), .keep = true };
	uint64_t entries, lost;
	int k;

	FXT_SKIP_IF_NEEDED();
	for (k = 0; k < NR_KINDS; k++) {
		build(&one[k], k, 1000 + k);
		build(&all, k, 1000 + k);
		ASSERT_EQ(0, fxt_validate(one[k].w, fxb_len(&one[k]), NULL));
		EXPECT_EQ((ssize_t)fxb_len(&one[k]), fxt_write(self->fd, one[k].w,
							       fxb_len(&one[k])))
			TH_LOG("%s refused", kinds[k].name);
	}
	EXPECT_EQ((ssize_t)fxb_len(&all), fxt_write(self->fd, all.w, fxb_len(&all)));
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, totals(self->ctl, &entries, &lost));
	EXPECT_EQ(NR_KINDS + 1, entries);
	EXPECT_EQ(0, lost);
	ASSERT_EQ(0, read_cpu(0, &s));
	EXPECT_EQ(0, s.bad);
	EXPECT_EQ(0, s.unchecked);
	ASSERT_EQ(NR_KINDS + 1, s.n);
	for (k = 0; k < NR_KINDS; k++) {
		ASSERT_EQ(fxb_len(&one[k]), s.len[k]);
		EXPECT_EQ(0, memcmp(one[k].w, s.data[k], s.len[k])) TH_LOG("%s", kinds[k].name);
	}
	ASSERT_EQ(fxb_len(&all), s.len[k]);
	EXPECT_EQ(0, memcmp(all.w, s.data[k], s.len[k]));
	stored_free(&s);
}

/* The largest write the device takes is stored; one word more is EMSGSIZE. */
TEST_F(fxt, size_limit)
{
	static struct fxb b;
	static char text[FTRING_FXT_MAX];
	struct stored s = { .pid = getpid(), .tid = gettid_(), .keep = true };
	uint64_t entries, lost;
	unsigned int fixed;

	FXT_SKIP_IF_NEEDED();
	/* header 4 words + category + name + argument header + argument name */
	fixed = 4 + swords(CAT) + swords("fxt-big") + 1 + swords("s");
	memset(text, 'x', (FTRING_FXT_MAX / 8 - fixed) * 8);
	ev_begin(&b, FXT_EV_INSTANT, CAT, "fxt-big", 1);
	arg_str(&b, "s", text);
	ev_end(&b, 0);
	ASSERT_EQ(FTRING_FXT_MAX, fxb_len(&b));
	ASSERT_EQ(0, fxt_validate(b.w, fxb_len(&b), NULL));
	EXPECT_EQ(FTRING_FXT_MAX, fxt_write(self->fd, b.w, fxb_len(&b)));
	/* one more valid record after it: too long for one event */
	build(&b, K_END, 2);
	EXPECT_EQ(-EMSGSIZE, fxt_write(self->fd, b.w, fxb_len(&b)));
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, totals(self->ctl, &entries, &lost));
	EXPECT_EQ(1, entries);
	EXPECT_EQ(0, lost);
	ASSERT_EQ(0, read_cpu(0, &s));
	ASSERT_EQ(1, s.n);
	EXPECT_EQ(FTRING_FXT_MAX, s.len[0]);
	EXPECT_EQ(0, memcmp(b.w, s.data[0], FTRING_FXT_MAX));
	stored_free(&s);
}

/* A malformed write: a valid instant with args, damaged by @fn. */
struct bad_case {
	const char	*what;
	void		(*fn)(struct fxb *b);
};

static void bad_empty(struct fxb *b)
{
	b->n = 0;
}

static void bad_size_zero(struct fxb *b)	{ b->w[0] &= ~(0xfffULL << 4); }
static void bad_size_long(struct fxb *b)	{ b->w[0] += 1ULL << 4; }
static void bad_size_short(struct fxb *b)	{ b->w[0] -= 1ULL << 4; }
static void bad_truncated(struct fxb *b)	{ b->n--; }
static void bad_trailing(struct fxb *b)		{ b->n++; }	/* a zero word */
static void bad_rec_string(struct fxb *b)	{ b->w[0] = (b->w[0] & ~0xfULL) | FXT_REC_STRING; }
static void bad_rec_meta(struct fxb *b)		{ b->w[0] &= ~0xfULL; }
static void bad_rec_sched(struct fxb *b)	{ b->w[0] = (b->w[0] & ~0xfULL) | FXT_REC_SCHED; }
static void bad_event_type(struct fxb *b)	{ b->w[0] |= 11ULL << 16; }
static void bad_thread_ref(struct fxb *b)	{ b->w[0] |= 1ULL << 24; }
static void bad_cat_ref(struct fxb *b)		{ b->w[0] &= ~(0x8000ULL << 32); }
static void bad_name_ref(struct fxb *b)		{ b->w[0] &= ~(0x8000ULL << 48); }
static void bad_nargs_more(struct fxb *b)	{ b->w[0] += 1ULL << 20; }
static void bad_nargs_less(struct fxb *b)	{ b->w[0] -= 1ULL << 20; }

/* the argument header right after the category and name words */
static uint64_t *first_arg(struct fxb *b)
{
	return &b->w[4 + swords(CAT) + swords(kinds[K_INSTANT].name)];
}

/* the last padding byte of the instant's name (11 bytes in 2 words) */
static unsigned char *name_pad(struct fxb *b)
{
	return (unsigned char *)first_arg(b) - 1;
}

static void bad_pad(struct fxb *b)		{ *name_pad(b) = 'x'; }
static void bad_arg_type(struct fxb *b)		{ *first_arg(b) |= FXT_ARG_BLOB; }
static void bad_arg_name_ref(struct fxb *b)	{ *first_arg(b) &= ~(0x8000ULL << 16); }
static void bad_arg_no_name(struct fxb *b)	{ *first_arg(b) &= ~(0xffffULL << 16); }
static void bad_arg_size(struct fxb *b)		{ *first_arg(b) += 1ULL << 4; }
/* the first argument is a null argument: its bits 32..63 are reserved */
static void bad_arg_reserved(struct fxb *b)	{ *first_arg(b) |= 1ULL << 40; }

static void bad_second(struct fxb *b)
{
	unsigned int n = b->n;

	build(b, K_COUNTER, 5);
	b->w[n] |= 1ULL << 24;	/* the first record is fine, the second is not */
}

static const struct bad_case bad_cases[] = {
	{ "empty write", bad_empty },
	{ "record size 0", bad_size_zero },
	{ "record size past the end", bad_size_long },
	{ "record size short of its fields", bad_size_short },
	{ "truncated record", bad_truncated },
	{ "trailing word", bad_trailing },
	{ "string record", bad_rec_string },
	{ "metadata record", bad_rec_meta },
	{ "scheduling record", bad_rec_sched },
	{ "event type 11", bad_event_type },
	{ "thread table ref", bad_thread_ref },
	{ "category string table ref", bad_cat_ref },
	{ "name string table ref", bad_name_ref },
	{ "more args than present", bad_nargs_more },
	{ "fewer args than present", bad_nargs_less },
	{ "string padding not zero", bad_pad },
	{ "blob argument", bad_arg_type },
	{ "argument name table ref", bad_arg_name_ref },
	{ "argument without name", bad_arg_no_name },
	{ "argument size", bad_arg_size },
	{ "argument reserved bits", bad_arg_reserved },
	{ "bad second record", bad_second },
};

/* Every malformed write is EINVAL and leaves nothing; a good one after still works. */
TEST_F(fxt, malformed_refused)
{
	static struct fxb b;
	struct stored s = { .pid = getpid(), .tid = gettid_(), .keep = true };
	uint64_t entries, lost;
	unsigned int i;
	void *hole;
	ssize_t n;

	FXT_SKIP_IF_NEEDED();
	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		memset(&b, 0, sizeof(b));
		build(&b, K_INSTANT, 7);
		bad_cases[i].fn(&b);
		EXPECT_NE(0, fxt_validate(b.w, fxb_len(&b), NULL)) TH_LOG("%s", bad_cases[i].what);
		n = fxt_write(self->fd, b.w, fxb_len(&b));
		EXPECT_EQ(-EINVAL, n) TH_LOG("%s: got %zd", bad_cases[i].what, n);
	}
	/* not whole words */
	memset(&b, 0, sizeof(b));
	build(&b, K_END, 8);
	EXPECT_EQ(-EINVAL, fxt_write(self->fd, b.w, fxb_len(&b) - 3));
	/* a buffer the kernel cannot read */
	hole = mmap(NULL, ft_page_size(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	EXPECT_EQ(-EFAULT, fxt_write(self->fd, hole, 64));
	munmap(hole, ft_page_size());
	ASSERT_EQ(0, totals(self->ctl, &entries, &lost));
	EXPECT_EQ(0, entries);
	EXPECT_EQ(0, lost);
	EXPECT_EQ((ssize_t)fxb_len(&b), fxt_write(self->fd, b.w, fxb_len(&b)));
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, totals(self->ctl, &entries, &lost));
	EXPECT_EQ(1, entries);
	EXPECT_EQ(0, lost);
	ASSERT_EQ(0, read_cpu(0, &s));
	EXPECT_EQ(0, s.bad);
	ASSERT_EQ(1, s.n);
	EXPECT_EQ(0, memcmp(b.w, s.data[0], s.len[0]));
	stored_free(&s);
}

/* Not recording, or the event disabled: ENODATA, like the marker. */
TEST_F(fxt, enodata)
{
	static struct fxb b;
	uint64_t entries, lost;

	FXT_SKIP_IF_NEEDED();
	build(&b, K_INSTANT, 1);
	ASSERT_EQ(0, ft_stop(self->ctl));
	EXPECT_EQ(-ENODATA, fxt_write(self->fd, b.w, fxb_len(&b)));
	ASSERT_EQ(0, ft_set_events(self->ctl, 1ULL << FTRING_EV_marker));
	ASSERT_EQ(0, ft_start(self->ctl));
	EXPECT_EQ(-ENODATA, fxt_write(self->fd, b.w, fxb_len(&b)));
	ASSERT_EQ(0, ft_set_events(self->ctl, FXT_BIT));
	EXPECT_EQ((ssize_t)fxb_len(&b), fxt_write(self->fd, b.w, fxb_len(&b)));
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, totals(self->ctl, &entries, &lost));
	EXPECT_EQ(1, entries);
}

/*
 * A second thread flips a padding byte of the record between valid (0) and invalid
 * while the first writes it: every write is either stored or refused, and what is
 * stored is always the valid form (the module checks its own copy).
 */
struct flipper {
	unsigned char	*byte;
	bool		started, stop;	/* __atomic accesses: shared with the writer */
};

static void *flip(void *arg)
{
	struct flipper *f = arg;

	ft_pin(1);
	__atomic_store_n(&f->started, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE))
		__atomic_fetch_xor(f->byte, 'x', __ATOMIC_RELAXED);
	return NULL;
}

TEST_F(fxt, rewritten_during_write)
{
	static struct fxb b;
	struct stored s = { .pid = getpid(), .tid = gettid_() };
	struct flipper f = { .started = false, .stop = false };
	uint64_t entries, lost;
	long ok = 0, refused = 0, other = 0, i;
	pthread_t th;
	ssize_t n;

	FXT_SKIP_IF_NEEDED();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	/* a short record (80 bytes in the ring): 10000 fit the default 1 MiB */
	build(&b, K_END, 3);
	f.byte = (unsigned char *)&b.w[4 + swords(CAT) + swords(kinds[K_END].name)] - 1;
	ASSERT_EQ(0, pthread_create(&th, NULL, flip, &f));
	while (!__atomic_load_n(&f.started, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < 10000 && (ok < 200 || refused < 200); i++) {
		/*
		 * Sleep now and then: under single-threaded TCG the other vCPU (the
		 * flipper) only runs when this one yields the host thread, and a whole
		 * run of writes could otherwise see one value of the byte.
		 */
		if (i % 64 == 63)
			usleep(100);
		n = fxt_write(self->fd, b.w, fxb_len(&b));
		if (n == (ssize_t)fxb_len(&b))
			ok++;
		else if (n == -EINVAL)
			refused++;
		else
			other++;
	}
	__atomic_store_n(&f.stop, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	TH_LOG("%ld writes: stored %ld, refused %ld", i, ok, refused);
	EXPECT_EQ(0, other);
	/* both outcomes, or the race was not exercised at all */
	EXPECT_LT(0, ok);
	EXPECT_LT(0, refused);
	ASSERT_EQ(0, ft_stop(self->ctl));
	ASSERT_EQ(0, totals(self->ctl, &entries, &lost));
	EXPECT_EQ(ok, entries);
	EXPECT_EQ(0, lost);
	ASSERT_EQ(0, read_cpu(0, &s));
	EXPECT_EQ(ok, s.total);
	EXPECT_EQ(0, s.bad);
	EXPECT_EQ(0, s.unchecked);
}

/* ---- emit mode -------------------------------------------------------------------- */

static int emit(void)
{
	static struct fxb b, bad;
	int fd = open(FTRING_DEV_FXT, O_WRONLY | O_CLOEXEC);
	int k, writes = 0, records = 0;
	ssize_t n;

	if (fd < 0) {
		perror(FTRING_DEV_FXT);
		return 1;
	}
	/* each kind alone (timestamps far from the ring's: the exporter re-stamps them) */
	for (k = 0; k < NR_KINDS; k++) {
		b.n = 0;
		build(&b, k, 1000 * k);
		n = write(fd, b.w, fxb_len(&b));
		if (n != (ssize_t)fxb_len(&b)) {
			fprintf(stderr, "emit: %s: %s\n", kinds[k].name,
				n < 0 ? strerror(errno) : "short write");
			return 1;
		}
		writes++;
		records++;
		usleep(1000);
	}
	/* a refused write, which must leave no trace */
	build(&bad, K_INSTANT, 1);
	bad.w[0] |= 1ULL << 24;
	if (write(fd, bad.w, fxb_len(&bad)) >= 0 || errno != EINVAL) {
		fprintf(stderr, "emit: a bad record was not refused with EINVAL\n");
		return 1;
	}
	close(fd);
	printf("emit pid=%d tid=%d writes=%d records=%d\n", getpid(), gettid_(), writes,
	       records);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "emit"))
		return emit();
	return test_harness_run(argc, argv);
}
