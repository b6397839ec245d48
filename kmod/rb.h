/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ftring per-CPU ring buffer: types and the rules that make it safe.
 *
 * Words used below (those of Documentation/trace/ring-buffer-design.rst):
 *   sub-buffer / page  one ftrace ring-buffer page (common/ftrace_page.h), id'd by
 *                      its index in rb_cpu.pages[]; the id is what user space sees
 *   ring               the pages linked by rb_page.next/prev; the writer goes round it
 *   reader page        the one page outside the ring, handed to user space
 *   tail               where the next event is reserved: page id + offset + state
 *   commit page        the page the outermost writer publishes commit lengths into
 *   head               the oldest ring page that may hold unread data
 *
 * Writers: only on their own CPU (preemption off), any context nesting: task <
 * softirq < hardirq < NMI. They never lock and never allocate. Reservation is a
 * cmpxchg on @tail; only the outermost writer (@nest == 1) publishes commit words.
 *
 * Reader: one swap at a time per CPU (@reader_lock), executed ON the buffer's
 * CPU with interrupts off (IPI) or on an offline CPU (no writer exists). It only
 * swaps when @nest == 0, so no task/softirq/hardirq writer is between two of its
 * steps; an NMI writer that lands during a swap sees @swapping and drops its
 * event (counted in lost_busy). In discard mode, with the head page and the
 * reader page left and published, the swap runs on the reader's CPU instead
 * (rb_reader_swap_remote()) while page switches wait (@switching, @remote_seq).
 * Links, @head's position in the ring and @reader_id therefore never change
 * under a page switch. The one other writer step that reads links, the commit
 * walk (rb_publish_slow()), reads only those of the pages from the commit page to
 * the tail page, which a remote swap never changes: it needs the commit page and
 * the tail page off the reader page and the head page, and it changes only the
 * links of the reader page, of prev(head) (at or past the tail page) and of
 * next(head). Page switches wait for the link stores alone: the new reader
 * page's missed-events stamp and the reader's counters (@read, @pages_read) are
 * written after, when the page is out of every writer's reach; writers read
 * those counters only racily, to decide on a wake-up (rb_readable()).
 *
 * Lock order (process context only):
 *   ftring_lock (start/stop, events, config) > ftring_bufs_lock (buffer array,
 *   sizes, reset; also taken by the CPU-prepare callback) > rb_cpu.reader_lock;
 *   cpus_read_lock() > rb_cpu.reader_lock (GET_READER pins the CPU state).
 */
#ifndef FTRING_RB_H
#define FTRING_RB_H

#include "rb_env.h"
#include "ftrace_page.h"
#include "ftring_abi.h"

/* @tail: page id in the high 32 bits, state flag, offset into the data area */
#define RB_TAIL_FULL		BIT(30)	/* page closed; offset = its real end */
#define RB_TAIL_OFF_MASK	((1UL << 30) - 1)
#define RB_TAIL(id, off)	(((unsigned long)(id) << 32) | (off))
#define RB_TAIL_ID(t)		((u32)((t) >> 32))
#define RB_TAIL_OFF(t)		((u32)((t) & RB_TAIL_OFF_MASK))

/*
 * Bounds of every retry loop (each WARNs once when reached, but a page switch's
 * wait for a remote swap: a stalled reader CPU is no broken invariant).
 */
#define RB_MAX_RETRIES		1000
/*
 * A page switch waits for a remote swap RB_MAX_RETRIES turns and at least this
 * long before it drops its event: the swap's link stores are a dozen loads and
 * stores with interrupts off, well under a microsecond even with every line cold;
 * longer means its CPU was taken away. A turn is the architecture's cpu_relax()
 * (a pause on x86, a yield hint on arm64), so turns alone say little of the time.
 * RB_REMOTE_MAX_TURNS ends the wait if the clock does not move (jiffies-based).
 */
#define RB_REMOTE_WAIT_NS	20000
#define RB_REMOTE_MAX_TURNS	(16 * RB_MAX_RETRIES)

/*
 * The largest record rb_reserve() takes in a sub-buffer of @data_size bytes: its
 * long data header (8) and a time extend (8) always fit beside it.
 */
static inline u32 rb_max_payload(u32 data_size)
{
	return data_size - FTP_EXTEND_LEN - 8;
}

/**
 * struct rb_page - descriptor of one sub-buffer.
 * @addr:	Kernel address of the page (struct buffer_data_page layout).
 * @next:	Next page id in the ring (for the reader page: where the writer goes
 *		when it leaves it).
 * @prev:	Previous page id in the ring (reader only).
 * @real_end:	Data bytes in the page once the writer has left it.
 * @flags:	Missed-events bits the publisher keeps in the commit word.
 * @entries:	Events ever reserved in the page (since the reset); those of the
 *		current lap are @entries - @entries_base (rb_page_entries()).
 * @entries_base: @entries when the writer last entered the page.
 * @drops_mark:	@drops of the buffer when the writer last entered the page.
 *
 * Entering a page never resets a count a writer adds to: it stores values
 * (@entries_base, @drops_mark) that are the same whoever stores them, so a writer
 * interrupted while preparing the page may finish after the interrupt has entered
 * and written it (rb_move_tail()).
 */
