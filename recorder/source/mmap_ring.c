// SPDX-License-Identifier: GPL-2.0
/*
 * Ring-buffer mmap consumer (see mmap_ring.h). Facts: include/uapi/linux/trace_mmap.h,
 * kernel/trace/ring_buffer.c ring_buffer_map_get_reader(), ../shared/docs/formats.md C.
 *
 * Why copying the reader sub-buffer is safe: the kernel never writes into it except
 * when its writer is on that very sub-buffer, and then only appends after commit.
 * GET_READER swaps the reader sub-buffer back into the ring only when no data was
 * added to it since the previous GET_READER (else it just marks the new data read and
 * returns the same id), so everything up to the commit seen after one ioctl is copied
 * before the next ioctl can give the sub-buffer back to the writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ftrace_page.h"
#include "mmap_ring.h"

struct mmap_ring {
	int			fd;
	struct mmap_ring_meta	*meta;
	size_t			meta_len;
	char			*data;
	size_t			data_len;
	unsigned int		subbuf_size;
	unsigned int		nr_subbufs;
	struct mmap_ring_cursor	cur;
	uint64_t		cur_lost;	/* missed before cur (its swap's count) */
	struct mmap_ring_stats	st;
};

/* The kernel stores data, smp_wmb(), then commit: load commit first, data after it. */
static inline uint64_t load_commit(const void *page)
{
	return __atomic_load_n((const uint64_t *)((const char *)page + FTP_COMMIT_OFFSET),
			       __ATOMIC_ACQUIRE);
}

int mmap_ring_page_complete(uint64_t commit, unsigned int page_size)
{
	uint32_t len = (uint32_t)(commit & FTP_COMMIT_MASK);

	/* The smallest event is 8 bytes (header + 4-byte payload); see rb_reset_tail(). */
	if (len + FTP_HDR_SIZE + 8 > page_size)
		return 1;
	return !!(commit & FTP_MISSED_EVENTS);
}

/* True when data[from, to) holds at least one data event (not only padding/stamps). */
static int has_data_event(const char *data, uint32_t from, uint32_t to)
{
	struct ftp_event ev;
	__u64 ts = 0;
	uint32_t pos = from;

	while (pos < to) {
		pos = ftp_next(data, to, pos, &ts, &ev);
		if (!pos)
			return 1;	/* let the reader see (and report) the odd bytes */
		if (ev.type_len <= FTP_TYPE_DATA_MAX)
			return 1;
	}
	return 0;
}

int mmap_ring_take(struct mmap_ring_cursor *cur, const void *page, unsigned int page_size,
		   void *dst, int flush, int *rebased)
{
	uint64_t commit = load_commit(page);
	uint32_t len = (uint32_t)(commit & FTP_COMMIT_MASK);
	uint32_t done = cur->done, n;
	char *d = dst;
	int64_t ts;

	*rebased = 0;
	if (len > page_size - FTP_HDR_SIZE) {
		cur->done = page_size;
		return done < page_size ? -EBADMSG : 0;
	}
	if (len <= done)
		return 0;
	/*
	 * The missed-events flag can ride on a page the writer is still on (ftring's
	 * swap under it): once it went out with the first part, the rest waits for
	 * room, the writer's leaving or a flush, as on any live page.
	 */
	if (!flush && !mmap_ring_page_complete(done ? commit & ~(uint64_t)FTP_MISSED_EVENTS :
					       commit, page_size))
		return 0;

	n = FTP_HDR_SIZE + len;
	if ((commit & FTP_MISSED_STORED) && n + 8 <= page_size)
		n += 8;		/* the lost count the kernel stored after the data */
	memcpy(d, page, n);
	/* The page may have grown since commit was loaded: keep what was checked. */
	*(uint64_t *)(d + FTP_COMMIT_OFFSET) = commit;
	cur->done = len;
	if (!done) {
		memset(d + n, 0, page_size - n);
		return 1;
	}

	/* Re-base: the events after @done become a page of their own. */
	*(uint64_t *)(d + FTP_COMMIT_OFFSET) = len;
	ts = ftp_ts_before(d, done);
	if (ts < 0)
		return -EBADMSG;
	if (!has_data_event(d + FTP_HDR_SIZE, done, len))
		return 0;	/* only the writer's end-of-page padding was added */
	memmove(d + FTP_HDR_SIZE, d + FTP_HDR_SIZE + done, len - done);
	memset(d + FTP_HDR_SIZE + len - done, 0, page_size - FTP_HDR_SIZE - (len - done));
	*(uint64_t *)(d + FTP_TS_OFFSET) = (uint64_t)ts;
	/* Missed-event flags went out with the first part of this sub-buffer. */
	*(uint64_t *)(d + FTP_COMMIT_OFFSET) = len - done;
	*rebased = 1;
	return 1;
}

