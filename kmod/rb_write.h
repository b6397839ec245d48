/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writer fast path: reserve, fill, commit. No locks, no
 * allocation; correct with task, softirq, hardirq and NMI writers nesting on one
 * CPU. The caller has preemption disabled and stays on the CPU of @buf.
 *
 * Reservation (rb_reserve), key steps labelled:
 *   R  recursion guard: one writer per context level at a time (see below)
 *   A  nest++ (we are the outermost writer iff it becomes 1)
 *   B  read tail, then (outermost only) nested_seq/stamp_seq/last_ts, then clock
 *   C  cmpxchg tail -> tail + length; failure = a nested writer moved it: retry
 *   D  outermost: last_ts = ts, then stamp_seq = the nested_seq read at B
 *
 * Time deltas. An event's delta is relative to the previous event in the page.
 * The outermost writer knows that time (@last_ts) only if no nested writer wrote
 * in between: a nested writer bumps nested_seq before its B, so
 *  - nested between B and C: tail moved, C fails, we retry;
 *  - nested before B: nested_seq != stamp_seq at B, we write an absolute stamp;
 *  - nested after C (or during D): nested_seq != the value D stores, so the next
 *    outermost writer writes an absolute stamp.
 * Nested writers always write an absolute TIME_STAMP (8 bytes; rare). The first
 * event of a page has delta 0 and the page's time_stamp is its time.
 *
 * Commit (rb_commit): events are written in place; only the outermost writer
 * publishes the page commit word, after smp_wmb(), and re-checks @reserves after
 * leaving so a writer that interrupted its exit is never left unpublished.
 *
 * Recursion (R): a writer that starts while another of the same context level is
 * in progress on the CPU did not interrupt it: something the first one called
 * (a probe's helper, a traced function, a WARN) traces again. One such level is
 * let through, as upstream's trace_recursive_lock() does for the moment an
 * interrupt runs before the preempt count says so; a second is dropped (counted
 * in lost_busy) instead of recursing until the stack overflows.
 */
#ifndef FTRING_RB_WRITE_H
#define FTRING_RB_WRITE_H

#include "rb.h"

/*
 * The time now on FTRING_CLOCK_* @clock. The default, "local", is tested first:
 * one compare instead of three on every event (tests/bench/insn_profile).
 */
static __always_inline u64 rb_clock_read(u8 clock)
{
	/* what ftrace's "local" clock reads, so the two can be compared */
	if (likely(clock == FTRING_CLOCK_LOCAL))
		return trace_clock_local();
	switch (clock) {
	case FTRING_CLOCK_GLOBAL:
		return trace_clock_global();
	case FTRING_CLOCK_MONO:
		return ktime_get_mono_fast_ns();
	default:
		return ktime_get_boot_fast_ns();
	}
}

static __always_inline u64 rb_clock(struct rb_cpu *buf)
{
	return rb_clock_read(buf->clock);
}

/* @ctx: bits 0-3 a level's writer, 4 the transition one, 5-6 the level it is at */
#define RB_CTX_LEVELS		0xfU
#define RB_CTX_TRANSITION	4
#define RB_CTX_TLEVEL_SHIFT	5

/* Step R: false if this context already has a writer (and a transition one). */
static __always_inline bool rb_recursion_enter(struct rb_cpu *buf)
{
	unsigned int ctx = READ_ONCE(buf->ctx), bit = RB_CTX_LEVEL();

	if (unlikely(ctx & BIT(bit))) {
		if (ctx & BIT(RB_CTX_TRANSITION))
			return false;
		/* its level says whose exit clears it (an interrupt may come on top) */
		ctx |= BIT(RB_CTX_TRANSITION) | bit << RB_CTX_TLEVEL_SHIFT;
	} else {
		ctx |= BIT(bit);
	}
	/* an interrupt between the load and the store puts back what it found */
	WRITE_ONCE(buf->ctx, ctx);
	barrier();
	return true;
}

/*
 * Leaves step R: the innermost writer is at the highest level set, and it is the
 * transition one if the transition is at that level.
 */
static __always_inline void rb_recursion_exit(struct rb_cpu *buf)
{
	unsigned int ctx = READ_ONCE(buf->ctx), hi = fls(ctx & RB_CTX_LEVELS) - 1;

	barrier();
	if (unlikely(ctx & BIT(RB_CTX_TRANSITION)) && hi == ctx >> RB_CTX_TLEVEL_SHIFT)
		ctx &= RB_CTX_LEVELS;
	else
		ctx &= ~BIT(hi);
	WRITE_ONCE(buf->ctx, ctx);
}

/* Publishes what the writers have written: called with every writer done. */
static __always_inline void rb_publish(struct rb_cpu *buf)
{
	unsigned long tail = rb_tail_read(buf);
	u32 id = RB_TAIL_ID(tail);

	if (likely(id == buf->commit_id)) {
		/* event bytes before the commit word that covers them */
		smp_wmb();
		WRITE_ONCE(*rb_page_commit(buf, id),
			   RB_TAIL_OFF(tail) | (u64)buf->pages[id].flags);
		/* a writer that interrupted us moved the tail: go round again */
		barrier();
		if (likely(rb_tail_read(buf) == tail))
			return;
	}
	rb_publish_slow(buf);
}

/*
 * The exit half of every reservation, successful or not. Only the outermost
 * writer publishes; if a writer slipped in after it left (nest back to 0 but
 * @reserves moved), it publishes again. Bounded: each round needs a new writer.
 */
static __always_inline void rb_end(struct rb_cpu *buf)
{
	unsigned long reserves;
	int loops = 0;

again:
	reserves = (unsigned long)local_read(&buf->reserves);
	barrier();
	if (local_read(&buf->nest) == 1)
		rb_publish(buf);
	local_dec(&buf->nest);
	barrier();
	if (unlikely((unsigned long)local_read(&buf->reserves) != reserves) &&
	    !local_read(&buf->nest)) {
		if (FTRING_WARN_ON(buf, ++loops > RB_MAX_RETRIES)) {
			rb_recursion_exit(buf);
			return;
		}
		local_inc(&buf->nest);
		goto again;
	}
	rb_recursion_exit(buf);
	if (unlikely(READ_ONCE(buf->waiters)) && rb_readable(buf))
		irq_work_queue(&buf->wake_work);
}

/**
 * rb_reserve() - reserve room for a @payload-byte event on @buf.
 * @buf:	The current CPU's buffer (preemption off).
 * @payload:	Record size (common header included), at most rb_max_payload().
 *
 * Return: where to write the record, to be followed by rb_commit(@buf); or NULL
 * (dropped and counted; nothing is held and rb_commit() must not be called).
 */
static __always_inline void *rb_reserve(struct rb_cpu *buf, u32 payload)
{
	u32 len = ftp_data_len(payload);
	unsigned long tail, seq = 0;
	u64 ts, delta;
	u32 off, extra, id;
	bool outer;
	char *ev;
	int loops;

	if (unlikely(!rb_recursion_enter(buf))) {		/*R*/
		local_inc(&buf->lost_busy);
		local_inc(&buf->drops);
		return NULL;
	}
	outer = local_inc_return(&buf->nest) == 1;		/*A*/
	local_inc(&buf->reserves);
	if (!outer)
		local_inc(&buf->nested_seq);
	/* an NMI landing in a reader swap must not touch the ring */
	barrier();
	if (unlikely(READ_ONCE(buf->swapping) || READ_ONCE(buf->disabled))) {
		rb_drop(buf, &buf->lost_busy);
		return NULL;
	}
	if (unlikely(len + FTP_EXTEND_LEN > buf->data_size)) {
		rb_drop(buf, &buf->lost_too_big);
		return NULL;
	}

	for (loops = 0; loops < RB_MAX_RETRIES; loops++) {
		tail = rb_tail_read(buf);			/*B*/
		off = RB_TAIL_OFF(tail);
		extra = 0;
		delta = 0;
		if (outer) {
			seq = local_read(&buf->nested_seq);
			barrier();
		}
		ts = rb_clock(buf);
		if (off && outer && seq == buf->stamp_seq) {
			delta = ts - buf->last_ts;
			if (unlikely(delta & ~(u64)FTP_DELTA_MASK)) {
				/* negative (clock went back) or >= 2^27 */
				extra = FTP_EXTEND_LEN;
			}
		} else if (off) {
			extra = FTP_EXTEND_LEN;	/* absolute TIME_STAMP */
		}
		if (unlikely((tail & RB_TAIL_FULL) ||
			     off + extra + len > buf->data_size)) {
			int ret = rb_move_tail(buf, tail);

			if (ret < 0)
				return NULL;	/* dropped and counted */
			continue;
		}
		if (!rb_tail_cmpxchg(buf, tail, tail + extra + len))
			continue;				/*C*/

		id = RB_TAIL_ID(tail);
		ev = (char *)rb_page_data(buf, id) + off;
		if (!off) {
			WRITE_ONCE(*rb_page_ts(buf, id), ts);
		} else if (extra) {
			if (outer && seq == buf->stamp_seq && (s64)delta > 0)
				ftp_put_extend(ev, delta);
			else
				ftp_put_stamp(ev, ts);
			ev += extra;
		}
		local_inc(&buf->pages[id].entries);
		local_inc(&buf->entries);
		local_add(extra + len, &buf->bytes);
		if (outer) {
			buf->last_ts = ts;			/*D*/
			barrier();
			buf->stamp_seq = seq;
		}
		return ftp_put_data(ev, payload, extra ? 0 : (u32)delta);
	}
	FTRING_WARN_ON(buf, loops >= RB_MAX_RETRIES);
	rb_drop(buf, &buf->lost_busy);
	return NULL;
}

/**
 * rb_commit() - make the event from the last successful rb_reserve() visible.
 * @buf: The buffer passed to rb_reserve().
 */
static __always_inline void rb_commit(struct rb_cpu *buf)
{
	rb_end(buf);
}

#endif /* FTRING_RB_WRITE_H */
