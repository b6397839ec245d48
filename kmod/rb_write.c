// SPDX-License-Identifier: GPL-2.0
/*
 * The writer slow path: leaving a full page, overwriting the
 * oldest page, publishing across pages, counting drops.
 *
 * Page switch (rb_move_tail), key steps labelled:
 *   E  close the page: cmpxchg tail (id, off) -> (id, FULL | off); the offset
 *      stays as the page's real end, no padding is written (readers stop at the
 *      commit length, so the tail of a page needs no filler, and the free bytes
 *      keep room for the missed-events count)
 *   F  ring full? (next page == head, unless the writer is on the reader page:
 *      then the ring holds no unread data) discard: drop. overwrite: push head
 *      one page with cmpxchg and count its events as overrun; but never into an
 *      unpublished page (the commit page, or any ring page while the commit page
 *      is the reader page): an outer writer is still writing there: drop
 *   H  prepare the next page (its count's base, the drops before it, its commit
 *      word), still outside it
 *   G  enter it: cmpxchg tail (id, FULL | off) -> (next, 0); the winner counts
 *      the page done and names the next page in the meta page
 * F..G run between rb_switch_enter() and rb_switch_exit(): a reader swapping from
 * another CPU changes links and head, and the two never overlap.
 * Any writer (outer or nested) may run every step, and no step waits for another
 * writer: a cmpxchg failure at E or G means another one got there first, and the
 * caller retries its reservation. So a writer interrupting a page switch helps it
 * along and never drops its event (only a switch that waits too long for a reader
 * swapping from another CPU does, rb_switch_enter()).
 *
 * What makes H safe to finish late: nesting is last in, first out, so a writer
 * interrupted in H resumes only after the interrupt has, perhaps, prepared and
 * entered the page, written to it, even left it. H reads its inputs, checks that
 * nobody has entered the page yet, and only then stores, so its stores are the
 * values the interrupt stored too (or, for @drops_mark, an older one: a drop is
 * then reported one page later, never lost). And nothing a writer does in the page
 * undoes them: counts grow from a base, the commit word is published by the
 * outermost writer only, after H is done; the page's time stamp is written by its
 * first event, not here. The interrupt cannot go round the ring and enter the
 * page a second time: the commit page (ours, or behind it) stops it at F.
 */
#include "rb_write.h"

/**
 * rb_drop() - count a dropped event and leave the writer section.
 * @buf:	The buffer.
 * @cause:	The per-cause counter (lost_full, lost_busy, lost_too_big).
 */
void rb_drop(struct rb_cpu *buf, local_t *cause)
{
	local_inc(cause);
	local_inc(&buf->drops);
	rb_end(buf);
}

/*
 * Names the writer's page in the meta page for a mapping reader (the page left
 * behind has no padding: the reader must know we are gone). Stored until it holds
 * what the tail says: an interrupt may have moved on between our load and store.
 */
static void rb_meta_writer(struct rb_cpu *buf)
{
	struct ftring_meta *meta = buf->meta;
	int loops = 0;
	u32 id;

	do {
		id = RB_TAIL_ID(rb_tail_read(buf));
		RB_TEST_POINT(buf);
		WRITE_ONCE(meta->writer, id);
		barrier();
	} while (RB_TAIL_ID(rb_tail_read(buf)) != id && ++loops < RB_MAX_RETRIES);
	FTRING_WARN_ON(buf, loops >= RB_MAX_RETRIES);
}

/*
 * A page switch begins: links, @head and @reader_id must not change under it. A
 * reader swapping from another CPU (rb_reader_swap_remote()) holds it off: each
 * side raises its flag, then looks at the other's, so at least one sees the
 * other; the reader then gives up and the writer waits for the reader's few
 * stores, interrupts off on its CPU. False if that never ends (a reader vCPU
 * descheduled by its hypervisor, say): the caller drops its event rather than
 * wait on, and so do the switches after it, at once, until that swap is over.
 * "Never" is RB_MAX_RETRIES turns and RB_REMOTE_WAIT_NS both (rb.h).
 */
static bool rb_switch_enter(struct rb_cpu *buf)
{
	unsigned int seq;
	int loops = 0;
	u64 start = 0;

	local_inc(&buf->switching);
	/* pairs with rb_reader_swap_remote(): our flag before we look at the reader's */
	smp_mb();
	/* acquire: once it is even, the reader's links and head are what we read */
	while (unlikely((seq = smp_load_acquire(&buf->remote_seq)) & 1)) {
		if (!loops)
			start = rb_wait_clock();
		if (seq == READ_ONCE(buf->remote_given_up) ||
		    (++loops > RB_MAX_RETRIES &&
		     (rb_wait_clock() - start > RB_REMOTE_WAIT_NS ||
		      loops > RB_REMOTE_MAX_TURNS))) {
			WRITE_ONCE(buf->remote_given_up, seq);
			local_dec(&buf->switching);
			return false;
		}
		cpu_relax();
	}
	return true;
}

static void rb_switch_exit(struct rb_cpu *buf)
{
	/* the switch's loads and stores before a remote reader may go ahead */
	smp_mb();
	local_dec(&buf->switching);
}

