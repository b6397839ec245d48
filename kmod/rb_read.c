// SPDX-License-Identifier: GPL-2.0
/*
 * The reader side: hand a page to user space (the GET_READER
 * swap), stamp missed events, refresh the meta page.
 *
 * Why the swap is simple and still safe against an overwriting writer: it runs
 * on the buffer's own CPU with interrupts off (dev.c sends an IPI; an offline
 * CPU has no writer at all), and it gives up with -EAGAIN if it interrupted a
 * writer (@nest != 0). So no task, softirq or hardirq writer is mid-reservation
 * while links, head and reader_id change. Only an NMI can still come in; it
 * sees @swapping set before we looked at @nest and drops its event. The swap
 * itself is O(1): four link updates, like upstream's reader-page splice, with
 * none of the tagged-pointer cmpxchg upstream needs for a cross-CPU reader.
 *
 * A reader behind a writer in discard mode needs no IPI: rb_reader_swap_remote()
 * swaps from its own CPU while page switches wait (rb_switch_enter()).
 */
#include "rb_write.h"

/* Marks the page handed out after a loss (RB_MISSED_EVENTS, RB_MISSED_STORED). */
static void rb_stamp_missed(struct rb_cpu *buf, u32 id, u64 missed, bool writer_on_it)
{
	if (!missed)
		return;
	if (writer_on_it) {
		/*
		 * The writer still appends to this page: the count cannot go after
		 * the data; the flag rides along in every commit word it publishes.
		 */
		buf->pages[id].flags |= (u32)FTP_MISSED_EVENTS;
		WRITE_ONCE(*rb_page_commit(buf, id),
			   READ_ONCE(*rb_page_commit(buf, id)) | FTP_MISSED_EVENTS);
		return;
	}
	ftp_page_set_missed(buf->pages[id].addr, buf->data_size + FTP_HDR_SIZE, missed);
}

/*
 * The rest of the reader page, if the writer published more of it: report it.
 * The writer is quiescent (the swap on its CPU) or off the page (remote: the page
 * is out of the ring, so it cannot come back). True if there was more.
 */
static bool rb_reader_report_rest(struct rb_cpu *buf)
{
	u32 r = buf->reader_id, len = rb_page_len(buf, r), entries;

	if (len <= buf->reader_read)
		return false;
	entries = rb_page_entries(buf, r);
	WRITE_ONCE(buf->read, buf->read + entries - buf->reader_counted);
	buf->reader_counted = entries;
	buf->reader_read = len;
	return true;
}

/*
 * The swap's link work, once nothing can move under it: the writer is quiescent
 * on its CPU and has published everything up to @tail, or (remote) it is held off
 * its page switches and has left and published the head page and the reader page.
 * The head page leaves the ring as the new reader page, the old one takes its
 * place. False if there is nothing to swap in. See rb_reader_swap().
 */
static bool rb_reader_splice(struct rb_cpu *buf, unsigned long tail)
{
	u32 r = buf->reader_id, head, tail_id = RB_TAIL_ID(tail), p, n;

	if (tail_id == r)
		return false;	/* the writer is on the reader page: nothing new */
	head = (u32)local_read(&buf->head);
	if (head == tail_id && !RB_TAIL_OFF(tail))
		return false;	/* empty */

	/* splice: prev(head) -> r -> next(head); head leaves the ring */
	p = buf->pages[head].prev;
	n = buf->pages[head].next;
	buf->pages[p].next = r;
	buf->pages[r].prev = p;
	buf->pages[r].next = n;
	buf->pages[n].prev = r;
	local_set(&buf->head, n);
	buf->reader_id = head;
	return true;
}

/*
 * The new reader page's missed-events stamp and counters, after rb_reader_splice()
 * and with @tail as it read it. The page is out of the ring: a writer reaches it
 * again only if it was on it already (the local swap's "writer_on_it").
 */
static void rb_reader_account(struct rb_cpu *buf, unsigned long tail)
{
	u32 id = buf->reader_id, tail_id = RB_TAIL_ID(tail);
	struct rb_page *pg = &buf->pages[id];
	u64 overrun, missed;

	overrun = local_read(&buf->overrun);
	/* drops since the page read before it: those before pages overwritten unread too */
	missed = pg->drops_mark - buf->last_drops + overrun - buf->last_overrun;
	buf->last_overrun = overrun;
	buf->last_drops = pg->drops_mark;
	rb_stamp_missed(buf, id, missed, id == tail_id);
	buf->lost_events = missed;

	buf->reader_counted = rb_page_entries(buf, id);
	WRITE_ONCE(buf->read, buf->read + buf->reader_counted);
	buf->reader_read = rb_page_len(buf, id);
	if (id != tail_id)
		WRITE_ONCE(buf->pages_read, buf->pages_read + 1);
}

