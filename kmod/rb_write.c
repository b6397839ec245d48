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
 *   G  claim the next page: cmpxchg tail (id, FULL | off) -> (next, INIT)
 *   H  reset the page (it is ours alone: writers seeing INIT drop), then
 *      tail = (next, 0), then the meta page's writer = next
 * Any writer (outer or nested) may run E..H; a cmpxchg failure at E or G means
 * another one got there first, and the caller retries its reservation. A writer
 * interrupting H (only an interrupt nested in the winner can) drops its event:
 * spinning would wait for the very context it interrupted.
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
	local_inc(&buf->lost_pending);
	rb_end(buf);
}

/**
 * rb_move_tail() - move the writer to the next page (steps E..H above).
 * @buf:	The buffer, with the calling writer counted in @buf->nest.
 * @tail:	The tail value the caller found not to fit its event.
 *
 * Return: 0 to retry the reservation, or -ENOSPC/-EBUSY when the event was
 * dropped (counted; the writer section has been left).
 */
int rb_move_tail(struct rb_cpu *buf, unsigned long tail)
{
	u32 id = RB_TAIL_ID(tail), next, head;
	struct rb_page *pg;
	unsigned long lost;
	long gone;

	if (tail & RB_TAIL_INIT) {
		rb_drop(buf, &buf->lost_busy);
		return -EBUSY;
	}
	if (!(tail & RB_TAIL_FULL)) {
		if (!rb_tail_cmpxchg(buf, tail, tail | RB_TAIL_FULL))
			return 0;				/*E*/
		tail |= RB_TAIL_FULL;
	}

	next = buf->pages[id].next;
	head = (u32)local_read(&buf->head);
	if (next == head && id != buf->reader_id) {		/*F*/
		/*
		 * The pages from the commit page to here are unpublished until
		 * the outer writer leaves: never overwrite one. If the commit
		 * page is the reader page, that is every ring page (upstream's
		 * commit_overrun check, ring_buffer.c rb_move_tail()).
		 */
		if (!buf->overwrite || next == buf->commit_id ||
		    buf->commit_id == buf->reader_id) {
			rb_drop(buf, &buf->lost_full);
			return -ENOSPC;
		}
		/*
		 * Count before the cmpxchg: once head has moved, a nested writer
		 * may enter the page and reset its count. Until then nobody
		 * writes to it (entering it needs this very head move).
		 */
		gone = local_read(&buf->pages[next].entries);
		if (local_cmpxchg(&buf->head, head, buf->pages[next].next) == head) {
			local_add(gone, &buf->overrun);
			local_inc(&buf->pages_gone);
		}
	}
	/* the same value whoever stores it */
	buf->pages[id].real_end = RB_TAIL_OFF(tail);
	barrier();
	if (!rb_tail_cmpxchg(buf, tail, RB_TAIL(next, RB_TAIL_INIT)))
		return 0;					/*G*/

	pg = &buf->pages[next];					/*H*/
	local_set(&pg->entries, 0);
	pg->flags = 0;
	pg->real_end = 0;
	lost = local_read(&buf->lost_pending);
	local_sub(lost, &buf->lost_pending);
	/* drops before an overwritten, never read page stay reported */
	pg->lost += lost;
	WRITE_ONCE(*rb_page_commit(buf, next), 0);
	WRITE_ONCE(*rb_page_ts(buf, next), 0);
	/*
	 * A page the reader swapped out while we wrote on it is the reader's
	 * already: it must not count as a full ring page for the watermark, or a
	 * reader that always catches up with us would be woken for nothing.
	 */
	if (id != buf->reader_id)
		local_inc(&buf->pages_done);
	/* the reset is done before any writer can reserve in the page */
	barrier();
	local_set(&buf->tail, RB_TAIL(next, 0));
	/* the page left behind has no padding: tell a mapping reader we are gone */
	WRITE_ONCE(((struct ftring_meta *)buf->meta)->writer, next);
	return 0;
}

/**
 * rb_publish_slow() - publish the commit words of every page the writers have
 * left since the last publish, then the current one.
 * @buf: The buffer; the caller is the outermost writer at its exit, or the
 *	 reader swap with no writer in progress.
 *
 * The commit page only follows the tail through the links, which do not change
 * under a writer (see rb.h), so the walk ends at the tail page.
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
			if (FTRING_WARN_ON(buf, tail & RB_TAIL_INIT))
				return;
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
		buf->commit_id = buf->pages[cid].next;
	}
	FTRING_WARN_ON(buf, loops);
}