struct rb_page {
	void		*addr;
	u32		next;
	u32		prev;
	u32		real_end;
	u32		flags;
	local_t		entries;
	unsigned long	entries_base;
	unsigned long	drops_mark;
};

/**
 * struct rb_cpu - one CPU's buffer. Writer-hot fields first.
 * @tail:	See RB_TAIL(); moved by writers with cmpxchg.
 * @ctx:	Contexts (RB_CTX_LEVEL() bits, RB_CTX_TRANSITION) with a writer in
 *		progress: the recursion guard.
 * @nest:	Writers in progress on this CPU (reserve increments, commit
 *		decrements). 1 = outermost.
 * @reserves:	Reservations ever started; the outermost committer re-checks it
 *		to catch a writer that slipped in while it was leaving.
 * @nested_seq:	Bumped by every nested writer; the outermost compares it with
 *		@stamp_seq to know whether @last_ts is the time of the last event.
 * @stamp_seq:	@nested_seq value for which @last_ts is valid.
 * @last_ts:	Time of the last event written by an outermost writer.
 * @head:	Oldest ring page that may hold unread data (cmpxchg in overwrite).
 * @commit_id:	Page whose commit word the outermost writer publishes.
 * @reader_id:	Page handed to user space.
 * @swapping:	A reader swap is running on this CPU (NMI writers drop).
 * @switching:	Writers of this CPU in a page switch (rb_switch_enter()).
 * @remote_seq: Odd while a reader swap on another CPU looks at the writer's
 *		state and changes links, @head and @reader_id: page switches wait.
 * @remote_given_up: The @remote_seq a page switch stopped waiting for: later
 *		switches drop at once until that swap ends.
 * @swap_ret:	Result of the swap run by IPI on the buffer's CPU.
 * @disabled:	FTRING_WARN_ON tripped: the buffer no longer records.
 * @overwrite:	FTRING_MODE_OVERWRITE.
 * @clock:	FTRING_CLOCK_*.
 * @waiters:	Someone sleeps in poll/GET_READER: writers queue @wake_work.
 * @wake_seq:	Bumped by ioctl(fd, 0): blocked GET_READERs return.
 * @watermark:	Full pages that make the buffer readable (0 = any event).
 * @data_size:	Bytes of event data a page holds (page size - 16).
 * @nr_pages:	Pages in the ring (the mapping has @nr_pages + 1).
 * @pages:	@nr_pages + 1 descriptors.
 * @entries:	Events written.
 * @overrun:	Events overwritten unread.
 * @bytes:	Bytes of events written (headers and time extends included).
 * @lost_full:	Drops: ring full, or caught up with the commit page.
 * @lost_busy:	Drops: NMI during a swap, a writer recursing in its context, or a
 *		page switch that waited too long for a remote swap.
 * @lost_too_big: Drops: event larger than a page.
 * @drops:	All drops; a page's @drops_mark minus the previous one read is what
 *		was lost before it.
 * @pages_done:	Ring pages the writer has left, not the reader page (watermark).
 * @pages_gone:	Pages overwritten before being read.
 * @read:	Events handed to the reader.
 * @pages_read:	Full pages swapped out to the reader.
 * @reader_read: Data bytes of the reader page reported consumed.
 * @reader_counted: Entries of the reader page already counted in @read.
 * @lost_events: Missed count reported with the current reader page.
 * @last_overrun: @overrun when the previous reader page was handed out.
 * @last_drops:	@drops_mark of the previous reader page.
 * @cpu:	The CPU.
 * @meta:	The meta page (struct ftring_meta first).
 * @meta_pfn:	Its page frame when placed by rb_cpu_alloc_at() (0: allocated).
 * @pages_pfn:	Page frame of sub-buffer 0 when placed (sub-buffer i at +i).
 * @mapped:	Live mappings of this buffer (raised under ftring_bufs_lock).
 * @reader_lock: Serialises reader swaps, meta updates and reset.
 * @waitq:	poll() and blocking GET_READER sleep here.
 * @wake_work:	Wakes @waitq from any context (writers may be in NMI or hold
 *		scheduler locks).
 */
struct rb_cpu {
	local_t		tail;
	unsigned int	ctx;
	local_t		nest;
	local_t		reserves;
	local_t		nested_seq;
	unsigned long	stamp_seq;
	u64		last_ts;
	local_t		head;
	u32		commit_id;
	u32		reader_id;
	int		swapping;
	local_t		switching;
	unsigned int	remote_seq;
	unsigned int	remote_given_up;
	int		swap_ret;
	int		disabled;
	bool		overwrite;
	u8		clock;
	bool		waiters;
	unsigned int	wake_seq;
	u32		watermark;
	u32		data_size;
	u32		nr_pages;
	struct rb_page	*pages;

	local_t		entries;
	local_t		overrun;
	local_t		bytes;
	local_t		lost_full;
	local_t		lost_busy;
	local_t		lost_too_big;
	local_t		drops;
	local_t		pages_done;
	local_t		pages_gone;

