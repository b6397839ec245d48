/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common/fxt_validate.h - check FXT records handed in by an untrusted writer.
 *
 * A user-space process may write FXT event records through the module (/dev/ftring/fxt);
 * the exporter later copies them into the archive it writes. The archive's string table,
 * thread table, provider and initialization records belong to the exporter, so a payload
 * may only hold self-contained event records (type 4): inline thread (pid and tid words),
 * inline or empty string refs, arguments of types 0..9 with inline names, exact sizes and
 * zero reserved bits and padding. Anything else is refused as a whole.
 *
 * Pure C, no libc, no allocation: the same function runs in the module's write() path and
 * in the exporter, which checks again (a file may come from an older module).
 */
#ifndef FTRING_FXT_VALIDATE_H
#define FTRING_FXT_VALIDATE_H

#include "fxt.h"

enum fxt_verr {
	FXT_V_OK		= 0,
	FXT_V_EMPTY		= -1,	/* no bytes, or not a multiple of 8 */
	FXT_V_SIZE		= -2,	/* record size 0 or past the end of the buffer */
	FXT_V_RECORD_TYPE	= -3,	/* not an event record */
	FXT_V_EVENT_TYPE	= -4,	/* event type above 10 */
	FXT_V_TABLE_REF		= -5,	/* indexed thread or string ref: tables are not ours */
	FXT_V_RESERVED		= -6,	/* a reserved bit or a padding byte is not zero */
	FXT_V_ARG		= -7,	/* argument type, size or name invalid */
	FXT_V_LENGTH		= -8,	/* the fields do not add up to the record size */
};

struct fxt_vresult {
	unsigned int	records;	/* records accepted before the error (all, on success) */
	unsigned int	offset;		/* byte offset of the failing record */
};

static inline __u64 fxt_v_word(const unsigned char *p)
{
	__u64 w;

	__builtin_memcpy(&w, p, sizeof(w));
	return w;	/* FXT words are in host order; the module and exporter share it */
}

/* An inline or empty string ref: checks its length and zero padding, returns its words. */
static inline int fxt_v_str(const unsigned char *rec, unsigned int words, unsigned int *pos,
			    __u16 ref, int allow_empty)
{
	unsigned int len, n, i;

	if (!ref)
		return allow_empty ? 0 : FXT_V_ARG;
	if (!fxt_strref_is_inline(ref))
		return FXT_V_TABLE_REF;
	len = ref & 0x7fff;
	if (!len || len > FXT_MAX_STRING_LEN)
		return FXT_V_ARG;
	n = fxt_stream_words(len);
	if (*pos + n > words)
		return FXT_V_LENGTH;
	for (i = len; i < n * 8; i++)
		if (rec[*pos * 8 + i])
			return FXT_V_RESERVED;
	*pos += n;
	return 0;
}

static inline int fxt_v_args(const unsigned char *rec, unsigned int words, unsigned int *pos,
			     unsigned int nargs)
{
	static const unsigned char value_words[10] = { 0, 0, 0, 1, 1, 1, 0, 1, 1, 0 };

	while (nargs--) {
		__u64 h;
		unsigned int type, size, start = *pos;
		int r;

		if (*pos >= words)
			return FXT_V_LENGTH;
		h = fxt_v_word(rec + *pos * 8);
		type = (unsigned int)fxt_get(h, 0, 4);
		size = (unsigned int)fxt_get(h, 4, 12);
		if (type > FXT_ARG_BOOL || !size || start + size > words)
			return FXT_V_ARG;
		switch (type) {
		case FXT_ARG_I32:
		case FXT_ARG_U32:
			break;
		case FXT_ARG_STRING:
			if (fxt_get(h, 48, 16))
				return FXT_V_RESERVED;
			break;
		case FXT_ARG_BOOL:
			if (fxt_get(h, 33, 31))
				return FXT_V_RESERVED;
			break;
		default:
			if (fxt_get(h, 32, 32))
				return FXT_V_RESERVED;
		}
		*pos += 1;
		r = fxt_v_str(rec, start + size, pos, (__u16)fxt_get(h, 16, 16), 0);
		if (r)
			return r;
		if (type == FXT_ARG_STRING) {
			r = fxt_v_str(rec, start + size, pos, (__u16)fxt_get(h, 32, 16), 1);
			if (r)
				return r;
		}
		*pos += value_words[type];
		if (*pos != start + size)
			return FXT_V_ARG;
	}
	return 0;
}

static inline int fxt_v_event(const unsigned char *rec, unsigned int words)
{
	__u64 h = fxt_v_word(rec);
	unsigned int evtype = (unsigned int)fxt_get(h, 16, 4);
	unsigned int pos = 4;	/* header, timestamp, pid, tid */
	int r;

	if (evtype > FXT_EV_MAX)
		return FXT_V_EVENT_TYPE;
	if (fxt_get(h, 24, 8))
		return FXT_V_TABLE_REF;
	if (words < pos)
		return FXT_V_LENGTH;
	r = fxt_v_str(rec, words, &pos, (__u16)fxt_get(h, 32, 16), 1);
	if (!r)
		r = fxt_v_str(rec, words, &pos, (__u16)fxt_get(h, 48, 16), 1);
	if (!r)
		r = fxt_v_args(rec, words, &pos, (unsigned int)fxt_get(h, 20, 4));
	if (r)
		return r;
	/* instant, duration begin and end have no type-specific word */
	if (evtype != FXT_EV_INSTANT && evtype != FXT_EV_DURATION_BEGIN &&
	    evtype != FXT_EV_DURATION_END)
		pos++;
	return pos == words ? 0 : FXT_V_LENGTH;
}

/**
 * fxt_validate() - check that @buf holds only self-contained FXT event records.
 * @buf: records, 8-byte words in host order
 * @len: bytes in @buf
 * @res: if not NULL, records accepted and offset of the first bad one
 *
 * Return: FXT_V_OK (0) or a negative enum fxt_verr code.
 */
static inline int fxt_validate(const void *buf, unsigned long len, struct fxt_vresult *res)
{
	const unsigned char *p = buf;
	unsigned long off = 0;
	unsigned int n = 0;
	int r = 0;

	if (!len || (len & 7))
		r = FXT_V_EMPTY;
	while (!r && off < len) {
		__u64 h = fxt_v_word(p + off);
		unsigned int words = fxt_hdr_words(h);

		if (!words || words > (len - off) / 8)
			r = FXT_V_SIZE;
		else if (fxt_hdr_type(h) != FXT_REC_EVENT)
			r = FXT_V_RECORD_TYPE;
		else
			r = fxt_v_event(p + off, words);
		if (!r) {
			off += (unsigned long)words * 8;
			n++;
		}
	}
	if (res) {
		res->records = n;
		res->offset = (unsigned int)off;
	}
	return r;
}

#endif /* FTRING_FXT_VALIDATE_H */