/* Steps F..G of rb_move_tail(), inside rb_switch_enter/exit. */
static int rb_switch_page(struct rb_cpu *buf, unsigned long tail)
{
	u32 id = RB_TAIL_ID(tail), next, head;
	unsigned long entries, drops;
	struct rb_page *pg;
	long gone;

	next = buf->pages[id].next;
	pg = &buf->pages[next];
	head = (u32)local_read(&buf->head);
	if (next == head && id != buf->reader_id) {		/*F*/
		/*
		 * The pages from the commit page to here are unpublished until
		 * the outer writer leaves: never overwrite one. If the commit
		 * page is the reader page, that is every ring page (upstream's
		 * commit_overrun check, ring_buffer.c rb_move_tail()).
		 */
		if (!buf->overwrite || next == buf->commit_id ||
		    buf->commit_id == buf->reader_id)
			return -ENOSPC;
		/*
		 * Count before the cmpxchg: once head has moved, a nested writer
		 * may enter the page and start its next lap. Until then nobody
		 * writes to it (entering it needs this very head move).
		 */
		gone = rb_page_entries(buf, next);
		RB_TEST_POINT(buf);
		if (local_cmpxchg(&buf->head, head, pg->next) == head) {
			RB_TEST_POINT(buf);
			local_add(gone, &buf->overrun);
			local_inc(&buf->pages_gone);
		}
		RB_TEST_POINT(buf);
	}
	/* the same value whoever stores it */
	buf->pages[id].real_end = RB_TAIL_OFF(tail);

	entries = local_read(&pg->entries);			/*H*/
	drops = local_read(&buf->drops);
	barrier();
	RB_TEST_POINT(buf);
	if (rb_tail_read(buf) != tail)
		return 0;	/* somebody entered it: what we read may be stale */
	RB_TEST_POINT(buf);
	pg->entries_base = entries;
	RB_TEST_POINT(buf);
	pg->drops_mark = drops;
	pg->flags = 0;
	RB_TEST_POINT(buf);
	WRITE_ONCE(*rb_page_commit(buf, next), 0);
	/* the page is prepared before any writer can reserve in it */
	barrier();
	RB_TEST_POINT(buf);
	if (!rb_tail_cmpxchg(buf, tail, RB_TAIL(next, 0)))
		return 0;					/*G*/
	RB_TEST_POINT(buf);
	/*
	 * A page the reader swapped out while we wrote on it is the reader's
	 * already: it must not count as a full ring page for the watermark, or a
	 * reader that always catches up with us would be woken for nothing.
	 */
	if (id != buf->reader_id)
		local_inc(&buf->pages_done);
	rb_meta_writer(buf);
	return 0;
}

/**
 * rb_move_tail() - move the writer to the next page (steps E..G above).
 * @buf:	The buffer, with the calling writer counted in @buf->nest.
 * @tail:	The tail value the caller found not to fit its event.
 *
 * Return: 0 to retry the reservation, or -ENOSPC when the event was dropped
 * (counted; the writer section has been left).
 */
int rb_move_tail(struct rb_cpu *buf, unsigned long tail)
{
	int ret;

	if (!(tail & RB_TAIL_FULL)) {
		if (!rb_tail_cmpxchg(buf, tail, tail | RB_TAIL_FULL))
			return 0;				/*E*/
		tail |= RB_TAIL_FULL;
		RB_TEST_POINT(buf);
	}
	if (!rb_switch_enter(buf)) {
		rb_drop(buf, &buf->lost_busy);
		return -ENOSPC;
	}
	ret = rb_switch_page(buf, tail);
	rb_switch_exit(buf);
	if (ret < 0)
		rb_drop(buf, &buf->lost_full);
	return ret;
}

/**
 * rb_publish_slow() - publish the commit words of every page the writers have
 * left since the last publish, then the current one.
 * @buf: The buffer; the caller is the outermost writer at its exit, or the
 *	 reader swap with no writer in progress.
 *
 * The commit page only follows the tail through the links, and those from the
 * commit page to the tail page never change under a writer (see rb.h), so the
 * walk ends at the tail page.
 */
void rb_publish_slow(struct rb_cpu *buf)
{
	unsigned long tail;
	u32 cid;
	int loops;

	for (loops = 0; loops < 2 * (int)buf->nr_pages + RB_MAX_RETRIES; loops++) {
		tail = rb_tail_read(buf);
		cid = buf->commit_id;
		if (RB_TAIL_ID(tail) == cid) {
			/* event bytes before the commit word that covers them */
			smp_wmb();
			WRITE_ONCE(*rb_page_commit(buf, cid),
				   RB_TAIL_OFF(tail) | (u64)buf->pages[cid].flags);
			barrier();
			if (rb_tail_read(buf) == tail)
				return;
			continue;
		}
		/* the writers left page cid: its bytes before its commit word */
		smp_wmb();
		WRITE_ONCE(*rb_page_commit(buf, cid),
			   buf->pages[cid].real_end | (u64)buf->pages[cid].flags);
		/* a remote reader that sees commit_id past the page sees its word */
		smp_wmb();
		WRITE_ONCE(buf->commit_id, buf->pages[cid].next);
	}
	FTRING_WARN_ON(buf, loops);
}