	u64		read;
	u64		pages_read;
	u32		reader_read;
	u32		reader_counted;
	u64		lost_events;
	u64		last_overrun;
	unsigned long	last_drops;

	int		cpu;
	void		*meta;
	unsigned long	meta_pfn;
	unsigned long	pages_pfn;
	atomic_t	mapped;
	struct mutex	reader_lock;	/* see the lock order above */
	wait_queue_head_t waitq;
	struct irq_work	wake_work;
};

/*
 * A broken invariant: WARN once and stop this CPU buffer (writers drop, the data
 * already there stays readable). Evaluates to the condition.
 */
#define FTRING_WARN_ON(buf, cond)					\
	({								\
		struct rb_cpu *__b = (buf);				\
		bool __c = !!(cond);					\
		if (unlikely(__c)) {					\
			WRITE_ONCE(__b->disabled, 1);			\
			WARN_ONCE(1, "ftring: cpu%d: %s\n", __b->cpu, #cond); \
		}							\
		__c;							\
	})

static inline unsigned long rb_tail_read(struct rb_cpu *buf)
{
	return (unsigned long)local_read(&buf->tail);
}

/* true if @buf->tail was @old and is now @new */
static inline bool rb_tail_cmpxchg(struct rb_cpu *buf, unsigned long old, unsigned long new)
{
	return (unsigned long)local_cmpxchg(&buf->tail, old, new) == old;
}

static inline void *rb_page_data(struct rb_cpu *buf, u32 id)
{
	return (char *)buf->pages[id].addr + FTP_HDR_SIZE;
}

static inline u64 *rb_page_commit(struct rb_cpu *buf, u32 id)
{
	return (u64 *)((char *)buf->pages[id].addr + FTP_COMMIT_OFFSET);
}

static inline u64 *rb_page_ts(struct rb_cpu *buf, u32 id)
{
	return (u64 *)((char *)buf->pages[id].addr + FTP_TS_OFFSET);
}

/* Events in page @id since the writer last entered it. */
static inline u32 rb_page_entries(struct rb_cpu *buf, u32 id)
{
	return (u32)(local_read(&buf->pages[id].entries) - buf->pages[id].entries_base);
}

static inline u32 rb_page_len(struct rb_cpu *buf, u32 id)
{
	return (u32)(READ_ONCE(*rb_page_commit(buf, id)) & FTP_COMMIT_MASK);
}

static inline u64 rb_lost(struct rb_cpu *buf)
{
	return local_read(&buf->lost_full) + local_read(&buf->lost_busy) +
	       local_read(&buf->lost_too_big);
}

/**
 * rb_readable() - does @buf have data for a reader waiting on its watermark?
 * @buf: The buffer. Lockless, racy by design: used to decide whether to wake.
 *
 * Inline here, not in rb_read.c: the writer's commit (rb_write.h) asks it, and the
 * reader's swap uses the writer's publish, so neither half calls into the other's .c.
 */
static inline bool rb_readable(struct rb_cpu *buf)
{
	u64 full;

	if (!READ_ONCE(buf->watermark))
		return (u64)(local_read(&buf->entries) - local_read(&buf->overrun)) !=
		       READ_ONCE(buf->read);
	full = local_read(&buf->pages_done) - local_read(&buf->pages_gone) -
	       READ_ONCE(buf->pages_read);
	return full >= READ_ONCE(buf->watermark);
}

/* rb_write.c */
int rb_move_tail(struct rb_cpu *buf, unsigned long tail);
void rb_publish_slow(struct rb_cpu *buf);
void rb_drop(struct rb_cpu *buf, local_t *cause);

/* rb_read.c */
int rb_reader_swap(struct rb_cpu *buf);
int rb_reader_swap_remote(struct rb_cpu *buf);
void rb_update_meta(struct rb_cpu *buf);

/**
 * struct rb_place - memory a buffer is placed in instead of allocated pages.
 * @meta:	The meta page.
 * @pages:	nr_pages + 1 contiguous sub-buffers, id order.
 * @meta_pfn:	Page frame of @meta (for mmap).
 * @pages_pfn:	Page frame of @pages.
 * @keep:	The memory still holds what a previous boot left: not reset here, the
 *		owner resets the buffer once it may write over it.
 */
struct rb_place {
	void		*meta;
	void		*pages;
	unsigned long	meta_pfn;
	unsigned long	pages_pfn;
	bool		keep;
};

/* rb_alloc.c */
struct rb_cpu *rb_cpu_alloc(int cpu, u32 nr_pages);
struct rb_cpu *rb_cpu_alloc_at(int cpu, u32 nr_pages, const struct rb_place *place);
void rb_cpu_free(struct rb_cpu *buf);
int rb_pages_alloc(struct rb_cpu *buf, u32 nr_pages, struct rb_page **pages);
void rb_pages_free(struct rb_page *pages, u32 nr_pages);
void rb_cpu_reset(struct rb_cpu *buf);

#endif /* FTRING_RB_H */
