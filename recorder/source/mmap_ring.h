/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Consumer of one per-CPU ring buffer mapped with the upstream ring-buffer mmap ABI
 * (include/uapi/linux/trace_mmap.h, Linux >= 6.10; ../shared/docs/formats.md C): the
 * meta page, then the sub-buffers; TRACE_MMAP_IOCTL_GET_READER swaps the next
 * sub-buffer out of the ring. Works on any fd with that ABI: ftrace's
 * per_cpu/cpuN/trace_pipe_raw and the ftring module's devices. Knows nothing of tracefs.
 *
 * Only whole sub-buffers are handed over. The reader sub-buffer may still be the one
 * the kernel writes to; it is taken once the writer has left it, when the caller
 * flushes, or (at most once a call) before a GET_READER that could give it back to
 * the ring: a writer may leave a sub-buffer without filling it (the ftring module
 * does), and the next GET_READER then swaps it out. A sub-buffer taken while partly
 * written and grown later is handed over again as a fresh page holding only the new
 * events (re-based), so no event is ever handed over twice or lost. A sub-buffer
 * given back to the ring is never read again: it may be the writer's next page.
 */
#ifndef REC_MMAP_RING_H
#define REC_MMAP_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/types.h>

/*
 * Our copy of struct trace_buffer_meta (80 bytes), so that we build against kernel
 * headers older than 6.10, as libtracefs does, and ftring's field after it
 * (common/ftring_abi.h, ABI 1.3), there when meta_struct_len covers it.
 */
struct mmap_ring_meta {
	uint32_t	meta_page_size;		/* bytes before sub-buffer 0 */
	uint32_t	meta_struct_len;	/* sizeof this struct as the kernel knows it */
	uint32_t	subbuf_size;		/* whole sub-buffer, header included */
	uint32_t	nr_subbufs;		/* ring + the reader sub-buffer */
	struct {
		uint64_t	lost_events;	/* lost at the last reader swap */
		uint32_t	id;		/* reader sub-buffer */
		uint32_t	read;		/* data bytes of it the kernel counts as read */
	} reader;
	uint64_t	flags;
	uint64_t	entries;
	uint64_t	overrun;
	uint64_t	read;
	uint64_t	reserved1;
	uint64_t	reserved2;
	uint64_t	writer;		/* ftring: the writer's sub-buffer */
};

#define MMAP_RING_IOCTL_GET_READER	_IO('R', 0x20)

struct mmap_ring;

struct mmap_ring_stats {
	uint64_t	entries;	/* meta: events written */
	uint64_t	overrun;	/* meta: events overwritten */
	uint64_t	read;		/* meta: events the kernel counts as consumed */
	uint64_t	lost_events;	/* sum of reader.lost_events over swaps */
	uint64_t	missed_pages;	/* pages flagged "events missed before" */
	uint64_t	missed_events;	/* sum of the counts stored in those pages */
	uint64_t	pages;		/* pages handed over */
	uint64_t	bytes;		/* data bytes handed over (commit lengths) */
	uint64_t	rebased;	/* pages handed over as the rest of a partial one */
	uint64_t	bad;		/* malformed pages skipped (never expected) */
	uint32_t	subbuf_size;
	uint32_t	nr_subbufs;
};

/**
 * mmap_ring_open() - map a ring buffer
 * @fd:		per-CPU fd supporting the mmap ABI (kept open by the caller)
 * @err:	set to -errno on failure (ENODEV/ENOTTY/EINVAL: no mmap support)
 *
 * Return: the ring, or NULL.
 */
struct mmap_ring *mmap_ring_open(int fd, int *err);

/* Sub-buffer size (header included): the size of every page read_pages hands over. */
unsigned int mmap_ring_page_size(const struct mmap_ring *r);

/**
 * mmap_ring_read_pages() - copy the ready sub-buffers out
 * @r:		ring
 * @dst:	room for @max pages of mmap_ring_page_size() bytes
 * @max:	pages that fit in @dst
 * @flush:	also take the sub-buffer the writer is still on (stop, snapshot)
 *
 * Return: pages written to @dst, or -errno from the ioctl.
 */
ssize_t mmap_ring_read_pages(struct mmap_ring *r, void *dst, size_t max, int flush);

void mmap_ring_stats(const struct mmap_ring *r, struct mmap_ring_stats *st);

/* Unmaps; does not close the fd. Accepts NULL. */
void mmap_ring_close(struct mmap_ring *r);

/*
 * The pure part, exposed for unit tests: where the consumer is in the reader
 * sub-buffer, and the step that copies out what is new in it.
 */
struct mmap_ring_cursor {
	uint32_t	id;		/* reader sub-buffer */
	uint32_t	done;		/* its data bytes already handed over */
};

/*
 * True when no further event can be written to a page whose commit word is @commit:
 * less than one minimal event (8 bytes) is left, or the kernel marked it at swap-in
 * with missed events (upstream's pages: the writer has left; ftring also flags a
 * page it swaps in under the writer, which mmap_ring_take() allows for).
 */
int mmap_ring_page_complete(uint64_t commit, unsigned int page_size);

/**
 * mmap_ring_take() - copy the part of a sub-buffer not handed over yet
 * @cur:	cursor in @page (updated)
 * @page:	the sub-buffer, possibly still being written
 * @page_size:	sub-buffer size, header included
 * @dst:	a page to fill (page_size bytes; the unused tail is zeroed)
 * @flush:	take the page even if the writer may still add to it
 * @rebased:	set to 1 if @dst holds only the tail of the sub-buffer
 *
 * The first copy of a sub-buffer is the sub-buffer itself (missed-event flags and
 * count included). Later copies are re-based: time_stamp = the clock just before
 * the first new event, the new events moved to the data start, commit = their length.
 *
 * Return: 1 if @dst was filled, 0 if there is nothing to take, -EBADMSG if the
 * sub-buffer cannot be walked (its new part is then skipped and not handed over).
 */
int mmap_ring_take(struct mmap_ring_cursor *cur, const void *page, unsigned int page_size,
		   void *dst, int flush, int *rebased);

#endif /* REC_MMAP_RING_H */