struct mmap_ring *mmap_ring_open(int fd, int *err)
{
	struct mmap_ring *r = calloc(1, sizeof(*r));
	long sys_page = sysconf(_SC_PAGESIZE);
	struct mmap_ring_meta *m;
	void *p;

	if (!r) {
		*err = -ENOMEM;
		return NULL;
	}
	r->fd = fd;
	r->meta_len = (size_t)sys_page;
	p = mmap(NULL, r->meta_len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	m = p;
	if (m->meta_struct_len < offsetof(struct mmap_ring_meta, reserved1) ||
	    m->subbuf_size <= FTP_HDR_SIZE + 8 || m->nr_subbufs < 2 ||
	    m->meta_page_size < r->meta_len || m->meta_page_size % sys_page) {
		munmap(p, r->meta_len);
		errno = EPROTO;
		goto fail;
	}
	/* Since 6.12 the meta page is one sub-buffer long: always trust meta_page_size. */
	if (m->meta_page_size != r->meta_len) {
		size_t len = m->meta_page_size;

		munmap(p, r->meta_len);
		r->meta_len = len;
		p = mmap(NULL, r->meta_len, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			goto fail;
		m = p;
	}
	r->meta = m;
	r->subbuf_size = m->subbuf_size;
	r->nr_subbufs = m->nr_subbufs;
	r->data_len = (size_t)r->subbuf_size * r->nr_subbufs;
	p = mmap(NULL, r->data_len, PROT_READ, MAP_SHARED, fd, m->meta_page_size);
	if (p == MAP_FAILED) {
		munmap(r->meta, r->meta_len);
		goto fail;
	}
	r->data = p;
	/* Whatever the kernel already counts as read on the reader page is not ours. */
	r->cur.id = __atomic_load_n(&m->reader.id, __ATOMIC_ACQUIRE);
	r->cur.done = m->reader.read;
	r->cur_lost = m->reader.lost_events;
	if (r->cur.id >= r->nr_subbufs) {
		mmap_ring_close(r);
		*err = -EPROTO;
		return NULL;
	}
	r->st.subbuf_size = r->subbuf_size;
	r->st.nr_subbufs = r->nr_subbufs;
	return r;
fail:
	*err = -errno;
	free(r);
	return NULL;
}

unsigned int mmap_ring_page_size(const struct mmap_ring *r)
{
	return r->subbuf_size;
}

static inline const char *subbuf(const struct mmap_ring *r, uint32_t id)
{
	return r->data + (size_t)id * r->subbuf_size;
}

/* Copies from the reader sub-buffer while pages are ready and room is left. */
static size_t take_ready(struct mmap_ring *r, char *dst, size_t n, size_t max, int flush)
{
	int rebased, ret;

	while (n < max) {
		char *d = dst + n * r->subbuf_size;

		ret = mmap_ring_take(&r->cur, subbuf(r, r->cur.id), r->subbuf_size, d, flush,
				     &rebased);
		if (ret < 0) {
			r->st.bad++;
			continue;	/* the cursor moved past the bad part */
		}
		if (!ret)
			break;
		/*
		 * ftring flags a page it swaps in under its writer without the count
		 * (the writer goes on after the data): the swap's count goes where the
		 * kernel would have put it, so that readers say how many.
		 */
		if (!rebased && r->cur_lost &&
		    (ftp_page_commit(d) & (FTP_MISSED_EVENTS | FTP_MISSED_STORED)) ==
		    FTP_MISSED_EVENTS)
			ftp_page_set_missed(d, r->subbuf_size, r->cur_lost);
		if (!rebased && (ftp_page_commit(d) & FTP_MISSED_EVENTS)) {
			r->st.missed_pages++;
			if (ftp_page_commit(d) & FTP_MISSED_STORED)
				r->st.missed_events +=
					*(const uint64_t *)(d + FTP_HDR_SIZE + ftp_page_len(d));
		}
		r->st.pages++;
		r->st.bytes += ftp_page_len(d);
		r->st.rebased += rebased;
		n++;
	}
	return n;
}

/* True when the reader sub-buffer holds data not taken yet (the writer is still on it). */
static int cur_pending(const struct mmap_ring *r)
{
	uint64_t commit = load_commit(subbuf(r, r->cur.id));

	return (uint32_t)(commit & FTP_COMMIT_MASK) > r->cur.done;
}

/*
 * True when the kernel says its writer is on the reader sub-buffer now (ftring keeps
 * meta->writer current). Then the ring holds nothing else and GET_READER cannot give
 * the sub-buffer back, so its events can wait until it is full or flushed.
 */
static int writer_on_cur(const struct mmap_ring *r)
{
	const struct mmap_ring_meta *m = r->meta;

	return m->meta_struct_len >= offsetof(struct mmap_ring_meta, writer) + sizeof(m->writer) &&
	       __atomic_load_n(&m->writer, __ATOMIC_ACQUIRE) == r->cur.id;
}

ssize_t mmap_ring_read_pages(struct mmap_ring *r, void *dst, size_t max, int flush)
{
	struct mmap_ring_meta *m = r->meta;
	int idle = 0, asked = 0;
	size_t n = 0, before;
	uint32_t id;

	for (;;) {
		before = n;
		n = take_ready(r, dst, n, max, flush);
		if (n == max)
			break;
		/*
		 * A flush took the page the writer is on, the only one the ring holds:
		 * once per call. Going on, it took a few events a round (a GET_READER
		 * each, an IPI on the module) while a flood kept ahead of it.
		 */
		if (flush && n > before && writer_on_cur(r))
			break;
		if (cur_pending(r)) {
			/*
			 * The writer is on the reader sub-buffer, or left it without filling
			 * it (ftring does: no padding). Once we asked the kernel this round,
			 * or when the kernel says its writer is still there, wait for the
			 * next round rather than copy a few events at a time. Otherwise take
			 * what it holds now: the next GET_READER may give it back to the
			 * ring, and what grows later is handed over re-based.
			 */
			if (asked || writer_on_cur(r))
				break;
			n = take_ready(r, dst, n, n + 1, 1);
			if (n == max)
				break;
		}
		idle = n == before ? idle + 1 : 0;
		if (ioctl(r->fd, MMAP_RING_IOCTL_GET_READER) < 0) {
			if (errno == EINTR)
				continue;
			if (n)
				break;	/* report it on the next call */
			return -errno;
		}
		id = __atomic_load_n(&m->reader.id, __ATOMIC_ACQUIRE);
		if (id >= r->nr_subbufs)
			return n ? (ssize_t)n : -EPROTO;
		r->st.entries = m->entries;
		r->st.overrun = m->overrun;
		r->st.read = m->read;
		if (id == r->cur.id) {
			/*
			 * Same sub-buffer: the kernel caught its read index up with data the
			 * writer added (taken on the next round), or there is nothing else.
			 */
			if (cur_pending(r))
				asked = 1;
			else if (idle >= 2)
				break;
			continue;
		}
		/*
		 * A new sub-buffer. The old one is back in the ring and must not be read
		 * again: when the ring was full it is the writer's very next page, and it
		 * may already hold new events that come round as a reader page later.
		 * Everything in it was taken before this ioctl.
		 */
		r->st.lost_events += m->reader.lost_events;
		r->cur.id = id;
		r->cur.done = 0;
		r->cur_lost = m->reader.lost_events;
	}
	return (ssize_t)n;
}

void mmap_ring_stats(const struct mmap_ring *r, struct mmap_ring_stats *st)
{
	*st = r->st;
}

void mmap_ring_close(struct mmap_ring *r)
{
	if (!r)
		return;
	if (r->data)
		munmap(r->data, r->data_len);
	if (r->meta)
		munmap(r->meta, r->meta_len);
	free(r);
}
