/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ftrace ring-buffer page (sub-buffer) format: the bytes trace_pipe_raw hands out.
 *
 * One encoder/decoder shared by the ftring module (writer), recorderd (which only
 * re-bases partly read pages) and the tests (which cross-check it against
 * libtraceevent's kbuffer). Host endianness, 64-bit long, 4-byte event alignment,
 * as on x86-64. Facts: kernel/trace/ring_buffer.c (struct buffer_data_page,
 * rb_calculate_event_length, rb_update_event), libtraceevent kbuffer-parse.c,
 * ../shared/docs/formats.md section B.
 *
 * Builds in the kernel and in user space: only <linux/types.h>, no libc calls.
 */
#ifndef FTRACE_PAGE_H
#define FTRACE_PAGE_H

#include <linux/types.h>
#include <linux/const.h>

/* struct buffer_data_page: u64 time_stamp, local_t commit, data[] */
#define FTP_TS_OFFSET		0
#define FTP_COMMIT_OFFSET	8
#define FTP_HDR_SIZE		16

/* commit word: low 27 bits are the data length (kbuffer masks with this) */
#define FTP_COMMIT_MASK		((1U << 27) - 1)
#define FTP_MISSED_EVENTS	_BITULL(31)	/* events lost before this page */
#define FTP_MISSED_STORED	_BITULL(30)	/* lost count stored at data + len */

/* struct ring_buffer_event: type_len:5, time_delta:27, array[] */
#define FTP_TYPE_DATA_MAX	28
#define FTP_TYPE_PADDING	29
#define FTP_TYPE_TIME_EXTEND	30
#define FTP_TYPE_TIME_STAMP	31
#define FTP_DELTA_BITS		27
#define FTP_DELTA_MASK		((1U << FTP_DELTA_BITS) - 1)
#define FTP_MAX_SMALL_DATA	(4 * FTP_TYPE_DATA_MAX)	/* RB_MAX_SMALL_DATA */
#define FTP_EXTEND_LEN		8	/* TIME_EXTEND and TIME_STAMP events */
#define FTP_MIN_PADDING		8	/* smaller tails are left out of commit */

/* The common header every trace event record starts with (struct trace_entry). */
struct ftp_entry {
	__u16	type;		/* common_type: the event ID in the format files */
	__u8	flags;		/* common_flags (TRACE_FLAG_*) */
	__u8	preempt_count;	/* common_preempt_count */
	__s32	pid;		/* common_pid */
};

static inline __u32 ftp_word(__u32 type_len, __u32 delta)
{
	return type_len | (delta << 5);
}

static inline __u32 ftp_word_type(__u32 w)
{
	return w & 31;
}

static inline __u32 ftp_word_delta(__u32 w)
{
	return w >> 5;
}

static inline __u32 ftp_align4(__u32 n)
{
	return (n + 3) & ~3U;
}

/* Bytes a data event with @payload bytes takes in a page (rb_calculate_event_length). */
static inline __u32 ftp_data_len(__u32 payload)
{
	__u32 len = ftp_align4(payload ? payload : 1);

	return len > FTP_MAX_SMALL_DATA ? len + 8 : len + 4;
}

/* Largest payload that fits in an empty page of @page_size bytes. */
static inline __u32 ftp_max_payload(__u32 page_size)
{
	return page_size - FTP_HDR_SIZE - 8;
}

/*
 * Writes the header of a data event of @payload bytes with @delta (< 2^27) at @ev;
 * returns where the payload goes. The caller has checked ftp_data_len() fits.
 */
static inline void *ftp_put_data(void *ev, __u32 payload, __u32 delta)
{
	__u32 *w = (__u32 *)ev;
	__u32 len = ftp_align4(payload ? payload : 1);

	if (len > FTP_MAX_SMALL_DATA) {
		w[0] = ftp_word(0, delta);
		w[1] = len + 4;		/* total length - 4, as kbuffer expects */
		return &w[2];
	}
	w[0] = ftp_word(len / 4, delta);
	return &w[1];
}

/* TIME_EXTEND carrying a @delta of 2^27 or more; the next event then has delta 0. */
static inline void ftp_put_extend(void *ev, __u64 delta)
{
	__u32 *w = (__u32 *)ev;

	w[0] = ftp_word(FTP_TYPE_TIME_EXTEND, (__u32)(delta & FTP_DELTA_MASK));
	w[1] = (__u32)(delta >> FTP_DELTA_BITS);
}

/* TIME_STAMP: absolute time (low 59 bits; readers keep the top 5 of the page's). */
static inline void ftp_put_stamp(void *ev, __u64 ts)
{
	__u32 *w = (__u32 *)ev;

	w[0] = ftp_word(FTP_TYPE_TIME_STAMP, (__u32)(ts & FTP_DELTA_MASK));
	w[1] = (__u32)((ts >> FTP_DELTA_BITS) & 0xffffffffU);
}

/*
 * PADDING of @len (>= 8) bytes: a discarded event or the unused tail of a page.
 * Its delta is 1, never 0: a zero delta means "null padding to the end of the page",
 * whose length word readers must not trust. kbuffer adds the delta to the clock, so
 * the writer subtracts it from the next delta or accepts the 1-tick skew.
 */
static inline void ftp_put_padding(void *ev, __u32 len)
{
	__u32 *w = (__u32 *)ev;

	w[0] = ftp_word(FTP_TYPE_PADDING, 1);
	w[1] = len - 4;
}

/* Page header accessors; @page points at the start of a sub-buffer. */
static inline __u64 ftp_page_ts(const void *page)
{
	return *(const __u64 *)((const char *)page + FTP_TS_OFFSET);
}

static inline __u64 ftp_page_commit(const void *page)
{
	return *(const __u64 *)((const char *)page + FTP_COMMIT_OFFSET);
}

static inline __u32 ftp_page_len(const void *page)
{
	return (__u32)(ftp_page_commit(page) & FTP_COMMIT_MASK);
}

static inline const char *ftp_page_data(const void *page)
{
	return (const char *)page + FTP_HDR_SIZE;
}

/*
 * Marks @page (data length already in its commit word) as following a loss of
 * @missed events. The count is stored only if 8 bytes are free after the data.
 */
static inline void ftp_page_set_missed(void *page, __u32 page_size, __u64 missed)
{
	__u64 *commit = (__u64 *)((char *)page + FTP_COMMIT_OFFSET);
	__u32 len = (__u32)(*commit & FTP_COMMIT_MASK);

	*commit |= FTP_MISSED_EVENTS;
	if (FTP_HDR_SIZE + len + 8 <= page_size) {
		/* data + len is only 4-byte aligned */
		__builtin_memcpy((char *)page + FTP_HDR_SIZE + len, &missed, sizeof(missed));
		*commit |= FTP_MISSED_STORED;
	}
}

/* One decoded event (ftp_next). */
struct ftp_event {
	__u32		type_len;	/* 0..31 */
	__u32		offset;		/* of the event header, from the data start */
	__u32		len;		/* whole event, header included */
	__u64		ts;		/* clock after this event's delta/extend/stamp */
	const void	*payload;	/* data events: the record (struct ftp_entry first) */
	__u32		payload_len;	/* data events: record length, 4-byte rounded */
};

/*
 * Decodes the event at @off of the data area @data (@size valid bytes), updating
 * @ts the way kbuffer does. Returns the offset of the next event, or 0 on a
 * malformed event (length past @size or not a multiple of 4, null padding inside
 * the data).
 */
static inline __u32 ftp_next(const char *data, __u32 size, __u32 off, __u64 *ts,
			     struct ftp_event *ev)
{
	const char *at = data + off;
	__u32 w[2] = { 0, 0 }, type, len;

	if (off + 4 > size)
		return 0;
	/* Unaligned-safe loads: a hostile page may put an event anywhere. */
	__builtin_memcpy(&w[0], at, 4);
	if (off + 8 <= size)
		__builtin_memcpy(&w[1], at + 4, 4);
	type = ftp_word_type(w[0]);
	ev->type_len = type;
	ev->offset = off;
	ev->payload = NULL;
	ev->payload_len = 0;
	switch (type) {
	case FTP_TYPE_PADDING:
		/* size - off - 4 first: 4 + w[1] must not wrap to the same offset */
		if (!ftp_word_delta(w[0]) || off + 8 > size || (w[1] & 3) ||
		    w[1] > size - off - 4)
			return 0;
		len = 4 + w[1];
		*ts += ftp_word_delta(w[0]);
		break;
	case FTP_TYPE_TIME_EXTEND:
		if (off + 8 > size)
			return 0;
		len = FTP_EXTEND_LEN;
		*ts += ((__u64)w[1] << FTP_DELTA_BITS) + ftp_word_delta(w[0]);
		break;
	case FTP_TYPE_TIME_STAMP:
		if (off + 8 > size)
			return 0;
		len = FTP_EXTEND_LEN;
		*ts = (*ts & (0x1fULL << 59)) |
		      ((__u64)w[1] << FTP_DELTA_BITS) | ftp_word_delta(w[0]);
		break;
	case 0:
		if (off + 8 > size || w[1] < 4 || (w[1] & 3) || w[1] > size - off - 4)
			return 0;
		len = 4 + w[1];
		ev->payload = at + 8;
		ev->payload_len = ftp_align4(w[1] - 4);
		*ts += ftp_word_delta(w[0]);
		break;
	default:
		len = 4 + 4 * type;
		ev->payload = at + 4;
		ev->payload_len = 4 * type;
		*ts += ftp_word_delta(w[0]);
		break;
	}
	if (len > size - off)	/* size >= off + 4 here; off + len may wrap */
		return 0;
	ev->len = len;
	ev->ts = *ts;
	return off + len;
}

/*
 * Clock value in effect just before the event at @off of @page (the page's
 * time_stamp plus every delta before @off); -1 if the page is malformed before @off.
 * Used to cut a page at an event boundary without changing any event's time.
 */
static inline __s64 ftp_ts_before(const void *page, __u32 off)
{
	const char *data = ftp_page_data(page);
	__u32 size = ftp_page_len(page), pos = 0;
	__u64 ts = ftp_page_ts(page);
	struct ftp_event ev;

	while (pos < off) {
		pos = ftp_next(data, size, pos, &ts, &ev);
		if (!pos || pos > off)
			return -1;
	}
	return (__s64)ts;
}

#endif /* FTRACE_PAGE_H */