/**
 * rb_reader_swap() - advance the reader (the core of GET_READER).
 * @buf: The buffer; called on its CPU with interrupts off, or with the CPU
 *	 offline, and with @buf->reader_lock held.
 *
 * If the reader page has data not yet reported, report it. Otherwise, if the
 * ring holds data, splice the head page out as the new reader page and put the
 * old reader page in its place.
 *
 * Return: 0 (the reader fields describe the reader page), or -EAGAIN when a
 * writer was interrupted (the caller retries).
 */
int rb_reader_swap(struct rb_cpu *buf)
{
	unsigned long tail;
	int ret = 0;

	WRITE_ONCE(buf->swapping, 1);
	/* an NMI writer after this point sees @swapping; one before it is done */
	barrier();
	if (local_read(&buf->nest)) {
		ret = -EAGAIN;
		goto out;
	}
	/* no writer in progress: whatever is reserved is written; publish it */
	rb_publish(buf);
	tail = rb_tail_read(buf);
	if (!rb_reader_report_rest(buf) && rb_reader_splice(buf, tail))
		rb_reader_account(buf, tail);
out:
	barrier();
	WRITE_ONCE(buf->swapping, 0);
	return ret;
}

/**
 * rb_reader_swap_remote() - the swap from another CPU, when it needs no IPI.
 * @buf: The buffer, with @buf->reader_lock held; called with interrupts off on
 *	 a CPU other than @buf's.
 *
 * Possible in discard mode once the writer has left and published both the
 * head page and the reader page. Page switches, the writer step that reads the
 * links, head and reader_id we change, wait while it runs (the handshake with
 * rb_switch_enter(): each side raises its flag, then looks at the other's, so at
 * least one of them sees the other); the commit walk reads only links we leave
 * alone (rb.h). So the writer stays on its page meanwhile, off both pages. It is
 * the case of a reader behind a busy writer, where an IPI per page would
 * interrupt the traced CPU and wait for it.
 *
 * Return: 0 (as rb_reader_swap()), 1 when only a swap on @buf's CPU will do
 * (overwrite mode, the writer on or publishing one of the two pages), or -EAGAIN
 * when a page switch is in progress (worth another try).
 */
int rb_reader_swap_remote(struct rb_cpu *buf)
{
	u32 r = buf->reader_id, head, tail_id, commit;
	bool spliced = false;
	unsigned long tail;
	int ret = 1;

	if (READ_ONCE(buf->overwrite))
		return 1;
	/* odd: we are in (reader_lock makes us the only one changing it) */
	WRITE_ONCE(buf->remote_seq, buf->remote_seq + 1);
	/* pairs with rb_switch_enter(): our flag before we look at the writer's */
	smp_mb();
	if (local_read(&buf->switching)) {
		ret = -EAGAIN;
		goto out;
	}
	/* a switch that has ended: its tail before what we read next */
	smp_rmb();
	tail = rb_tail_read(buf);
	tail_id = RB_TAIL_ID(tail);
	commit = READ_ONCE(buf->commit_id);
	/* pairs with rb_publish_slow(): a page's commit word before commit_id passes it */
	smp_rmb();
	head = (u32)local_read(&buf->head);
	if (tail_id == r || tail_id == head || commit == r || commit == head)
		goto out;
	/* only the links while the writer waits; the rest of the reader page needs none */
	if (rb_page_len(buf, r) <= buf->reader_read)
		spliced = rb_reader_splice(buf, tail);
	ret = 0;
out:
	/* even again: our stores before a waiting writer goes on */
	smp_store_release(&buf->remote_seq, buf->remote_seq + 1);
	if (ret)
		return ret;
	/* the writer may switch pages from here; what we look at next is out of its reach */
	RB_TEST_POINT(buf);
	/* not spliced: the reader page had more (tail_id != head: the ring had data) */
	if (spliced)
		rb_reader_account(buf, tail);
	else
		rb_reader_report_rest(buf);
	return 0;
}

/**
 * rb_update_meta() - copy the reader state and counters to the meta page.
 * @buf: The buffer, with @buf->reader_lock held; any CPU.
 */
void rb_update_meta(struct rb_cpu *buf)
{
	struct ftring_meta *meta = buf->meta;

	meta->meta_page_size = FTP_HDR_SIZE + buf->data_size;
	meta->meta_struct_len = sizeof(*meta);
	meta->subbuf_size = FTP_HDR_SIZE + buf->data_size;
	meta->nr_subbufs = buf->nr_pages + 1;
	meta->reader.lost_events = buf->lost_events;
	meta->reader.id = buf->reader_id;
	meta->reader.read = buf->reader_read;
	meta->flags = 0;
	/*
	 * Not meta->writer: only the writer stores it (rb_move_tail(), on its CPU) and
	 * reset. From here, on another CPU, a tail read before a page switch could be
	 * stored after it, and the stale id would stall a mapping reader until the next.
	 */
	meta->entries = local_read(&buf->entries);
	meta->overrun = local_read(&buf->overrun);
	meta->read = buf->read;
}
